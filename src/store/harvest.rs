//! What `harvest` remembers of each harness session file, in the job queue's
//! database (`.memsync/jobs.db`, which re-indexing never clears): a watermark
//! (size, mtime, inode and a digest of the last bytes read) so an unchanged
//! file costs one `stat`, the outcome and its reason, retry timing, and a
//! lease so two harvesters never work on one file at once.
//!
//! Owns: those tables and statements. Must not: read harness files or decide
//! what a file's outcome is (that is `harvest`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::jobs::{JOBS_DB, ms};
use super::query;
use crate::contract;
use crate::error::{Error, Result};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS harvest_files (
    path TEXT PRIMARY KEY,
    harness TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    tail_sha256 TEXT NOT NULL,
    -- captured | skipped | failed | replaced
    state TEXT NOT NULL,
    reason TEXT,
    agent_id TEXT,
    session_id TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
-- The last run of each kind (daemon | manual), for doctor.
CREATE TABLE IF NOT EXISTS harvest_runs (
    by TEXT PRIMARY KEY,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS harvest_leases (
    path TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until_ms INTEGER NOT NULL
);
";

/// The remembered state of one session file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Watermark {
    pub path: String,
    pub harness: String,
    /// Bytes read (and captured through, when `state` is `captured`).
    pub size: u64,
    pub mtime_ns: i64,
    pub inode: u64,
    /// sha256 of the last bytes read (up to 4 KiB before `size`).
    pub tail_sha256: String,
    pub state: String,
    pub reason: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub attempts: i64,
    /// When a failed capture may be tried again (ms since the epoch).
    pub next_attempt_ms: i64,
}

/// Counts per state and the files that need a person, for `status`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HarvestStats {
    pub files: i64,
    pub captured: i64,
    pub skipped: i64,
    pub failed: i64,
    pub replaced: i64,
    /// Failed and replaced files, newest first (at most 10).
    pub attention: Vec<Watermark>,
}

pub struct Watermarks {
    path: PathBuf,
    conn: Connection,
}

const COLUMNS: &str = "path, harness, size, mtime_ns, inode, tail_sha256, state, reason, agent_id, session_id, attempts, next_attempt_ms";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Watermark> {
    Ok(Watermark {
        path: r.get(0)?,
        harness: r.get(1)?,
        size: r.get::<_, i64>(2)? as u64,
        mtime_ns: r.get(3)?,
        inode: r.get::<_, i64>(4)? as u64,
        tail_sha256: r.get(5)?,
        state: r.get(6)?,
        reason: r.get(7)?,
        agent_id: r.get(8)?,
        session_id: r.get(9)?,
        attempts: r.get(10)?,
        next_attempt_ms: r.get(11)?,
    })
}

impl Watermarks {
    pub fn open(state_dir: &Path) -> Result<Watermarks> {
        let (path, conn) = super::jobs::open_state_db(state_dir, SCHEMA)?;
        // A watermark lost to a power cut only makes the next harvest capture
        // that session again, which its idempotency key turns into a no-op:
        // no fsync per commit (a crash of the process loses nothing in WAL).
        conn.execute_batch("PRAGMA synchronous = NORMAL;")
            .map_err(|e| Error::store(path.clone(), e))?;
        Ok(Watermarks { path, conn })
    }

    /// Opens them only if the database exists (`status` must not create it).
    pub fn open_existing(state_dir: &Path) -> Result<Option<Watermarks>> {
        if !state_dir.join(JOBS_DB).exists() {
            return Ok(None);
        }
        Watermarks::open(state_dir).map(Some)
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
    }

    /// Notes that a run by `by` (`daemon` or `manual`) finished at `at`.
    pub fn ran(&self, by: &str, at: DateTime<Utc>) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO harvest_runs (by, at) VALUES (?1, ?2)
                 ON CONFLICT (by) DO UPDATE SET at = excluded.at",
                params![by, contract::format_ts(at)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// When the last run by `by` finished.
    pub fn last_run(&self, by: &str) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT at FROM harvest_runs WHERE by = ?1", [by], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every watermark, by path: one query for a whole run.
    pub fn all(&self) -> Result<HashMap<String, Watermark>> {
        let rows: Vec<Watermark> = query(
            &self.conn,
            &format!("SELECT {COLUMNS} FROM harvest_files"),
            [],
            row,
        )
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(|w| (w.path.clone(), w)).collect())
    }

    pub fn get(&self, path: &str) -> Result<Option<Watermark>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM harvest_files WHERE path = ?1"),
                [path],
                row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Records what became of a file (and releases nothing: see `release`).
    pub fn record(&self, w: &Watermark, now: DateTime<Utc>) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO harvest_files(path, harness, size, mtime_ns, inode, tail_sha256, state, reason,
                                           agent_id, session_id, attempts, next_attempt_ms, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                 ON CONFLICT(path) DO UPDATE SET harness = excluded.harness, size = excluded.size,
                    mtime_ns = excluded.mtime_ns, inode = excluded.inode, tail_sha256 = excluded.tail_sha256,
                    state = excluded.state, reason = excluded.reason, agent_id = excluded.agent_id,
                    session_id = excluded.session_id, attempts = excluded.attempts,
                    next_attempt_ms = excluded.next_attempt_ms, updated_at = excluded.updated_at",
                params![
                    w.path,
                    w.harness,
                    w.size as i64,
                    w.mtime_ns,
                    w.inode as i64,
                    w.tail_sha256,
                    w.state,
                    w.reason,
                    w.agent_id,
                    w.session_id,
                    w.attempts,
                    w.next_attempt_ms,
                    contract::format_ts(now)
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Takes the lease on a file for `lease`, unless a live one is held by
    /// someone else. A lease whose owner (`… pid N`) is a process that no
    /// longer exists is taken over at once: a killed harvest must not keep
    /// its sessions busy for the whole lease. True when this owner holds it now.
    pub fn claim(
        &self,
        path: &str,
        owner: &str,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<bool> {
        let holder: Option<String> = self
            .conn
            .query_row(
                "SELECT owner FROM harvest_leases WHERE path = ?1 AND owner <> ?2",
                params![path, owner],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let dead = holder
            .as_deref()
            .and_then(|h| h.rsplit_once("pid ")?.1.parse::<i32>().ok())
            .is_some_and(|pid| !crate::files::process_alive(pid));
        if dead {
            self.conn
                .execute("DELETE FROM harvest_leases WHERE path = ?1", [path])
                .map_err(|e| self.err(e))?;
        }
        let until = ms(now) + lease.as_millis() as i64;
        let changed = self
            .conn
            .execute(
                "INSERT INTO harvest_leases(path, owner, until_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT(path) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms
                 WHERE harvest_leases.until_ms < ?4 OR harvest_leases.owner = excluded.owner",
                params![path, owner, until, ms(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(changed == 1)
    }

    pub fn release(&self, path: &str, owner: &str) -> Result<()> {
        self.conn
            .execute(
                "DELETE FROM harvest_leases WHERE path = ?1 AND owner = ?2",
                params![path, owner],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    pub fn stats(&self) -> Result<HarvestStats> {
        let mut stats = HarvestStats::default();
        let counts: Vec<(String, i64)> = query(
            &self.conn,
            "SELECT state, COUNT(*) FROM harvest_files GROUP BY state",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| self.err(e))?;
        for (state, n) in counts {
            stats.files += n;
            match state.as_str() {
                "captured" => stats.captured = n,
                "skipped" => stats.skipped = n,
                "replaced" => stats.replaced = n,
                _ => stats.failed += n,
            }
        }
        stats.attention = query(
            &self.conn,
            &format!(
                "SELECT {COLUMNS} FROM harvest_files WHERE state IN ('failed', 'replaced')
                 ORDER BY updated_at DESC LIMIT 10"
            ),
            [],
            row,
        )
        .map_err(|e| self.err(e))?;
        Ok(stats)
    }
}
