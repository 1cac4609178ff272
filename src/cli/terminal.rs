//! Text as it leaves the CLI: workspace text made safe for a terminal, and
//! reports as JSON.
//!
//! Owns: those two conversions. Must not: word or lay out a report (the
//! `render*` modules do), so every report module can use it.

/// A report as JSON; our reports always serialize.
pub(super) fn json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// Text from the workspace (a file name git delivered, a sentence, a
/// snippet) as it may reach a terminal: control characters and bidi
/// overrides escaped, so a name cannot forge a line ("0 errors") or drive
/// the terminal (clear the screen). `--json` escapes them already.
pub(super) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    shown_keeping(text, &[])
}

pub(super) fn shown_keeping<'a>(text: &'a str, keep: &[char]) -> std::borrow::Cow<'a, str> {
    let unsafe_char = |c: char| {
        !keep.contains(&c)
            && (c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            c if !unsafe_char(c) => c.to_string(),
            '\n' => "\\n".into(),
            '\t' => "\\t".into(),
            '\r' => "\\r".into(),
            c if (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
            c => format!("\\u{{{:x}}}", c as u32),
        })
        .collect()
}
