//! OpenClaw: what memsync knows of it. It writes pi's session format (read
//! by pi's reader through the registry), one folder of sessions per agent
//! before 2026.9 and one agent database per agent from 2026.9 on; the
//! OpenClaw agent is the memsync agent.
//!
//! Owns: OpenClaw's folders and agent ids. Must not: import another
//! harness's folder (the registry hands its files to pi's reader).

pub mod connect;
pub mod doctor;
mod user;
pub mod workspace;

use std::path::{Path, PathBuf};

use super::listing::{is_file, jsonl, subdirs};
use super::{OwnMemory, Program};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// OpenClaw's agent database file name (2026.9 and later). Its incognito
/// twin (`incognito-openclaw-agent.sqlite`) is never read: a person chose
/// not to keep those sessions.
pub const DATABASE: &str = "openclaw-agent.sqlite";

/// OpenClaw: `$OPENCLAW_STATE_DIR` or `~/.openclaw`, its sessions in
/// `agents/<agent>/sessions/*.jsonl` (before 2026.9) and in
/// `agents/<agent>/agent/openclaw-agent.sqlite` (2026.9 on).
pub struct OpenClaw;

impl Program for OpenClaw {
    fn gateway_user_text(&self, text: &str) -> Option<String> {
        user::user_text(text)
    }

    fn is_chore(&self, text: &str) -> bool {
        user::is_chore(text)
    }

    fn memory_holds_mirror(&self) -> bool {
        true
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::OpenClaw),
            env.harness_homes.get(&crate::harness::Harness::OpenClaw),
            env,
            ".openclaw",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("agents"))
            .iter()
            .flat_map(|agent| jsonl(&agent.join("sessions"), ""))
            .collect()
    }

    /// `agents/<agent>/sessions/<file>`: the agent's folder names it.
    fn agent_of(&self, session_file: &Path) -> Option<String> {
        let agent = session_file.parent()?.parent()?.file_name()?;
        Some(agent_id(&agent.to_string_lossy()))
    }

    /// The curated text of its workspace's `MEMORY.md` (outside memsync's
    /// block, which the importer leaves out).
    /// Its workspace's MEMORY.md: the mirror's folder `connect openclaw` set
    /// up, else the default workspace under its folder.
    fn memory_files(&self, home: &Path, mirror: Option<&Path>) -> Vec<OwnMemory> {
        let workspace = mirror
            .map(Path::to_path_buf)
            .or_else(|| Some(home.join("workspace")).filter(|d| d.is_dir()));
        let Some(path) = workspace.map(|ws| ws.join("MEMORY.md")) else {
            return Vec::new();
        };
        match is_file(&path) {
            true => vec![OwnMemory {
                path,
                file: "MEMORY.md".into(),
                project_dir: None,
            }],
            false => Vec::new(),
        }
    }

    fn session_databases(&self, home: &Path, _default_agent: &str) -> Vec<(PathBuf, String)> {
        subdirs(&home.join("agents"))
            .into_iter()
            .filter_map(|a| {
                let db = a.join("agent").join(DATABASE);
                let name = a.file_name()?.to_string_lossy().into_owned();
                is_file(&db).then(|| (db, agent_id(&name)))
            })
            .collect()
    }
}

/// An OpenClaw agent id as a memsync agent id (a path segment of `[a-z0-9-]`).
/// A valid one is used as it is. Any other is lowercased, every other
/// character becomes `-`, and it ends in `-` and six hex digits of its
/// SHA-256: `Main` and `main` stay two agents (folding them mixed two
/// agents' memory), and so do `work_bot` and `work-bot`.
fn agent_id(openclaw: &str) -> String {
    if crate::contract::is_valid_agent_id(openclaw) {
        return openclaw.to_string();
    }
    let mapped: String = openclaw
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let trimmed = mapped.trim_matches('-');
    let stem = if crate::contract::is_valid_agent_id(trimmed) {
        trimmed
    } else {
        "openclaw"
    };
    let digest = crate::contract::sha256_hex(openclaw.as_bytes());
    format!("{stem}-{}", &digest[..6])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openclaw_agent_ids_become_path_segments() {
        assert_eq!(agent_id("main"), "main");
        assert_eq!(agent_id("work-bot"), "work-bot");
        let folded = [
            "Main", "MAIN", "Work_Bot", "work_bot", "../..", "日本", "中文",
        ]
        .map(agent_id);
        for id in &folded {
            assert!(crate::contract::is_valid_agent_id(id), "{id}");
        }
        assert!(folded[0].starts_with("main-") && folded[2].starts_with("work-bot-"));
        assert!(folded[4].starts_with("openclaw-"));
        let mut distinct = folded.to_vec();
        distinct.extend(["main".to_string(), "work-bot".to_string()]);
        distinct.sort();
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            folded.len() + 2,
            "no two OpenClaw agents share one: {folded:?}"
        );
    }
}
