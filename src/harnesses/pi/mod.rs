//! pi: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: pi's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod reader;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::{jsonl, subdirs};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::Pi.instructions_name();

/// pi: `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, its sessions in
/// `sessions/<cwd-slug>/*.jsonl`.
pub struct Pi;

impl Program for Pi {
    fn log_format(&self) -> Option<super::SessionLog> {
        Some(super::SessionLog {
            is_log: reader::is_log,
            read: |lines, keep| reader::read(lines, keep),
        })
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::Pi),
            env.harness_homes.get(&crate::harness::Harness::Pi),
            env,
            ".pi/agent",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("sessions"))
            .iter()
            .flat_map(|dir| jsonl(dir, ""))
            .collect()
    }
}
