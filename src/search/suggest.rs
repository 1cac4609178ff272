//! What to try when a search finds nothing: the same words without the
//! filters, each mistyped word replaced by the nearest indexed word (within
//! one edit for words of up to four letters, two for longer ones, the word
//! more sessions hold on a tie; shown as a session wrote it, not as the
//! index's stem), or the words as prefixes. Search syntax gets the same,
//! made of its words. Each suggestion is tried, and offered only with the
//! sessions it finds.
//!
//! Owns: the suggestions. Must not: rank (it runs `search`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Query, search};
use crate::config::SearchConfig;
use crate::error::Result;
use crate::store::Index;

/// The most sessions a suggestion counts before it says "or more".
const COUNT_UP_TO: usize = 20;

/// A search that finds sessions where the one asked found none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The words to search for.
    pub query: String,
    /// Whether the filters stay (else they were dropped).
    pub filtered: bool,
    /// Sessions it finds, up to [`COUNT_UP_TO`].
    pub sessions: usize,
    pub why: String,
}

/// Suggestions for a query that found nothing, best first.
pub fn suggest(
    index: &Index,
    cfg: &SearchConfig,
    q: &Query,
    now: DateTime<Utc>,
) -> Result<Vec<Suggestion>> {
    let mut out = Vec::new();
    let filtered =
        q.agent.is_some() || q.project.is_some() || q.kind.is_some() || q.since.is_some();
    let found = |text: &str, keep_filters: bool| -> Result<Vec<super::Hit>> {
        let tried = Query {
            text: text.to_string(),
            limit: COUNT_UP_TO,
            ..if keep_filters {
                q.clone()
            } else {
                Query {
                    include_private: q.include_private,
                    ..Query::default()
                }
            }
        };
        Ok(search(index, cfg, &tried, now)?.hits)
    };
    if filtered {
        let n = found(&q.text, false)?.len();
        if n > 0 {
            out.push(Suggestion {
                query: q.text.clone(),
                filtered: false,
                sessions: n,
                why: "the same words without the filters".into(),
            });
        }
    }
    // Explicit syntax (`retyr*`, `"retry logic"`, `a AND b`) gets the
    // suggestions plain text gets, made of its words.
    let reading = super::read(&q.text, q.kind, now)?;
    let owned: Vec<String> = match reading.explicit {
        true => reading.words,
        false => q.text.split_whitespace().map(str::to_string).collect(),
    };
    let words: Vec<&str> = owned.iter().map(String::as_str).collect();
    if words.is_empty() || words.iter().any(|w| !plain(w)) {
        return Ok(out);
    }
    let respelled: Vec<String> = words
        .iter()
        .map(|w| nearest(index, w).map(|n| n.unwrap_or_else(|| w.to_string())))
        .collect::<Result<_>>()?;
    let prefixes: Vec<String> = words
        .iter()
        .map(|w| match w.chars().count() {
            0..=2 => w.to_string(),
            _ => format!("{w}*"),
        })
        .collect();
    let respelled_query = respelled.join(" ");
    let mut tries = vec![
        (respelled_query.clone(), "the nearest words the index holds"),
        (prefixes.join(" "), "words that begin with these"),
    ];
    if reading.explicit {
        tries.insert(0, (words.join(" "), "the words without the search syntax"));
    }
    for (query, why) in tries {
        if query == q.text || out.iter().any(|s: &Suggestion| s.query == query) {
            continue;
        }
        let hits = found(&query, filtered)?;
        let Some(best) = hits.first() else {
            continue;
        };
        let query = match query == respelled_query {
            true => readable(&words, &respelled, &best.snippet),
            false => query,
        };
        out.push(Suggestion {
            query,
            filtered,
            sessions: hits.len(),
            why: why.into(),
        });
    }
    Ok(out)
}

/// The respelled words, each indexed stem put in for a word (`retri`,
/// `cach`) shown as a session wrote it (`retry`, `cache`): a marked word of
/// `snippet` (the best hit's, from the search that tried the respelling)
/// that begins with all of the stem but its last letter (a stem's `i` is a
/// word's `y`).
fn readable(words: &[&str], respelled: &[String], snippet: &str) -> String {
    let marked: Vec<String> = (snippet.split(super::MARK_START).skip(1))
        .filter_map(|rest| rest.split(super::MARK_END).next())
        .map(str::to_lowercase)
        .collect();
    let shown = |(word, stem): (&&str, &String)| {
        if word.eq_ignore_ascii_case(stem) || !stem.is_ascii() {
            return stem.clone();
        }
        let head = &stem[..stem.len().saturating_sub(1).max(2).min(stem.len())];
        (marked.iter())
            .find(|w| w.starts_with(head) && w.len() >= stem.len())
            .cloned()
            .unwrap_or_else(|| stem.clone())
    };
    words
        .iter()
        .zip(respelled)
        .map(shown)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word without FTS5 syntax and of letters written with spaces (a
/// Chinese or Japanese word has no spelling to correct this way).
fn plain(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && !word.chars().any(crate::store::cjk::is_cjk)
        && !matches!(word, "AND" | "OR" | "NOT" | "NEAR")
}

/// The indexed word nearest to `word`, if `word` itself is not indexed and
/// one is near enough.
fn nearest(index: &Index, word: &str) -> Result<Option<String>> {
    let word = word.to_lowercase();
    let n = word.chars().count();
    if n < 3 {
        return Ok(None);
    }
    let most = if n <= 4 { 1 } else { 2 };
    let terms = index.terms_like(&word, most)?;
    if terms.iter().any(|(t, _)| *t == word) {
        return Ok(None);
    }
    Ok(terms
        .into_iter()
        .filter_map(|(t, docs)| {
            let d = crate::sentence::edit_distance(&word, &t);
            (d <= most).then_some((d, -docs, t))
        })
        .min()
        .map(|(_, _, t)| t))
}
