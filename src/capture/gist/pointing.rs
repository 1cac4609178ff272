//! A short ask that points at what follows it ("Implement the following
//! spec.", "Implement the following plan:") and the line it points at.
//!
//! Owns: reading that pair as one request. Must not: choose the request
//! (the gist does).

use super::{after, first_sentence, lead, unmarked};
use crate::sentence::word_count;

/// Words of a sentence that points at what follows it ("Implement the
/// following spec.") and says nothing else.
pub(super) const POINTING_WORDS: usize = 8;

/// "Implement the following spec.\n\n# PRD: Orders export": a short ask
/// that points at what follows it, with the first line it points at, as
/// a colon would have it.
pub(super) fn pointed_at(text: &str, out: &str) -> Option<String> {
    if !out.ends_with(['.', '。']) || word_count(out) > POINTING_WORDS {
        return None;
    }
    if !lead::points_at_what_follows(out) {
        return None;
    }
    let next = after(text, out)?
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .filter(|l| !l.starts_with("```") && !l.starts_with('|'))?;
    let next = first_sentence(unmarked(next));
    let ask = out.trim_end_matches(['.', '。']);
    let next = past_said_label(ask, &next);
    let colon = if ask.chars().last().is_some_and(crate::sentence::is_cjk) {
        "："
    } else {
        ": "
    };
    (!next.is_empty()).then(|| format!("{ask}{colon}{next}"))
}

/// "Implement the following plan:" over "# Plan: Dark mode": the line
/// without the one-word label the ask already says.
pub(super) fn past_said_label<'a>(ask: &str, line: &'a str) -> &'a str {
    match line.split_once([':', '：']) {
        Some((label, rest))
            if word_count(label) == 1
                && !rest.trim().is_empty()
                && ask.to_lowercase().contains(&label.trim().to_lowercase()) =>
        {
            rest.trim()
        }
        _ => line,
    }
}
