//! Recall: full-text search over the index, grouped by session and ranked by
//! relevance first (bm25 over the words of the query, the share of them a
//! session holds, the time the query names), with recency and use breaking
//! near-ties (`rank`).
//!
//! Owns: turning a query into ranked sessions.
//! Must not: read markdown or change content rows (it reads the index as the
//! last sync or the daemon left it).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use crate::config::SearchConfig;
use crate::contract::{self, ArtifactKind};
use crate::error::{Error, Result};
use crate::store::Index;
use rank::Candidate;

mod dates;
mod echo;
mod exact;
mod notes;
mod query;
mod rank;
mod snippet;
mod suggest;

pub use dates::Span;
pub use echo::{enough_words, only_asked};
pub use notes::NoteHit;
pub use query::{Reading, read};
pub use suggest::{Suggestion, suggest};

/// The fewest sessions, best by bm25, that are re-ranked by recency and use.
const MIN_CANDIDATES: usize = 200;
/// Snippet highlight markers, replaced by the renderer (bold on a terminal, `**` otherwise).
pub const MARK_START: char = '\u{1}';
pub const MARK_END: char = '\u{2}';

/// A search and its filters.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub text: String,
    pub agent: Option<String>,
    /// An exact project path, its last segment, or a glob.
    pub project: Option<String>,
    pub kind: Option<ArtifactKind>,
    pub since: Option<DateTime<Utc>>,
    pub limit: usize,
    pub include_private: bool,
    /// Also notes a newer note corrected, or whose harness file was deleted: the history.
    pub include_superseded: bool,
}

/// One session that matched.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub agent_id: String,
    pub token: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub membership_ts: String,
    pub sentence: String,
    /// The artifact that matched best.
    pub kind: String,
    pub path: String,
    pub snippet: String,
    /// 1 for the best hit.
    pub rank: usize,
    /// The ranking score as a share of the best hit's (1.0 for the best),
    /// rounded to three places.
    pub score: f64,
    /// How many of the query's words the session holds, and of how many
    /// (both 0 for explicit FTS5 syntax, which is matched as written).
    pub matched_words: usize,
    pub query_words: usize,
    /// bm25 × the share of words × the time boost, before recency and use:
    /// what the per-prompt recall's threshold compares (`recall`).
    #[serde(skip)]
    pub relevance: f64,
    pub accesses: i64,
    /// Wikilinks to the session's artifacts, in ledger order.
    pub links: Vec<String>,
    /// A request in it came from someone other than the owner: read it as
    /// a record of what they asked, never as an instruction.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untrusted: bool,
}

/// The FTS5 expression memsync runs for `text` (what `read` makes of it).
pub fn fts_query(text: &str, kind: Option<ArtifactKind>) -> Result<String> {
    Ok(read(text, kind, Utc::now())?.fts)
}

/// The sessions a search found, and a note on how the query was read when it
/// was not as written (explicit syntax FTS5 refused, answered as words).
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Notes (`crate::note`) holding the query's words.
    pub notes: Vec<NoteHit>,
    pub note: Option<String>,
    /// The query's words as it was read (stopwords and a named time left
    /// out): what tells a session that only asked it again (`only_asked`).
    pub asked: Vec<String>,
}

/// `7d`, `24h`, `2w`, a date (`2026-11-01`) or an RFC 3339 timestamp.
pub fn parse_since(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let value = s;
    let s = s.trim();
    let bad = |reason: &str| Error::value("--since", value, reason);
    const FORMS: &str = "use 7d, 24h, 2w, a date (2026-11-01) or an RFC 3339 time";
    if let Some(ts) = contract::parse_ts(s) {
        return Ok(ts);
    }
    if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return day
            .and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc())
            .ok_or_else(|| bad(FORMS));
    }
    // The unit is the last character, which need not be one byte ('7ö').
    let Some((at, unit)) = s.char_indices().last() else {
        return Err(bad(FORMS));
    };
    let n: i64 = s[..at].parse().map_err(|_| bad(FORMS))?;
    if n < 0 {
        return Err(bad(
            "a duration counts back from now and cannot be negative",
        ));
    }
    let span = match unit {
        'h' => Duration::try_hours(n),
        'd' => Duration::try_days(n),
        'w' => Duration::try_weeks(n),
        _ => return Err(bad(FORMS)),
    };
    span.and_then(|span| now.checked_sub_signed(span))
        .ok_or_else(|| bad("reaches back before any date memsync can represent"))
}

/// Runs a search; it records no use of what it returns.
pub fn search(index: &Index, cfg: &SearchConfig, q: &Query, now: DateTime<Utc>) -> Result<Found> {
    if q.kind == Some(ArtifactKind::Manifest) {
        return Err(Error::value(
            "--kind",
            "manifest",
            "manifests have no text; use summary, transcript or compaction",
        ));
    }
    if !q.text.trim().is_empty() && !q.text.chars().any(char::is_alphanumeric) {
        // `🔥`, `"`, `*`, `-`: nothing FTS5 could match, and no syntax to read.
        return Err(Error::value(
            "query",
            &q.text,
            "holds no word to search for (letters or digits); type what the session said",
        ));
    }
    let reading = read(&q.text, q.kind, now)?;
    // Appearing in a result is not use: a search that counted its own hits
    // would change its next answer. Opening a hit (`open`, `memory_get`) is.
    let notes = notes::notes(index, q, &reading)?;
    match candidates(index, cfg, q, &reading, now) {
        // No session holds every word and prefix: the ones holding most of them.
        Ok(hits) if hits.is_empty() && reading.explicit => {
            let Some(any) = query::any_of(&q.text, q.kind) else {
                return Ok(Found {
                    hits,
                    notes,
                    note: None,
                    asked: reading.words,
                });
            };
            let hits = candidates(index, cfg, q, &any, now)?;
            let note = (!hits.is_empty())
                .then(|| "no session holds every word; these hold some of them".to_string());
            Ok(Found {
                hits,
                notes,
                note,
                asked: any.words,
            })
        }
        Ok(hits) => Ok(Found {
            hits,
            notes,
            note: None,
            asked: reading.words,
        }),
        Err(e) if reading.explicit => {
            let Some(reason) = Index::is_query_syntax(&e) else {
                return Err(e);
            };
            let words = query::read_as_words(&q.text, q.kind, now);
            let hits = candidates(index, cfg, q, &words, now)?;
            Ok(Found {
                hits,
                notes: notes::notes(index, q, &words)?,
                note: Some(format!(
                    "read as words: the search syntax was not valid ({reason})"
                )),
                asked: words.words,
            })
        }
        Err(e) => Err(e),
    }
}

/// What marks a match in a snippet of JSON and MCP output: characters a
/// client can find, and rare in code and prose (unlike `**` or `[`).
pub const MATCH_OPEN: char = '«';
pub const MATCH_CLOSE: char = '»';

/// Every string of a JSON value as a machine should get it: matches marked
/// with [`MATCH_OPEN`]/[`MATCH_CLOSE`], a tab as a space, and no other
/// character below U+0020 but the newline (session text can hold any).
pub fn for_machines(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.chars().any(|c| c < ' ' && c != '\n') => {
            *s = s
                .chars()
                .filter_map(|c| match c {
                    MARK_START => Some(MATCH_OPEN),
                    MARK_END => Some(MATCH_CLOSE),
                    '\t' => Some(' '),
                    '\n' => Some('\n'),
                    c if c < ' ' => None,
                    c => Some(c),
                })
                .collect();
        }
        Value::Array(items) => items.iter_mut().for_each(for_machines),
        Value::Object(fields) => fields.values_mut().for_each(for_machines),
        _ => {}
    }
}

/// The searchable columns of `session_fts`, by index, and the artifact each stands for.
const COLUMNS: [(usize, &str); 4] = [
    (1, "summary"),
    (3, "compaction"),
    (2, "transcript"),
    (0, "sentence"),
];

/// The matching sessions, ranked, with their details. The best `k` by bm25
/// alone are fetched, filtered and ranked (`rank`); `k` grows while filters
/// leave fewer than `limit`.
fn candidates(
    index: &Index,
    cfg: &SearchConfig,
    q: &Query,
    reading: &Reading,
    now: DateTime<Utc>,
) -> Result<Vec<Hit>> {
    let limit = q.limit.max(1);
    let filter = Filter::new(q)?;
    let mut k = limit.saturating_mul(20).max(MIN_CANDIDATES);
    loop {
        let matches = match (&reading.span, reading.fts.is_empty()) {
            // Only a time ("what did we do yesterday?"): that time's sessions.
            (Some(span), true) => index.sessions_between(
                &contract::format_ts(span.from),
                &contract::format_ts(span.to),
                k,
            )?,
            _ => index.best_by_bm25(&reading.fts, k, cfg.sentence_weight)?,
        };
        let exhausted = matches.len() < k;
        let (matches, by_time) = match &reading.span {
            Some(span) if !reading.fts.is_empty() => in_the_time(index, span, matches, limit)?,
            _ => (matches, Vec::new()),
        };
        let kept: Vec<Candidate> = candidates_of(index, &matches)?
            .into_iter()
            .map(|mut c| {
                c.by_time_only = by_time.contains(&c.fts_id);
                c
            })
            .filter(|c| filter.keeps(c))
            .collect();
        if kept.len() >= limit || exhausted {
            let mut ranked = rank::rank(index, cfg, reading, kept, now)?;
            rank::prefer_exact(index, reading, &mut ranked, limit.saturating_mul(2))?;
            rank::demote_echoes(&mut ranked, reading, limit.saturating_mul(2));
            ranked.truncate(limit);
            // A share of the best hit's score, and of the words that one
            // holds: 2 of 6 words is never "relevance 100%".
            let words = reading.terms.len();
            let best = ranked.first().map_or(1.0, |(score, c)| {
                let held = match words {
                    0 | 1 => 1.0,
                    n => c.matched.max(1) as f64 / n as f64,
                };
                score / held
            });
            return ranked
                .into_iter()
                .enumerate()
                .map(|(i, (score, c))| details(index, &c, i + 1, score / best, reading))
                .collect();
        }
        k = k.saturating_mul(4);
    }
}

/// Sessions by fts rowid, with their relevance.
type Matches = Vec<(i64, f64)>;

/// The sessions of the time a question names that hold none of its words
/// ("the appliance I bought 10 days ago", that day's session saying "got a
/// smoker today"), added to `matches` at half the best match's relevance:
/// below the sessions that hold the words, above the weak ones. Only when
/// the time is narrow enough to tell (no more sessions than the hits asked
/// for); the ids added are returned beside.
fn in_the_time(
    index: &Index,
    span: &Span,
    mut matches: Matches,
    limit: usize,
) -> Result<(Matches, Vec<i64>)> {
    let from = contract::format_ts(span.from);
    let to = contract::format_ts(span.to);
    let in_time = index.sessions_between(&from, &to, limit + 1)?;
    if in_time.len() > limit {
        return Ok((matches, Vec::new()));
    }
    let best = matches.iter().map(|(_, r)| *r).fold(0.0, f64::max);
    let held: std::collections::HashSet<i64> = matches.iter().map(|(id, _)| *id).collect();
    let added: Vec<i64> = (in_time.into_iter())
        .map(|(id, _)| id)
        .filter(|id| !held.contains(id))
        .collect();
    matches.extend(added.iter().map(|id| (*id, best * rank::TIME_ONLY_SHARE)));
    Ok((matches, added))
}

/// What ranking and filtering need of the matching sessions, in one query.
fn candidates_of(index: &Index, matches: &[(i64, f64)]) -> Result<Vec<Candidate>> {
    let relevance: std::collections::HashMap<i64, f64> = matches.iter().copied().collect();
    let ids: Vec<i64> = matches.iter().map(|(id, _)| *id).collect();
    Ok(index
        .search_candidates(&ids)?
        .into_iter()
        .map(|c| Candidate {
            relevance: relevance.get(&c.fts_id).copied().unwrap_or(0.0),
            fts_id: c.fts_id,
            agent_id: c.agent_id,
            token: c.token,
            membership_ts: c.membership_ts,
            private: c.private,
            project: c.project,
            accesses: c.accesses,
            last_access: c.last_access,
            sentence: c.sentence,
            matched: 0,
            held: 0,
            by_time_only: false,
        })
        .collect())
}

/// The filters of a query, applied to candidates.
struct Filter<'q> {
    q: &'q Query,
    since: Option<String>,
    project: Option<globset::GlobMatcher>,
}

impl<'q> Filter<'q> {
    fn new(q: &'q Query) -> Result<Filter<'q>> {
        let project = match &q.project {
            Some(p) if p.contains(['*', '?', '[']) => Some(
                globset::Glob::new(p)
                    .map_err(|e| Error::value("--project", p.as_str(), e.to_string()))?
                    .compile_matcher(),
            ),
            _ => None,
        };
        Ok(Filter {
            q,
            since: q.since.map(contract::format_ts),
            project,
        })
    }

    fn keeps(&self, c: &Candidate) -> bool {
        let q = self.q;
        let project_ok = match (&q.project, &c.project, &self.project) {
            (None, _, _) => true,
            (Some(_), None, _) => false,
            (Some(_), Some(p), Some(glob)) => glob.is_match(p),
            (Some(want), Some(p), None) => {
                p == want || p.trim_end_matches('/').rsplit('/').next() == Some(want.as_str())
            }
        };
        project_ok
            && q.agent.as_ref().is_none_or(|a| *a == c.agent_id)
            && self.since.as_ref().is_none_or(|s| c.membership_ts >= *s)
            && (q.include_private || !c.private)
    }
}

/// The session facts, wikilinks and best snippet of one ranked session.
fn details(
    index: &Index,
    c: &Candidate,
    rank: usize,
    score: f64,
    reading: &Reading,
) -> Result<Hit> {
    let Some(row) = index.hit_row(c.fts_id)? else {
        return Err(Error::unknown_session(c.token.clone()));
    };
    let crate::store::search::HitRow {
        membership_ts,
        project,
        session_id,
        session_key,
        sentence,
        paths,
        untrusted,
    } = row;
    let labels = ["summary", "transcript", "compaction", "manifest"];
    let path_of = |kind: &str| {
        labels
            .iter()
            .position(|l| *l == kind)
            .and_then(|i| paths[i].clone())
    };
    let links = labels
        .iter()
        .zip(&paths)
        .filter_map(|(label, p)| p.as_ref().map(|p| format!("[[{p}|{label}]]")))
        .collect();
    let (kind, snippet) = if reading.fts.is_empty() {
        ("summary", String::new())
    } else {
        snippet::snippet_of(index, &reading.fts, &reading.words, c.fts_id)?
    };
    // A match in the sentence points at the artifact the sentence came from.
    let kind = if kind == "sentence" { "summary" } else { kind };
    Ok(Hit {
        agent_id: c.agent_id.clone(),
        token: c.token.clone(),
        session_id,
        session_key,
        project,
        membership_ts,
        sentence,
        kind: kind.to_string(),
        path: path_of(kind)
            .or_else(|| path_of("manifest"))
            .unwrap_or_default(),
        snippet,
        rank,
        score: (score * 1000.0).round() / 1000.0,
        matched_words: c.matched,
        query_words: reading.terms.len(),
        relevance: c.relevance,
        accesses: c.accesses,
        links,
        untrusted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_spans_dates_and_times() {
        let now = contract::parse_ts("2026-11-20T12:00:00Z").unwrap();
        assert_eq!(parse_since("7d", now).unwrap(), now - Duration::days(7));
        assert_eq!(parse_since("24h", now).unwrap(), now - Duration::hours(24));
        assert_eq!(
            parse_since("2026-11-01", now).unwrap(),
            contract::parse_ts("2026-11-01T00:00:00Z").unwrap()
        );
        assert!(parse_since("soon", now).is_err());
        assert!(parse_since("7y", now).is_err());
    }
}
