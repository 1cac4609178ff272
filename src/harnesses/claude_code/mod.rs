//! Claude Code: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Claude Code's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod reader;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Program;
use super::hooks::{self, HookEvent};
use super::listing::{jsonl, subdirs};
use crate::config::{Env, HarvestConfig};

/// Claude Code: `$CLAUDE_CONFIG_DIR` or `~/.claude`, its sessions in
/// `projects/<slug>/<id>.jsonl` (sub-agent files live one level deeper and
/// are not listed).
pub struct ClaudeCode;

impl Program for ClaudeCode {
    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        cfg.claude_code_dir
            .clone()
            .or(env.claude_config_dir.clone())
            .or_else(|| env.home.as_ref().map(|h| h.join(".claude")))
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("projects"))
            .iter()
            .flat_map(|dir| jsonl(dir, ""))
            .collect()
    }

    fn hook_role(&self, event: &str, _payload: &Value) -> Option<HookEvent> {
        hooks::common_event(event).or(match event {
            "PostCompact" => Some(HookEvent::Compacted),
            "UserPromptSubmit" => Some(HookEvent::Prompt),
            _ => None,
        })
    }
}
