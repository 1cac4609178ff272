//! The ledger of memsync's own model calls (`.memsync/jobs.db`, beside the
//! job queue, so re-indexing never resets it): one row a call with its
//! provider, verdict and cost, for the per-minute limit and for what
//! `status` and `doctor` say. Rows older than 30 days are dropped as new
//! ones come, so the table never grows without bound.
//!
//! Owns: the table and its statements. Must not: call a model.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, params};
use serde::Serialize;

use super::jobs::{ms, open_state_db};
use crate::error::{Error, Result};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS model_calls (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    provider TEXT NOT NULL,
    -- ok | fallback
    verdict TEXT NOT NULL,
    -- why the fallback: a failure of the call, or the gate's refusal
    reason TEXT,
    millis INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_at ON model_calls(at_ms);
";

/// How long a call is remembered.
const KEEP_DAYS: i64 = 30;

/// One model call as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCall<'a> {
    pub provider: &'a str,
    /// `None`: the sentence was taken; else why the fallback was.
    pub refused: Option<&'a str>,
    pub millis: u64,
    pub input_tokens: usize,
}

/// What the calls of a period came to, as `status` shows them.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ModelCallStats {
    pub ok: i64,
    pub fallback: i64,
    /// Each fallback reason and how often, commonest first.
    pub reasons: Vec<(String, i64)>,
    pub total_millis: i64,
    pub input_tokens: i64,
}

/// One recorded call, as `memsync log` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCallRow {
    pub at_ms: i64,
    pub provider: String,
    /// `ok` or `fallback`.
    pub verdict: String,
    pub reason: Option<String>,
    pub millis: i64,
    pub input_tokens: i64,
}

pub struct ModelCallLedger {
    path: PathBuf,
    conn: Connection,
}

impl ModelCallLedger {
    pub fn open(state_dir: &Path) -> Result<ModelCallLedger> {
        let (path, conn) = open_state_db(state_dir, SCHEMA)?;
        Ok(ModelCallLedger { path, conn })
    }

    /// Opens the ledger only if the state database exists (`status` must not create it).
    pub fn open_existing(state_dir: &Path) -> Result<Option<ModelCallLedger>> {
        if !state_dir.join(super::jobs::JOBS_DB).exists() {
            return Ok(None);
        }
        ModelCallLedger::open(state_dir).map(Some)
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
    }

    /// Calls made since `since`.
    pub fn calls_since(&self, since: DateTime<Utc>) -> Result<u64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM model_calls WHERE at_ms > ?1",
                [ms(since)],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.err(e))
    }

    /// Records a call made at `now`, dropping the rows past keeping.
    pub fn record(&self, call: &ModelCall<'_>, now: DateTime<Utc>) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO model_calls(at_ms, provider, verdict, reason, millis, input_tokens)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    ms(now),
                    call.provider,
                    if call.refused.is_some() {
                        "fallback"
                    } else {
                        "ok"
                    },
                    call.refused,
                    call.millis as i64,
                    call.input_tokens as i64
                ],
            )
            .map_err(|e| self.err(e))?;
        self.conn
            .execute(
                "DELETE FROM model_calls WHERE at_ms < ?1",
                [ms(now - Duration::days(KEEP_DAYS))],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The newest `n` calls, oldest first.
    pub fn recent(&self, n: usize) -> Result<Vec<ModelCallRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT at_ms, provider, verdict, reason, millis, input_tokens FROM model_calls
                 ORDER BY at_ms DESC, id DESC LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query_map([n as i64], |r| {
                Ok(ModelCallRow {
                    at_ms: r.get(0)?,
                    provider: r.get(1)?,
                    verdict: r.get(2)?,
                    reason: r.get(3)?,
                    millis: r.get(4)?,
                    input_tokens: r.get(5)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        rows.reverse();
        Ok(rows)
    }

    /// What the calls since `since` came to.
    pub fn stats_since(&self, since: DateTime<Utc>) -> Result<ModelCallStats> {
        let mut stats = self
            .conn
            .query_row(
                "SELECT COALESCE(SUM(verdict = 'ok'), 0), COALESCE(SUM(verdict = 'fallback'), 0),
                        COALESCE(SUM(millis), 0), COALESCE(SUM(input_tokens), 0)
                 FROM model_calls WHERE at_ms > ?1",
                [ms(since)],
                |r| {
                    Ok(ModelCallStats {
                        ok: r.get(0)?,
                        fallback: r.get(1)?,
                        reasons: Vec::new(),
                        total_millis: r.get(2)?,
                        input_tokens: r.get(3)?,
                    })
                },
            )
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT reason, COUNT(*) AS n FROM model_calls
                 WHERE at_ms > ?1 AND verdict = 'fallback'
                 GROUP BY reason ORDER BY n DESC, reason LIMIT 5",
            )
            .map_err(|e| self.err(e))?;
        stats.reasons = stmt
            .query_map([ms(since)], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    r.get(1)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_by_verdict_and_old_ones_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = ModelCallLedger::open(dir.path()).unwrap();
        let now = Utc::now();
        let call = |refused| ModelCall {
            provider: "ollama",
            refused,
            millis: 100,
            input_tokens: 500,
        };
        ledger
            .record(&call(None), now - Duration::days(40))
            .unwrap();
        ledger.record(&call(None), now).unwrap();
        ledger.record(&call(Some("it said nothing")), now).unwrap();
        let stats = ledger.stats_since(now - Duration::days(365)).unwrap();
        assert_eq!(
            (stats.ok, stats.fallback),
            (1, 1),
            "the 40-day-old row is gone"
        );
        assert_eq!(stats.reasons, vec![("it said nothing".to_string(), 1)]);
        assert_eq!((stats.total_millis, stats.input_tokens), (200, 1000));
        assert_eq!(ledger.calls_since(now - Duration::minutes(1)).unwrap(), 2);
        let recent = ledger.recent(5).unwrap();
        assert_eq!(recent.len(), 2);
        assert_eq!(recent[1].reason.as_deref(), Some("it said nothing"));
    }
}
