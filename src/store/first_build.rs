//! The first build of an empty index, written without a journal: every page
//! goes to the file once, where the WAL would write it to the log and again
//! at the checkpoint (about 15% of a cold sync).
//!
//! Owns: switching an empty index to an exclusive, unjournaled build and
//! back, and recognising a build that died half-way. Must not: write rows of
//! its own besides its marker; the rows are the pipeline's batch.
//!
//! Without a journal a transaction that fails or dies half-way cannot be
//! rolled back, so the build marks the index first (durably), holds it
//! exclusively until it is done, and removes the mark last. An index found
//! with the mark was empty before the build began: it is deleted and made
//! again, and nothing is lost.

use super::*;

/// The `meta` key of an unfinished unjournaled build.
const MARK: &str = "first_build_unjournaled";

/// Whether the file at `path` is a database in rollback-journal mode: memsync
/// keeps its index in WAL mode except while an unjournaled build runs, so a
/// damaged file in that mode is what such a build left when it died, with
/// nothing in it worth keeping.
pub(super) fn left_by_unjournaled_build(path: &Path) -> bool {
    // Bytes 18 and 19: the file format versions, 1 for a rollback journal, 2 for WAL.
    database_header(path).is_some_and(|header| header[18..20] == [1, 1])
}

impl Index {
    /// Switches an empty index to a build that this process alone reads and
    /// writes, without journal or fsync. False, with nothing changed, when the
    /// index holds anything or another connection has it open; the caller
    /// then builds as it always does.
    pub fn begin_unjournaled_build(&mut self) -> Result<bool> {
        if !self.is_empty()? {
            return Ok(false);
        }
        let err = |e| self.err(e);
        self.conn.busy_timeout(Duration::ZERO).map_err(err)?;
        let switched = self.leave_wal();
        self.conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        if !switched? {
            tracing::info!(
                "another connection has the empty index open; building it through the WAL"
            );
            return Ok(false);
        }
        tracing::info!("first build of an empty index, written without a journal");
        if let Err(e) = self.mark_build() {
            // Out of WAL mode without the mark: start again from an empty file.
            self.remake_empty()?;
            return Err(e);
        }
        Ok(true)
    }

    /// Writes the mark, durably, and turns fsync off for the build. The lock
    /// taken here is held until `end_unjournaled_build`: nobody else can read
    /// the mark while this process lives.
    fn mark_build(&self) -> Result<()> {
        let err = |e| self.err(e);
        self.conn.execute_batch("BEGIN EXCLUSIVE").map_err(err)?;
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, '1')",
                [MARK],
            )
            .map_err(err)?;
        self.conn.execute_batch("COMMIT").map_err(err)?;
        self.sync_file()?;
        self.conn
            .execute_batch("PRAGMA synchronous = OFF;")
            .map_err(err)
    }

    /// Ends the build begun by `begin_unjournaled_build`. When it failed, or
    /// the index cannot be made durable and shared again, the half-written
    /// file is deleted and an empty index opened in its place.
    pub fn end_unjournaled_build(&mut self, built: bool) -> Result<()> {
        let back = if built { self.back_to_wal() } else { Ok(()) };
        if built && back.is_ok() {
            return Ok(());
        }
        self.remake_empty()?;
        back
    }

    /// Makes the build durable, returns to WAL mode and normal locking, and
    /// removes the mark, in that order.
    fn back_to_wal(&self) -> Result<()> {
        let err = |e| self.err(e);
        // One segment in the full-text index: the build's flushes leave several,
        // and every query seeks each of them (search took 3x as long with
        // four as with one). Merged here, before the file is made durable.
        self.conn
            .execute_batch("INSERT INTO session_fts(session_fts) VALUES('optimize');")
            .map_err(err)?;
        self.sync_file()?;
        let mode: String = self
            .conn
            .query_row("PRAGMA locking_mode = NORMAL", [], |_| Ok(()))
            .and_then(|()| {
                self.conn
                    .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            })
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            let failure = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR);
            let reason = format!("journal mode {mode}, not WAL, after the first build");
            return Err(err(rusqlite::Error::SqliteFailure(failure, Some(reason))));
        }
        self.conn
            .execute_batch("PRAGMA synchronous = NORMAL;")
            .map_err(err)?;
        self.conn
            .execute("DELETE FROM meta WHERE key = ?1", [MARK])
            .map_err(err)?;
        Ok(())
    }

    /// Whether this index is what an unjournaled build left when it died.
    /// A file too damaged to say is treated as such.
    pub(super) fn first_build_died(&self) -> bool {
        self.exists("SELECT EXISTS(SELECT 1 FROM meta WHERE key = ?1)", [MARK])
            .unwrap_or_else(|e| is_damage(&e))
    }

    /// Closes this connection, deletes the index and its logs, and opens an
    /// empty one.
    pub(super) fn remake_empty(&mut self) -> Result<()> {
        tracing::warn!(index = %self.path.display(), "an unfinished first build is discarded; building again from markdown");
        self.close()?;
        remove_index_files(&self.path)?;
        let path = self.path.clone();
        *self = Index::open_inner(&path)?;
        Ok(())
    }

    /// Leaves WAL for no journal, holding the file exclusively; false (and
    /// back to normal locking) when another connection has it open.
    fn leave_wal(&self) -> Result<bool> {
        let err = |e| self.err(e);
        let mode = self
            .conn
            .query_row("PRAGMA locking_mode = EXCLUSIVE", [], |_| Ok(()))
            .and_then(|()| {
                self.conn
                    .query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0))
            });
        match mode {
            Ok(mode) if mode.eq_ignore_ascii_case("off") => Ok(true),
            Ok(_) => self.back_to_shared().map(|()| false),
            Err(e) if is_busy(&e) => self.back_to_shared().map(|()| false),
            Err(e) => Err(err(e)),
        }
    }

    /// Normal locking again; the next read releases the exclusive lock.
    fn back_to_shared(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA locking_mode = NORMAL", [], |_| Ok(()))
            .and_then(|()| {
                self.conn
                    .query_row("SELECT COUNT(*) FROM meta", [], |_| Ok(()))
            })
            .map_err(|e| self.err(e))
    }

    fn sync_file(&self) -> Result<()> {
        std::fs::File::open(&self.path)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&self.path, e))
    }
}
