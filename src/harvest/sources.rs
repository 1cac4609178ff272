//! Where each harness keeps its sessions, and the session files found there.
//!
//! - Claude Code: `$CLAUDE_CONFIG_DIR` or `~/.claude`, `projects/<slug>/<id>.jsonl`
//!   (sub-agent files live one level deeper and are not listed).
//! - Codex: `$CODEX_HOME` or `~/.codex`, `sessions/YYYY/MM/DD/rollout-*.jsonl`
//!   and `archived_sessions/rollout-*.jsonl`.
//! - OpenClaw: `$OPENCLAW_STATE_DIR` or `~/.openclaw`,
//!   `agents/<agent>/sessions/*.jsonl` (before 2026.9) and the sessions of
//!   `agents/<agent>/agent/openclaw-agent.sqlite` (2026.9 on); the OpenClaw
//!   agent is the memsync agent.
//! - pi: `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, `sessions/<cwd-slug>/*.jsonl`.
//! - Gemini CLI: `~/.gemini`, `tmp/<project>/chats/session-*.jsonl`.
//! - qwen-code: `~/.qwen`, `projects/<cwd-slug>/chats/*.jsonl`.
//! - GitHub Copilot CLI: `~/.copilot`, `session-state/<session>/events.jsonl`
//!   (before 1.0, `history-session-state/<session>.json`, one JSON document).
//! - opencode: `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode`, the
//!   sessions of its database `opencode.db`.
//! - Cline: `~/.cline`, `data/sessions/<id>/<id>.messages.json` (one JSON
//!   document, rewritten whole as the session grows).
//!
//! Each folder can be set in the machine config (`harvest.*_dir`).
//!
//! Owns: the layouts and listing them. Must not: read a session file.

use std::path::{Path, PathBuf};

use crate::config::{Env, HarvestConfig};

use crate::harness::Harness;

impl Harness {
    /// The harness's folder on this machine: the config, its variable, its default.
    pub fn home(self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        let none = None;
        let (configured, var, default) = match self {
            Harness::ClaudeCode => (&cfg.claude_code_dir, &env.claude_config_dir, ".claude"),
            Harness::Codex => (&cfg.codex_home, &env.codex_home, ".codex"),
            Harness::OpenClaw => (&cfg.openclaw_dir, &env.openclaw_state_dir, ".openclaw"),
            Harness::Pi => (&cfg.pi_dir, &env.pi_coding_agent_dir, ".pi/agent"),
            Harness::GeminiCli => (&cfg.gemini_dir, &none, ".gemini"),
            Harness::QwenCode => (&cfg.qwen_dir, &none, ".qwen"),
            Harness::CopilotCli => (&cfg.copilot_dir, &none, ".copilot"),
            Harness::Opencode => (&cfg.opencode_dir, &none, ".local/share/opencode"),
            Harness::Cline => (&cfg.cline_dir, &none, ".cline"),
        };
        let var = match self {
            Harness::Opencode => env.xdg_data_home.as_ref().map(|d| d.join("opencode")),
            _ => var.clone(),
        };
        configured
            .clone()
            .or(var)
            .or_else(|| env.home.as_ref().map(|h| h.join(default)))
    }
}

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
        crate::harnesses::ended_in_file(self.harness, &self.path)
    }
}

/// Every session file of `harness` under its folder `home`.
pub fn list(harness: Harness, home: &Path, default_agent: &str) -> Vec<SessionFile> {
    let file = |path: PathBuf, agent_id: &str| SessionFile {
        harness,
        path,
        agent_id: agent_id.to_string(),
    };
    let mut out = Vec::new();
    match harness {
        Harness::ClaudeCode => {
            for dir in subdirs(&home.join("projects")) {
                out.extend(jsonl(&dir, "").map(|p| file(p, default_agent)));
            }
        }
        Harness::Codex => {
            for year in subdirs(&home.join("sessions")) {
                for month in subdirs(&year) {
                    for day in subdirs(&month) {
                        out.extend(jsonl(&day, "rollout-").map(|p| file(p, default_agent)));
                    }
                }
            }
            let archived = home.join("archived_sessions");
            out.extend(jsonl(&archived, "rollout-").map(|p| file(p, default_agent)));
        }
        Harness::OpenClaw => {
            for agent_dir in subdirs(&home.join("agents")) {
                let agent = agent_dir
                    .file_name()
                    .map(|n| agent_id(&n.to_string_lossy()))
                    .unwrap_or_else(|| default_agent.to_string());
                out.extend(jsonl(&agent_dir.join("sessions"), "").map(|p| file(p, &agent)));
            }
        }
        Harness::Pi => {
            for dir in subdirs(&home.join("sessions")) {
                out.extend(jsonl(&dir, "").map(|p| file(p, default_agent)));
            }
        }
        Harness::GeminiCli => {
            for project in subdirs(&home.join("tmp")) {
                let chats = project.join("chats");
                out.extend(jsonl(&chats, "session-").map(|p| file(p, default_agent)));
                // Before 0.61: one JSON document a session.
                out.extend(files(&chats, "session-", ".json").map(|p| file(p, default_agent)));
            }
        }
        Harness::QwenCode => {
            for project in subdirs(&home.join("projects")) {
                let chats = project.join("chats");
                out.extend(jsonl(&chats, "").map(|p| file(p, default_agent)));
            }
        }
        Harness::CopilotCli => {
            for session in subdirs(&home.join("session-state")) {
                let events = session.join("events.jsonl");
                if is_file(&events) {
                    out.push(file(events, default_agent));
                }
            }
            // Before 1.0: one JSON document a session.
            let legacy = home.join("history-session-state");
            out.extend(files(&legacy, "", ".json").map(|p| file(p, default_agent)));
        }
        Harness::Cline => {
            for session in subdirs(&home.join("data").join("sessions")) {
                let Some(id) = session
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                else {
                    continue;
                };
                let messages = session.join(format!("{id}.messages.json"));
                if is_file(&messages) {
                    out.push(file(messages, default_agent));
                }
            }
        }
        // Its sessions are in a database: [`databases`].
        Harness::Opencode => {}
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
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

/// OpenClaw's agent database file name (2026.9 and later). Its incognito
/// twin (`incognito-openclaw-agent.sqlite`) is never read: a person chose
/// not to keep those sessions.
pub const OPENCLAW_DATABASE: &str = "openclaw-agent.sqlite";

/// OpenClaw's per-agent session databases (`agents/<id>/agent/openclaw-agent.sqlite`),
/// each with the memsync agent its sessions belong to.
fn openclaw_databases(home: &Path) -> Vec<(PathBuf, String)> {
    subdirs(&home.join("agents"))
        .into_iter()
        .filter_map(|a| {
            let db = a.join("agent").join(OPENCLAW_DATABASE);
            let name = a.file_name()?.to_string_lossy().into_owned();
            is_file(&db).then(|| (db, agent_id(&name)))
        })
        .collect()
}

/// The session databases of `harness` under its folder `home`, each with
/// the memsync agent its sessions belong to: OpenClaw's per-agent databases,
/// opencode's `opencode.db`.
pub fn databases(harness: Harness, home: &Path, default_agent: &str) -> Vec<(PathBuf, String)> {
    match harness {
        Harness::OpenClaw => openclaw_databases(home),
        Harness::Opencode => {
            let db = home.join("opencode.db");
            match is_file(&db) {
                true => vec![(db, default_agent.to_string())],
                false => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// A regular file (a symlink is not followed).
fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The real directories in `dir` (symlinks are not followed).
pub(crate) fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// The regular `*.jsonl` files in `dir` whose names start with `prefix`.
fn jsonl<'a>(dir: &Path, prefix: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
    files(dir, prefix, ".jsonl")
}

/// The regular files in `dir` named `<prefix>…<suffix>`.
fn files<'a>(dir: &Path, prefix: &'a str, suffix: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(move |e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .map(|e| e.path())
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
