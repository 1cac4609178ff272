//! GitHub Copilot CLI: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: GitHub Copilot CLI's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod reader;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Program;
use super::hooks::{self, HookEvent};
use super::listing::{files, is_file, subdirs};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::CopilotCli.instructions_name();

/// GitHub Copilot CLI: `~/.copilot`, its sessions in
/// `session-state/<session>/events.jsonl` (before 1.0,
/// `history-session-state/<session>.json`, one JSON document).
pub struct CopilotCli;

impl Program for CopilotCli {
    fn foreign_export(&self, first: &str, head: &[&str]) -> Option<crate::transcript::Foreign> {
        reader::is_share(first, head).then_some(reader::SHARE)
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
        reader::is_legacy(doc).then(|| reader::read_legacy(doc, keep))
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn hook_events(&self) -> &'static [&'static str] {
        &connect::EVENTS
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::CopilotCli),
            None,
            env,
            ".copilot",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = subdirs(&home.join("session-state"))
            .into_iter()
            .map(|session| session.join("events.jsonl"))
            .filter(|events| is_file(events))
            .collect();
        out.extend(files(&home.join("history-session-state"), "", ".json"));
        out
    }

    fn ended_in_file(&self, path: &Path) -> bool {
        reader::shut_down(path)
    }

    /// 1.0 runs its sessionEnd hook before it has written the session's
    /// last events; the file is whole once `session.shutdown` is its last line.
    fn end_written_after_hook(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(10))
    }

    /// 1.0 names no event: each of its events sends fields of its own
    /// (`source` at sessionStart, `prompt` at userPromptSubmitted,
    /// `stopReason` at agentStop, `reason` at sessionEnd).
    fn hook_event(&self, payload: &Value) -> String {
        if let Some(named) = hooks::named_event(payload) {
            return named;
        }
        let has = |k: &str| payload.get(k).is_some();
        let event = if has("source") || has("initialPrompt") {
            "sessionStart"
        } else if has("prompt") {
            "userPromptSubmitted"
        } else if has("stopReason") {
            "agentStop"
        } else if has("reason") {
            "sessionEnd"
        } else {
            ""
        };
        event.to_string()
    }

    fn hook_role(&self, event: &str, _payload: &Value) -> Option<HookEvent> {
        hooks::common_event(event).or(match event {
            "sessionEnd" => Some(HookEvent::End),
            "sessionStart" => Some(HookEvent::Start),
            "userPromptSubmitted" => Some(HookEvent::Prompt),
            _ => None,
        })
    }

    /// A top-level `additionalContext`: it ignores the nested one.
    fn context_reply(&self, _event: &str, text: &str) -> Value {
        serde_json::json!({ "additionalContext": text })
    }

    /// Its `sessionEnd` payload names only the session, and that name becomes
    /// a path (`session-state/<sessionId>/events.jsonl`), so it must be one
    /// plain name.
    fn session_log(&self, session_id: &str, home: Option<&Path>) -> Result<PathBuf, String> {
        let plain = session_id.len() <= 128
            && session_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !plain {
            return Err(format!(
                "payload's sessionId `{session_id}` is not a plain session name"
            ));
        }
        let home = home.ok_or(
            "payload has no transcript path and Copilot CLI's folder is unknown (HOME is not set)",
        )?;
        Ok(home
            .join("session-state")
            .join(session_id)
            .join("events.jsonl"))
    }
}
