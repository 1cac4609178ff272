//! A damaged index: telling damage from a busy or briefly failing file, and
//! setting a damaged file aside so the index is rebuilt from markdown.
//!
//! Owns: the verdict on one index file and moving it out of the way. Must
//! not: rebuild anything (the caller reopens and syncs).

use std::path::Path;

use rusqlite::Connection;

use super::BUSY_TIMEOUT;
use crate::error::{Error, Result};

/// Sets the index at `path` aside if it is damaged now: a command that hit a
/// damaged page rebuilds from markdown instead of failing until someone deletes
/// the file. A file another process has already replaced with a sound index
/// (it passes `quick_check`) is kept. True when the file was set aside.
pub fn set_aside_if_damaged(path: &Path) -> Result<bool> {
    if !path.exists() {
        return Ok(false);
    }
    let verdict = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|conn| {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0))
        });
    match verdict {
        Ok(verdict) if verdict == "ok" => return Ok(false),
        Ok(_) => {}
        Err(e) if is_corrupt(&e) => {}
        // Busy (a build holds it) or unreadable: not known to be damaged.
        Err(_) => return Ok(false),
    }
    move_aside(path)?;
    Ok(true)
}

/// Whether the file at `path` can be memsync's index: an SQLite database
/// (its header), an empty file, or any file in memsync's own state folder.
/// Anything else (a machine config's `index.path` aimed at a user's file) is
/// never renamed or removed.
fn may_be_ours(path: &Path) -> bool {
    const HEADER: &[u8] = b"SQLite format 3\0";
    let in_state_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == crate::STATE_DIR);
    // A device, a FIFO or a socket is never an index (`/dev/null` read as
    // empty, and its mode was then made private).
    let Ok(mut file) = crate::files::open_file(path) else {
        return false;
    };
    let mut head = [0u8; 16];
    let read = std::io::Read::read(&mut file, &mut head);
    in_state_dir || matches!(read, Ok(0)) || (read.is_ok() && head == HEADER)
}

/// An error for an existing file at the index's path that cannot be
/// memsync's: it is neither opened (SQLite would change its mode and add
/// log files beside it) nor renamed.
pub(super) fn refuse_foreign(path: &Path) -> Result<()> {
    if std::fs::symlink_metadata(path).is_err() || may_be_ours(path) {
        return Ok(());
    }
    Err(crate::error::ConfigError::Invalid {
        path: path.to_path_buf(),
        reason: "`index.path` names a file that is not an SQLite database, so not memsync's index; left untouched (point index.path at a new file)".into(),
    }
    .into())
}

/// Keeps a damaged index beside the new one (it may hold telemetry worth a
/// look) and removes its log files, which belong to no database now.
pub(super) fn move_aside(path: &Path) -> Result<()> {
    refuse_foreign(path)?;
    let aside = path.with_extension(format!("db.corrupt-{}", std::process::id()));
    tracing::warn!(index = %path.display(), moved_to = %aside.display(), "index is damaged; rebuilding from markdown");
    std::fs::rename(path, &aside).map_err(|e| Error::io(path, e))?;
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    Ok(())
}

/// SQLite's word for a damaged file, as opposed to a busy, full or briefly
/// failing one (those are retried, never a reason to set the index aside).
pub fn is_damage(e: &Error) -> bool {
    e.sqlite().is_some_and(is_corrupt)
}

pub fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase) | Some(rusqlite::ErrorCode::DatabaseCorrupt)
    )
}
