//! GitHub Copilot CLI: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: GitHub Copilot CLI's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod reader;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::{files, is_file, subdirs};
use crate::config::{Env, HarvestConfig};

/// GitHub Copilot CLI: `~/.copilot`, its sessions in
/// `session-state/<session>/events.jsonl` (before 1.0,
/// `history-session-state/<session>.json`, one JSON document).
pub struct CopilotCli;

impl Program for CopilotCli {
    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        cfg.copilot_dir
            .clone()
            .or(None)
            .or_else(|| env.home.as_ref().map(|h| h.join(".copilot")))
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = subdirs(&home.join("session-state"))
            .into_iter()
            .map(|session| session.join("events.jsonl"))
            .filter(|events| is_file(events))
            .collect();
        out.extend(files(&home.join("history-session-state"), "", ".json"));
        out
    }

    fn ended_in_file(&self, path: &Path) -> bool {
        reader::shut_down(path)
    }
}
