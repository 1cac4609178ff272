//! Snippets: the text around a hit's match, from the artifact column that
//! holds the whole query (FTS5's own marks), else found as written (a word
//! matched only in a bigram column).
//!
//! Owns: choosing the column and cutting the snippet. Must not: rank.

use super::{COLUMNS, MARK_END, MARK_START};
use crate::error::Result;
use crate::store::{Index, cjk};

/// The column, in the order summary, compaction, transcript, sentence, whose
/// snippet marks the most different words of the query (for one phrase: the
/// first that matches it), and its snippet; else the snippet FTS5 picks
/// across columns. One query gives every column's snippet: asking column by
/// column costs more (a column-scoped query scans forward to that column's
/// next match).
fn best_snippet(index: &Index, fts: &str, fts_id: i64) -> Result<(&'static str, String)> {
    let snippets = index.column_snippets(fts, fts_id, (MARK_START, MARK_END))?;
    let best = snippets.and_then(|s| {
        let mut best: Option<(usize, usize)> = None;
        for (order, (column, _)) in COLUMNS.iter().enumerate() {
            let marked = marked_words(&s[*column]);
            if marked > 0 && best.is_none_or(|(most, _)| marked > most) {
                best = Some((marked, order));
            }
            if marked > 0 && is_one_phrase(fts) {
                break;
            }
        }
        best.map(|(_, order)| {
            let (column, kind) = COLUMNS[order];
            (kind, squeeze(&s[column]))
        })
    });
    if let Some(found) = best {
        return Ok(found);
    }
    // Not -1: FTS5 would pick a bigram column, which is no text to show.
    for (column, kind) in COLUMNS {
        if let Some(text) = snippet(index, fts, fts_id, column as i32)?
            && !text.is_empty()
        {
            return Ok((kind, text));
        }
    }
    Ok(("summary", String::new()))
}

/// The artifact kind and snippet a hit shows. FTS5 marks what it matched in
/// the text columns; a word matched only in a bigram column (Chinese or
/// Japanese, or a Latin word glued to them) is looked for as written.
pub(super) fn snippet_of(
    index: &Index,
    fts: &str,
    words: &[String],
    fts_id: i64,
) -> Result<(&'static str, String)> {
    let cjk_words = cjk::needles(&words.join(" "));
    if !cjk_words.is_empty()
        && let Some(found) = written_snippet(index, &cjk_words, fts_id)?
    {
        return Ok(found);
    }
    let found = best_snippet(index, fts, fts_id)?;
    if found.1.contains(MARK_START) {
        return Ok(found);
    }
    Ok(written_snippet(index, words, fts_id)?.unwrap_or(found))
}

/// Characters of context a snippet found as written keeps on each side.
const CONTEXT_CHARS: usize = 24;

/// The first text column, in snippet order, that holds the first word as
/// written (ASCII case aside), and the text around it with every word marked.
fn written_snippet(
    index: &Index,
    words: &[String],
    fts_id: i64,
) -> Result<Option<(&'static str, String)>> {
    let Some(first) = words.first().map(|w| w.to_ascii_lowercase()) else {
        return Ok(None);
    };
    let Some(columns) = index.document(fts_id)? else {
        return Ok(None);
    };
    Ok(COLUMNS.iter().find_map(|(column, kind)| {
        let body = &columns[*column];
        // ASCII lowercasing keeps every byte offset.
        let at = body.to_ascii_lowercase().find(first.as_str())?;
        Some((*kind, squeeze(&marked_window(body, at, first.len(), words))))
    }))
}

/// The text around `body[at..at + len]`, cut on character boundaries, with
/// every word inside marked.
fn marked_window(body: &str, at: usize, len: usize, words: &[String]) -> String {
    let start = body[..at]
        .char_indices()
        .rev()
        .nth(CONTEXT_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let end = body[at + len..]
        .char_indices()
        .nth(CONTEXT_CHARS)
        .map_or(body.len(), |(i, _)| at + len + i);
    let window = &body[start..end];
    let lower = window.to_ascii_lowercase();
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for word in words.iter().map(|w| w.to_ascii_lowercase()) {
        marks.extend(
            lower
                .match_indices(word.as_str())
                .map(|(i, m)| (i, i + m.len())),
        );
    }
    marks.sort_unstable();
    let mut out = String::from(if start > 0 { "…" } else { "" });
    let mut done = 0;
    for (from, to) in marks {
        if from < done {
            continue;
        }
        out.push_str(&window[done..from]);
        out.push(MARK_START);
        out.push_str(&window[from..to]);
        out.push(MARK_END);
        done = to;
    }
    out.push_str(&window[done..]);
    if end < body.len() {
        out.push('…');
    }
    out
}

/// How many different words a snippet marks (ASCII case aside).
fn marked_words(snippet: &str) -> usize {
    let mut words: Vec<String> = snippet
        .split(MARK_START)
        .skip(1)
        .filter_map(|rest| rest.split(MARK_END).next())
        .map(str::to_ascii_lowercase)
        .collect();
    words.sort();
    words.dedup();
    words.len()
}

/// Whether an FTS5 query is one quoted phrase (`"a b"`, `"don""t"`), as a
/// one-word search or a quoted phrase is.
fn is_one_phrase(fts: &str) -> bool {
    fts.len() >= 2
        && fts.starts_with('"')
        && fts.ends_with('"')
        && !fts[1..fts.len() - 1].replace("\"\"", "").contains('"')
}

/// The snippet of one column of a session's document, if the query matches it.
fn snippet(index: &Index, fts: &str, fts_id: i64, column: i32) -> Result<Option<String>> {
    let text = index.snippet(fts, fts_id, column, (MARK_START, MARK_END))?;
    Ok(text.as_deref().map(squeeze))
}

/// A snippet on one line: runs of whitespace, newlines included, become one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fts_query;

    #[test]
    fn one_phrase_is_one_quoted_string_and_nothing_else() {
        for one in ["\"retry\"", "\"retry the job\"", "\"don\"\"t\""] {
            assert!(is_one_phrase(one), "{one}");
        }
        for many in [
            "\"a\" \"b\"",
            "pay*",
            "\"a\" OR b",
            "summary : (\"a\")",
            "\"",
        ] {
            assert!(!is_one_phrase(many), "{many}");
        }
        assert!(is_one_phrase(&fts_query("retry", None).unwrap()));
        assert!(!is_one_phrase(&fts_query("retry backoff", None).unwrap()));
        assert!(!is_one_phrase(&fts_query("\"a\" \"b\"", None).unwrap()));
    }
}
