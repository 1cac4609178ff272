//! Codex rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`):
//! every line an envelope `{timestamp, type, payload}`.
//!
//! Owns: the Codex item types. Plain text comes from `event_msg` user and
//! agent messages (free of injected context); only a file with none falls
//! back to `response_item` messages, never both.

use serde_json::Value;

use super::{Format, Role, Transcript, clean, str_at, text_of, tools};

pub(super) fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Codex, keep);
    let mut fallback = Transcript::bounded(Format::Codex, keep);
    let mut events = false;
    let mut metas = 0;
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        let at = v.get("timestamp").and_then(Value::as_str);
        if let Some(ts) = at {
            t.note_time(ts);
        }
        let Some(p) = v.get("payload") else {
            t.skipped_lines += 1;
            continue;
        };
        let ptype = p.get("type").and_then(Value::as_str).unwrap_or_default();
        match (kind, ptype) {
            ("session_meta", _) => {
                metas += 1;
                // Forked rollouts repeat their parent's meta: only the first counts.
                if metas == 1 {
                    t.session_id = str_at(p, "id");
                    t.project = str_at(p, "cwd");
                    t.subagent = p["source"].get("subagent").is_some();
                    if let Some(ts) = p.get("timestamp").and_then(Value::as_str) {
                        t.note_time(ts);
                    }
                }
            }
            ("event_msg", "user_message") => {
                events = true;
                match str_at(p, "message").as_deref().and_then(clean::codex_user) {
                    Some(text) => t.push(Role::User, text, Vec::new(), None),
                    None => t.dropped_turns += 1,
                }
            }
            ("event_msg", "agent_message") => {
                events = true;
                if let Some(text) = str_at(p, "message").as_deref().and_then(clean::assistant) {
                    t.push(Role::Assistant, text, Vec::new(), None);
                }
            }
            ("response_item", "message") => message_item(&mut fallback, p),
            ("response_item", "function_call") => {
                let name = p.get("name").and_then(Value::as_str).unwrap_or("tool");
                let calls = tools::tool_use(name, &p["arguments"]);
                t.push(Role::Assistant, String::new(), calls, None);
            }
            ("response_item", "custom_tool_call") => {
                let name = p.get("name").and_then(Value::as_str).unwrap_or("tool");
                let input = p.get("input").and_then(Value::as_str).unwrap_or_default();
                let calls = if name == "apply_patch" {
                    tools::patch_files(name, input)
                } else {
                    tools::tool_use(name, &serde_json::json!({ "input": input }))
                };
                t.push(Role::Assistant, String::new(), calls, None);
            }
            ("response_item", "local_shell_call") => {
                let calls = tools::tool_use("shell", &p["action"]);
                t.push(Role::Assistant, String::new(), calls, None);
            }
            ("compacted", _) => {
                let text = str_at(p, "message").unwrap_or_else(|| replacement(p));
                t.push_compaction(&text, at);
            }
            _ => {}
        }
    }
    if !events {
        // No event messages: the response items are the conversation.
        let calls: Vec<_> = t.tool_uses().cloned().collect();
        t.messages = fallback.messages;
        if !calls.is_empty() {
            t.push(Role::Assistant, String::new(), calls, None);
        }
    }
    t
}

/// A `response_item` message (user or assistant), cleaned of injected context.
fn message_item(t: &mut Transcript, p: &Value) {
    let text = text_of(&p["content"]).unwrap_or_default();
    match p.get("role").and_then(Value::as_str) {
        Some("user") => {
            if let Some(text) = clean::codex_user(&text) {
                t.push(Role::User, text, Vec::new(), None);
            }
        }
        Some("assistant") => {
            if let Some(text) = clean::assistant(&text) {
                t.push(Role::Assistant, text, Vec::new(), None);
            }
        }
        _ => {}
    }
}

/// A compaction that kept its history instead of a message: the kept
/// conversation (`replacement_history`) as markdown, injected context left out.
fn replacement(p: &Value) -> String {
    let mut kept = Transcript::new(Format::Codex);
    for item in p["replacement_history"].as_array().into_iter().flatten() {
        if item.get("type").and_then(Value::as_str) == Some("message") {
            message_item(&mut kept, item);
        }
    }
    kept.to_markdown()
}
