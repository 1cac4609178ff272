//! qwen-code: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: qwen-code's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod reader;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Program;
use super::hooks::{self, HookEvent};
use super::listing::{jsonl, subdirs};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Places, SettingsJson};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::QwenCode.instructions_name();

/// qwen-code: `~/.qwen`, its chats in `projects/<cwd-slug>/chats/*.jsonl`.
pub struct QwenCode;

impl Program for QwenCode {
    fn log_format(&self) -> Option<super::SessionLog> {
        Some(super::SessionLog {
            is_log: reader::is_log,
            read: |lines, keep| reader::read(lines, keep),
        })
    }

    fn hook_events(&self) -> &'static [&'static str] {
        &connect::EVENTS
    }

    fn settings_json(&self, places: &Places) -> Option<SettingsJson> {
        Some(connect::settings(places))
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::QwenCode),
            None,
            env,
            ".qwen",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("projects"))
            .iter()
            .flat_map(|project| jsonl(&project.join("chats"), ""))
            .collect()
    }

    /// Its events are Claude Code's (a Gemini CLI fork that kept them).
    fn hook_role(&self, event: &str, _payload: &Value) -> Option<HookEvent> {
        hooks::common_event(event).or(match event {
            "PostCompact" => Some(HookEvent::Compacted),
            "UserPromptSubmit" => Some(HookEvent::Prompt),
            _ => None,
        })
    }
}
