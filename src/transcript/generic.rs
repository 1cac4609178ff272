//! The generic chat JSONL: one `{"role": …, "content": …}` object a line,
//! as other tools export a conversation.
//!
//! Owns: that line shape. Must not: guess a harness from it.

use serde_json::Value;

use super::{Format, Role, Transcript, text_of};

/// `{"role": "user", "content": …}` lines.
pub(crate) fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Unknown, keep);
    for line in lines {
        let Ok(v) = serde_json::from_str::<Value>(line.as_ref()) else {
            t.skipped_lines += 1;
            continue;
        };
        let role = match v.get("role").and_then(Value::as_str) {
            Some("user" | "human") => Role::User,
            Some("assistant" | "ai" | "model") => Role::Assistant,
            Some(_) => continue,
            None => {
                t.skipped_lines += 1;
                continue;
            }
        };
        t.format = Format::Messages;
        if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
            t.note_time(ts);
        }
        let text = text_of(&v["content"]).unwrap_or_default();
        t.push(role, text, Vec::new(), None);
    }
    t
}
