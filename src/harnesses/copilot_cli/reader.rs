//! GitHub Copilot CLI's session events
//! (`~/.copilot/session-state/<session>/events.jsonl`, 1.0 on): one event a
//! line, `{type, data, id, timestamp, parentId}`. `session.start` names the
//! session and its `context.cwd`; `user.message` holds what the person typed
//! in `content` (the CLI's `transformedContent` adds its own context around
//! it); `assistant.message` the reply and its `toolRequests`;
//! `tool.execution_complete` whether a call worked; `session.shutdown` ends
//! the session. Before 1.0, the CLI kept a session as one JSON document
//! (`~/.copilot/history-session-state/<session>.json`: `sessionId`,
//! `startTime`, and `chatMessages` in the OpenAI chat shape).
//!
//! Owns: Copilot CLI's event types. Must not: clean text itself.

use std::path::Path;

use serde_json::Value;

use crate::harness::Harness;
use crate::transcript::{Format, Role, Transcript, clean, set_once, str_at, tools};
/// Whether JSON lines are Copilot CLI's events: `session.*` or
/// `user.message` types with their `data`.
pub fn is_log(_first: &Value, head: &[Value]) -> bool {
    head.iter().any(|v| {
        v.get("type")
            .and_then(Value::as_str)
            .is_some_and(|k| k.starts_with("session.") || k == "user.message")
            && v.get("data").is_some()
    })
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::CopilotCli), keep);
    // Tool names by call id: a completion names only the call.
    let mut calls_by_id = std::collections::HashMap::new();
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
            t.note_time(ts);
        }
        t.closed = false;
        let data = &v["data"];
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "session.start" | "session.resume" => {
                set_once(&mut t.session_id, str_at(data, "sessionId"));
                set_once(&mut t.project, str_at(&data["context"], "cwd"));
            }
            "user.message" => match str_at(data, "content")
                .as_deref()
                .and_then(clean::agent_cli_user)
            {
                Some(text) => t.push(Role::User, text, Vec::new(), str_at(data, "messageId")),
                None => t.dropped_turns += 1,
            },
            "assistant.message" => {
                let mut calls = Vec::new();
                for r in data["toolRequests"].as_array().into_iter().flatten() {
                    let name = r.get("name").and_then(Value::as_str).unwrap_or("tool");
                    if let Some(id) = str_at(r, "toolCallId") {
                        calls_by_id.insert(id, name.to_string());
                    }
                    // Its status line and its end-of-task signal steer the
                    // session; they are no work ("…, report_intent, view").
                    if !matches!(name, "report_intent" | "task_complete") {
                        calls.extend(tools::tool_use(name, &r["arguments"]));
                    }
                }
                let text = str_at(data, "content")
                    .and_then(|c| clean::assistant(&c))
                    .unwrap_or_default();
                t.push(Role::Assistant, text, calls, None);
            }
            "tool.execution_complete" => {
                let name = str_at(data, "toolCallId").and_then(|id| calls_by_id.get(&id));
                execution(&mut t, data, name.map(String::as_str));
            }
            // A resumed session writes on after it: closed until it does.
            "session.shutdown" => t.closed = true,
            "session.error" => {
                let message = str_at(data, "message").unwrap_or_else(|| "session error".into());
                t.note_failure(&message);
            }
            kind if is_bookkeeping(kind) => {}
            _ => t.skipped_lines += 1,
        }
    }
    t
}

/// Whether a JSON document is a session of the Copilot CLI before 1.0.
pub fn is_legacy(doc: &Value) -> bool {
    doc.get("sessionId").is_some() && doc.get("chatMessages").is_some_and(Value::is_array)
}

/// A Copilot CLI session kept as one document (before 1.0): the person's
/// and the agent's messages, and the agent's tool calls (`tool_calls`, each a
/// function with its arguments as a JSON string, which `tool_use` reads).
/// Tool results are left out.
pub fn read_legacy(doc: &Value, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::CopilotCli), keep);
    t.session_id = str_at(doc, "sessionId");
    if let Some(start) = doc.get("startTime").and_then(Value::as_str) {
        t.note_time(start);
    }
    for m in doc["chatMessages"].as_array().into_iter().flatten() {
        let text = str_at(m, "content");
        match m.get("role").and_then(Value::as_str) {
            Some("user") => match text.as_deref().and_then(clean::agent_cli_user) {
                Some(text) => t.push(Role::User, text, Vec::new(), None),
                None => t.dropped_turns += 1,
            },
            Some("assistant") => {
                let mut calls = Vec::new();
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let f = &call["function"];
                    let name = f.get("name").and_then(Value::as_str).unwrap_or("tool");
                    calls.extend(tools::tool_use(name, &f["arguments"]));
                }
                let text = text.and_then(|c| clean::assistant(&c)).unwrap_or_default();
                t.push(Role::Assistant, text, calls, None);
            }
            _ => {}
        }
    }
    t
}

/// A call that failed, or a shell command that exited non-zero.
fn execution(t: &mut Transcript, data: &Value, name: Option<&str>) {
    let failed = data.get("success").and_then(Value::as_bool) == Some(false);
    if failed && let Some(name) = name {
        t.call_failed(name);
    }
    let exit = data["shellExecution"]
        .get("exitCode")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if failed || exit != 0 {
        let output = str_at(&data["result"], "content")
            // The CLI's own `<shellId: 0 completed with exit code 2>` trailer.
            .map(|c| {
                c.lines()
                    .filter(|l| !l.starts_with("<shellId"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .or_else(|| str_at(&data["error"], "message"))
            .unwrap_or_else(|| format!("a tool call failed (exit code {exit})"));
        t.note_failure(&output);
    }
}

/// Event families that carry no conversation.
fn is_bookkeeping(kind: &str) -> bool {
    [
        "session.",
        "assistant.",
        "tool.",
        "system.",
        "hook.",
        "subagent.",
    ]
    .iter()
    .any(|p| kind.starts_with(p))
}

/// Whether Copilot CLI has ended the session in `events`: its last line is
/// `session.shutdown`. Read from the file's end only (the shutdown event
/// carries the session's usage, a few KB), so it is cheap on a long session.
pub fn shut_down(events: &Path) -> bool {
    crate::transcript::lines::last_event(events)
        .is_some_and(|(_, event)| event["type"] == "session.shutdown")
}

/// Copilot CLI's `/share` and `copilot -p --share`.
pub fn is_share(first: &str, head: &[&str]) -> bool {
    first == "# Copilot CLI Session"
        && head.iter().any(|l| {
            l.contains("**Session ID:**") || l.contains("Generated by [GitHub Copilot CLI]")
        })
}

/// What a refusal calls such a share.
pub const SHARE: crate::transcript::Foreign = "a Copilot CLI session shared as Markdown (capture its events.jsonl in ~/.copilot/session-state/<id>/ instead)";

#[cfg(test)]
mod tests {
    use super::*;

    /// `report_intent` (its status line) and `task_complete` (its end of a
    /// task) are no work: the reply before `task_complete` stays the report.
    #[test]
    fn the_status_line_and_the_end_of_task_signal_are_no_tool_calls() {
        let event = |kind: &str, data: serde_json::Value| {
            serde_json::json!({"type": kind, "data": data, "timestamp": "2026-04-23T17:00:00Z"})
                .to_string()
        };
        let request = |name: &str| serde_json::json!({"name": name, "toolCallId": name, "arguments": {"path": "/p/a.rs"}});
        let lines = [
            event(
                "user.message",
                serde_json::json!({"content": "which doc tools fit this crate?"}),
            ),
            event(
                "assistant.message",
                serde_json::json!({"content": "", "toolRequests": [request("report_intent"), request("view")]}),
            ),
            event(
                "assistant.message",
                serde_json::json!({"content": "cargo doc with GitHub Pages, then mdBook."}),
            ),
            event(
                "assistant.message",
                serde_json::json!({"content": "", "toolRequests": [request("task_complete")]}),
            ),
        ];
        let t = read(lines.iter(), usize::MAX);
        let names: Vec<&str> = t.tool_uses().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["view"]);
        let last = t
            .messages
            .iter()
            .rev()
            .find(|m| !m.text.is_empty())
            .map(|m| m.reported());
        assert_eq!(last, Some(true));
    }
}
