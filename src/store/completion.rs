//! Values a shell completes from the index: session tokens (newest first, with
//! their ledger sentence as the description) and agent ids.
//!
//! Owns: the read-only queries behind `memsync open <TAB>`. Must not: create,
//! migrate, lock or write the index; a completion runs at every keystroke
//! while the daemon may be writing, so it opens read-only with a short busy
//! timeout and gives up rather than wait.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

/// A value to offer and what it is.
pub struct Candidate {
    pub value: String,
    pub help: String,
}

fn open(index: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(index, flags).map_err(|e| Error::store(index, e))?;
    conn.busy_timeout(Duration::from_millis(200))
        .and_then(|()| conn.pragma_update(None, "query_only", true))
        .map_err(|e| Error::store(index, e))?;
    Ok(conn)
}

/// The newest `limit` sessions: token, then the sentence (private ones too,
/// as `open` takes them; the shell shows only the user's own index).
pub fn sessions(index: &Path, limit: usize) -> Result<Vec<Candidate>> {
    let conn = open(index)?;
    let mut stmt = conn
        .prepare(
            "SELECT token, sentence FROM sessions
             ORDER BY membership_ts DESC, token LIMIT ?1",
        )
        .map_err(|e| Error::store(index, e))?;
    let rows = stmt
        .query_map([limit as i64], |r| {
            Ok(Candidate {
                value: r.get(0)?,
                help: r.get(1)?,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| Error::store(index, e))?;
    Ok(rows)
}

/// Every agent with a session in the index, with its session count.
pub fn agents(index: &Path) -> Result<Vec<Candidate>> {
    let conn = open(index)?;
    let mut stmt = conn
        .prepare("SELECT agent_id, count(*) FROM sessions GROUP BY agent_id ORDER BY agent_id")
        .map_err(|e| Error::store(index, e))?;
    let rows = stmt
        .query_map([], |r| {
            let n: i64 = r.get(1)?;
            Ok(Candidate {
                value: r.get(0)?,
                help: format!("{n} sessions"),
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| Error::store(index, e))?;
    Ok(rows)
}
