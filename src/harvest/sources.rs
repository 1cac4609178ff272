//! The session files and databases harvest reads: each harness's folder
//! (`src/harnesses/<name>/`) says where its program keeps them; this lists
//! them as harvest's [`SessionFile`]s. Each folder can be set in the machine
//! config (`harvest.*_dir`).
//!
//! Owns: the listing harvest walks. Must not: read a session file, or know
//! a harness's layout (its folder does).

use std::path::{Path, PathBuf};

use crate::harness::Harness;
use crate::harnesses::program;

/// One session file, with the memsync agent its session belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFile {
    pub harness: Harness,
    pub path: PathBuf,
    pub agent_id: String,
}

impl SessionFile {
    /// Whether the harness rewrites this file whole as the session grows (a
    /// JSON document: Cline's, an older Gemini CLI's) instead of appending
    /// lines: a changed file is then a grown session, never a replaced one.
    pub fn rewritten_whole(&self) -> bool {
        self.path.extension().is_some_and(|e| e == "json")
    }

    /// Whether the harness marked the session ended in the file itself
    /// (Copilot CLI's `session.shutdown`; Codex's end of a turn once no
    /// process holds the rollout open), so it need not go quiet first.
    pub fn ended_by_harness(&self) -> bool {
        self.harness.ended_in_file(&self.path)
    }
}

/// Every session file of `harness` under its folder `home`, by path.
pub fn list(harness: Harness, home: &Path, default_agent: &str) -> Vec<SessionFile> {
    let program = program(harness);
    let mut out: Vec<SessionFile> = program
        .session_files(home)
        .into_iter()
        .map(|path| SessionFile {
            harness,
            agent_id: program
                .agent_of(&path)
                .unwrap_or_else(|| default_agent.to_string()),
            path,
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The session databases of `harness` under its folder `home`, each with
/// the memsync agent its sessions belong to: OpenClaw's per-agent databases,
/// opencode's `opencode.db`.
pub fn databases(harness: Harness, home: &Path, default_agent: &str) -> Vec<(PathBuf, String)> {
    program(harness).session_databases(home, default_agent)
}
