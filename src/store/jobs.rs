//! The capture-job queue (`.memsync/jobs.db`), apart from the index so that
//! re-indexing never loses a job: enqueueing, leased claims, outcomes, and the
//! counts `status` shows.
//!
//! Owns: the queue's schema and statements. Must not: know what a job asks
//! for (`jobs` turns requests into JSON and runs them).

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::contract;
use crate::error::{Error, Result};

pub const JOBS_DB: &str = "jobs.db";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    request TEXT NOT NULL,
    -- pending | running | waiting (a compaction whose session has not ended) | succeeded | failed
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until_ms INTEGER,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(state, next_attempt_ms);
";

/// A job as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub id: i64,
    pub kind: String,
    pub agent_id: String,
    pub session_id: String,
    pub state: String,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub updated_at: String,
    /// When a job that failed and waits to be tried again is next tried.
    pub retry_at: Option<String>,
}

/// Counts per state and the jobs that need a person.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobStats {
    pub pending: i64,
    pub running: i64,
    pub waiting: i64,
    pub succeeded: i64,
    /// Hook events that held no session, with the reason in `last_error`.
    pub skipped: i64,
    pub failed: i64,
    /// Failed and waiting jobs, newest first (at most 10).
    pub attention: Vec<JobRow>,
}

pub struct JobQueue {
    path: PathBuf,
    conn: Connection,
}

pub fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// Opens `.memsync/jobs.db` (the job queue and harvest's watermarks) and
/// makes sure `schema` exists, waiting out another process creating it.
pub(super) fn open_state_db(state_dir: &Path, schema: &str) -> Result<(PathBuf, Connection)> {
    crate::files::create_private_dir(state_dir)?;
    let path = state_dir.join(JOBS_DB);
    let err = |source| Error::store(path.clone(), source);
    let conn = Connection::open(&path).map_err(err)?;
    crate::files::set_private_mode(&path);
    conn.busy_timeout(Duration::from_secs(10)).map_err(err)?;
    let setup = format!("PRAGMA journal_mode = WAL; PRAGMA secure_delete = ON; {schema}");
    super::execute_when_free(&conn, &setup).map_err(err)?;
    Ok((path, conn))
}

impl JobQueue {
    pub fn open(state_dir: &Path) -> Result<JobQueue> {
        let (path, conn) = open_state_db(state_dir, SCHEMA)?;
        Ok(JobQueue { path, conn })
    }

    /// Opens the queue only if one exists (`status` must not create it).
    pub fn open_existing(state_dir: &Path) -> Result<Option<JobQueue>> {
        if !state_dir.join(JOBS_DB).exists() {
            return Ok(None);
        }
        JobQueue::open(state_dir).map(Some)
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
    }

    /// Queues a job: `request` is the JSON the worker will run.
    pub fn enqueue(
        &self,
        kind: &str,
        (agent, session): (&str, &str),
        request: &str,
        now: DateTime<Utc>,
    ) -> Result<i64> {
        self.conn
            .execute(
                "INSERT INTO jobs(kind, agent_id, session_id, request, state, next_attempt_ms, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?6)",
                params![kind, agent, session, request, ms(now), contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Records a hook call that could not become a job (bad payload), for `status`.
    pub fn record_failure(
        &self,
        kind: &str,
        agent_id: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO jobs(kind, agent_id, session_id, request, state, attempts, next_attempt_ms, last_error, created_at, updated_at)
                 VALUES (?1, ?2, '', '{}', 'failed', 0, 0, ?3, ?4, ?4)",
                params![kind, agent_id, error, contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Claims the oldest due job, or one whose worker's lease ran out.
    pub fn claim(
        &self,
        owner: &str,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<(i64, i64, String)>> {
        self.conn
            .query_row(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?1,
                        lease_until_ms = ?2, updated_at = ?3
                 WHERE id = (SELECT id FROM jobs
                             WHERE (state = 'pending' AND next_attempt_ms <= ?4)
                                OR (state = 'running' AND lease_until_ms < ?4)
                             ORDER BY id LIMIT 1)
                 RETURNING id, attempts, request",
                params![
                    owner,
                    ms(now) + lease.as_millis() as i64,
                    contract::format_ts(now),
                    ms(now)
                ],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    pub fn set_state(
        &self,
        id: i64,
        state: &str,
        next_ms: i64,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .execute(
                "UPDATE jobs SET state = ?2, next_attempt_ms = ?3, last_error = ?4, lease_owner = NULL,
                        lease_until_ms = NULL, updated_at = ?5 WHERE id = ?1",
                params![id, state, next_ms, error, contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A finished job keeps its metadata, not its text.
    pub fn succeed(&self, id: i64, now: DateTime<Utc>) -> Result<()> {
        self.set_state(id, "succeeded", 0, None, now)?;
        self.conn
            .execute(
                "UPDATE jobs SET request = json_remove(request, '$.body') WHERE id = ?1",
                [id],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Makes the compactions waiting for this session due now.
    pub fn wake_waiting(&self, agent_id: &str, session_id: &str, now: DateTime<Utc>) -> Result<()> {
        self.conn
            .execute(
                "UPDATE jobs SET state = 'pending', next_attempt_ms = ?3, updated_at = ?4
                 WHERE state = 'waiting' AND agent_id = ?1 AND session_id = ?2",
                params![agent_id, session_id, ms(now), contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Removes every job of a forgotten session, text and all.
    pub fn forget(&self, agent_id: &str, session_id: &str) -> Result<usize> {
        let n = self
            .conn
            .execute(
                "DELETE FROM jobs WHERE agent_id = ?1 AND session_id = ?2",
                params![agent_id, session_id],
            )
            .map_err(|e| self.err(e))?;
        let _ = self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
        Ok(n)
    }

    /// The soonest moment a pending job becomes due.
    pub fn next_due(&self) -> Result<Option<DateTime<Utc>>> {
        let next: Option<i64> = self
            .conn
            .query_row(
                "SELECT MIN(next_attempt_ms) FROM jobs WHERE state = 'pending'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        Ok(next.and_then(DateTime::from_timestamp_millis))
    }

    pub fn has_due(&self, now: DateTime<Utc>) -> Result<bool> {
        Ok(self.next_due()?.is_some_and(|t| t <= now))
    }

    pub fn stats(&self) -> Result<JobStats> {
        let mut stats = JobStats::default();
        let mut stmt = self
            .conn
            .prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state")
            .map_err(|e| self.err(e))?;
        let counts = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .and_then(|rows| rows.collect::<std::result::Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        for (state, n) in counts {
            match state.as_str() {
                "pending" => stats.pending = n,
                "running" => stats.running = n,
                "waiting" => stats.waiting = n,
                "succeeded" => stats.succeeded = n,
                "skipped" => stats.skipped = n,
                _ => stats.failed += n,
            }
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, agent_id, session_id, state, attempts, last_error, updated_at, next_attempt_ms FROM jobs
                 WHERE state IN ('failed', 'waiting') OR (state = 'pending' AND attempts > 0)
                 ORDER BY id DESC LIMIT 10",
            )
            .map_err(|e| self.err(e))?;
        stats.attention = stmt
            .query_map([], job_row)
            .and_then(|rows| rows.collect::<std::result::Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        Ok(stats)
    }

    /// The newest job: what the last hook asked for and how it went.
    /// The jobs that failed after the newest one that succeeded, newest
    /// first: a success in between does not hide them.
    pub fn failed_since_success(&self) -> Result<Vec<JobRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, agent_id, session_id, state, attempts, last_error, updated_at, next_attempt_ms FROM jobs
                 WHERE state = 'failed'
                   AND id > COALESCE((SELECT MAX(id) FROM jobs WHERE state = 'succeeded'), 0)
                 ORDER BY id DESC",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map([], job_row)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))
    }

    pub fn last(&self) -> Result<Option<JobRow>> {
        self.conn
            .query_row(
                "SELECT id, kind, agent_id, session_id, state, attempts, last_error, updated_at, next_attempt_ms FROM jobs
                 ORDER BY id DESC LIMIT 1",
                [],
                job_row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

fn job_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobRow> {
    Ok(JobRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        agent_id: r.get(2)?,
        session_id: r.get(3)?,
        state: r.get(4)?,
        attempts: r.get(5)?,
        last_error: r.get(6)?,
        updated_at: r.get(7)?,
        retry_at: match (r.get::<_, String>(4)?.as_str(), r.get::<_, i64>(5)?) {
            ("pending", attempts) if attempts > 0 => {
                chrono::DateTime::from_timestamp_millis(r.get(8)?).map(crate::contract::format_ts)
            }
            _ => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_after_the_newest_success_are_all_reported_not_only_the_last_job() {
        let dir = tempfile::tempdir().unwrap();
        let q = JobQueue::open(dir.path()).unwrap();
        let now = Utc::now();
        let job = |state: &str| {
            let id = q
                .enqueue("session-end", ("default", "s"), "{}", now)
                .unwrap();
            q.set_state(id, state, 0, Some("refused"), now).unwrap();
        };
        job("failed");
        job("succeeded");
        job("failed");
        job("skipped");
        job("failed");
        assert_eq!(q.failed_since_success().unwrap().len(), 2);
        job("succeeded");
        assert!(q.failed_since_success().unwrap().is_empty());
    }

    #[test]
    fn a_job_waiting_to_be_tried_again_is_shown_with_its_reason_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let q = JobQueue::open(dir.path()).unwrap();
        let now = Utc::now();
        let fresh = q
            .enqueue("session-end", ("default", "a"), "{}", now)
            .unwrap();
        let tried = q
            .enqueue("session-end", ("default", "b"), "{}", now)
            .unwrap();
        let (claimed, _, _) = q
            .claim("me", now, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        assert_eq!(claimed, fresh);
        let (claimed, _, _) = q
            .claim("me", now, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        assert_eq!(claimed, tried);
        q.set_state(fresh, "succeeded", 0, None, now).unwrap();
        let again = now + chrono::Duration::seconds(30);
        q.set_state(tried, "pending", ms(again), Some("database is locked"), now)
            .unwrap();
        let attention = q.stats().unwrap().attention;
        assert_eq!(attention.len(), 1, "{attention:?}");
        assert_eq!(
            attention[0].last_error.as_deref(),
            Some("database is locked")
        );
        assert_eq!(
            attention[0].retry_at.as_deref(),
            Some(contract::format_ts(again).as_str())
        );
    }
}
