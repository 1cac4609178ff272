//! How search results and its suggestions read on a terminal or a pipe.
//!
//! Owns: the search text. Must not: search.

use std::fmt::Write;

use super::render::{shown, shown_keeping};

/// A snippet with its matches in bold (terminal) or `**` (anywhere else).
fn highlight(snippet: &str, color: bool) -> String {
    let (start, end) = if color {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("**", "**")
    };
    shown_keeping(
        snippet,
        &[crate::search::MARK_START, crate::search::MARK_END],
    )
    .replace(crate::search::MARK_START, start)
    .replace(crate::search::MARK_END, end)
}

pub fn render_search(hits: &[crate::search::Hit], color: bool) -> String {
    let mut out = String::new();
    if hits.is_empty() {
        let _ = writeln!(out, "no session matches");
    }
    for (i, h) in hits.iter().enumerate() {
        let identity = h.session_key.as_deref().unwrap_or(&h.session_id);
        let _ = writeln!(
            out,
            "{}. {}  {}  session={}  project={}  ({}, score {:.2})",
            i + 1,
            h.membership_ts,
            h.agent_id,
            shown(identity),
            shown(h.project.as_deref().unwrap_or("none")),
            h.kind,
            h.score
        );
        let _ = writeln!(out, "   {}", shown(&h.sentence));
        if h.untrusted {
            let _ = writeln!(
                out,
                "   (asked by someone other than you in a chat: kept out of MEMORY.md)"
            );
        }
        let _ = writeln!(out, "   {}", highlight(&h.snippet, color));
        let _ = writeln!(out, "   {}", shown(&h.links.join(" ")));
    }
    out
}

/// What to try after a search that found nothing, one line each.
pub fn render_suggestions(tries: &[crate::search::Suggestion]) -> String {
    let mut out = String::new();
    for t in tries {
        let more = if t.sessions >= 20 { " or more" } else { "" };
        let filters = if t.filtered { " (same filters)" } else { "" };
        let plain = t
            .query
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        let query = match plain {
            true => t.query.clone(),
            false => format!("'{}'", t.query.replace('\'', "'\\''")),
        };
        let _ = writeln!(
            out,
            "  try: memsync search {}{filters}: {} session(s){more}, {}",
            shown(&query),
            t.sessions,
            t.why
        );
    }
    out
}
