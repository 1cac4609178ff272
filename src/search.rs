//! Recall: full-text search over the index, grouped by session and ranked by
//! bm25 blended with recency and use, and the access telemetry it records.
//!
//! Owns: turning a query into ranked sessions, and recording accesses.
//! Must not: read markdown or change content rows (it reads the index as the
//! last sync or the daemon left it).

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::params;
use serde::Serialize;

use crate::config::SearchConfig;
use crate::contract::{self, ArtifactKind};
use crate::error::{Error, Result};
use crate::index::Index;

/// How many matching artifacts are ranked before grouping into sessions.
const CANDIDATES: usize = 1000;
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
    pub score: f64,
    pub relevance: f64,
    pub accesses: i64,
    /// Wikilinks to the session's artifacts, in ledger order.
    pub links: Vec<String>,
    #[serde(skip)]
    artifact_id: i64,
}

/// Turns what a person typed into an FTS5 query. Plain words are quoted, so
/// `c++`, `don't` and `src/pay.rs` just work; a query that uses FTS5 syntax
/// (quotes, parentheses, AND/OR/NOT/NEAR, `prefix*`, `column:`) is passed as it is.
pub fn fts_query(text: &str) -> Result<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return Err(Error::Usage("search: the query is empty".into()));
    }
    let advanced = text.contains(['"', '(', ')'])
        || words.iter().any(|w| {
            matches!(*w, "AND" | "OR" | "NOT" | "NEAR")
                || w.ends_with('*')
                || w.starts_with('^')
                || w.contains(':')
        });
    if advanced {
        return Ok(text.to_string());
    }
    Ok(words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" "))
}

/// `7d`, `24h`, `2w`, a date (`2026-11-01`) or an RFC 3339 timestamp.
pub fn parse_since(s: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let s = s.trim();
    let bad = || {
        Error::Usage(format!(
            "--since {s:?}: use 7d, 24h, 2w, a date (2026-11-01) or an RFC 3339 time"
        ))
    };
    if let Some(ts) = contract::parse_ts(s) {
        return Ok(ts);
    }
    if let Ok(day) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok(day.and_hms_opt(0, 0, 0).ok_or_else(bad)?.and_utc());
    }
    let (n, unit) = s.split_at(s.len().saturating_sub(1));
    let n: i64 = n.parse().map_err(|_| bad())?;
    let span = match unit {
        "h" => Duration::hours(n),
        "d" => Duration::days(n),
        "w" => Duration::weeks(n),
        _ => return Err(bad()),
    };
    Ok(now - span)
}

/// Runs a search and records an access for every session it returns.
pub fn search(
    index: &Index,
    cfg: &SearchConfig,
    q: &Query,
    now: DateTime<Utc>,
) -> Result<Vec<Hit>> {
    let fts = fts_query(&q.text)?;
    let mut hits = candidates(index, cfg, q, &fts, now)?;
    hits.truncate(q.limit.max(1));
    for hit in &mut hits {
        hit.snippet = snippet(index, &fts, hit.artifact_id)?;
    }
    index.record_accesses(
        hits.iter().map(|h| (h.agent_id.as_str(), h.token.as_str())),
        now,
    )?;
    Ok(hits)
}

/// The best artifact of each matching session, ranked.
fn candidates(
    index: &Index,
    cfg: &SearchConfig,
    q: &Query,
    fts: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Hit>> {
    let sql = "SELECT a.id, a.agent_id, a.token, a.source_kind, a.source_path,
                      -bm25(artifact_fts, ?7, 1.0),
                      COALESCE(s.membership_ts, a.membership_ts), COALESCE(s.project, a.project),
                      a.session_id, a.session_key, COALESCE(s.sentence, a.memory_sentence, ''),
                      s.summary_path, s.transcript_path, s.compaction_path, s.manifest_path,
                      COALESCE(t.access_count, 0), t.last_access
               FROM artifact_fts
               JOIN artifacts a ON a.id = artifact_fts.rowid
               LEFT JOIN sessions s ON s.agent_id = a.agent_id AND s.token = a.token
               LEFT JOIN telemetry_access t ON t.agent_id = a.agent_id AND t.token = a.token
               WHERE artifact_fts MATCH ?1
                 AND (?2 IS NULL OR a.agent_id = ?2)
                 AND (?3 IS NULL OR a.source_kind = ?3)
                 AND (?4 IS NULL OR COALESCE(s.membership_ts, a.membership_ts) >= ?4)
                 AND (?5 OR (a.private = 0 AND COALESCE(s.private, 0) = 0))
                 AND (?6 IS NULL OR a.project = ?6 OR a.project LIKE '%/' || ?6 OR a.project GLOB ?6)
               ORDER BY bm25(artifact_fts, ?7, 1.0)
               LIMIT ?8";
    let since = q.since.map(contract::format_ts);
    let kind = q.kind.map(|k| k.as_str());
    let rows = index.rows(
        sql,
        params![
            fts,
            q.agent,
            kind,
            since,
            q.include_private,
            q.project,
            cfg.sentence_weight,
            CANDIDATES as i64
        ],
        |r| {
            let links = [
                (11, "summary"),
                (12, "transcript"),
                (13, "compaction"),
                (14, "manifest"),
            ]
            .into_iter()
            .filter_map(|(i, label)| {
                r.get::<_, Option<String>>(i)
                    .ok()
                    .flatten()
                    .map(|p| format!("[[{p}|{label}]]"))
            })
            .collect();
            let last_access: Option<String> = r.get(16)?;
            let hit = Hit {
                artifact_id: r.get(0)?,
                agent_id: r.get(1)?,
                token: r.get(2)?,
                kind: r.get(3)?,
                path: r.get(4)?,
                relevance: r.get(5)?,
                membership_ts: r.get(6)?,
                project: r.get(7)?,
                session_id: r.get(8)?,
                session_key: r.get(9)?,
                sentence: r.get(10)?,
                links,
                accesses: r.get(15)?,
                snippet: String::new(),
                score: 0.0,
            };
            Ok((hit, last_access))
        },
    );
    let rows = rows.map_err(|e| query_error(e, &q.text))?;
    let mut best: HashMap<(String, String), Hit> = HashMap::new();
    for (mut hit, last_access) in rows {
        hit.score = score(cfg, &hit, last_access.as_deref(), now);
        let key = (hit.agent_id.clone(), hit.token.clone());
        match best.get(&key) {
            Some(b) if b.score >= hit.score => {}
            _ => {
                best.insert(key, hit);
            }
        }
    }
    let mut hits: Vec<Hit> = best.into_values().collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.membership_ts.cmp(&a.membership_ts))
            .then_with(|| a.token.cmp(&b.token))
    });
    Ok(hits)
}

/// relevance × recency boost × usage boost (the formula in config/memsync.yaml).
fn score(cfg: &SearchConfig, hit: &Hit, last_access: Option<&str>, now: DateTime<Utc>) -> f64 {
    let days_since = |ts: &str| {
        contract::parse_ts(ts)
            .map(|t| ((now - t).num_seconds() as f64 / 86_400.0).max(0.0))
            .unwrap_or(f64::INFINITY)
    };
    let half = |days: f64, half_life: f64| {
        if half_life > 0.0 {
            0.5f64.powf(days / half_life)
        } else {
            0.0
        }
    };
    let recency = half(days_since(&hit.membership_ts), cfg.recency_half_life_days);
    let uses = hit.accesses as f64
        * last_access.map_or(0.0, |t| half(days_since(t), cfg.usage_half_life_days));
    hit.relevance
        * (1.0 + cfg.recency_weight * recency)
        * (1.0 + cfg.usage_weight * (1.0 + uses).ln())
}

fn snippet(index: &Index, fts: &str, id: i64) -> Result<String> {
    let sql = format!(
        "SELECT snippet(artifact_fts, -1, char({}), char({}), '…', 16) FROM artifact_fts WHERE artifact_fts MATCH ?1 AND rowid = ?2",
        MARK_START as u32, MARK_END as u32
    );
    let rows = index.rows(&sql, params![fts, id], |r| r.get::<_, String>(0))?;
    Ok(rows
        .into_iter()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" "))
}

/// An FTS5 syntax error is the user's query, not a failure of memsync.
fn query_error(e: Error, text: &str) -> Error {
    match &e {
        Error::Index { source, .. }
            if [
                "fts5",
                "syntax error",
                "unterminated string",
                "no such column",
            ]
            .iter()
            .any(|m| source.to_string().contains(m)) =>
        {
            Error::Usage(format!(
                "search: {text:?} is not a valid FTS5 query ({source}); put words in double quotes to search for them as they are"
            ))
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_are_quoted_and_fts_syntax_is_kept() {
        assert_eq!(
            fts_query("retry  src/pay.rs").unwrap(),
            "\"retry\" \"src/pay.rs\""
        );
        assert_eq!(fts_query("say \"hi\" OR bye").unwrap(), "say \"hi\" OR bye");
        assert_eq!(fts_query("pay*").unwrap(), "pay*");
        assert!(fts_query("   ").is_err());
    }

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
