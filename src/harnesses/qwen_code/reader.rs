//! qwen-code's chats (`~/.qwen/projects/<cwd-slug>/chats/<session>.jsonl`,
//! 0.24 on): Claude Code's envelope (`uuid`, `parentUuid`, `sessionId`,
//! `cwd`, `type`) around Gemini-style `message.parts`, with a `provenance`
//! that says who wrote each line: `real_user` is the person; `system` lines
//! are the CLI's telemetry and snapshots; `tool_result` lines carry what a
//! tool call returned.
//!
//! Owns: qwen-code's line types. Must not: read Gemini parts itself (that is
//! `gemini::parts_text` / `parts_calls`).

use std::collections::HashSet;

use serde_json::Value;

use crate::harness::Harness;
use crate::transcript::parts::{parts_calls, parts_text};
use crate::transcript::{Format, Role, Transcript, clean, set_once, str_at};
/// Whether JSON lines are a qwen-code chat: Claude Code's envelope around
/// Gemini-style `message.parts`.
pub fn is_log(_first: &Value, head: &[Value]) -> bool {
    head.iter().any(|v| {
        v.get("message")
            .is_some_and(|m| m.get("parts").is_some() && m.get("content").is_none())
    })
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::QwenCode), keep);
    let mut seen = HashSet::new();
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        if let Some(id) = str_at(&v, "uuid")
            && !seen.insert(id)
        {
            continue;
        }
        if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
            t.note_time(ts);
        }
        set_once(&mut t.session_id, str_at(&v, "sessionId"));
        set_once(&mut t.project, str_at(&v, "cwd"));
        let parts = &v["message"]["parts"];
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "user" => user(&mut t, &v, parts),
            "assistant" => {
                let text = clean::assistant(&parts_text(parts)).unwrap_or_default();
                t.push(Role::Assistant, text, parts_calls(parts), None);
            }
            "tool_result" => {
                let result = &v["toolCallResult"];
                if result.get("status").and_then(Value::as_str) == Some("error") {
                    let call =
                        parts.as_array().into_iter().flatten().find_map(|p| {
                            p["functionResponse"].get("name").and_then(Value::as_str)
                        });
                    if let Some(name) = call {
                        t.call_failed(name);
                    }
                    let error = str_at(result, "error")
                        .or_else(|| str_at(&result["error"], "message"))
                        .unwrap_or_else(|| "a tool call failed".to_string());
                    t.note_failure(&error);
                }
            }
            "system" => {}
            _ => t.skipped_lines += 1,
        }
    }
    t
}

fn user(t: &mut Transcript, v: &Value, parts: &Value) {
    // Only what the person typed counts; the CLI's injected turns say otherwise.
    let provenance = v.get("provenance").and_then(Value::as_str);
    if provenance.is_some_and(|p| p != "real_user") {
        t.dropped_turns += 1;
        return;
    }
    match clean::agent_cli_user(&parts_text(parts)) {
        Some(text) => t.push(Role::User, text, Vec::new(), str_at(v, "uuid")),
        None => t.dropped_turns += 1,
    }
}
