//! What to try when a search finds nothing: the same words without the
//! filters, each mistyped word replaced by the nearest indexed word (within
//! one edit for words of up to four letters, two for longer ones, the word
//! more sessions hold on a tie), or the words as prefixes. Each suggestion
//! is tried, and offered only with the sessions it finds.
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
    let found = |text: &str, keep_filters: bool| -> Result<usize> {
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
        Ok(search(index, cfg, &tried, now)?.hits.len())
    };
    if filtered {
        let n = found(&q.text, false)?;
        if n > 0 {
            out.push(Suggestion {
                query: q.text.clone(),
                filtered: false,
                sessions: n,
                why: "the same words without the filters".into(),
            });
        }
    }
    let words: Vec<&str> = q.text.split_whitespace().collect();
    if words.iter().any(|w| !plain(w)) {
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
    for (query, why) in [
        (respelled.join(" "), "the nearest words the index holds"),
        (prefixes.join(" "), "words that begin with these"),
    ] {
        if query == q.text {
            continue;
        }
        let sessions = found(&query, filtered)?;
        if sessions > 0 {
            out.push(Suggestion {
                query,
                filtered,
                sessions,
                why: why.into(),
            });
        }
    }
    Ok(out)
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
