//! What harnesses inject into the conversation, and how it is taken out:
//! dropped when it is only the harness talking (reminders, caveats, command
//! output, heartbeats, environment context), unwrapped when it wraps a
//! person's words (an IDE preamble, a chat message's untrusted-metadata
//! envelope, slash-command markup).
//!
//! Owns: the text rules, one function per harness. Must not: parse JSON lines
//! (the readers do) or judge secrets (the sanitizer does).

/// Slash commands that steer the harness rather than ask for work.
pub(crate) const CONTROL_COMMANDS: &[&str] = &[
    "/clear",
    "/compact",
    "/exit",
    "/quit",
    "/resume",
    "/continue",
    "/model",
    "/mode",
    "/help",
    "/status",
    "/cost",
    "/config",
    "/login",
    "/logout",
    "/doctor",
    "/memory",
    "/permissions",
    "/hooks",
    "/vim",
    "/theme",
    "/terminal-setup",
    "/ide",
    "/init",
    "/thinking",
    "/new",
    "/reset",
    "/stop",
    "/context",
    "/usage",
    "/export",
    "/rewind",
    "/agents",
    "/mcp",
    "/ask",
    "/code",
    "/architect",
    "/multiline-mode",
    "/tokens",
    "/add",
    "/drop",
    "/ls",
    "/undo",
    "/diff",
    "/run",
    "/test",
    "/web",
    "/paste",
    "/copy",
    "/settings",
    "/voice",
];

/// Blocks the Gemini CLI family (Gemini CLI, qwen-code), Copilot CLI and
/// Cline put around or beside what a person typed.
const WRAPPING_BLOCKS: &[&str] = &[
    "session_context",
    "loaded_context",
    // Gemini CLI puts a hook's `additionalContext` (memsync's own recall) in the turn.
    "hook_context",
    "current_datetime",
    "environment_details",
    "system-reminder",
    "mode_notice",
    "reminder",
];

/// A user message of Gemini CLI, qwen-code, Copilot CLI, opencode or Cline:
/// the words inside Cline's `<user_input mode=…>` wrapper, without the
/// context blocks these harnesses inject; `None` when nothing else is left
/// (Gemini CLI's start-up `<session_context>` turn) or it is a control command.
pub fn agent_cli_user(text: &str) -> Option<String> {
    let text = text.trim();
    if is_interruption(text) || is_control_command(text) {
        return None;
    }
    let inner = match text.find("<user_input") {
        Some(at) => {
            let open_end = text[at..].find('>').map(|i| at + i + 1)?;
            let close = text[open_end..]
                .find("</user_input>")
                .map_or(text.len(), |i| open_end + i);
            text[open_end..close].to_string()
        }
        None => text.to_string(),
    };
    person(&strip_blocks(&inner, WRAPPING_BLOCKS))
}

/// The agent's text with harness-only answers (`HEARTBEAT_OK`, `NO_REPLY`) and
/// `<final>` markers taken out.
pub fn assistant(text: &str) -> Option<String> {
    let text = text.replace("<final>", "").replace("</final>", "");
    let t = text.trim();
    if matches!(t, "HEARTBEAT_OK" | "NO_REPLY" | "NO_REPLY.") || t.is_empty() {
        return None;
    }
    keep(without_reply_tags(&strip_blocks(t, &["system-reminder"])))
}

/// An answer without the reply directives an agent writes for its chat
/// channel (OpenClaw's `[[reply_to_current]]`, `[[reply_to:4411]]`,
/// `[[audio_as_voice]]`): instructions to the gateway, not words.
fn without_reply_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(len) = rest[open..].find("]]") else {
            break;
        };
        let inner = rest[open + 2..open + len].trim();
        out.push_str(&rest[..open]);
        let directive = inner == "reply_to_current"
            || inner == "audio_as_voice"
            || inner
                .strip_prefix("reply_to:")
                .is_some_and(|id| !id.contains(char::is_whitespace));
        if !directive {
            out.push_str(&rest[open..open + len + 2]);
        }
        rest = &rest[open + len + 2..];
        if directive {
            rest = rest.strip_prefix(' ').unwrap_or(rest);
        }
    }
    out.push_str(rest);
    out
}

/// A message that is only a harness control command (`/model`, `/clear`).
pub fn is_control_command(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default();
    CONTROL_COMMANDS.contains(&first)
}

/// `[Request interrupted by user]` and friends: markers, not requests.
pub fn is_interruption(text: &str) -> bool {
    text.starts_with("[Request interrupted by user")
}

/// The words a person typed into an expanded prompt template: the fenced text
/// under `## User Input` (spec-kit style). `None` when the message is not such
/// a template; `Some("")` when the person typed nothing into it.
pub fn template_input(text: &str) -> Option<String> {
    let (_, after) = text.split_once("## User Input")?;
    let start = after.find("```")?;
    let fenced = &after[start + 3..];
    let body_start = fenced.find('\n')? + 1;
    let end = fenced[body_start..].find("```")?;
    Some(fenced[body_start..body_start + end].trim().to_string())
}

/// Whether a message reads like an expanded prompt file rather than words a
/// person typed: long and made of several markdown sections.
pub fn looks_like_template(text: &str) -> bool {
    let headings = text
        .lines()
        .filter(|l| l.starts_with("## ") || l.starts_with("# "))
        .count();
    template_input(text).is_some() || (text.len() > 1500 && headings >= 3)
}

/// The question a person typed under a long paste (a project's guidelines,
/// then "Do you think it is worth it to replace the UUIDs?"): its last
/// paragraph, when that is prose ending in a question mark.
pub fn closing_question(text: &str) -> Option<String> {
    let text = text.trim_end();
    if !text.ends_with(['?', '？']) {
        return None;
    }
    // The trailing lines of prose: a code line or a blank line ends them.
    let lines: Vec<&str> = text.lines().collect();
    let question = trailing(&lines, |l| {
        !l.trim().is_empty()
            && !l.starts_with([' ', '\t'])
            && !l
                .trim_start()
                .starts_with(['#', '-', '*', '`', '>', '|', '<', '}', ')'])
    })
    .join("\n");
    (!question.is_empty() && question.len() <= 2000).then_some(question)
}

/// The last lines of `lines` that all `keep`.
fn trailing<'a, 'b>(lines: &'b [&'a str], keep: impl Fn(&str) -> bool) -> &'b [&'a str] {
    let n = lines.iter().rev().take_while(|l| keep(l)).count();
    &lines[lines.len() - n..]
}

/// What a person typed under a long paste that opens their message (a log,
/// a stack trace, code, then "Why does the pool drop every connection?"):
/// the trailing prose lines, when the text before them is mostly not prose.
/// A message that opens with prose keeps its opening.
pub fn after_paste(text: &str) -> Option<String> {
    let text = text.trim();
    if let Some(asked) = after_traceback(text) {
        return Some(asked);
    }
    if let Some(asked) = after_fenced_paste(text) {
        return Some(asked);
    }
    let first = text.lines().next().unwrap_or_default();
    if text.len() < 1200 || is_prose_line(first) {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let tail = trailing(&lines, is_prose_line);
    let head: Vec<&&str> = lines[..lines.len() - tail.len()]
        .iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let prose = head.iter().filter(|l| is_prose_line(l)).count();
    let question = tail.join("\n");
    (!tail.is_empty() && question.len() <= 2000 && head.len() >= 8 && prose * 3 < head.len())
        .then_some(question)
}

/// A Python traceback the message opens with (fenced or not, after at most
/// one short line) says its point in the exception it ends on
/// ("ZeroDivisionError: division by zero"), not in its header: that line,
/// after the words that led into it and before what the person wrote after.
fn after_traceback(text: &str) -> Option<String> {
    const HEADER: &str = "Traceback (most recent call last):";
    let start = text.find(HEADER)?;
    if start > 0 && !text[..start].ends_with('\n') {
        return None;
    }
    let before = text[..start].trim();
    // A fence's opening line, with its language, is no words.
    let before = match before.rsplit_once('\n') {
        Some((lead, fence)) if fence.starts_with("```") => lead.trim(),
        None if before.starts_with("```") => "",
        _ => before,
    };
    if before.contains('\n') || crate::sentence::word_count(before) > 12 {
        return None;
    }
    let lines: Vec<&str> = text[start..].lines().collect();
    let indented = |l: &str| l.starts_with([' ', '\t']);
    // The exception: the last line at the margin right after the trace's
    // indented lines (a chained trace ends on the last one raised).
    let at = (1..lines.len())
        .rev()
        .find(|&i| !indented(lines[i]) && !lines[i].trim().is_empty() && indented(lines[i - 1]))?;
    let after = lines[at + 1..].join("\n");
    let asked = after.trim().trim_start_matches("```").trim();
    let asked = if asked.to_lowercase().starts_with("thank") {
        ""
    } else {
        asked
    };
    // "have you seen this?" before the trace and a question after: the one after.
    let question = |t: &str| t.ends_with(['?', '？']);
    let before = if question(before) && question(asked) {
        ""
    } else {
        before
    };
    let said: Vec<&str> = [before, lines[at].trim(), asked]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    Some(said.join(" … "))
}

/// What a person asked around a fenced paste that a few words led into:
/// the prose after the last fence when both ask a question ("have you seen
/// this code?", a block, "why does it give the wrong total?"), else the
/// lead-in and that prose together ("Refactor this function:", a block,
/// "keep the public API the same"), when the lead-in is one short line and
/// the prose after the paste asks or the lead-in was six words at most.
fn after_fenced_paste(text: &str) -> Option<String> {
    let fences: Vec<usize> = text
        .match_indices("```")
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || text[..i].ends_with('\n'))
        .collect();
    let (&open, &close) = (fences.first()?, fences.last()?);
    if !fences.len().is_multiple_of(2) || close == open {
        return None;
    }
    let before = text[..open].trim();
    // The closing fence's line (it may carry nothing else), then the prose.
    let after = text[close..]
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .trim();
    let question = |t: &str| t.ends_with(['?', '？']);
    let lead_words = crate::sentence::word_count(before);
    let fits = lead_words <= 12
        && !before.contains('\n')
        && crate::sentence::word_count(after) >= 3
        && after.len() <= 2000
        && !after.to_lowercase().starts_with("thank");
    // "I get this error:", a block opening "Error: connect ECONNREFUSED …",
    // then "what is wrong?": a short ask about a pasted error says its
    // point in the error's line.
    let short_ask = (1..=ASK_ON_ERROR_WORDS).contains(&crate::sentence::word_count(after))
        && !after.to_lowercase().starts_with("thank");
    if let Some(error) = error_line(&text[open..close])
        && short_ask
        && lead_words <= 12
        && !before.contains('\n')
    {
        return Some(format!("{error} … {after}"));
    }
    // "why doesn't this work?" over only the error: told as an ask after
    // it would be, the error's line first.
    if let Some(error) = error_line(&text[open..close])
        && after.is_empty()
        && (1..=ASK_ON_ERROR_WORDS).contains(&lead_words)
        && !before.contains('\n')
    {
        return Some(format!("{error} … {before}"));
    }
    match () {
        _ if !fits => None,
        _ if before.is_empty() || question(before) && question(after) => Some(after.to_string()),
        _ if lead_words <= 6 || question(after) => Some(format!("{before} … {after}")),
        _ => None,
    }
}

/// Words an ask after a pasted error stays within to be told by the error.
const ASK_ON_ERROR_WORDS: usize = 8;

/// The first line of a fenced paste that states an error: `TypeError: …`,
/// `java.lang.IllegalStateException: …`, `Error: connect ECONNREFUSED …`,
/// `ERROR db pool exhausted`, `npm ERR! …`, `thread 'main' panicked at …`;
/// not code that merely names one (`throw new Error(…)`).
fn error_line(paste: &str) -> Option<&str> {
    static ERROR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception)\b|(?i:error|fatal|panic)\b|(?i:npm err!)|thread '[^']*' panicked)")
            .expect("a valid pattern")
    });
    paste
        .lines()
        .skip(1)
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("```"))
        .filter(|l| l.len() <= 200 && ERROR.is_match(l))
}

/// A line of words, not of a log, code or a table: it opens with a letter,
/// holds three words, and is mostly letters.
fn is_prose_line(line: &str) -> bool {
    let t = line.trim();
    if line.starts_with([' ', '\t']) || !t.starts_with(char::is_alphabetic) {
        return false;
    }
    let shown = t.chars().filter(|c| !c.is_whitespace()).count();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    crate::sentence::word_count(t) >= 3 && letters * 10 >= shown * 8
}

/// Removes every `<tag …>…</tag>` block (and an unclosed one to the end).
pub fn strip_blocks(text: &str, tags: &[&str]) -> String {
    let mut out = text.to_string();
    for tag in tags {
        let open = format!("<{tag}");
        let close = format!("</{tag}>");
        while let Some(start) = out.find(&open) {
            let after_name = out[start + open.len()..].chars().next();
            if !matches!(after_name, Some('>' | ' ' | '\n')) {
                break;
            }
            let end = out[start..]
                .find(&close)
                .map_or(out.len(), |e| start + e + close.len());
            out.replace_range(start..end, "");
        }
    }
    out
}

pub(crate) fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// A person's words: without chat, scheduler and queue envelopes, if any remain.
pub fn person(text: &str) -> Option<String> {
    keep(super::envelope::unwrap(text))
}

pub(crate) fn keep(text: String) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The class: an error pasted in a fence (JavaScript, Java, Node,
    /// Rust, a logger's ERROR line, npm), maybe after a short lead-in, then
    /// a short ask that names nothing ("what is wrong?", "Fix it.", "怎么修？"):
    /// the request is the error's line and the ask. Code that only names
    /// an error, or an ask long enough to say its point, is told as before.
    #[test]
    fn a_short_ask_after_a_pasted_error_is_told_by_the_error() {
        for error in [
            "TypeError: Cannot read properties of undefined (reading 'map')",
            "java.lang.IllegalStateException: pool closed",
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "thread 'main' panicked at src/main.rs:4:5:",
            "ERROR db pool exhausted (max=10)",
            "npm ERR! code ERESOLVE",
        ] {
            for lead in ["", "I get this error:\n", "Here is the error log:\n"] {
                for ask in ["what is wrong?", "Fix it.", "怎么修？", "¿qué pasa?"] {
                    let text = format!("{lead}```\n{error}\n    at main (a.js:1:1)\n```\n{ask}");
                    assert_eq!(
                        after_paste(&text),
                        Some(format!("{error} … {ask}")),
                        "{text:?}"
                    );
                }
            }
        }
        // The short ask above the error, with nothing after it, likewise.
        for ask in [
            "why doesn't this work?",
            "これ動かないんだけど、なんで？",
            "Fix it:",
        ] {
            let text = format!("{ask}\n```\nTypeError: fetch is not a function\n```");
            assert_eq!(
                after_paste(&text),
                Some(format!("TypeError: fetch is not a function … {ask}")),
                "{text:?}"
            );
        }
        let thanks = "```\nError: connect ECONNREFUSED 127.0.0.1:5432\n```\nthanks!";
        assert_eq!(after_paste(thanks), None);
        let code = "```js\nfunction load() {\n  throw new Error('x')\n}\n```\nwhy does this throw?";
        assert_eq!(after_paste(code).as_deref(), Some("why does this throw?"));
        let long = "```\nError: connect ECONNREFUSED 127.0.0.1:5432\n```\nit only happens after the laptop wakes from sleep, with docker running";
        assert!(
            !after_paste(long).is_some_and(|r| r.starts_with("Error:")),
            "{long}"
        );
    }

    #[test]
    fn prompt_templates_yield_what_the_person_typed() {
        let t = "\n## User Input\n\n```text\nSTT API を実装したい。\n```\n\nYou **MUST** consider the user input";
        assert_eq!(template_input(t).as_deref(), Some("STT API を実装したい。"));
        assert!(looks_like_template(t));
        assert!(!looks_like_template("please move the + button"));
    }

    /// The class: a Python traceback pasted as the message, bare or fenced,
    /// one exception or chained, with or without words after it: the point
    /// is the exception it ends on, then what the person asked.
    #[test]
    fn a_pasted_traceback_says_its_exception_not_its_header() {
        let chained = "Traceback (most recent call last):\n  File \"db.py\", line 3, in get\n    return rows[0]\nIndexError: list index out of range\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"app.py\", line 9, in <module>\n    get()\n";
        for (trace, exception) in [
            (
                "Traceback (most recent call last):\n  File \"app.py\", line 8, in main\n    total = sum(p) / len(p)\nZeroDivisionError: division by zero",
                "ZeroDivisionError: division by zero",
            ),
            (
                &format!("{chained}KeyError: 'user_id'") as &str,
                "KeyError: 'user_id'",
            ),
            (
                "Traceback (most recent call last):\n  File \"/usr/lib/python3.12/json/decoder.py\", line 355, in raw_decode\n    raise JSONDecodeError(\"Expecting value\", s, err.value)\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
                "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
            ),
        ] {
            for fence in [false, true] {
                let pasted = if fence {
                    format!("```\n{trace}\n```")
                } else {
                    trace.to_string()
                };
                assert_eq!(
                    after_paste(&pasted).as_deref(),
                    Some(exception),
                    "{pasted:?}"
                );
                for asked in ["why does this happen?", "any idea", "это после обновления"]
                {
                    let text = format!("{pasted}\n\n{asked}");
                    assert_eq!(
                        after_paste(&text),
                        Some(format!("{exception} … {asked}")),
                        "{text:?}"
                    );
                }
            }
        }
        // A short line before the trace leads into it; a paragraph is the
        // person's message as typed.
        let trace =
            "Traceback (most recent call last):\n  File \"a.py\", line 1\n    f()\nValueError: bad";
        for lead in [
            "I get this when I run it:",
            "```python",
            "it fails again:\n```",
        ] {
            let want = match lead.lines().next() {
                Some(l) if !l.starts_with("```") => format!("{l} … ValueError: bad"),
                _ => "ValueError: bad".to_string(),
            };
            let text = format!("{lead}\n{trace}\n```");
            assert_eq!(after_paste(&text), Some(want), "{text:?}");
        }
        let paragraph = format!("We upgraded Django.\nNow the admin fails.\n{trace}");
        assert_eq!(after_paste(&paragraph), None);
    }

    /// The class: a few words, a fenced paste (any language, any length;
    /// a traceback says its exception among them), then what the person
    /// asks about it.
    #[test]
    fn the_ask_around_a_fenced_paste_is_kept_and_a_vague_lead_in_is_not() {
        let pastes = [
            (
                "```python\ndef total(xs):\n    return sum(xs[:-1])\n```",
                None,
            ),
            (
                "```rust\nfn main() {\n    let v: Vec<u8> = Vec::new();\n    v[0];\n}\n```",
                None,
            ),
            (
                "```\nTraceback (most recent call last):\n  File \"a.py\", line 3\n    f()\nKeyError: 'id'\n```",
                Some("KeyError: 'id'"),
            ),
        ];
        for (paste, exception) in pastes {
            let ask =
                |lead: &str, after: &str| after_paste(&format!("{lead}\n\n{paste}\n\n{after}"));
            // The parts that say something, in order.
            let said = |parts: &[Option<&str>]| {
                let parts: Vec<&str> = parts.iter().flatten().copied().collect();
                (!parts.is_empty()).then(|| parts.join(" … "))
            };
            // A question about the paste, then the real question: the real one.
            for lead in [
                "have you seen this code?",
                "can you look at this?",
                "你看过这段代码吗？",
            ] {
                let asked = "why does it give the wrong total?";
                assert_eq!(ask(lead, asked), said(&[exception, Some(asked)]), "{lead}");
            }
            // A short lead-in and an instruction after: both, in order.
            for (lead, after) in [
                ("Refactor this function:", "keep the public API the same"),
                ("look at this:", "it crashes on empty input, fix it"),
            ] {
                assert_eq!(
                    ask(lead, after),
                    said(&[Some(lead), exception, Some(after)])
                );
            }
            // Nothing asked after the paste, or only thanks: the message
            // stands, or the words and the exception it shows.
            let lead = "Fix the off-by-one in this function please";
            let only = |lead| exception.and(said(&[Some(lead), exception]));
            assert_eq!(ask(lead, "thanks a lot for this"), only(lead));
            let lead = "Fix this function:";
            assert_eq!(after_paste(&format!("{lead}\n\n{paste}")), only(lead));
            // A long opening that says what it wants is the ask itself.
            assert_eq!(
                ask(
                    "This function is meant to sum every item of the list it gets",
                    "it still has to work on empty lists"
                ),
                None
            );
        }
        // An unclosed fence is not a paste with prose after it.
        assert_eq!(
            after_paste("look:\n\n```\ncode\nmore code and why is it slow?"),
            None
        );
    }

    /// The class: channel text around the person's words and the agent's
    /// answer (reply directives anywhere in an answer, a skill trigger line,
    /// a reminder block), in each harness's cleaner; a wikilink stays.
    #[test]
    fn reply_directives_skill_triggers_and_reminders_are_no_ones_words() {
        for tag in [
            "[[reply_to_current]]",
            "[[ reply_to_current ]]",
            "[[reply_to:4411]]",
            "[[audio_as_voice]]",
        ] {
            for answer in [
                format!("{tag} Fixed the cron job; it runs at 7:00 now."),
                format!("Fixed the cron job; {tag} it runs at 7:00 now."),
                format!("Fixed the cron job; it runs at 7:00 now. {tag}"),
            ] {
                let got = assistant(&answer).unwrap();
                assert!(
                    !got.contains("reply_to") && !got.contains("audio_as"),
                    "{got}"
                );
                assert!(
                    got.contains("Fixed the cron job;") && got.contains("it runs at 7:00 now."),
                    "{got}"
                );
            }
        }
        assert_eq!(
            assistant("See [[notes/plan]] for the steps.").as_deref(),
            Some("See [[notes/plan]] for the steps.")
        );
        for (text, asked) in skill_trigger_cases() {
            assert_eq!(agent_cli_user(&text).as_deref(), asked.as_deref(), "{text}");
        }
    }

    /// Skill trigger lines and reminder blocks around an ask, each with the
    /// ask a person's cleaner must give back; prose that starts alike stays.
    /// Every harness's user cleaner is held to them.
    pub(crate) fn skill_trigger_cases() -> Vec<(String, Option<String>)> {
        let asked = "translate the release notes into German";
        let mut cases = Vec::new();
        for trigger in [
            "Use the \"translate\" skill for this request.",
            "Use the `translate` skill for this request",
        ] {
            cases.push((format!("{trigger}\n\n{asked}"), Some(asked.to_string())));
            cases.push((format!("{asked}\n\n{trigger}"), Some(asked.to_string())));
        }
        cases.push((
            format!("<reminder>Keep answers short.</reminder>\n{asked}"),
            Some(asked.to_string()),
        ));
        let prose = "Use the skill for this request wisely, it said";
        cases.push((prose.to_string(), Some(prose.to_string())));
        cases
    }
}
