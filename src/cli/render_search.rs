//! How search results and its suggestions read on a terminal or a pipe.
//!
//! Owns: the search text. Must not: search.

use std::fmt::Write;

use super::terminal::{shown, shown_keeping};

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

/// The path inside a wikilink (`[[memory/x.md|summary]]` → `memory/x.md`).
fn link_target(wikilink: &str) -> &str {
    let inner = wikilink.trim_start_matches("[[").trim_end_matches("]]");
    inner.split('|').next().unwrap_or(inner)
}

pub fn render_search(hits: &[crate::search::Hit], root: &std::path::Path, color: bool) -> String {
    let mut out = String::new();
    if hits.is_empty() {
        let _ = writeln!(out, "no session matches");
    }
    for h in hits {
        let identity = h.session_key.as_deref().unwrap_or(&h.session_id);
        let _ = writeln!(
            out,
            "{}. {}  {}  session={}  project={}  ({}, {})",
            h.rank,
            h.membership_ts,
            h.agent_id,
            shown(identity),
            shown(h.project.as_deref().unwrap_or("none")),
            h.kind,
            relevance(h)
        );
        let _ = writeln!(out, "   {}", shown(&h.sentence));
        if h.untrusted {
            let _ = writeln!(
                out,
                "   (asked by someone other than you in a chat: kept out of MEMORY.md)"
            );
        }
        let _ = writeln!(out, "   {}", highlight(&h.snippet, color));
        // What to run, and the first file (the summary when there is one).
        let file = h
            .links
            .first()
            .map(|l| super::render::file_link(root, link_target(l), color))
            .unwrap_or_default();
        let _ = writeln!(out, "   memsync open {}  {file}", h.token);
    }
    out
}

/// The notes a search found, after its sessions.
pub fn render_notes(notes: &[crate::search::NoteHit], color: bool) -> String {
    let mut out = String::new();
    for n in notes {
        let words = match n.query_words {
            0 | 1 => String::new(),
            q => format!(", {} of {q} words", n.matched_words),
        };
        let _ = writeln!(
            out,
            "note  {}  project={}  (updated {}{words})",
            shown(&n.note.path),
            shown(n.note.project.as_deref().unwrap_or("none")),
            n.note.updated,
        );
        let _ = writeln!(out, "   {}", shown(&n.note.title));
        let _ = writeln!(out, "   {}", highlight(&n.snippet, color));
    }
    out
}

/// A note hit as `search --json` lists it, after the sessions.
pub fn note_json(n: &crate::search::NoteHit) -> serde_json::Value {
    let mut v = serde_json::to_value(n).unwrap_or_default();
    v["kind"] = serde_json::json!("note");
    v
}

/// How well a hit matched, as a person reads it: the share of the best hit's
/// score, and how many of the query's words it holds.
fn relevance(h: &crate::search::Hit) -> String {
    let share = format!("relevance {:.0}%", (h.score * 100.0).clamp(1.0, 100.0));
    match h.query_words {
        0 | 1 => share,
        n => format!("{share}, {} of {n} words", h.matched_words),
    }
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
