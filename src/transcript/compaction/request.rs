//! The request of a session that opens with the summary of the one it
//! continues (Claude Code's "This session is being continued from a
//! previous conversation …", kept as a compaction): the person typed no
//! request in it, but the summary says what they asked ("1. Primary Request
//! and Intent: The user asked to migrate …").
//!
//! Owns: reading that request out of a summary. Must not: choose between
//! it and a request the person typed (capture does).

use crate::sentence::word_count;

/// Labels a summary gives the person's request under, in the words
/// harnesses' compaction prompts use.
const REQUEST_LABELS: &[&str] = &[
    "primary request",
    "user's request",
    "user request",
    "the request",
    "original request",
    "task",
    "goal",
];

/// Words that open a summary's report of the ask ("The user asked to",
/// "User wants to"), before the ask itself.
const REPORTED: &[&str] = &[
    "the user asked me to ",
    "the user asked to ",
    "the user asked for ",
    "the user requested ",
    "the user wants me to ",
    "the user wants to ",
    "the user wanted to ",
    "the user needs to ",
    "user asked to ",
    "user asked for ",
    "user wants to ",
    "user requested ",
];

/// Words under which a line says too little to be the request.
const MIN_WORDS: usize = 4;

/// What the person asked, as the summary `text` reports it: the line under
/// (or after) its request label, without the words that report it.
pub fn reported_request(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let labelled = lines.iter().position(|l| {
        let lower = l
            .trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '.' | '#' | '*' | '-' | ' ')
            })
            .to_lowercase();
        REQUEST_LABELS.iter().any(|label| lower.starts_with(label))
            && (l.contains(':') || l.starts_with('#'))
    })?;
    let line = lines[labelled];
    let after = line
        .split_once(':')
        .map(|(_, rest)| rest.trim().trim_start_matches('*').trim())
        .unwrap_or_default();
    let said = match word_count(after) >= MIN_WORDS {
        true => after,
        false => lines[labelled + 1..]
            .iter()
            .map(|l| l.trim_start_matches(['-', '*', ' ']))
            .find(|l| !l.is_empty())?,
    };
    let said = without_report(said);
    (word_count(said) >= MIN_WORDS).then(|| said.to_string())
}

/// "The user asked to migrate …" as "migrate …".
fn without_report(line: &str) -> &str {
    let lower = line.to_lowercase();
    REPORTED
        .iter()
        .find(|r| lower.starts_with(*r))
        .and_then(|r| line.get(r.len()..))
        .unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::reported_request;

    /// The class: a summary that reports the person's request under a
    /// label (numbered or not, on the label's line or under it), in the
    /// words compaction prompts write ("The user asked to …", "User wants
    /// to …"): the request is the ask itself. A summary with no request
    /// label gives none.
    #[test]
    fn a_summary_says_what_the_person_asked_under_its_request_label() {
        let ask = "migrate the payment service to PaymentIntents";
        for label in [
            "1. Primary Request and Intent:",
            "## Primary Request",
            "**User's Request:**",
            "Task:",
        ] {
            for report in ["The user asked to ", "User wants to ", ""] {
                for gap in [" ", "\n   "] {
                    // A heading holds only its label; the ask is under it.
                    if label.starts_with('#') && gap == " " {
                        continue;
                    }
                    let text = format!("Summary:\n{label}{gap}{report}{ask}\n\n2. Files:\n- a.ts");
                    assert_eq!(reported_request(&text).as_deref(), Some(ask), "{text:?}");
                }
            }
        }
        for text in [
            "Summary:\n1. Files and Code Sections:\n- src/a.ts: changed",
            "Primary Request: fix it",
        ] {
            assert_eq!(reported_request(text), None, "{text:?}");
        }
    }
}
