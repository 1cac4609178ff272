//! A compaction's summary, as the model wrote it, without what wraps it: the
//! model's `<analysis>` scratch (PostCompact hook payloads) or `Analysis:`
//! section (older transcripts), the `<summary>` tags, and Claude Code's
//! preamble and trailer around the copy it keeps in the transcript ("This
//! session is being continued …", "If you need specific details …"). The hook
//! and the transcript give the same compaction the same text this way, so it
//! is captured once.
//!
//! Owns: the text of one compaction. Must not: read files or judge secrets.

use super::clean::strip_blocks;

mod request;
pub use request::reported_request;

/// Claude Code's first line of the transcript's copy of a compaction.
pub const CONTINUED: &str = "This session is being continued from a previous conversation";

/// Where Claude Code's instructions to the model after the summary begin.
const TRAILERS: &[&str] = &[
    "If you need specific details from before compaction",
    "Please continue the conversation from where we left it off",
    "Continue the conversation from where it left off",
    "The messages after this summary are the most recent messages",
];

/// The heading under which a kept compaction holds the model's analysis,
/// after its summary. What follows it is not part of the summary's
/// [`fingerprint`], so a copy without the analysis is the same compaction.
pub const ANALYSIS_HEADING: &str = "\n\n## The model's analysis before its summary\n\n";

/// What a compaction artifact keeps of it: the summary proper, then the
/// model's chronological analysis where it wrote one (it often names work
/// the summary leaves out: "Provided a review with 11 questions").
pub fn kept(raw: &str) -> String {
    let text = unwrapped(raw);
    let summary = summary_of(&text);
    match analysis_of(&text) {
        Some(analysis) if !summary.is_empty() => format!("{summary}{ANALYSIS_HEADING}{analysis}"),
        _ => summary,
    }
}

/// The summary of a kept compaction, without the analysis after it.
pub fn summary_part(kept: &str) -> &str {
    kept.split(ANALYSIS_HEADING).next().unwrap_or(kept)
}

/// The model's analysis: `<analysis>…</analysis>` (hook payloads) or the
/// `Analysis:` section before `Summary:` (older transcripts), of an
/// [`unwrapped`] text.
fn analysis_of(text: &str) -> Option<String> {
    let inner = match tagged(text, "analysis") {
        Some(inner) => inner.split("</analysis>").next().unwrap_or(inner),
        None => {
            let trimmed = text.trim_start().strip_prefix("Analysis:")?;
            &trimmed[..trimmed.find("\nSummary:")?]
        }
    };
    let inner = inner.trim();
    (!inner.is_empty()).then(|| inner.to_string())
}

/// The compaction without Claude Code's preamble and trailer around its copy.
fn unwrapped(raw: &str) -> String {
    let mut text = raw.trim().to_string();
    if text.starts_with(CONTINUED) {
        // The preamble is the first line; a reminder block may follow it.
        text = text
            .split_once('\n')
            .map_or("", |(_, rest)| rest)
            .to_string();
        text = strip_blocks(&text, &["system-reminder"]);
    }
    if let Some(cut) = TRAILERS.iter().filter_map(|t| text.find(t)).min() {
        text.truncate(cut);
    }
    text
}

/// The summary proper of a compaction, from a hook payload or a transcript.
pub fn summary(raw: &str) -> String {
    summary_of(&unwrapped(raw))
}

/// The summary proper of an [`unwrapped`] text.
fn summary_of(text: &str) -> String {
    let mut text = strip_blocks(text, &["analysis"]);
    if let Some(inner) = tagged(&text, "summary") {
        text = inner.to_string();
    }
    let trimmed = text.trim_start();
    // Older transcripts: "Analysis:\n…\n\nSummary:\n…".
    if trimmed.starts_with("Analysis:")
        && let Some(at) = trimmed.find("\nSummary:")
    {
        text = trimmed[at + 1..].to_string();
    }
    let trimmed = text.trim();
    trimmed
        .strip_prefix("Summary:")
        .unwrap_or(trimmed)
        .trim()
        .to_string()
}

/// Whether a compaction's text holds nothing of the session: a placeholder
/// a harness writes when summarising failed ("Summary unavailable"), or an
/// encrypted blob (one long token of base64).
pub fn says_nothing(text: &str) -> bool {
    const PLACEHOLDERS: &[&str] = &[
        "summaryunavailable",
        "summarynotavailable",
        "nosummary",
        "nosummaryavailable",
        "emptysummary",
        "compactionfailed",
        "nocontent",
    ];
    let letters: String = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    let t = text.trim();
    let blob = t.len() >= 64
        && !t.contains(char::is_whitespace)
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'));
    // "Summary unavailable due to context limits. Older messages were
    // truncated.", with or without the list of files the session read.
    let notice = without_file_lists(t);
    // `Summary: …` is a heading over a summary, not a notice.
    let labelled = notice
        .split_whitespace()
        .next()
        .is_some_and(|w| w.ends_with(':'));
    let short_notice = !labelled && crate::sentence::word_count(&notice) <= PLACEHOLDER_WORDS && {
        let lead: String = notice
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        PLACEHOLDERS.iter().any(|p| lead.starts_with(p))
    };
    PLACEHOLDERS.contains(&letters.as_str()) || blob || short_notice || empty_template(t)
}

/// At most this many words, a text that opens with a placeholder is only
/// the harness explaining why there is no summary.
const PLACEHOLDER_WORDS: usize = 16;

/// The text without the `<read-files>` / `<modified-files>` lists OpenClaw
/// and pi append to a compaction: bookkeeping, not a summary.
fn without_file_lists(text: &str) -> String {
    let mut out = text.to_string();
    for tag in ["read-files", "modified-files"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        while let Some(start) = out.find(&open) {
            let end = out[start..]
                .find(&close)
                .map_or(out.len(), |i| start + i + close.len());
            out.replace_range(start..end, "");
        }
    }
    out.trim().to_string()
}

/// A summary template filled with nothing: its sections say "(none)" and at
/// most one line says anything ("Await user input to begin work"), as pi
/// and OpenClaw write when compacting a session before any work.
fn empty_template(text: &str) -> bool {
    let items = text
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(|c: char| {
                    c == '-' || c == '*' || c.is_ascii_digit() || c == '.'
                })
                .trim()
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let (mut none, mut said) = (0, 0);
    for item in items {
        let item = item.to_lowercase();
        match item.trim_matches(|c| c == '(' || c == ')' || c == '_' || c == '*') {
            "none" | "n/a" | "nothing" | "nothing yet" => none += 1,
            _ => said += 1,
        }
    }
    none >= 3 && said <= 1
}

/// The inside of `<tag>…</tag>` (to the end when the close tag is missing).
fn tagged<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = &text[start..];
    Some(
        rest.find(&format!("</{tag}>"))
            .map_or(rest, |end| &rest[..end]),
    )
}

/// What makes two compaction texts the same summary: their letters and
/// digits, lowercased, hashed; case, markup and spacing are set aside (the
/// hook's copy and the transcript's may differ in a blank line or a list
/// marker). `None` for a text with no letters.
pub fn fingerprint(text: &str) -> Option<String> {
    let letters: String = summary_part(text)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    (!letters.is_empty()).then(|| crate::contract::body_sha256(&letters))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOK: &str = "<analysis>The user asked for a hello world script; I wrote hello.py.</analysis>\n<summary>\n1. Primary Request and Intent: The user asked to add a hello world script to the project.\n2. Files and Code Sections: hello.py was created.\n</summary>";
    const TRANSCRIPT: &str = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n<system-reminder>\n<tools-used-before-summary>Read, Write</tools-used-before-summary>\n</system-reminder>\nSummary:\n1. Primary Request and Intent: The user asked to add a hello world script to the project.\n2. Files and Code Sections: hello.py was created.\n\nIf you need specific details from before compaction (like exact code snippets), read the full transcript at: /home/dev/x.jsonl\nContinue the conversation from where it left off without asking the user any further questions.";

    #[test]
    fn placeholders_and_encrypted_blobs_say_nothing() {
        assert!(says_nothing("Summary unavailable."));
        assert!(says_nothing("(no summary)"));
        // OpenClaw's notice, alone or with the files the session had read.
        let notice = "Summary unavailable due to context limits. Older messages were truncated.";
        assert!(says_nothing(notice));
        assert!(says_nothing(&format!(
            "{notice}\n\n<read-files>\n/home/ana/notes/a.md\n/home/ana/notes/b.md\n</read-files>\n<modified-files>\n/home/ana/x.md\n</modified-files>"
        )));
        assert!(!says_nothing(
            "No summary of the plan was kept, so the user asked again for the retry loop in pay.rs and it was added with jitter and tests."
        ));
        assert!(says_nothing(&"gAAAAABo".repeat(20)));
        assert!(!says_nothing(
            "The user asked for a retry loop; it was added."
        ));
        assert!(!says_nothing(
            "Summary: unavailable services were restarted."
        ));
        let template = "## Goal\n(none)\n\n## Constraints\n- (none)\n\n## Done\n- (none)\n\n## Next Steps\n1. Await user input to begin work\n";
        assert!(says_nothing(template));
        let filled = template.replace(
            "## Goal\n(none)",
            "## Goal\nMove the retry limits to config",
        );
        assert!(!says_nothing(&filled));
    }

    #[test]
    fn the_hook_and_the_transcript_give_the_same_summary_without_analysis() {
        let want = "1. Primary Request and Intent: The user asked to add a hello world script to the project.\n2. Files and Code Sections: hello.py was created.";
        assert_eq!(summary(HOOK), want);
        assert_eq!(summary(TRANSCRIPT), want);
        assert_eq!(
            fingerprint(&summary(HOOK)),
            fingerprint(&summary(TRANSCRIPT))
        );
    }

    #[test]
    fn an_older_transcripts_analysis_section_and_trailer_are_dropped() {
        let old = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\nLet me chronologically analyze the conversation.\n\nSummary:\n1. Primary Request: fix the retry loop.\nPlease continue the conversation from where we left it off without asking the user any further questions.";
        assert_eq!(summary(old), "1. Primary Request: fix the retry loop.");
    }

    #[test]
    fn a_plain_summary_is_kept_as_it_is() {
        let plain = "I added hello.py, a hello world script.";
        assert_eq!(summary(plain), plain);
        assert_ne!(fingerprint(plain), fingerprint("I added goodbye.py."));
        assert_eq!(
            fingerprint(plain),
            fingerprint("i ADDED hello.py,\n\n a hello world script")
        );
    }
}
