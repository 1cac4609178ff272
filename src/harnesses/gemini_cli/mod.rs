//! Gemini CLI: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Gemini CLI's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod reader;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Program;
use super::hooks::{self, HookEvent};
use super::listing::{files, jsonl, subdirs};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Connecting, Places, Plan, SettingsJson};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::GeminiCli.instructions_name();

/// Gemini CLI: `~/.gemini`, its chats in `tmp/<project>/chats/session-*.jsonl`
/// (before 0.61, `session-*.json`, one JSON document a session).
pub struct GeminiCli;

impl Program for GeminiCli {
    fn foreign_document(&self, doc: &Value) -> Option<crate::transcript::Foreign> {
        reader::saved_chat(doc)
    }

    fn foreign_export(&self, first: &str, head: &[&str]) -> Option<crate::transcript::Foreign> {
        reader::is_share(first, head).then_some(reader::SAVED)
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
        reader::is_document(doc).then(|| reader::read_document(doc, keep))
    }

    /// The prompt arrives on stdin; `-p` adds its words after it. Headless
    /// Gemini CLI runs only in a trusted folder; trusted, it would start
    /// every MCP server the person configured, so none is allowed (a server
    /// name no one gives one). It saves every chat and runs its hooks
    /// whatever it is told: the model-call folder and markers catch those.
    fn print_mode(&self) -> Option<super::PrintMode> {
        Some(super::PrintMode {
            program: "gemini",
            arguments: |_| {
                [
                    "--skip-trust",
                    "--extensions",
                    "none",
                    "--allowed-mcp-server-names",
                    "memsync-model-call-allows-none",
                    "--approval-mode",
                    "plan",
                    "--output-format",
                    "text",
                    "-p",
                    "Reply with the one sentence only.",
                ]
                .map(String::from)
                .to_vec()
            },
            answer_in_file: false,
        })
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn hook_events(&self) -> &'static [&'static str] {
        &connect::EVENTS
    }

    fn settings_json(&self, places: &Places) -> Option<SettingsJson> {
        Some(connect::settings(places))
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::GeminiCli),
            None,
            env,
            ".gemini",
        )
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

    /// It captures at `SessionEnd` and before it compresses the chat
    /// (`PreCompress`: what is there so far, which the next capture
    /// continues), and asks at `SessionStart` and before each prompt's turn
    /// (`BeforeAgent`).
    fn hook_role(&self, event: &str, payload: &Value) -> Option<HookEvent> {
        hooks::common_event(event).or(match event {
            // 0.61 sends an automatic one before every model call, compressing
            // or not: no compaction, and its chat is captured whole at SessionEnd.
            "PreCompress" if payload.get("trigger").and_then(Value::as_str) == Some("auto") => {
                Some(HookEvent::Skip("PreCompress (auto, before a model call)"))
            }
            "PreCompress" => Some(HookEvent::End),
            "BeforeAgent" => Some(HookEvent::Prompt),
            _ => None,
        })
    }
}
