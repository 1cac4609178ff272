//! Gemini CLI's chats (`~/.gemini/tmp/<project>/chats/session-<date>-<id8>.jsonl`,
//! 0.61 on): a header line `{sessionId, projectHash, startTime, lastUpdated,
//! kind}`, `{"$set": …}` patches of the conversation record (its first one
//! sets the start-up `<session_context>` turn), and message lines `{id,
//! timestamp, type: user | gemini | info | error | warning, content,
//! toolCalls, thoughts}`. A message is written again under the same `id`
//! when it grows (a reply gains its `toolCalls`): the newest copy wins, at
//! the place of the first. The project is the first workspace directory the
//! session context names: the file holds no `cwd`.
//!
//! Owns: Gemini CLI's line types and its `parts` (shared with qwen-code, a
//! fork). Must not: clean text itself (that is `clean::agent_cli_user`).

use std::collections::HashMap;

use serde_json::Value;

use crate::transcript::parts::parts_text;

use crate::harness::Harness;
use crate::transcript::{Format, Role, Transcript, clean, set_once, str_at, tools};
/// Whether JSON lines are a Gemini CLI chat: its header line, a `gemini`
/// turn or a `$set` update.
pub fn is_log(first: &Value, head: &[Value]) -> bool {
    first.get("projectHash").is_some() && first.get("sessionId").is_some()
        || head.iter().any(|v| {
            v.get("type").and_then(Value::as_str) == Some("gemini") || v.get("$set").is_some()
        })
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::GeminiCli), keep);
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, Value> = HashMap::new();
    let mut add = |v: Value, order: &mut Vec<String>| {
        let id = str_at(&v, "id").unwrap_or_else(|| format!("#{}", order.len()));
        if !latest.contains_key(&id) {
            order.push(id.clone());
        }
        latest.insert(id, v);
    };
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        if let Some(set) = v.get("$set") {
            for m in set
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                add(m.clone(), &mut order);
            }
            continue;
        }
        if v.get("sessionId").is_some() && v.get("type").is_none() {
            header(&mut t, &v);
            continue;
        }
        if v.get("type").is_some() {
            add(v, &mut order);
        } else {
            t.skipped_lines += 1;
        }
    }
    for id in &order {
        if let Some(m) = latest.get(id) {
            message(&mut t, m);
        }
    }
    t
}

/// Whether a JSON document is a Gemini CLI chat as versions before the
/// JSONL chats wrote it (`session-<date>-<id8>.json`, rewritten in place).
pub fn is_document(doc: &Value) -> bool {
    doc.get("sessionId").is_some()
        && doc.get("projectHash").is_some()
        && doc.get("messages").is_some_and(Value::is_array)
}

/// Such a document: its header fields and its messages, read as the lines
/// of a JSONL chat are. qwen-code, a fork, wrote the same document before
/// its own JSONL chats, naming the model's turns after itself (`"qwen"`):
/// those turns are the model's too, and the session is qwen-code's.
pub fn read_document(doc: &Value, keep: usize) -> Transcript {
    let header = serde_json::json!({
        "sessionId": doc["sessionId"],
        "projectHash": doc["projectHash"],
        "startTime": doc["startTime"],
        "kind": doc.get("kind").cloned().unwrap_or(Value::Null),
    });
    let lines = std::iter::once(header)
        .chain(doc["messages"].as_array().cloned().unwrap_or_default())
        .map(|v| v.to_string());
    let mut t = read(lines, keep);
    let by_fork = doc["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|m| m["type"] == FORK_MODEL_TURN);
    if by_fork {
        t.format = Format::Harness(Harness::QwenCode);
    }
    t
}

/// The type qwen-code's older documents give the model's turns.
const FORK_MODEL_TURN: &str = "qwen";

fn header(t: &mut Transcript, v: &Value) {
    set_once(&mut t.session_id, str_at(v, "sessionId"));
    if let Some(start) = v.get("startTime").and_then(Value::as_str) {
        t.note_time(start);
    }
    // Sub-agents run in their own chat file, marked by its kind.
    if str_at(v, "kind").is_some_and(|k| k != "main") {
        t.subagent = true;
        t.parent_session = str_at(v, "parentSessionId");
    }
}

fn message(t: &mut Transcript, m: &Value) {
    if let Some(ts) = m.get("timestamp").and_then(Value::as_str) {
        t.note_time(ts);
    }
    match m.get("type").and_then(Value::as_str).unwrap_or_default() {
        "user" => {
            let text = parts_text(&m["content"]);
            if t.project.is_none() {
                t.project = workspace_dir(&text);
            }
            match clean::agent_cli_user(&text) {
                Some(text) => t.push(Role::User, text, Vec::new(), None),
                // Start-up context, or a tool's response sent back as a user turn.
                None => t.dropped_turns += 1,
            }
        }
        "gemini" | FORK_MODEL_TURN => {
            let mut calls = Vec::new();
            for call in m
                .get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
                let mut used = tools::tool_use(name, &call["args"]);
                if matches!(
                    call.get("status").and_then(Value::as_str),
                    Some("error" | "cancelled")
                ) {
                    // A failed write changed nothing.
                    used.iter_mut()
                        .for_each(|u| u.kind = tools::ToolKind::Other);
                    let output = call_output(call);
                    t.note_failure(&format!("{name} failed: {output}"));
                }
                calls.extend(used);
            }
            let text = parts_text(&m["content"]);
            let text = clean::assistant(&text).unwrap_or_default();
            t.push(Role::Assistant, text, calls, None);
        }
        "error" => t.note_failure(&parts_text(&m["content"])),
        // info and warning lines are the CLI talking to the person.
        _ => {}
    }
}

/// What a failed call's result says.
fn call_output(call: &Value) -> String {
    let from_result = call["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            r["functionResponse"]["response"]
                .get("error")
                .or(r["functionResponse"]["response"].get("output"))
        })
        .filter_map(Value::as_str)
        .next()
        .map(str::to_string);
    from_result
        .or_else(|| str_at(call, "resultDisplay"))
        .unwrap_or_else(|| "no output".to_string())
}

/// The first of the "Workspace Directories" a session context lists.
fn workspace_dir(context: &str) -> Option<String> {
    let (_, after) = context.split_once("Workspace Directories:")?;
    let after = after.trim_start_matches(['*', ' ']);
    let line = after.lines().map(str::trim).find(|l| !l.is_empty())?;
    let dir = line.strip_prefix("- ")?.trim();
    dir.starts_with(['/', '~'])
        .then(|| dir.to_string())
        .or_else(|| (dir.len() > 2 && dir.as_bytes()[1] == b':').then(|| dir.to_string()))
}

/// The files Gemini CLI (and qwen-code, its fork) keep beside their
/// sessions, which are not sessions: a conversation saved by `/chat save`
/// (`checkpoint-<tag>.json`: the model's `{role, parts}` history, bare or
/// under `history`) or written by `/chat share`, and `logs.json`, which holds
/// only the person's prompts. The session itself is in the `chats/` folder,
/// and that is what to capture.
pub fn saved_chat(v: &Value) -> Option<crate::transcript::Foreign> {
    let turns = v.get("history").unwrap_or(v).as_array()?;
    let first = turns.first()?;
    if first.get("parts").is_some_and(Value::is_array)
        && matches!(first["role"].as_str(), Some("user" | "model"))
    {
        return Some(SAVED);
    }
    let logged = ["sessionId", "messageId", "type", "message"];
    if logged.iter().all(|k| first.get(*k).is_some()) {
        return Some(
            "the prompt log of Gemini CLI or qwen-code, logs.json (only the person's prompts: capture the session in their chats/ folder instead)",
        );
    }
    None
}

pub const SAVED: crate::transcript::Foreign = "a conversation saved by /chat save or /chat share in Gemini CLI or qwen-code (capture the session in their chats/ folder instead)";

/// Gemini CLI's `/chat share <file>.md`: `## USER 🧑‍💻` and `## MODEL ✨`.
pub fn is_share(_first: &str, head: &[&str]) -> bool {
    let turn = |who: &str| head.iter().any(|l| l.trim_end() == who);
    turn("## USER \u{1F9D1}\u{200D}\u{1F4BB}") && turn("## MODEL \u{2728}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_directory_is_read_from_the_session_context() {
        let ctx = "- **Workspace Directories:**\n  - /home/dev/proj7\n- **Directory Structure:**";
        assert_eq!(workspace_dir(ctx).as_deref(), Some("/home/dev/proj7"));
        assert_eq!(workspace_dir("no context"), None);
    }
}
