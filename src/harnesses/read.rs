//! Where a transcript comes from: bytes read a line at a time within a
//! budget, the format told from the first lines, and the lines handed to
//! that format's reader. Plain text keeps its opening and its newest lines.
//!
//! Owns: format detection and the bounded plain-text form. Must not: know a
//! format's entries (each harness's reader and the transcript stage do).

use std::io::BufRead;

use serde_json::Value;

use super::{RECOGNITION_ORDER, program};
use crate::transcript::{
    Format, LineReader, Transcript, UNBOUNDED, aider, cut_message, dialogue, foreign, generic,
};

/// Reads a transcript held in memory, whole.
pub fn read(text: &str) -> Transcript {
    // Reading from a byte slice cannot fail.
    read_from(text.as_bytes(), UNBOUNDED).unwrap_or_else(|_| Transcript::new(Format::Unknown))
}

/// The files the harnesses write that are not sessions, as their folders tell them.
const HARNESS_FILES: foreign::HarnessFiles = foreign::HarnessFiles {
    document: &|doc| {
        RECOGNITION_ORDER
            .into_iter()
            .find_map(|h| program(h).foreign_document(doc))
    },
    export: &|first, head| {
        RECOGNITION_ORDER
            .into_iter()
            .find_map(|h| program(h).foreign_export(first, head))
    },
};

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
            if let Some(what) = foreign::jsonl(&v, &values, &HARNESS_FILES) {
                return Ok(Transcript::foreign(what));
            }
            let reader = RECOGNITION_ORDER
                .into_iter()
                .filter_map(|h| program(h).log_format())
                .find(|log| (log.is_log)(&v, &values));
            let mut all = head
                .into_iter()
                .chain(lines.by_ref())
                .filter(|l| !l.trim().is_empty());
            match reader {
                Some(log) => (log.read)(&mut all, keep),
                None => generic::read(all, keep),
            }
        }
        _ => {
            let text = bounded_text(head, &mut lines, keep);
            if let Some(t) = json_document(&text, keep) {
                t
            } else if let Some(what) = foreign::text(&text, &HARNESS_FILES) {
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
    RECOGNITION_ORDER
        .into_iter()
        .find_map(|h| program(h).read_document(doc, keep))
}
