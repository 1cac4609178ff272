//! opencode's sessions (1.18 on), kept in its SQLite database
//! (`~/.local/share/opencode/opencode.db`): a `session` row (`directory`,
//! `title`, `parent_id`), `message` rows whose JSON `data` has the `role`,
//! and `part` rows whose `data.type` is `text`, `reasoning`, `tool`, `patch`,
//! `step-start`, `step-finish`, …. Harvest reads one session's rows from the
//! database (`store::opencode`) as JSON lines `{"table": …, …, "data": {…}}`,
//! and this reader reads those lines: the first session's, any other
//! session's rows skipped. `opencode export <id>` writes the same session as
//! one JSON document (`{info, messages: [{info, parts}]}`), read as its rows.
//!
//! Owns: opencode's row and part types. Must not: run SQL.

use std::collections::HashMap;

use serde_json::Value;

use crate::harness::Harness;
use crate::transcript::{Format, Role, Title, Transcript, clean, set_once, str_at, tools};
/// Whether JSON lines are opencode's rows as harvest gives them (each
/// tagged with its `table`).
pub fn is_log(_first: &Value, head: &[Value]) -> bool {
    head.iter().any(|v| {
        matches!(
            v.get("table").and_then(Value::as_str),
            Some("session" | "message" | "part")
        )
    })
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut skipped = 0;
    let rows: Vec<Value> = lines
        .filter_map(|line| {
            let row = serde_json::from_str::<Value>(line.as_ref()).ok();
            skipped += usize::from(row.is_none());
            row
        })
        .collect();
    let mut t = read_rows(rows, keep);
    t.skipped_lines += skipped;
    t
}

/// The session of rows already parsed (a harvested database's, or an
/// export's).
fn read_rows(rows: Vec<Value>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::Opencode), keep);
    let mut messages: Vec<Value> = Vec::new();
    let mut parts: HashMap<String, Vec<Value>> = HashMap::new();
    for v in rows {
        let table = v.get("table").and_then(Value::as_str).unwrap_or_default();
        if table == "session" {
            if t.session_id.is_none() {
                session(&mut t, &v);
            } else {
                t.skipped_lines += 1;
            }
            continue;
        }
        if t.session_id.is_some() && str_at(&v, "session_id") != t.session_id {
            t.skipped_lines += 1;
            continue;
        }
        match table {
            "message" => messages.push(v),
            "part" => {
                let of = str_at(&v, "message_id").unwrap_or_default();
                parts.entry(of).or_default().push(v);
            }
            _ => t.skipped_lines += 1,
        }
    }
    messages.sort_by_key(|m| (m["time_created"].as_i64().unwrap_or(0), str_at(m, "id")));
    for m in &messages {
        let id = str_at(m, "id").unwrap_or_default();
        let mut own = parts.remove(&id).unwrap_or_default();
        own.sort_by_key(|p| str_at(p, "id"));
        message(&mut t, m, &own);
    }
    t
}

/// Whether a JSON document is what `opencode export` writes: the session's
/// `info` and its `messages`, each with its own `info` (the role) and `parts`.
pub fn is_export(doc: &Value) -> bool {
    doc["info"].get("id").is_some()
        && doc["messages"].as_array().is_some_and(|ms| {
            !ms.is_empty()
                && ms
                    .iter()
                    .all(|m| m["info"].get("role").is_some() && m["parts"].is_array())
        })
}

/// An `opencode export` document, read as the rows harvest gives [`read`],
/// without a round trip through text.
pub fn read_export(doc: &Value, keep: usize) -> Transcript {
    let info = &doc["info"];
    let session = str_at(info, "id").unwrap_or_default();
    let mut rows = vec![serde_json::json!({
        "table": "session",
        "id": session,
        "directory": info["directory"],
        "title": info["title"],
        "parent_id": info["parentID"],
        "time_created": info["time"]["created"],
        "time_updated": info["time"]["updated"],
    })];
    for m in doc["messages"].as_array().into_iter().flatten() {
        let id = str_at(&m["info"], "id").unwrap_or_default();
        rows.push(serde_json::json!({
            "table": "message",
            "id": id,
            "session_id": session,
            "time_created": m["info"]["time"]["created"],
            "data": m["info"],
        }));
        for p in m["parts"].as_array().into_iter().flatten() {
            rows.push(serde_json::json!({
                "table": "part",
                "id": p["id"],
                "message_id": id,
                "session_id": session,
                "data": p,
            }));
        }
    }
    read_rows(rows, keep)
}

fn session(t: &mut Transcript, v: &Value) {
    t.session_id = str_at(v, "id");
    set_once(&mut t.project, str_at(v, "directory"));
    // opencode titles a session with a model's words unless the person renames it.
    t.title = str_at(v, "title").map(|text| Title {
        text,
        by_model: true,
    });
    if let Some(parent) = str_at(v, "parent_id") {
        t.subagent = true;
        t.parent_session = Some(parent);
    }
    for key in ["time_created", "time_updated"] {
        if let Some(ms) = v.get(key).and_then(Value::as_i64) {
            t.note_ms(ms);
        }
    }
}

fn message(t: &mut Transcript, m: &Value, parts: &[Value]) {
    let data = &m["data"];
    if let Some(ms) = m.get("time_created").and_then(Value::as_i64) {
        t.note_ms(ms);
    }
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for p in parts {
        let d = &p["data"];
        match d.get("type").and_then(Value::as_str).unwrap_or_default() {
            // Text the harness added (file contents, reminders) is marked synthetic.
            "text" if d.get("synthetic").and_then(Value::as_bool) != Some(true) => {
                text.extend(str_at(d, "text"));
            }
            "tool" => {
                let name = d.get("tool").and_then(Value::as_str).unwrap_or("tool");
                let state = &d["state"];
                let mut used = tools::tool_use(name, &state["input"]);
                if state.get("status").and_then(Value::as_str) == Some("error") {
                    // A failed write changed nothing.
                    used.iter_mut()
                        .for_each(|u| u.kind = tools::ToolKind::Other);
                    let error = str_at(state, "error").unwrap_or_else(|| format!("{name} failed"));
                    t.note_failure(&error);
                }
                calls.extend(used);
            }
            "patch" => {
                for f in d["files"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    calls.push(tools::changed("patch", f));
                }
            }
            _ => {}
        }
    }
    let text = text.join("\n\n");
    match data.get("role").and_then(Value::as_str).unwrap_or_default() {
        "user" => match clean::agent_cli_user(unquoted(&text)) {
            Some(text) => t.push(Role::User, text, Vec::new(), str_at(m, "id")),
            None => t.dropped_turns += 1,
        },
        // The summary opencode writes when it compacts the session.
        "assistant" if data.get("summary").and_then(Value::as_bool) == Some(true) => {
            t.push_compaction(&text, None);
        }
        "assistant" => {
            if let Some(error) = data["error"]["data"].get("message").and_then(Value::as_str) {
                t.note_failure(error);
            }
            let text = clean::assistant(&text).unwrap_or_default();
            t.push(Role::Assistant, text, calls, None);
        }
        _ => t.skipped_lines += 1,
    }
}

/// `opencode run <message>` stores the message in double quotes it added.
fn unquoted(text: &str) -> &str {
    let t = text.trim();
    match t.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if !inner.contains('"') && !inner.is_empty() => inner,
        _ => text,
    }
}

/// An opencode session written out as Markdown: by `/export` (`# <title>`,
/// `**Session ID:** ses_…`, then `## User` and `## Assistant (…)` turns),
/// or shared through opencode's SDK by another program (`## Conversation`,
/// `### 👤 User`, `### 🤖 Assistant (<model>)`, `#### 🛠️ Tool: read`).
pub fn is_markdown_export(first: &str, head: &[&str]) -> bool {
    let exported = head
        .iter()
        .take(6)
        .any(|l| l.starts_with("**Session ID:** ses_"))
        && head
            .iter()
            .any(|l| *l == "## User" || l.starts_with("## Assistant"));
    first.starts_with("# ") && (exported || shared(head))
}

/// The turn headings of a session shared as Markdown: the person's, and
/// the agent's or the conversation's own heading.
fn shared(head: &[&str]) -> bool {
    let heading = |l: &str, words: &str| {
        let l = l.trim_start_matches('#');
        l.len() < 80 && l.trim().starts_with(words)
    };
    let person = head
        .iter()
        .any(|l| l.starts_with("##") && heading(l, "👤 User"));
    let agent = head
        .iter()
        .any(|l| l.starts_with("##") && (heading(l, "🤖 Assistant") || heading(l, "Conversation")));
    person && agent
}

/// What a refusal calls such an export.
pub const MARKDOWN_EXPORT: crate::transcript::Foreign = "an opencode session exported as Markdown, by /export or shared by another program (memsync reads opencode's database, and `opencode export <id>`)";
