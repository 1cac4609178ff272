//! opencode: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: opencode's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod reader;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::is_file;
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::Opencode.instructions_name();

/// opencode: `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode`, its
/// sessions in its database `opencode.db`.
pub struct Opencode;

impl Program for Opencode {
    fn foreign_export(&self, first: &str, head: &[&str]) -> Option<crate::transcript::Foreign> {
        reader::is_markdown_export(first, head).then_some(reader::MARKDOWN_EXPORT)
    }

    fn log_format(&self) -> Option<super::SessionLog> {
        Some(super::SessionLog {
            is_log: reader::is_log,
            read: |lines, keep| reader::read(lines, keep),
        })
    }

    fn read_document(
        &self,
        doc: &serde_json::Value,
        keep: usize,
    ) -> Option<crate::transcript::Transcript> {
        reader::is_export(doc).then(|| reader::read_export(doc, keep))
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        cfg.dirs
            .get(crate::harness::Harness::Opencode)
            .cloned()
            .or_else(|| env.xdg_data_home.as_ref().map(|d| d.join("opencode")))
            .or_else(|| env.home.as_ref().map(|h| h.join(".local/share/opencode")))
    }

    fn session_databases(&self, home: &Path, default_agent: &str) -> Vec<(PathBuf, String)> {
        let db = home.join("opencode.db");
        match is_file(&db) {
            true => vec![(db, default_agent.to_string())],
            false => Vec::new(),
        }
    }
}
