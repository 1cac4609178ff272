//! Codex: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Codex's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod mcp;
pub mod reader;
mod user;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::{jsonl, markdown, subdirs};
use super::{MemoryPlace, OwnMemory};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::Codex.instructions_name();

/// Codex: `$CODEX_HOME` or `~/.codex`, its rollouts in
/// `sessions/YYYY/MM/DD/rollout-*.jsonl` and `archived_sessions/rollout-*.jsonl`.
pub struct Codex;

impl Program for Codex {
    fn log_format(&self) -> Option<super::SessionLog> {
        Some(super::SessionLog {
            is_log: reader::is_log,
            read: |lines, keep| reader::read(lines, keep),
        })
    }

    /// `codex exec`, ephemeral, read-only, with no MCP servers or notify
    /// program; it prints its progress, so the answer is the last message
    /// it writes to `out`.
    fn print_mode(&self) -> Option<super::PrintMode> {
        Some(super::PrintMode {
            program: "codex",
            arguments: |out| {
                let mut args: Vec<String> = [
                    "exec",
                    "--ephemeral",
                    "--skip-git-repo-check",
                    "--sandbox",
                    "read-only",
                    "--color",
                    "never",
                    "-c",
                    "mcp_servers={}",
                    "-c",
                    "notify=[]",
                    "--output-last-message",
                ]
                .map(String::from)
                .to_vec();
                args.push(out.display().to_string());
                args
            },
            answer_in_file: true,
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
            cfg.dirs.get(crate::harness::Harness::Codex),
            env.harness_homes.get(&crate::harness::Harness::Codex),
            env,
            ".codex",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for year in subdirs(&home.join("sessions")) {
            for month in subdirs(&year) {
                for day in subdirs(&month) {
                    out.extend(jsonl(&day, "rollout-"));
                }
            }
        }
        out.extend(jsonl(&home.join("archived_sessions"), "rollout-"));
        out
    }

    /// `memories/*.md`: its consolidated memory (the per-rollout summaries
    /// below it are sessions memsync captures itself).
    fn memory_files(&self, home: &Path, _workspace: Option<&Path>) -> Vec<OwnMemory> {
        markdown(&home.join("memories"), 1)
            .into_iter()
            .map(|(path, file)| OwnMemory {
                path,
                file,
                project_dir: None,
            })
            .collect()
    }

    fn memory_place(&self, home: &Path, file: &str, _project: Option<&Path>) -> MemoryPlace {
        MemoryPlace::At(home.join("memories").join(file))
    }

    fn ended_in_file(&self, path: &Path) -> bool {
        reader::turn_over(path)
    }
}
