//! The store: every SQL statement memsync runs. The index derived from the
//! markdown ([`schema`], [`batch`], [`touched`], [`sessions`], [`views`],
//! [`search`]) with the telemetry tables re-indexing never clears; and, in
//! `.memsync/jobs.db`, the capture-job queue ([`jobs`]) and harvest's
//! watermarks ([`harvest`]). Readers get typed rows, never a connection.
//!
//! Owns: the schemas, their versions (`PRAGMA user_version`), and every SQL
//! statement. Must not: read workspace files or decide validity.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::config::SentenceConfig;
use crate::contract::ArtifactKind;
use crate::error::{Error, Result};
use crate::files::{create_private_dir, set_private_mode};
use crate::scan::FileStat;
use crate::sentence::{self, SessionFacts};
use crate::validate::{Artifact, GraphNode, Problem, Severity, Tombstone};

mod batch;
pub mod cjk;
pub mod completion;
pub mod copies;
mod damage;
mod days;
mod dump;
mod first_build;
pub mod harvest;
pub mod jobs;
pub mod model_calls;
pub mod notes;
pub mod openclaw;
pub mod opencode;
mod schema;
pub mod search;
pub mod session_db;
mod sessions;
mod touched;
pub mod views;
mod window;

pub use batch::Batch;
use damage::move_aside;
pub use damage::{is_corrupt, is_damage, set_aside_if_damaged};
pub use schema::SCHEMA_VERSION;
use schema::{DERIVED_SCHEMA, DERIVED_TABLES, TELEMETRY_SCHEMA};
pub use sessions::{ProjectionState, SessionRow, TouchedGraph};
pub use window::{Judge, ProjectInWindow, WindowHead};

/// How long a statement waits for another connection's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// A log that a short-lived reader replays cheaply: 64 pages.
const SHORT_LOG_BYTES: u64 = 64 * (4096 + 24) + 32;

/// Where a problem came from, so each phase can replace only its own findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Per-file validation; replaced when the file is read again.
    File,
    /// Link graph of a session; replaced when any file of the session changes.
    Graph,
    /// Path-level scan findings; replaced on every scan.
    Scan,
    /// Projection findings (over budget, unwritable); replaced on every render.
    Projection,
}

impl Phase {
    fn as_str(self) -> &'static str {
        match self {
            Phase::File => "file",
            Phase::Graph => "graph",
            Phase::Scan => "scan",
            Phase::Projection => "projection",
        }
    }
}

/// What the stat cache remembers of one file: 72 bytes, as a sync holds one
/// per changed file.
#[derive(Debug, Clone)]
pub struct CachedFile {
    pub stat: FileStat,
    /// The digest of the bytes last read, decoded from its hex column.
    pub sha256: Option<[u8; 32]>,
}

impl CachedFile {
    /// Whether `hex` (a SHA-256 in lowercase hex) is the digest cached.
    pub fn has_sha256(&self, hex: &str) -> bool {
        self.sha256.is_some_and(|d| decode_sha256(hex) == Some(d))
    }
}

fn decode_sha256(hex: &str) -> Option<[u8; 32]> {
    data_encoding::HEXLOWER_PERMISSIVE
        .decode(hex.as_bytes())
        .ok()?
        .try_into()
        .ok()
}

/// A stored problem with the session it belongs to, if any.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoredProblem {
    #[serde(flatten)]
    pub problem: Problem,
}

pub struct Index {
    pub path: PathBuf,
    conn: Connection,
    /// The (device, inode) this connection opened, to notice the file being
    /// deleted or replaced under a long-running daemon.
    identity: Option<(u64, u64)>,
}

impl Index {
    /// Opens (creating if needed) the index at `path`. A schema version mismatch
    /// rebuilds the derived tables; a file that is not a database is moved aside.
    pub fn open(path: &Path) -> Result<Index> {
        damage::refuse_foreign(path)?;
        if let Some(dir) = path.parent() {
            create_private_dir(dir)?;
        }
        match Self::open_inner(path) {
            Ok(mut index) if index.first_build_died() => {
                index.remake_empty()?;
                Ok(index)
            }
            Ok(index) => Ok(index),
            Err(e) if e.sqlite().is_some_and(is_corrupt) => {
                if first_build::left_by_unjournaled_build(path) {
                    remove_index_files(path)?;
                } else {
                    move_aside(path)?;
                }
                Self::open_inner(path)
            }
            Err(e) => Err(e),
        }
    }

    fn open_inner(path: &Path) -> Result<Index> {
        let err = |source| Error::store(path.to_path_buf(), source);
        let created = std::fs::symlink_metadata(path).is_err();
        let conn = Connection::open(path).map_err(err)?;
        // The mode of a file memsync did not create is not memsync's to change.
        if created {
            set_private_mode(path);
        }
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // The pipeline uses ~40 distinct statements; the default cache of 16 would re-prepare them.
        conn.set_prepared_statement_cache_capacity(128);
        // temp_store stays FILE (the default): a statement that dirties more
        // pages than the cache holds keeps their old contents in a statement
        // journal, which SQLite spills to an unlinked temp file after 64 KiB;
        // in MEMORY it grew the heap with the workspace (30 MiB at 56,000 files).
        execute_when_free(
            &conn,
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;
             PRAGMA cache_size = -8192;",
        )
        .map_err(err)?;
        let mut index = Index {
            path: path.to_path_buf(),
            conn,
            identity: None,
        };
        index.ensure_schema()?;
        index.identity = file_identity(path);
        Ok(index)
    }

    /// Whether the file at `path` is still the database this connection opened.
    /// False when it was deleted, replaced, truncated or its header overwritten:
    /// then this connection writes to a file nobody else will read.
    pub fn still_on_disk(&self) -> bool {
        if self.identity.is_none() || file_identity(&self.path) != self.identity {
            return false;
        }
        database_header(&self.path).is_some()
    }

    /// Hands the page cache back: an idle daemon should hold what it needs,
    /// not every page its busiest batch read (the cache grows with the index).
    pub fn release_cache(&self) {
        let _ = self.conn.release_memory();
    }

    /// Closes this connection now (the `Index` is unusable until replaced):
    /// closing deletes `index.db-wal` by name, so it must happen before a new
    /// file takes that name.
    fn close(&mut self) -> Result<()> {
        let placeholder = Connection::open_in_memory().map_err(|e| self.err(e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        self.identity = None;
        Ok(())
    }

    /// Closes this connection and opens the index afresh: a missing file is
    /// created, and one that is not a database (or, with `discard`, any file)
    /// is moved aside first. The caller then rebuilds the rows from markdown.
    pub fn reopen(&mut self, discard: bool) -> Result<()> {
        self.close()?;
        if discard {
            set_aside_if_damaged(&self.path)?;
        }
        *self = Index::open(&self.path)?;
        Ok(())
    }

    /// For a short-lived reader that records a little telemetry (`search`,
    /// `open`): closing leaves its WAL frames for later instead of copying
    /// and fsyncing them on exit. Each new process replays the frames left in
    /// the log (and, having no shared memory from the last one, cannot reuse
    /// the log's space), so a log past `SHORT_LOG_BYTES` is checkpointed and
    /// truncated first, without waiting for another connection. A log left
    /// beside a deleted index is harmless: SQLite deletes the log of an empty
    /// database file.
    pub fn defer_checkpoint(&self) -> Result<()> {
        self.conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(|e| self.err(e))?;
        let log = PathBuf::from(format!("{}-wal", self.path.display()));
        if !std::fs::metadata(&log).is_ok_and(|m| m.len() > SHORT_LOG_BYTES) {
            return Ok(());
        }
        // Another connection busy with the log: leave it to them this time.
        let err = |e| self.err(e);
        self.conn.busy_timeout(Duration::ZERO).map_err(err)?;
        let checkpoint = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        self.conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        match checkpoint {
            Err(e) if !is_busy(&e) => Err(self.err(e)),
            _ => Ok(()),
        }
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
    }

    fn ensure_schema(&mut self) -> Result<()> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if version == SCHEMA_VERSION {
            // The telemetry tables are created before any derived schema is.
            return Ok(());
        }
        self.conn
            .execute_batch(TELEMETRY_SCHEMA)
            .map_err(|e| self.err(e))?;
        if version != 0 {
            tracing::info!(
                found = version,
                want = SCHEMA_VERSION,
                "index schema changed; rebuilding derived tables from markdown"
            );
        }
        self.rebuild(true)
    }

    /// Drops and recreates every derived table; telemetry stays.
    pub fn rebuild_derived(&mut self) -> Result<()> {
        self.rebuild(false)
    }

    /// `rebuild_derived`; with `unless_current`, only if the schema is still
    /// stale once the write lock is held: two processes opening a new index
    /// at once must not have the second drop what the first one indexed.
    fn rebuild(&mut self, unless_current: bool) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| Error::store(self.path.clone(), e))?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| Error::store(self.path.clone(), e))?;
        if unless_current && version == SCHEMA_VERSION {
            return tx.commit().map_err(|e| self.err(e));
        }
        let mut sql = String::new();
        for t in DERIVED_TABLES {
            sql.push_str(&format!("DROP TABLE IF EXISTS {t};"));
        }
        sql.push_str(DERIVED_SCHEMA);
        sql.push_str(&format!("PRAGMA user_version = {SCHEMA_VERSION};"));
        let res = tx.execute_batch(&sql).and_then(|_| tx.commit());
        res.map_err(|e| self.err(e))
    }

    /// True when nothing has been indexed and no telemetry exists: a crash now
    /// would lose nothing that a rebuild from markdown does not give back.
    pub fn is_empty(&self) -> Result<bool> {
        self.exists(
            "SELECT NOT EXISTS(SELECT 1 FROM files) AND NOT EXISTS(SELECT 1 FROM telemetry_access)",
            [],
        )
    }

    /// After a session's rows are deleted: drops its telemetry and removes its text.
    pub fn purge_forgotten(&self, agent_id: &str, token: &str) -> Result<()> {
        self.conn
            .execute(
                "DELETE FROM telemetry_access WHERE agent_id = ?1 AND token = ?2",
                [agent_id, token],
            )
            .map_err(|e| self.err(e))?;
        self.purge_removed_text()
    }

    /// Leaves no text of removed sessions in any file under the index
    /// directory: merging the FTS index rewrites its segments without the
    /// deleted rows, `secure_delete` zeroes the freed pages, and the WAL is
    /// truncated. Run when a tombstone removes a session; costs one merge.
    pub fn purge_removed_text(&self) -> Result<()> {
        self.conn
            .execute_batch(
                "INSERT INTO session_fts(session_fts) VALUES('optimize');
                 PRAGMA wal_checkpoint(TRUNCATE);",
            )
            .map_err(|e| self.err(e))
    }

    /// Counts one access (a search result returned, a session opened) per session.
    pub fn record_accesses<'s>(
        &self,
        sessions: impl Iterator<Item = (&'s str, &'s str)>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<()> {
        let at = crate::contract::format_ts(now);
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for (agent, token) in sessions {
            tx.execute(
                "INSERT INTO telemetry_access(agent_id, token, access_count, last_access) VALUES (?1, ?2, 1, ?3)
                 ON CONFLICT(agent_id, token) DO UPDATE SET access_count = access_count + 1, last_access = excluded.last_access",
                [agent, token, at.as_str()],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    pub fn reset_telemetry(&self) -> Result<()> {
        self.conn
            .execute_batch("DELETE FROM telemetry_access; DELETE FROM telemetry_syncs;")
            .map_err(|e| self.err(e))
    }

    /// Runs `f` in one transaction; commits only if it succeeds. The write
    /// lock is taken at the start (IMMEDIATE): a transaction that reads first
    /// and writes later fails at once, without waiting, when another process
    /// wrote in between (WAL's stale snapshot).
    pub fn batch<T>(&mut self, f: impl FnOnce(&Batch<'_>) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| Error::store(path.clone(), e))?;
        let batch = Batch {
            tx,
            path: path.clone(),
            bodies: Default::default(),
        };
        let out = f(&batch)?;
        batch.tx.commit().map_err(|e| Error::store(path, e))?;
        Ok(out)
    }

    /// Every stat cache entry in path order (byte order, as Rust compares
    /// strings), one at a time: a full sync merges it with its sorted scan and
    /// keeps only the entries of files that changed.
    pub fn each_cached_file(
        &self,
        mut f: impl FnMut(String, CachedFile) -> Result<()>,
    ) -> Result<()> {
        let sql = "SELECT path, size, mtime_ns, ctime_ns, inode, sha256 FROM files ORDER BY path";
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let (path, cached) = cached_file(r).map_err(|e| self.err(e))?;
            f(path, cached)?;
        }
        Ok(())
    }
    /// Cached canonical files whose rows are missing: neither an artifact or
    /// tombstone row, nor a problem that explains the absence, nor a tombstone
    /// of their session. Only a write interrupted or overtaken by another
    /// process leaves one; `sync` reads them again instead of trusting the cache.
    pub fn files_without_rows(&self) -> Result<Vec<String>> {
        let sql = "SELECT f.path FROM files f
             WHERE CASE f.class
                 WHEN 'artifact' THEN NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.source_path = f.path)
                     AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.token = f.token)
                 WHEN 'tombstone' THEN NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.source_path = f.path)
                 ELSE 0 END
               AND NOT EXISTS (SELECT 1 FROM problems p WHERE p.path = f.path)";
        query(&self.conn, sql, [], |r| r.get(0)).map_err(|e| self.err(e))
    }

    /// The stat cache entries of the given paths.
    pub fn cached_files<'a>(
        &self,
        paths: impl Iterator<Item = &'a str>,
    ) -> Result<HashMap<String, CachedFile>> {
        let sql = "SELECT path, size, mtime_ns, ctime_ns, inode, sha256 FROM files WHERE path = ?1";
        let mut out = HashMap::new();
        for path in paths {
            let rows: Vec<(String, CachedFile)> =
                query(&self.conn, sql, [path], cached_file).map_err(|e| self.err(e))?;
            out.extend(rows);
        }
        Ok(out)
    }

    /// The artifact files recorded for these session tokens.
    pub fn paths_of_tokens(&self, tokens: &BTreeSet<String>) -> Result<Vec<String>> {
        let sql = "SELECT path FROM files WHERE class = 'artifact' AND token = ?1 ORDER BY path";
        let mut out = Vec::new();
        for token in tokens {
            let rows: Vec<String> =
                query(&self.conn, sql, [token], |r| r.get(0)).map_err(|e| self.err(e))?;
            out.extend(rows);
        }
        Ok(out)
    }

    /// Every tombstoned (agent_id, token).
    pub fn tombstoned(&self) -> Result<HashSet<(String, String)>> {
        query(
            &self.conn,
            "SELECT agent_id, token FROM tombstones",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| self.err(e))
    }
    /// Every tombstone file with the (agent_id, token) it removes.
    pub fn tombstone_rows(&self) -> Result<Vec<(String, (String, String))>> {
        let sql = "SELECT source_path, agent_id, token FROM tombstones";
        query(&self.conn, sql, [], |r| {
            Ok((r.get(0)?, (r.get(1)?, r.get(2)?)))
        })
        .map_err(|e| self.err(e))
    }
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        upsert_meta(&self.conn, key, value).map_err(|e| self.err(e))
    }

    /// The problems of one session: its files' and its link graph's.
    pub fn session_problems(&self, token: &str, paths: &[String]) -> Result<Vec<Problem>> {
        let mut problems = self.problems()?;
        let of_token: Vec<String> = self.rows(
            "SELECT DISTINCT path FROM problems WHERE token = ?1",
            [token],
            |r| r.get(0),
        )?;
        problems.retain(|p| {
            paths.contains(&p.path) || of_token.contains(&p.path) || p.path.contains(token)
        });
        Ok(problems)
    }

    /// The (agent, token) pairs a token, session id or session key names,
    /// among indexed sessions and tombstones.
    pub fn find_sessions(
        &self,
        target: &str,
        agent: Option<&str>,
    ) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT agent_id, token FROM artifacts WHERE token = ?1 OR session_id = ?1 OR session_key = ?1
             UNION SELECT agent_id, token FROM tombstones WHERE token = ?1
             ORDER BY 1, 2",
            [target],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map(|mut v: Vec<(String, String)>| {
            v.retain(|(a, _)| agent.is_none_or(|want| want == a));
            v
        })
    }

    pub fn record_sync(
        &self,
        finished_at: &str,
        scanned: usize,
        read: usize,
        indexed: usize,
        removed: usize,
        ms: u128,
    ) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO telemetry_syncs(finished_at, scanned, read, indexed, removed, duration_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![finished_at, scanned as i64, read as i64, indexed as i64, removed as i64, ms as i64],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}
/// A `files` row as (path, cache entry).
fn cached_file(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, CachedFile)> {
    let stat = FileStat {
        size: r.get::<_, i64>(1)? as u64,
        mtime_ns: r.get(2)?,
        ctime_ns: r.get(3)?,
        inode: r.get::<_, i64>(4)? as u64,
    };
    let cached = CachedFile {
        stat,
        sha256: r
            .get::<_, Option<String>>(5)?
            .as_deref()
            .and_then(decode_sha256),
    };
    Ok((r.get(0)?, cached))
}

/// Runs a (cached) query and collects its mapped rows.
fn query<T, C: FromIterator<T>>(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<C> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, f)?;
    rows.collect()
}

fn upsert_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    let sql = "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value";
    conn.prepare_cached(sql)?.execute([key, value]).map(|_| ())
}

/// Runs set-up statements, waiting out another process that holds the
/// database: switching a new file to WAL takes a lock SQLite does not wait
/// for, so two processes creating it at once (two harvests, a hook and the
/// daemon) would otherwise fail on "database is locked".
pub(super) fn execute_when_free(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.execute_batch(sql) {
            Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}

/// Deletes the index and its journal and logs.
fn remove_index_files(path: &Path) -> Result<()> {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&file, e)),
            _ => {}
        }
    }
    Ok(())
}

fn is_busy(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
}

/// The first 20 bytes of the file at `path`, if it starts as an SQLite database does.
fn database_header(path: &Path) -> Option<[u8; 20]> {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()
        .map(|()| header)
        .filter(|h| h.starts_with(b"SQLite format 3\0"))
}

fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}
