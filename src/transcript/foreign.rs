//! Files memsync does not read, told by their content: a chat exported as
//! one JSON document or as Markdown (SpecStory and the like), or a binary
//! file. Each is refused with what it is, never read as someone
//! else's format or as plain text.
//!
//! Owns: recognising those from a file's first lines. Must not: read a
//! format memsync supports (the readers do) or guess from a file's name.

use serde_json::Value;

/// What a refused file is, as the refusal names it.
pub type Foreign = &'static str;

/// A binary file: a NUL byte, or bytes that are not UTF-8 text, in its first
/// lines (the lines are decoded lossily, so those show as U+FFFD).
pub(crate) fn binary(head: &[String]) -> Option<Foreign> {
    let first = head.first()?;
    if first.starts_with("SQLite format 3") {
        return Some("an SQLite database (binary)");
    }
    let (mut odd, mut all) = (0usize, 0usize);
    for c in head.iter().flat_map(|l| l.chars()).take(8192) {
        all += 1;
        match c {
            '\0' => return Some("a binary file (it holds NUL bytes)"),
            '\u{FFFD}' => odd += 1,
            c if c.is_control() && !matches!(c, '\t' | '\r' | '\n' | '\u{1b}') => odd += 1,
            _ => {}
        }
    }
    (all > 0 && odd * 10 > all).then_some("a binary file (not UTF-8 text)")
}

/// What the harnesses' folders tell of the files their programs write that
/// are not sessions (a saved chat, a prompt log, a conversation exported as
/// Markdown), and what the refusal calls each.
pub(crate) struct HarnessFiles<'a> {
    /// From a file that is one JSON value.
    pub document: &'a dyn Fn(&Value) -> Option<Foreign>,
    /// From a text file's first non-empty line and its first lines.
    pub export: &'a dyn Fn(&str, &[&str]) -> Option<Foreign>,
}

/// JSONL that is not a session memsync reads, from its lines' shape.
pub(crate) fn jsonl(first: &Value, head: &[Value], known: &HarnessFiles) -> Option<Foreign> {
    // One line holding the whole chat.
    if head.len() != 1 {
        return None;
    }
    (known.document)(first).or_else(|| chat_list(first).then_some(JSON_CHAT))
}

const JSON_CHAT: Foreign = "a chat exported as one JSON document";

/// Whether a JSON value holds a whole chat: a list of messages under a key
/// exporters use, or is that list.
fn chat_list(v: &Value) -> bool {
    let is_turns = |v: &Value| {
        v.as_array().is_some_and(|a| {
            a.iter().any(|m| {
                m.get("role").is_some() || m.get("sender").is_some() || m.get("author").is_some()
            })
        })
    };
    is_turns(v)
        || [
            "messages",
            "chat_messages",
            "conversation",
            "mapping",
            "history",
        ]
        .iter()
        .any(|k| v.get(*k).is_some())
}

/// Text that is not a transcript memsync reads: a JSON document over several
/// lines, or a chat exported to Markdown.
pub(crate) fn text(text: &str, known: &HarnessFiles) -> Option<Foreign> {
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim();
    if first == "{" || first == "[" || first.starts_with("{\"") || first.starts_with("[{") {
        if let Some(what) = serde_json::from_str::<Value>(text)
            .ok()
            .as_ref()
            .and_then(known.document)
        {
            return Some(what);
        }
        let chat = [
            "\"messages\"",
            "\"role\"",
            "\"conversation\"",
            "\"chat_messages\"",
        ]
        .iter()
        .any(|k| text.contains(k));
        return Some(if chat {
            JSON_CHAT
        } else {
            "a JSON document that is not a session log"
        });
    }
    let lower = first.to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return Some("an HTML page");
    }
    let head: Vec<&str> = text.lines().take(400).collect();
    if is_log(&head) {
        return Some(LOG);
    }
    if is_stack_trace(&head) {
        return Some(TRACE);
    }
    (known.export)(first, &head)
        .or_else(|| specstory_export(&head).then_some("a SpecStory export (Markdown)"))
}

const LOG: Foreign = "a program's log (timestamped lines with levels such as [INFO]), not a conversation: capture the session file the harness keeps instead (`memsync harvest` finds them)";

/// Lines a program logs: most of the first lines carry a level (`[INFO]`,
/// `DEBUG`, `level=warn`) near their start, after a timestamp or alone.
fn is_log(head: &[&str]) -> bool {
    let lines: Vec<&str> = head
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .take(40)
        .collect();
    let logged = lines.iter().filter(|l| is_log_line(l)).count();
    // Two lines are a log when they are all there is.
    (logged >= 3 && logged * 10 >= lines.len() * 7) || (logged >= 2 && logged == lines.len())
}

const TRACE: Foreign = "a program's error output (a stack trace), not a conversation: capture the session file the harness keeps instead (`memsync harvest` finds them)";

/// A stack trace and nothing else: it opens as Python, Rust, Java, Go or
/// JavaScript open one, and every line after is a frame, the code a frame
/// shows, a note the runtime adds, or the error itself.
fn is_stack_trace(head: &[&str]) -> bool {
    let lines: Vec<&str> = head
        .iter()
        .filter(|l| !l.trim().is_empty())
        .copied()
        .collect();
    let Some((first, rest)) = lines.split_first() else {
        return false;
    };
    let first = first.trim();
    // Rust prints the panic's message on the line after where it happened.
    let rust = first.starts_with("thread '") && first.contains("' panicked at");
    let rest = if rust {
        rest.get(1..).unwrap_or_default()
    } else {
        rest
    };
    let opens = first.starts_with("Traceback (most recent call last)")
        || rust
        || first.starts_with("Exception in thread ")
        || first.starts_with("goroutine ") && first.ends_with("]:")
        || first.starts_with("panic: ")
        || is_error_line(first) && rest.first().is_some_and(|l| is_frame(l));
    opens
        && (rust || !rest.is_empty())
        && rest.iter().all(|l| is_frame(l) || is_error_line(l.trim()))
}

/// A frame of a trace (`  File "x.py", line 3, in f`, `at f (x.js:1:2)`,
/// `   2: std::rt::lang_start`), the indented code or path under one, or a
/// note the runtime adds between them.
fn is_frame(line: &str) -> bool {
    let t = line.trim();
    const NOTES: &[&str] = &[
        "note: run with `RUST_BACKTRACE",
        "stack backtrace:",
        "During handling of the above exception",
        "The above exception was the direct cause",
        "Caused by:",
        "... ",
        "[signal ",
        "exit status ",
        "goroutine ",
    ];
    line.starts_with([' ', '\t'])
        || t.starts_with("File \"")
        || t.starts_with("at ")
        // Go names each frame's call on a line of its own: `main.main()`.
        || !t.contains(' ') && t.contains('(') && t.ends_with(')')
        || t.split_once(": ").is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        || NOTES.iter().any(|n| t.starts_with(n))
}

/// The error a trace ends or opens with: `NameError: name 'x' is not
/// defined`, `java.lang.IllegalStateException: …`, `TypeError: …`.
fn is_error_line(line: &str) -> bool {
    // Python's last line may be the bare name (`KeyboardInterrupt`).
    let name = line.split_once(':').map_or(line, |(name, _)| name);
    let name = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && ["Error", "Exception", "Panic", "Interrupt", "Exit"]
            .iter()
            .any(|k| name.ends_with(k))
}

/// A line that names its level within its first few words.
fn is_log_line(line: &str) -> bool {
    const LEVELS: [&str; 9] = [
        "TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "FATAL", "CRITICAL",
    ];
    line.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '|' | ':' | '='))
        .filter(|w| !w.is_empty())
        .take(5)
        .any(|w| LEVELS.contains(&w) || w.strip_prefix("level").is_some_and(str::is_empty))
}

/// SpecStory's export of an editor's chat: its mark, or its turn lines.
fn specstory_export(head: &[&str]) -> bool {
    head.iter().any(|l| l.contains("Generated by SpecStory"))
        || head.iter().filter(|l| specstory_turn(l)).count() >= 2
}

/// `_**User**_`, `_**Assistant**_`, `_**Agent (model …)**_`: SpecStory's turn lines.
fn specstory_turn(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("_**")
        && l.ends_with("**_")
        && ["User", "Assistant", "Agent", "Cursor"]
            .iter()
            .any(|who| l[3..].starts_with(who))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No harness's own files: the generic rules alone.
    const NO_HARNESS: HarnessFiles = HarnessFiles {
        document: &|_| None,
        export: &|_, _| None,
    };

    #[test]
    fn specstory_turn_lines_are_told_from_emphasis() {
        assert!(specstory_turn("_**User**_"));
        assert!(specstory_turn("_**Agent (claude-4-sonnet)**_"));
        assert!(!specstory_turn("_**Note**_"));
        assert!(!specstory_turn("**User:** hello"));
    }

    /// The class: a program's log, whatever its timestamp and level marks;
    /// a conversation quoting a few log lines stays a conversation.
    #[test]
    fn a_programs_log_is_told_by_its_levels_and_a_conversation_quoting_one_is_not() {
        let shapes = [
            |i: usize, level: &str| format!("2026-03-02T09:00:{i:02}.120Z [{level}] step {i} done"),
            |i: usize, level: &str| format!("[{level}] 09:00:{i:02} step {i} done"),
            |i: usize, level: &str| format!("{level} 2026-03-02 09:00:{i:02},120 worker: step {i}"),
            |i: usize, level: &str| {
                format!(
                    "time=2026-03-02T09:00:{i:02}Z level={} msg=\"step {i}\"",
                    level.to_lowercase()
                )
            },
            |i: usize, level: &str| format!("09:00:{i:02} | {level} | step {i}"),
        ];
        let levels = ["INFO", "DEBUG", "WARN", "ERROR"];
        for shape in shapes {
            let log: Vec<String> = (0..12).map(|i| shape(i, levels[i % 4])).collect();
            assert_eq!(text(&log.join("\n"), &NO_HARNESS), Some(LOG), "{}", log[0]);
        }
        let chat = "user: the build fails, here is the output\n\
            ERROR: linker `cc` not found\n\
            INFO: retrying\n\
            assistant: Install build-essential, then run cargo build again.\n\
            user: that fixed it, thanks\n\
            assistant: Good. The linker was the only thing missing.\n";
        assert_eq!(text(chat, &NO_HARNESS), None);
        let notes = "# Notes\n\nAt a high level the cache is fine.\nThe error level is low.\n";
        assert_eq!(text(notes, &NO_HARNESS), None);
    }

    /// The class: two levelled lines and nothing else are a log too.
    #[test]
    fn two_levelled_lines_alone_are_a_log() {
        let two = [
            "2026-03-02T09:00:01Z [INFO] Starting Copilot CLI\n2026-03-02T09:00:02Z [ERROR] no token",
            "INFO worker started\nWARN queue is full",
            "time=09:00:01 level=info msg=up\ntime=09:00:02 level=error msg=down",
        ];
        for log in two {
            assert_eq!(text(log, &NO_HARNESS), Some(LOG), "{log}");
        }
        let one_of_two = "[INFO] the job ran\nplease tell me why it was slow";
        assert_eq!(text(one_of_two, &NO_HARNESS), None);
    }

    /// The class: a stack trace alone, as each runtime prints one, is a
    /// program's error output; a conversation or notes quoting one are not.
    #[test]
    fn a_stack_trace_alone_is_told_from_a_conversation_quoting_one() {
        let traces = [
            "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\n  File \"app.py\", line 2, in main\n    foo()\nNameError: name 'foo' is not defined",
            "Traceback (most recent call last):\n  File \"loop.py\", line 9, in <module>\n    time.sleep(1)\nKeyboardInterrupt",
            "thread 'main' panicked at src/main.rs:2:5:\nindex out of bounds: the len is 3 but the index is 7\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
            "Exception in thread \"main\" java.lang.IllegalStateException: closed\n\tat com.shop.Cart.add(Cart.java:41)\n\tat com.shop.Main.main(Main.java:12)",
            "TypeError: cart.items is not iterable\n    at total (/srv/shop/cart.js:14:22)\n    at Object.<anonymous> (/srv/shop/index.js:3:1)",
            "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]\n\ngoroutine 1 [running]:\nmain.main()\n\t/home/ana/shop/main.go:9 +0x1c\nexit status 2",
        ];
        for trace in traces {
            assert_eq!(text(trace, &NO_HARNESS), Some(TRACE), "{trace}");
        }
        let asked = format!("why does this fail?\n\n{}", traces[0]);
        assert_eq!(text(&asked, &NO_HARNESS), None);
        let dialogue = format!(
            "user: {}\nassistant: foo is never imported; add `from lib import foo`.",
            traces[4]
        );
        assert_eq!(text(&dialogue, &NO_HARNESS), None);
        let notes =
            "TypeError: the usual one\nWe saw it twice last week and fixed it by pinning node.";
        assert_eq!(text(notes, &NO_HARNESS), None);
    }

    #[test]
    fn a_few_odd_bytes_in_text_are_not_binary() {
        let head = vec!["caf\u{FFFD} au lait, and a long line of ordinary words".to_string()];
        assert_eq!(binary(&head), None);
        assert!(binary(&["SQLite format 3\0".to_string()]).is_some());
    }
}
