//! pi's session JSONL, which OpenClaw writes too
//! (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`,
//! `~/.pi/agent/sessions/<cwd-slug>/*.jsonl`): a `session` header line, then
//! entries. From v3 on, entries carry `id`/`parentId` and form a tree whose
//! abandoned branches stay in the file; the conversation is the path from the
//! active leaf back to the root. Older files (no `version`) are a flat list.
//!
//! Owns: the entry types of both. OpenClaw is told from pi by its own marks
//! (`openclaw.*` custom entries, a cwd under `.openclaw`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::contract::RequestSource;

use crate::harness::Harness;
use crate::transcript::{Format, Role, Transcript, clean, set_once, str_at, text_of, tools};
/// Whether JSON lines are a pi session: its first line is the session header.
pub fn is_log(first: &Value, _head: &[Value]) -> bool {
    first.get("type").and_then(Value::as_str) == Some("session")
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::Pi), keep);
    let mut entries = Vec::new();
    for line in lines {
        match serde_json::from_str::<Value>(line.as_ref()) {
            Ok(mut v) if v.is_object() => {
                slim(&mut v);
                entries.push(v);
            }
            _ => t.skipped_lines += 1,
        }
    }
    let active = active_path(&entries);
    let mut chore = false;
    let forked_at = fork_instant(&entries);
    for v in &entries {
        let at = v.get("timestamp").and_then(Value::as_str);
        // A fork (`/fork`) opens with the parent's entries, stamped as they were.
        if let Some(forked_at) = forked_at
            && at
                .and_then(crate::contract::parse_ts)
                .is_some_and(|at| at < forked_at)
        {
            continue;
        }
        if let Some(ts) = at {
            t.note_time(ts);
        }
        if is_openclaw(v) {
            t.format = Format::Harness(Harness::OpenClaw);
        }
        let on_path = match (&active, v.get("id").and_then(Value::as_str)) {
            (Some(path), Some(id)) if v.get("parentId").is_some() => path.contains(id),
            _ => true,
        };
        if on_path {
            entry(&mut t, v, &mut chore);
        }
    }
    t
}

/// When a forked session began: its header's time, when the header names
/// the session it was forked from.
fn fork_instant(entries: &[Value]) -> Option<chrono::DateTime<chrono::Utc>> {
    let header = entries
        .iter()
        .find(|v| v.get("type").and_then(Value::as_str) == Some("session"))?;
    str_at(header, "parentSession")?;
    crate::contract::parse_ts(header.get("timestamp")?.as_str()?)
}

/// Drops what no reader uses before the entry is kept for the tree walk:
/// tool results, images and thinking, most of a long session's bytes.
fn slim(v: &mut Value) {
    let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) else {
        return;
    };
    let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
    if !matches!(role, "user" | "assistant" | "compactionSummary") {
        // A failed call keeps the one line that says what went wrong.
        let failed = m.get("isError").and_then(Value::as_bool) == Some(true);
        let error = failed
            .then(|| m.get("content").and_then(text_of))
            .flatten()
            .and_then(|output| crate::transcript::facts::error_line(&output));
        match error {
            Some(line) => m.insert("content".into(), Value::String(line)),
            None => m.remove("content"),
        };
        return;
    }
    if let Some(Value::Array(blocks)) = m.get_mut("content") {
        blocks.retain(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("text" | "input_text" | "output_text" | "toolCall")
            )
        });
    }
}

fn is_openclaw(v: &Value) -> bool {
    let custom = v.get("customType").and_then(Value::as_str);
    custom.is_some_and(|c| c.starts_with("openclaw") || c == "model-snapshot")
        || v.get("message").and_then(|m| m.get("__openclaw")).is_some()
        || (v.get("type").and_then(Value::as_str) == Some("session")
            && str_at(v, "cwd").is_some_and(|c| c.contains("/.openclaw")))
}

/// `chore`: the newest person's turn was a chore of the harness's
/// (OpenClaw's `is_chore`), so the agent's tool calls after it are left out.
fn entry(t: &mut Transcript, v: &Value, chore: &mut bool) {
    let at = v.get("timestamp").and_then(Value::as_str);
    match v.get("type").and_then(Value::as_str).unwrap_or_default() {
        "session" => {
            set_once(&mut t.session_id, str_at(v, "id"));
            set_once(&mut t.project, str_at(v, "cwd"));
            // The file this one was forked from (pi `/fork`, `--fork`): a
            // person's session that goes on from there, not a sub-agent's.
            t.forked_from = str_at(v, "parentSession").map(|parent| {
                let path = std::path::Path::new(&parent);
                crate::transcript::id_in_name(path).unwrap_or(parent)
            });
        }
        "message" => message(t, &v["message"], chore),
        "compaction" => {
            if let Some(summary) = str_at(v, "summary") {
                t.push_compaction(&summary, at);
            }
        }
        "model_change"
        | "thinking_level_change"
        | "custom"
        | "custom_message"
        | "label"
        | "session_info"
        | "leaf"
        | "branch_summary" => {}
        _ => t.skipped_lines += 1,
    }
}

/// Who sent a person's message to OpenClaw: its own `senderIsOwner` mark
/// (2026.9), else a `[cron:…]` envelope, else a group chat's envelope (older
/// versions do not say whether the owner wrote in a group, so a group
/// message counts as a participant's), else the owner.
fn request_source(m: &Value, raw: Option<&str>) -> RequestSource {
    let raw = raw.unwrap_or_default().trim_start();
    if raw.starts_with("[cron:") {
        return RequestSource::Cron;
    }
    match m
        .pointer("/__openclaw/senderIsOwner")
        .and_then(Value::as_bool)
    {
        Some(true) => RequestSource::Owner,
        Some(false) => RequestSource::Participant,
        None if raw.contains("\"is_group_chat\": true")
            || raw.contains("\"is_group_chat\":true") =>
        {
            RequestSource::Participant
        }
        None => RequestSource::Owner,
    }
}

/// OpenClaw, the gateway that writes this format too: its envelopes and
/// prompts are taken out of pi's messages as well (pi has none of its own).
fn gateway() -> &'static dyn super::super::Program {
    super::super::program(Harness::OpenClaw)
}

fn message(t: &mut Transcript, m: &Value, chore: &mut bool) {
    // A command and its reply that OpenClaw keeps out of the model's context
    // (`/status` and its card, `/help`): the harness talking, not the person
    // asking or the agent reporting.
    if is_context_free_command(m) {
        t.dropped_turns += 1;
        return;
    }
    let text = text_of(&m["content"]);
    match m.get("role").and_then(Value::as_str) {
        Some("user") => {
            let cleaned = text
                .as_deref()
                .and_then(|t| gateway().gateway_user_text(t))
                .filter(|s| !clean::is_control_command(s));
            *chore = cleaned.is_none() && text.as_deref().is_some_and(|t| gateway().is_chore(t));
            match cleaned {
                Some(words) => {
                    // The raw text, envelope and all, says who sent it and how.
                    let raw = text.as_deref();
                    t.request_source = t.request_source.max(request_source(m, raw));
                    t.push(Role::User, words, Vec::new(), None);
                    t.note_sender(raw.and_then(crate::transcript::envelope::sender));
                }
                None => t.dropped_turns += 1,
            }
        }
        // What the agent ran for a chore is no part of the person's thread;
        // what it said (a heartbeat that found something to tell) may be
        // all the session holds, so its words stay.
        Some("toolResult") if *chore => {}
        Some("assistant") if *chore => {
            if let Some(text) = text.as_deref().and_then(clean::assistant) {
                t.push(Role::Assistant, text, Vec::new(), None);
            }
        }
        Some("assistant") => {
            let mut calls = Vec::new();
            for b in m["content"].as_array().into_iter().flatten() {
                if b.get("type").and_then(Value::as_str) == Some("toolCall") {
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                    calls.extend(tools::tool_use(name, &b["arguments"]));
                }
            }
            let text = text
                .as_deref()
                .and_then(clean::assistant)
                .unwrap_or_default();
            t.push(Role::Assistant, text, calls, None);
            if m.get("stopReason").and_then(Value::as_str) == Some("error")
                && let Some(error) = str_at(m, "errorMessage")
            {
                t.note_failure(&error);
            }
        }
        Some("toolResult") if m.get("isError").and_then(Value::as_bool) == Some(true) => {
            t.note_failure(&text.unwrap_or_default());
        }
        Some("compactionSummary") => {
            if let Some(text) = text {
                t.push_compaction(&text, None);
            }
        }
        _ => {}
    }
}

/// Whether OpenClaw marked a message as a context-free command or its reply
/// (`excludeFromContext`, `__openclaw.contextFreeCommand`).
/// Older versions (2026.2) mark the gateway's own replies (the `/status`
/// card, the `/models` list) only by their model, `gateway-injected`.
fn is_context_free_command(m: &Value) -> bool {
    m.get("excludeFromContext").and_then(Value::as_bool) == Some(true)
        || m.pointer("/__openclaw/contextFreeCommand")
            .and_then(Value::as_bool)
            == Some(true)
        || m.get("model").and_then(Value::as_str) == Some("gateway-injected")
}

/// The ids on the path from the active leaf to the root, when the entries form
/// a tree; `None` for a flat (pre-v3) file.
fn active_path(entries: &[Value]) -> Option<HashSet<String>> {
    let parents: HashMap<&str, Option<&str>> = entries
        .iter()
        .filter_map(|v| {
            let id = v.get("id").and_then(Value::as_str)?;
            v.get("parentId")?;
            Some((id, v.get("parentId").and_then(Value::as_str)))
        })
        .collect();
    if parents.is_empty() {
        return None;
    }
    let leaf = entries
        .iter()
        .rev()
        .find_map(|v| {
            (v.get("type").and_then(Value::as_str) == Some("leaf"))
                .then(|| v.get("targetId").and_then(Value::as_str))
                .flatten()
        })
        .or_else(|| {
            entries.iter().rev().find_map(|v| {
                let id = v.get("id").and_then(Value::as_str)?;
                parents.contains_key(id).then_some(id)
            })
        })?;
    let mut path = HashSet::new();
    let mut at = Some(leaf);
    while let Some(id) = at {
        if !path.insert(id.to_string()) {
            break; // a cycle: stop rather than loop
        }
        at = parents.get(id).copied().flatten();
    }
    Some(path)
}
