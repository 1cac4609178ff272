//! What this machine copied between a harness's own memory folder and the
//! workspace's notes, in the job queue's database (`.memsync/jobs.db`, per
//! machine, never cleared by re-indexing): for each harness file, the note
//! it maps to, its stat (an unchanged file costs one `stat`) and the sha256
//! of the bytes last imported from it or restored into it. A harness file
//! whose bytes are neither is a local edit: never overwritten.
//!
//! Owns: that table and its statements. Must not: read harness files or
//! notes (that is `harvest::memory`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};

use super::jobs::JOBS_DB;
use super::query;
use crate::error::{Error, Result};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS memory_copies (
    place TEXT PRIMARY KEY,
    harness TEXT NOT NULL,
    note TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    -- imported | restored | conflict
    state TEXT NOT NULL
);
";

/// One harness file and the note it is copied to or from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryCopy {
    /// The harness file's absolute path.
    pub place: String,
    pub harness: String,
    /// The note's workspace-relative path.
    pub note: String,
    pub size: u64,
    pub mtime_ns: i64,
    /// Of the bytes memsync last read from the file or wrote to it.
    pub sha256: String,
    pub state: String,
}

pub struct MemoryCopies {
    path: PathBuf,
    conn: Connection,
}

impl MemoryCopies {
    pub fn open(state_dir: &Path) -> Result<MemoryCopies> {
        let (path, conn) = super::jobs::open_state_db(state_dir, SCHEMA)?;
        Ok(MemoryCopies { path, conn })
    }

    /// Opens them only if the database exists (`status` must not create it).
    pub fn open_existing(state_dir: &Path) -> Result<Option<MemoryCopies>> {
        if !state_dir.join(JOBS_DB).exists() {
            return Ok(None);
        }
        MemoryCopies::open(state_dir).map(Some)
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
    }

    /// Every copy, by harness file: one query for a whole run.
    pub fn all(&self) -> Result<HashMap<String, MemoryCopy>> {
        let rows: Vec<MemoryCopy> = query(
            &self.conn,
            "SELECT place, harness, note, size, mtime_ns, sha256, state FROM memory_copies",
            [],
            |r| {
                Ok(MemoryCopy {
                    place: r.get(0)?,
                    harness: r.get(1)?,
                    note: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    mtime_ns: r.get(4)?,
                    sha256: r.get(5)?,
                    state: r.get(6)?,
                })
            },
        )
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(|c| (c.place.clone(), c)).collect())
    }

    pub fn record(&self, c: &MemoryCopy) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO memory_copies(place, harness, note, size, mtime_ns, sha256, state)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(place) DO UPDATE SET harness = excluded.harness, note = excluded.note,
                    size = excluded.size, mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256,
                    state = excluded.state",
                params![
                    c.place,
                    c.harness,
                    c.note,
                    c.size as i64,
                    c.mtime_ns,
                    c.sha256,
                    c.state
                ],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    pub fn remove(&self, place: &str) -> Result<()> {
        self.conn
            .execute("DELETE FROM memory_copies WHERE place = ?1", [place])
            .map_err(|e| self.err(e))?;
        Ok(())
    }
}
