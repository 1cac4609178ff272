//! Claude Code's session JSONL (`~/.claude/projects/<slug>/<session>.jsonl`).
//!
//! Owns: the Claude Code line types and flags. Must not: clean text itself
//! (that is `user::user_text`).

use std::collections::HashSet;

use serde_json::Value;

use crate::harness::Harness;
use crate::transcript::compaction::CONTINUED;
use crate::transcript::{Format, Role, Title, Transcript, clean, set_once, str_at, text_of, tools};

/// Line types that carry no conversation.
const BOOKKEEPING: &[&str] = &[
    "system",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "progress",
    "ai-title",
    "custom-title",
    "agent-name",
    "last-prompt",
    "pr-link",
    "mode",
    "permission-mode",
    // Claude Code 2.1.2xx–2.1.331: request records, tool and cost state.
    "atis-latch",
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "tools-used",
    "cost-state",
    "file-history-delta",
];
/// Whether JSON lines are a Claude Code session: `user` or `assistant`
/// lines around a `message`.
pub fn is_log(_first: &Value, head: &[Value]) -> bool {
    head.iter().any(|v| {
        matches!(
            v.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        ) && v.get("message").is_some()
    })
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Harness(Harness::ClaudeCode), keep);
    let mut seen = HashSet::new();
    let mut main_lines = 0usize;
    let mut sidechain_lines = 0usize;
    // A sub-agent's lines carry the session that started it.
    let mut started_by = None;
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        if matches!(kind, "user" | "assistant")
            && let Some(parent) = copied_from(&v)
        {
            t.copied_so_far(parent);
            continue;
        }
        if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
            t.note_time(ts);
        }
        // Lines repeated by resume or fork carry the same uuid.
        if let Some(id) = v.get("uuid").and_then(Value::as_str)
            && !seen.insert(id.to_string())
        {
            continue;
        }
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        match kind {
            "user" | "assistant" if flag("isSidechain") => {
                sidechain_lines += 1;
                set_once(&mut started_by, str_at(&v, "sessionId"));
            }
            "user" => {
                main_lines += 1;
                user(&mut t, &v, flag("isMeta"), flag("isCompactSummary"));
            }
            "assistant" => {
                main_lines += 1;
                assistant(&mut t, &v);
            }
            "ai-title" | "custom-title" => title(&mut t, &v),
            k if BOOKKEEPING.contains(&k) => {}
            _ => t.skipped_lines += 1,
        }
    }
    t.drop_copied();
    t.subagent = main_lines == 0 && sidechain_lines > 0;
    if t.subagent {
        t.parent_session = started_by;
    }
    t
}

/// For a line a forked session copied, the session it names as the one it
/// came from (`Some(None)` when it names none): `forkedFrom` on every line
/// `/branch` copies, and `requestSessionId` naming another session on the
/// answers `--fork-session` copies (the person's lines of that copy carry
/// no mark; they are the lines before such an answer).
fn copied_from(v: &Value) -> Option<Option<String>> {
    if let Some(from) = v.get("forkedFrom") {
        return Some(str_at(from, "sessionId"));
    }
    let asked_in = str_at(v, "requestSessionId")?;
    (str_at(v, "sessionId").as_ref() != Some(&asked_in)).then_some(Some(asked_in))
}

fn user(t: &mut Transcript, v: &Value, meta: bool, compact: bool) {
    set_once(&mut t.session_id, str_at(v, "sessionId"));
    let content = &v["message"]["content"];
    for b in content.as_array().into_iter().flatten() {
        if b.get("type").and_then(Value::as_str) == Some("tool_result")
            && b.get("is_error").and_then(Value::as_bool) == Some(true)
        {
            let output = text_of(&b["content"]).unwrap_or_default();
            t.note_failure(&output);
        }
    }
    let text = text_of(content);
    let at = v.get("timestamp").and_then(Value::as_str);
    if compact || text.as_deref().is_some_and(|s| s.starts_with(CONTINUED)) {
        if let Some(text) = text {
            t.push_compaction(&text, at);
        }
        return;
    }
    if meta {
        t.dropped_turns += 1;
        return;
    }
    set_once(&mut t.project, str_at(v, "cwd"));
    if text.as_deref().is_some_and(clean::is_interruption) {
        t.note_stop();
    }
    t.note_selected(text.as_deref().and_then(super::user::selected_file));
    match text.as_deref().and_then(super::user::user_text) {
        Some(text) => t.push(Role::User, text, Vec::new(), str_at(v, "uuid")),
        // Tool results come back as user lines: not a turn of the person's.
        None if text.is_some() => t.dropped_turns += 1,
        None => {}
    }
}

/// The newest title; the person's own (`customTitle`) outranks a model's.
fn title(t: &mut Transcript, v: &Value) {
    let (text, by_model) = match str_at(v, "customTitle") {
        Some(text) => (text, false),
        None => match str_at(v, "aiTitle") {
            Some(text) => (text, true),
            None => return,
        },
    };
    if by_model && t.title.as_ref().is_some_and(|old| !old.by_model) {
        return;
    }
    t.title = Some(Title { text, by_model });
}

fn assistant(t: &mut Transcript, v: &Value) {
    set_once(&mut t.session_id, str_at(v, "sessionId"));
    let message = &v["message"];
    if message.get("model").and_then(Value::as_str) == Some("<synthetic>")
        || v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true)
    {
        // The harness's stand-in for a failed model request: its text is the error.
        if v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            t.note_failure(&text_of(&message["content"]).unwrap_or_default());
        }
        return;
    }
    let mut calls = Vec::new();
    let mut plan = None;
    if let Some(blocks) = message["content"].as_array() {
        for b in blocks {
            if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                // Plan mode's plan is what the agent tells the person, not a
                // call that does work.
                if name == "ExitPlanMode" {
                    plan = proposed_plan(&b["input"]);
                    continue;
                }
                calls.extend(tools::tool_use(name, &b["input"]));
            }
        }
    }
    let text = text_of(&message["content"])
        .and_then(|s| clean::assistant(&s))
        .unwrap_or_default();
    let text = match plan {
        Some(plan) if text.trim().is_empty() => plan,
        Some(plan) => format!("{text}\n\n{plan}"),
        None => text,
    };
    t.push(Role::Assistant, text, calls, str_at(message, "id"));
}

/// The plan an `ExitPlanMode` call proposes, headed by its title:
/// "Proposed plan: paginate the /orders endpoint" and then the plan.
fn proposed_plan(input: &Value) -> Option<String> {
    let plan = str_at(input, "plan")?;
    let first = plan.lines().map(str::trim).find(|l| !l.is_empty())?;
    let title = first.trim_start_matches('#').trim();
    let title = ["Plan:", "plan:", "PLAN:"]
        .iter()
        .find_map(|p| title.strip_prefix(p))
        .unwrap_or(title)
        .trim();
    Some(format!("Proposed plan: {title}\n\n{}", plan.trim()))
}

/// Claude Code's `/export`: the terminal as drawn, under its banner (the
/// logo's `▐▛███▜▌` beside "Claude Code v2.1.331", or the older box
/// "│ ✻ Welcome to Claude Code!"), each answer after a `●` (earlier `⏺`).
pub fn is_export(_first: &str, head: &[&str]) -> bool {
    let banner = head.iter().take(8).any(|l| {
        (l.contains("Claude Code v") && l.contains('\u{2590}'))
            || (l.starts_with('\u{2502}') && l.contains("Welcome to Claude Code"))
    });
    banner
        && head
            .iter()
            .any(|l| l.starts_with("\u{25CF} ") || l.starts_with("\u{23FA} "))
}

/// What a refusal calls such an export.
pub const EXPORT: crate::transcript::Foreign = "a Claude Code conversation exported by /export (capture the session's JSONL in ~/.claude/projects/ instead)";
