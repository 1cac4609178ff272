//! The full-text side of the index: bm25 matches over `session_fts`, the facts
//! ranking needs of each match, and snippets.
//!
//! Owns: the search statements. Must not: rank or filter (that is `search`).

use rusqlite::params;

use super::*;

/// What ranking and filtering need of one matching session.
pub struct SearchCandidate {
    pub fts_id: i64,
    pub agent_id: String,
    pub token: String,
    pub membership_ts: String,
    pub private: bool,
    pub project: Option<String>,
    pub accesses: i64,
    pub last_access: Option<String>,
    pub sentence: String,
}

/// The session facts a hit shows, and its artifact paths (summary,
/// transcript, compaction, manifest).
pub struct HitRow {
    pub membership_ts: String,
    pub project: Option<String>,
    pub session_id: String,
    pub session_key: Option<String>,
    pub sentence: String,
    pub paths: Vec<Option<String>>,
    pub untrusted: bool,
}

/// The head of one session's document (`Index::document_heads`).
pub struct DocumentHead {
    pub fts_id: i64,
    pub text: String,
    /// A column was longer than what was read.
    pub cut: bool,
}

impl Index {
    /// The `k` best session documents by bm25 alone, as (fts rowid, relevance).
    pub fn best_by_bm25(
        &self,
        fts: &str,
        k: usize,
        sentence_weight: f64,
    ) -> Result<Vec<(i64, f64)>> {
        query(
            &self.conn,
            "SELECT rowid, -bm25(session_fts, ?3, 1.0, 1.0, 1.0, ?3, 1.0, 1.0, 1.0) FROM session_fts
             WHERE session_fts MATCH ?1
             ORDER BY bm25(session_fts, ?3, 1.0, 1.0, 1.0, ?3, 1.0, 1.0, 1.0) LIMIT ?2",
            params![fts, k as i64, sentence_weight],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)),
        )
        .map_err(|e| self.err(e))
    }

    /// Which of these fts rowids hold what `fts` matches.
    ///
    /// FTS5 answers `rowid IN (…)` with a seek into every segment for every
    /// id, so its cost grows with ids × segments (8.6 ms for 300 ids at 16×,
    /// 14 segments). Many ids read the match's doclist over their rowid span
    /// once instead (2.4 ms there) and keep the ids asked for.
    pub fn holding(&self, fts: &str, fts_ids: &[i64]) -> Result<Vec<i64>> {
        const SEEKS_AT_MOST: usize = 64;
        let (Some(lo), Some(hi)) = (fts_ids.iter().min(), fts_ids.iter().max()) else {
            return Ok(Vec::new());
        };
        if fts_ids.len() <= SEEKS_AT_MOST {
            let ids = serde_json::to_string(fts_ids).unwrap_or_default();
            return query(
                &self.conn,
                "SELECT rowid FROM session_fts
                 WHERE session_fts MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))",
                params![fts, ids],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| self.err(e));
        }
        let asked: std::collections::HashSet<i64> = fts_ids.iter().copied().collect();
        let in_span: Vec<i64> = query(
            &self.conn,
            "SELECT rowid FROM session_fts WHERE session_fts MATCH ?1 AND rowid >= ?2 AND rowid <= ?3",
            params![fts, lo, hi],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|e| self.err(e))?;
        Ok(in_span
            .into_iter()
            .filter(|id| asked.contains(id))
            .collect())
    }

    /// Up to `k` sessions whose membership time is in `[from, to)`, newest
    /// first, each with relevance 1, as (fts rowid, relevance).
    pub fn sessions_between(&self, from: &str, to: &str, k: usize) -> Result<Vec<(i64, f64)>> {
        query(
            &self.conn,
            "SELECT fts_id, 1.0 FROM sessions
             WHERE membership_ts >= ?1 AND membership_ts < ?2
             ORDER BY membership_ts DESC LIMIT ?3",
            params![from, to, k as i64],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)),
        )
        .map_err(|e| self.err(e))
    }

    /// The candidates of these fts rowids, in one query.
    pub fn search_candidates(&self, fts_ids: &[i64]) -> Result<Vec<SearchCandidate>> {
        let ids = serde_json::to_string(fts_ids).unwrap_or_default();
        query(
            &self.conn,
            "SELECT s.fts_id, s.agent_id, s.token, s.membership_ts, s.private, s.project,
                    COALESCE(t.access_count, 0), t.last_access, COALESCE(s.sentence, '')
             FROM json_each(?1) j
             JOIN sessions s ON s.fts_id = j.value
             LEFT JOIN telemetry_access t ON t.agent_id = s.agent_id AND t.token = s.token",
            [ids],
            |r| {
                Ok(SearchCandidate {
                    fts_id: r.get(0)?,
                    agent_id: r.get(1)?,
                    token: r.get(2)?,
                    membership_ts: r.get(3)?,
                    private: r.get(4)?,
                    project: r.get(5)?,
                    accesses: r.get(6)?,
                    last_access: r.get(7)?,
                    sentence: r.get(8)?,
                })
            },
        )
        .map_err(|e| self.err(e))
    }

    /// The session behind one fts rowid, if it is still there.
    pub fn hit_row(&self, fts_id: i64) -> Result<Option<HitRow>> {
        let sql = "SELECT membership_ts, project, session_id, session_key, sentence,
                          summary_path, transcript_path, compaction_path, manifest_path, untrusted
                   FROM sessions WHERE fts_id = ?1";
        let rows: Vec<HitRow> = query(&self.conn, sql, [fts_id], |r| {
            Ok(HitRow {
                membership_ts: r.get(0)?,
                project: r.get(1)?,
                session_id: r.get(2)?,
                session_key: r.get(3)?,
                sentence: r.get(4)?,
                paths: (5..9).map(|i| r.get(i)).collect::<rusqlite::Result<_>>()?,
                untrusted: r.get(9)?,
            })
        })
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().next())
    }

    /// The snippet of one column (-1: any) of a session's document, marked
    /// with `start` and `end`, if the query matches it.
    pub fn snippet(
        &self,
        fts: &str,
        fts_id: i64,
        column: i32,
        (start, end): (char, char),
    ) -> Result<Option<String>> {
        let sql = format!(
            "SELECT snippet(session_fts, {column}, char({}), char({}), '…', 16) FROM session_fts WHERE session_fts MATCH ?1 AND rowid = ?2",
            start as u32, end as u32
        );
        let rows: Vec<Option<String>> =
            query(&self.conn, &sql, params![fts, fts_id], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok(rows.into_iter().next().map(Option::unwrap_or_default))
    }

    /// The snippets of all four columns (sentence, summary, transcript,
    /// compaction) of one session's document, marked with `start` and `end`,
    /// if the query matches it. One query at the matching row: a column with
    /// no mark holds no phrase of the query.
    pub fn column_snippets(
        &self,
        fts: &str,
        fts_id: i64,
        (start, end): (char, char),
    ) -> Result<Option<[String; 4]>> {
        let (s, e) = (start as u32, end as u32);
        let one = |c: usize| format!("snippet(session_fts, {c}, char({s}), char({e}), '…', 16)");
        let sql = format!(
            "SELECT {}, {}, {}, {} FROM session_fts WHERE session_fts MATCH ?1 AND rowid = ?2",
            one(0),
            one(1),
            one(2),
            one(3)
        );
        let rows: Vec<[String; 4]> = query(&self.conn, &sql, params![fts, fts_id], |r| {
            let col = |i| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
            Ok([col(0)?, col(1)?, col(2)?, col(3)?])
        })
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().next())
    }

    /// The four text columns (sentence, summary, transcript, compaction) of
    /// one session's document.
    pub fn document(&self, fts_id: i64) -> Result<Option<[String; 4]>> {
        let sql =
            "SELECT sentence, summary, transcript, compaction FROM session_fts WHERE rowid = ?1";
        let rows: Vec<[String; 4]> = query(&self.conn, sql, [fts_id], |r| {
            let col = |i| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
            Ok([col(0)?, col(1)?, col(2)?, col(3)?])
        })
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().next())
    }

    /// The text of these documents (their four text columns, one line
    /// apart), each column cut to its first `chars` characters, and whether
    /// any column was cut: what telling an exact word from its stem reads.
    pub fn document_heads(&self, fts_ids: &[i64], chars: usize) -> Result<Vec<DocumentHead>> {
        let ids = serde_json::to_string(fts_ids).unwrap_or_default();
        query(
            &self.conn,
            "SELECT rowid, substr(sentence, 1, ?2), substr(summary, 1, ?2),
                    substr(transcript, 1, ?2), substr(compaction, 1, ?2)
             FROM session_fts WHERE rowid IN (SELECT value FROM json_each(?1))",
            params![ids, chars as i64],
            |r| {
                let mut text = String::new();
                let mut cut = false;
                for i in 1..5 {
                    let column = r.get::<_, Option<String>>(i)?.unwrap_or_default();
                    cut |= column.len() >= chars && column.chars().count() >= chars;
                    text.push_str(&column);
                    text.push('\n');
                }
                Ok(DocumentHead {
                    fts_id: r.get(0)?,
                    text,
                    cut,
                })
            },
        )
        .map_err(|e| self.err(e))
    }

    /// Indexed terms that could be `word` mistyped: the same first
    /// character, a length within `spread`, with how many sessions hold each.
    pub fn terms_like(&self, word: &str, spread: usize) -> Result<Vec<(String, i64)>> {
        let Some(first) = word.chars().next() else {
            return Ok(Vec::new());
        };
        // A view over the index's own vocabulary; it stores nothing.
        self.conn
            .execute_batch(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.session_vocab
                 USING fts5vocab(main, session_fts, row)",
            )
            .map_err(|e| self.err(e))?;
        let low = first.to_string();
        let high =
            char::from_u32(first as u32 + 1).map_or(String::from("\u{10FFFF}"), String::from);
        let n = word.chars().count();
        query(
            &self.conn,
            "SELECT term, doc FROM temp.session_vocab
             WHERE term >= ?1 AND term < ?2 AND length(term) BETWEEN ?3 AND ?4",
            params![
                low,
                high,
                n.saturating_sub(spread) as i64,
                (n + spread) as i64
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| self.err(e))
    }

    /// Whether a query error is the user's FTS5 syntax rather than a failure.
    pub fn is_query_syntax(e: &Error) -> Option<String> {
        match e.sqlite() {
            Some(source)
                if [
                    "fts5",
                    "syntax error",
                    "unterminated string",
                    "no such column",
                ]
                .iter()
                .any(|m| source.to_string().contains(m)) =>
            {
                Some(source.to_string())
            }
            _ => None,
        }
    }
}
