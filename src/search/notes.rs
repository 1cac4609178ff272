//! Notes in a search: the same words as sessions are matched against the
//! notes' titles and bodies, ranked by bm25, and kept when they hold at
//! least half the query's words. Superseded notes (and imported notes whose
//! harness file was deleted) are left out unless the query asks for history.
//!
//! Owns: turning a reading into note hits. Must not: rank sessions.

use serde::Serialize;

use super::{MARK_END, MARK_START, Query, Reading};
use crate::error::Result;
use crate::store::Index;
use crate::store::notes::NoteRow;

/// The most notes one search shows.
const MAX_NOTES: usize = 5;

/// A note that matched.
#[derive(Debug, Clone, Serialize)]
pub struct NoteHit {
    #[serde(flatten)]
    pub note: NoteRow,
    pub snippet: String,
    pub matched_words: usize,
    pub query_words: usize,
}

/// The notes matching `reading`, best first.
pub fn notes(index: &Index, q: &Query, reading: &Reading) -> Result<Vec<NoteHit>> {
    let terms: Vec<String> = if reading.explicit {
        vec![reading.fts.clone()]
    } else {
        reading.words.iter().map(|w| phrase(w)).collect()
    };
    if terms.is_empty() || q.kind.is_some() {
        return Ok(Vec::new());
    }
    let fts = terms.join(" OR ");
    // Explicit syntax names session columns; a note has none of them.
    let Ok(found) = index.notes_matching(&fts, 50) else {
        return Ok(Vec::new());
    };
    let found: Vec<_> = found
        .into_iter()
        .filter(|(_, n)| {
            let current = n.superseded_by.is_none() && n.source_deleted.is_none();
            (current || q.include_superseded) && in_project(n, q.project.as_deref())
        })
        .collect();
    let ids: Vec<i64> = found.iter().map(|(id, _)| *id).collect();
    let mut held = std::collections::HashMap::<i64, usize>::new();
    for term in &terms {
        for id in index.notes_holding(term, &ids)? {
            *held.entry(id).or_default() += 1;
        }
    }
    let need = terms.len().div_ceil(2);
    let open = MARK_START.to_string();
    let close = MARK_END.to_string();
    let mut hits = Vec::new();
    for (id, note) in found {
        let matched = held.get(&id).copied().unwrap_or(0);
        if matched < need {
            continue;
        }
        hits.push(NoteHit {
            snippet: one_line(&index.note_snippet(id, &fts, &open, &close)?),
            note,
            matched_words: matched,
            query_words: if reading.explicit { 0 } else { terms.len() },
        });
        if hits.len() == MAX_NOTES.min(q.limit.max(1)) {
            break;
        }
    }
    Ok(hits)
}

/// A snippet of several lines as one (its words with single spaces), with
/// any credential in it redacted: a person's note is not sanitized on disk.
fn one_line(snippet: &str) -> String {
    let words = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::capture::sanitize::sanitize(&words).text
}

/// A word as an FTS5 phrase (its quotes doubled).
fn phrase(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

/// A note about no project matches every project filter; one about a
/// project matches its path or last segment.
fn in_project(note: &NoteRow, filter: Option<&str>) -> bool {
    let (Some(filter), Some(project)) = (filter, note.project.as_deref()) else {
        return true;
    };
    let base = |p: &str| {
        p.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(p)
            .to_string()
    };
    project == filter || base(project) == base(filter)
}
