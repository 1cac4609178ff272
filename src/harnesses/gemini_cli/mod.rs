//! Gemini CLI: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Gemini CLI's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod reader;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::{files, jsonl, subdirs};
use crate::config::{Env, HarvestConfig};

/// Gemini CLI: `~/.gemini`, its chats in `tmp/<project>/chats/session-*.jsonl`
/// (before 0.61, `session-*.json`, one JSON document a session).
pub struct GeminiCli;

impl Program for GeminiCli {
    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        cfg.gemini_dir
            .clone()
            .or(None)
            .or_else(|| env.home.as_ref().map(|h| h.join(".gemini")))
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for project in subdirs(&home.join("tmp")) {
            let chats = project.join("chats");
            out.extend(jsonl(&chats, "session-"));
            out.extend(files(&chats, "session-", ".json"));
        }
        out
    }
}
