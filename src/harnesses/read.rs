//! Where a transcript comes from: bytes read a line at a time within a
//! budget, the format told from the first lines, and the lines handed to
//! that format's reader. Plain text keeps its opening and its newest lines.
//!
//! Owns: format detection and the bounded plain-text form. Must not: know a
//! format's entries (each harness's reader and the transcript stage do).

use std::io::BufRead;

use serde_json::Value;

use super::{claude_code, cline, codex, copilot_cli, gemini_cli, opencode, pi, qwen_code};
use crate::transcript::{
    Format, LineReader, Transcript, UNBOUNDED, aider, cut_message, dialogue, foreign, generic,
};

/// Reads a transcript held in memory, whole.
pub fn read(text: &str) -> Transcript {
    // Reading from a byte slice cannot fail.
    read_from(text.as_bytes(), UNBOUNDED).unwrap_or_else(|_| Transcript::new(Format::Unknown))
}

/// Lines looked at to tell the format.
const LOOKAHEAD_LINES: usize = 50;

/// Reads a transcript a line at a time, keeping at most `keep` bytes of its
/// conversation (and of any one line): memory follows `keep`, not the size
/// of the file. JSONL is recognised by its first non-empty line being a JSON
/// object; an Aider chat history by its `# aider chat started at` header;
/// anything else is plain text.
pub fn read_from(reader: impl BufRead, keep: usize) -> std::io::Result<Transcript> {
    let mut lines = LineReader::new(reader, keep);
    let mut head: Vec<String> = Vec::new();
    let mut head_bytes = 0;
    while head.len() < LOOKAHEAD_LINES && head_bytes < keep {
        let Some(line) = lines.next() else { break };
        head_bytes += line.len();
        head.push(line);
    }
    if let Some(what) = foreign::binary(&head) {
        return Ok(Transcript::foreign(what));
    }
    let first = head.iter().find(|l| !l.trim().is_empty());
    let first_value = first.and_then(|l| serde_json::from_str::<Value>(l).ok());
    let mut t = match first_value {
        Some(v) if v.is_object() => {
            let values: Vec<Value> = head
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .collect();
            // A whole session written as one line.
            if values.len() == 1
                && let Some(t) = document(&v, keep)
            {
                return Ok(t);
            }
            if let Some(what) = foreign::jsonl(&v, &values) {
                return Ok(Transcript::foreign(what));
            }
            let reader = jsonl_reader(&values, &v);
            let all = head
                .into_iter()
                .chain(lines.by_ref())
                .filter(|l| !l.trim().is_empty());
            match reader {
                JsonlReader::Codex => codex::reader::read(all, keep),
                JsonlReader::Pi => pi::reader::read(all, keep),
                JsonlReader::ClaudeCode => claude_code::reader::read(all, keep),
                JsonlReader::GeminiCli => gemini_cli::reader::read(all, keep),
                JsonlReader::QwenCode => qwen_code::reader::read(all, keep),
                JsonlReader::CopilotCli => copilot_cli::reader::read(all, keep),
                JsonlReader::Opencode => opencode::reader::read(all, keep),
                JsonlReader::Generic => generic::read(all, keep),
            }
        }
        _ => {
            let text = bounded_text(head, &mut lines, keep);
            if let Some(t) = json_document(&text, keep) {
                t
            } else if let Some(what) = foreign::text(&text) {
                return Ok(Transcript::foreign(what));
            } else if aider::is_aider(&text) {
                aider::read(&text, keep)
            } else if let Some(t) = dialogue::read(&text, keep) {
                t
            } else {
                let mut t = Transcript::bounded(Format::Plain, keep);
                t.plain = Some(text);
                t
            }
        }
    };
    if let Some(e) = lines.error.take() {
        return Err(e);
    }
    t.cut_lines = std::mem::take(&mut lines.cut);
    Ok(t)
}

/// Plain text: all of it when it fits in `keep`; else its first quarter and
/// its newest lines, with a marker where the middle was left out.
fn bounded_text(head: Vec<String>, rest: &mut impl Iterator<Item = String>, keep: usize) -> String {
    let mut text = String::new();
    let mut tail: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    let (mut tail_bytes, mut left_out) = (0usize, 0usize);
    let (head_room, tail_room) = (keep / 4, keep - keep / 4);
    for mut line in head.into_iter().chain(rest) {
        if text.len() < head_room && tail.is_empty() {
            // The opening request stays, cut to the room left if it is a paste.
            cut_message(&mut line, head_room - text.len());
            text.push_str(&line);
            text.push('\n');
            continue;
        }
        cut_message(&mut line, tail_room / 2);
        tail_bytes += line.len() + 1;
        tail.push_back(line);
        while tail_bytes > tail_room {
            let Some(old) = tail.pop_front() else { break };
            tail_bytes -= old.len() + 1;
            left_out += old.len() + 1;
        }
    }
    if left_out > 0 {
        text.push_str(&format!(
            "\n[… {left_out} bytes left out by memsync: a transcript keeps its first and newest {} KiB (capture.max_transcript_bytes)]\n\n",
            keep / 1024
        ));
    }
    for line in tail {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// A session kept as one JSON document (Cline's `<id>.messages.json`, an
/// older Gemini CLI's `session-*.json`, an `opencode export`).
fn json_document(text: &str, keep: usize) -> Option<Transcript> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let doc: Value = serde_json::from_str(text).ok()?;
    document(&doc, keep)
}

/// The session a JSON document holds, when it is one of the formats above
/// (on one line or spread over many).
fn document(doc: &Value, keep: usize) -> Option<Transcript> {
    if cline::reader::is_cline(doc) {
        return Some(cline::reader::read(doc, keep));
    }
    if gemini_cli::reader::is_document(doc) {
        return Some(gemini_cli::reader::read_document(doc, keep));
    }
    if copilot_cli::reader::is_legacy(doc) {
        return Some(copilot_cli::reader::read_legacy(doc, keep));
    }
    opencode::reader::is_export(doc).then(|| opencode::reader::read_export(doc, keep))
}

enum JsonlReader {
    Codex,
    Pi,
    ClaudeCode,
    GeminiCli,
    QwenCode,
    CopilotCli,
    Opencode,
    Generic,
}

/// Picks the reader from the first object's shape and the first lines
/// (parsed once, by the caller).
fn jsonl_reader(head: &[Value], first: &Value) -> JsonlReader {
    let has_line_of = |pred: &dyn Fn(&Value) -> bool| head.iter().any(pred);
    if first.get("payload").is_some() || has_line_of(&|v| v.get("payload").is_some()) {
        return JsonlReader::Codex;
    }
    // Legacy Codex: a bare `{id, timestamp, instructions}` line, state markers.
    if first.get("id").is_some() && first.get("instructions").is_some()
        || has_line_of(&|v| v.get("record_type").is_some())
    {
        return JsonlReader::Codex;
    }
    if first.get("type").and_then(Value::as_str) == Some("session") {
        return JsonlReader::Pi;
    }
    let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
    if first.get("projectHash").is_some() && first.get("sessionId").is_some()
        || has_line_of(&|v| kind(v).as_deref() == Some("gemini") || v.get("$set").is_some())
    {
        return JsonlReader::GeminiCli;
    }
    if has_line_of(&|v| {
        kind(v).is_some_and(|k| k.starts_with("session.") || k == "user.message")
            && v.get("data").is_some()
    }) {
        return JsonlReader::CopilotCli;
    }
    if has_line_of(&|v| {
        matches!(
            v.get("table").and_then(Value::as_str),
            Some("session" | "message" | "part")
        )
    }) {
        return JsonlReader::Opencode;
    }
    // Claude Code's envelope around Gemini-style `message.parts`.
    if has_line_of(&|v| {
        v.get("message")
            .is_some_and(|m| m.get("parts").is_some() && m.get("content").is_none())
    }) {
        return JsonlReader::QwenCode;
    }
    if has_line_of(&|v| {
        matches!(
            v.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        ) && v.get("message").is_some()
    }) {
        return JsonlReader::ClaudeCode;
    }
    JsonlReader::Generic
}
