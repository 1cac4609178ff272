//! A harness's own session database, read as a guest: the sessions it
//! holds ([`DbSession`]) and one session's rows as the JSON lines its
//! transcript reader reads ([`SessionDatabase`]), opened read-only with a
//! short busy timeout so the harness's writer is never blocked. Each
//! harness's SQL is in its own module beside this one.
//!
//! Owns: the guest's connection and the shape every harness database is
//! read into. Must not: know one harness's tables.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result, StoreError};

/// A busy harness is left alone: harvest comes back on its next run.
const BUSY_TIMEOUT: Duration = Duration::from_millis(500);

/// One session as a harness's database describes it (OpenClaw's agent
/// database, opencode's `opencode.db`).
#[derive(Debug, Clone, PartialEq)]
pub struct DbSession {
    pub session_id: String,
    pub session_key: Option<String>,
    /// The newest event's `seq` (-1 when the session has none left live);
    /// for opencode, its rows less one.
    pub last_seq: i64,
    /// When the newest event was written (ms since the epoch).
    pub last_event_ms: i64,
    /// Bytes of JSON its live events hold.
    pub bytes: u64,
    /// The window ended or reached a final status: no more turns come.
    pub finished: bool,
    /// Its last run ended and nothing was written since: no turn is in
    /// flight, though a later run may continue the window.
    pub resting: bool,
    pub status: Option<String>,
    /// A name the operator gave it (`session_nodes.label`, `display_name`).
    pub label: Option<String>,
    /// How it began: `operator`, `channel`, `cron`, `spawn`, …
    pub created_via: Option<String>,
    /// The session that spawned it, for a sub-agent's session.
    pub parent: Option<String>,
    /// Where its older events are, when not in `transcript_events`.
    pub archive: Option<Archive>,
}

/// Events kept outside `transcript_events`.
#[derive(Debug, Clone, PartialEq)]
pub enum Archive {
    /// A cold archive of events `0..=last_seq`, in a file or a blob.
    Cold {
        name: String,
        last_seq: i64,
        in_file: bool,
    },
    /// A reset or deleted session's last archived generation.
    Retired { generation: String, zstd: bool },
}

/// A harness's session database, read as a guest: the sessions it holds and
/// one session's rows as JSON lines its transcript reader reads.
pub trait SessionDatabase {
    fn sessions(&self) -> Result<Vec<DbSession>>;
    fn events(&self, s: &DbSession, max_bytes: u64) -> Result<Vec<u8>>;
}

/// Opens a harness's database read-only (`query_only`, a short busy
/// timeout); never creates, migrates or writes it.
pub(super) fn open_read_only(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| Error::store(path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .and_then(|()| conn.pragma_update(None, "query_only", true))
        .map_err(|e| Error::store(path, e))?;
    Ok(conn)
}

/// A failed read of a harness's database, naming it.
pub(super) fn harness_error(path: &Path, source: rusqlite::Error) -> Error {
    Error::Store(StoreError::Harness {
        path: path.to_path_buf(),
        source,
    })
}

/// Whether the harness held its database busy (try again on the next run).
pub fn is_busy(e: &Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    e.sqlite()
        .and_then(rusqlite::Error::sqlite_error_code)
        .is_some_and(|c| matches!(c, DatabaseBusy | DatabaseLocked))
}
