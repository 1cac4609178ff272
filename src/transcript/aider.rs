//! Aider's chat history (`.aider.chat.history.md` in the repository): each
//! chat opens with `# aider chat started at YYYY-MM-DD HH:MM:SS`, `#### `
//! lines are what the person typed, `> ` lines are Aider's own status and
//! tool output, and everything else is the model's answer.
//!
//! Owns: that markdown shape. The file holds every chat of a repository; it is
//! read as one session named after its first chat (`aider-<start>`), so chats
//! appended later arrive as a continuation of it.

use chrono::{NaiveDateTime, TimeZone, Utc};

use super::{Format, Role, ToolKind, ToolUse, Transcript, clean};

const HEADER: &str = "# aider chat started at ";

/// Whether `text` is an Aider chat history.
pub(crate) fn is_aider(text: &str) -> bool {
    text.lines()
        .take(20)
        .any(|l| l.trim_start().starts_with(HEADER))
}

/// Commands whose arguments are a request (`/ask why does it fail?`).
const ASKING: &[&str] = &["/ask", "/code", "/architect", "/context"];

pub(crate) fn read(text: &str, keep: usize) -> Transcript {
    let mut t = Transcript::bounded(Format::Aider, keep);
    let mut user: Vec<&str> = Vec::new();
    let mut answer: Vec<&str> = Vec::new();
    let mut calls: Vec<ToolUse> = Vec::new();
    // The closing tag of the reasoning block being skipped.
    let mut thinking: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_end();
        if let Some(close) = &thinking {
            if trimmed.trim() == close {
                thinking = None;
            }
            continue;
        }
        if let Some(close) = thinking_opens(trimmed.trim()) {
            thinking = Some(close);
            continue;
        }
        if let Some(when) = trimmed.trim_start().strip_prefix(HEADER) {
            flush(&mut t, &mut user, &mut answer, &mut calls);
            let at = NaiveDateTime::parse_from_str(when.trim(), "%Y-%m-%d %H:%M:%S")
                .ok()
                .map(|n| Utc.from_utc_datetime(&n));
            if let Some(at) = at {
                if t.session_id.is_none() {
                    t.session_id = Some(format!("aider-{}", at.format("%Y-%m-%dT%H-%M-%S")));
                }
                t.started_at = Some(t.started_at.map_or(at, |s| s.min(at)));
                t.ended_at = Some(t.ended_at.map_or(at, |e| e.max(at)));
            }
            continue;
        }
        if let Some(typed) = trimmed.strip_prefix("####") {
            if typed.contains("(Y)es/(N)o") {
                // The person's answer to Aider's own question, not a request.
                continue;
            }
            if !answer.is_empty() || !calls.is_empty() {
                flush(&mut t, &mut user, &mut answer, &mut calls);
            }
            user.push(typed.strip_prefix(' ').unwrap_or(typed));
            continue;
        }
        if let Some(status) = trimmed.strip_prefix('>') {
            flush_user(&mut t, &mut user);
            let status = status.trim();
            // "^C again to exit": the person interrupted Aider's turn.
            if status.starts_with("^C") {
                t.note_stop();
                continue;
            }
            if let Some(file) = status
                .strip_prefix("Applied edit to ")
                .filter(|f| is_path(f))
            {
                calls.push(ToolUse {
                    name: "edit".into(),
                    kind: ToolKind::Change,
                    target: file.trim().to_string(),
                });
            } else if let Some(commit) = commit_line(status) {
                calls.push(ToolUse {
                    name: COMMIT.into(),
                    kind: ToolKind::Other,
                    target: commit,
                });
            }
            continue;
        }
        if !user.is_empty() {
            flush_user(&mut t, &mut user);
        }
        answer.push(trimmed);
    }
    flush(&mut t, &mut user, &mut answer, &mut calls);
    t
}

/// The tool name of a commit Aider made (`> Commit <sha> <message>`); its
/// target is the message.
pub const COMMIT: &str = "aider-commit";

/// `<thinking>` or `<thinking-content-<hex>>` on a line of its own: a
/// reasoning model's notes, which run to the matching close tag.
fn thinking_opens(line: &str) -> Option<String> {
    let tag = line.strip_prefix('<')?.strip_suffix('>')?;
    (tag == "thinking" || tag.starts_with("thinking-content-") && !tag.contains(' '))
        .then(|| format!("</{tag}>"))
}

/// What `Applied edit to …` names when it is a file, not a line of prose
/// Aider mistook for a file name (`-> Swift binary sends CGEvent`).
fn is_path(name: &str) -> bool {
    let name = name.trim();
    !name.is_empty()
        && !name.contains(char::is_whitespace)
        && !name.starts_with('-')
        && (name.contains('/') || name.contains('.'))
}

/// The message of `Commit <sha> <message>`.
fn commit_line(status: &str) -> Option<String> {
    let (sha, message) = status.strip_prefix("Commit ")?.split_once(' ')?;
    let hex = (7..=40).contains(&sha.len()) && sha.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !message.trim().is_empty()).then(|| message.trim().to_string())
}

fn flush(
    t: &mut Transcript,
    user: &mut Vec<&str>,
    answer: &mut Vec<&str>,
    calls: &mut Vec<ToolUse>,
) {
    flush_user(t, user);
    let text = answer.join("\n");
    answer.clear();
    t.push(Role::Assistant, text, std::mem::take(calls), None);
}

fn flush_user(t: &mut Transcript, user: &mut Vec<&str>) {
    let text = user.join("\n").trim().to_string();
    user.clear();
    if text.is_empty() {
        return;
    }
    let first = text.split_whitespace().next().unwrap_or_default();
    let request = if ASKING.contains(&first) {
        text[first.len()..].trim().to_string()
    } else if clean::is_control_command(&text) || text.starts_with('/') && !text.contains(' ') {
        // "/add src/blog/" and then a whole prompt in the same input: Aider
        // took the prompt for the command's file names, but the words below
        // the command line are what the person asked.
        match text.split_once('\n') {
            Some((_, below)) if crate::sentence::word_count(below) >= 8 => below.trim().to_string(),
            _ => String::new(),
        }
    } else {
        text
    };
    if request.is_empty() {
        t.dropped_turns += 1;
    } else {
        t.push(Role::User, request, Vec::new(), None);
    }
}
