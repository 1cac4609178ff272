//! Cline's sessions (`~/.cline/data/sessions/<id>/<id>.messages.json`, 3.0
//! on): one JSON document `{version, sessionId, origin, messages, system_prompt}`
//! whose messages are `{role, content: [blocks], ts}` with Anthropic-style
//! blocks (`text`, `tool_use`, `tool_result`, `thinking`). The person's words
//! come wrapped in `<user_input mode="act|plan">`; tool results come back as
//! user messages. The project is the working directory the system prompt
//! names (the sidecar `<id>.json` holds `cwd` too; harvest reads it).
//!
//! Owns: Cline's document shape. Must not: clean text itself.

use serde_json::Value;

use crate::harness::Harness;
use crate::transcript::{Format, Role, Transcript, clean, set_once, str_at, text_of, tools};

/// Whether a JSON document is a Cline session.
pub fn is_cline(doc: &Value) -> bool {
    doc.get("messages").is_some_and(Value::is_array)
        && (doc.get("origin").is_some() || doc.get("system_prompt").is_some())
        && doc.get("sessionId").is_some()
}

pub fn read(doc: &Value, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::Cline), keep);
    set_once(&mut t.session_id, str_at(doc, "sessionId"));
    t.project = str_at(doc, "system_prompt").and_then(|p| working_directory(&p));
    if doc["origin"].get("mode").and_then(Value::as_str) == Some("subagent") {
        t.subagent = true;
    }
    for m in doc["messages"].as_array().into_iter().flatten() {
        if let Some(ms) = m.get("ts").and_then(Value::as_i64) {
            t.note_ms(ms);
        }
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        let text = text_of(&m["content"]).unwrap_or_default();
        match m.get("role").and_then(Value::as_str).unwrap_or_default() {
            "user" => {
                for b in blocks.iter().filter(|b| b["type"] == "tool_result") {
                    if b.get("is_error").and_then(Value::as_bool) == Some(true) {
                        t.note_failure(&result_text(&b["content"]));
                    }
                }
                match clean::agent_cli_user(&text) {
                    Some(text) => t.push(Role::User, text, Vec::new(), str_at(m, "id")),
                    None => t.dropped_turns += 1,
                }
            }
            "assistant" => {
                let calls = blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_use")
                    .flat_map(|b| {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                        tools::tool_use(name, &b["input"])
                    })
                    .collect();
                let text = clean::assistant(&text).unwrap_or_default();
                t.push(Role::Assistant, text, calls, None);
            }
            _ => t.skipped_lines += 1,
        }
    }
    t
}

fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// `Working Directory: /path` in Cline's system prompt.
fn working_directory(prompt: &str) -> Option<String> {
    let line = prompt.lines().find_map(|l| {
        l.trim()
            .split_once("Working Directory:")
            .map(|(_, d)| d.trim())
    })?;
    (!line.is_empty()).then(|| line.to_string())
}
