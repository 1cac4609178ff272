//! Index stage: the SQLite index derived from the markdown, and the telemetry
//! tables that re-indexing never clears.
//!
//! Owns: the schema, its version (`PRAGMA user_version`), and every SQL
//! statement. Must not: read workspace files or decide validity.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::config::SentenceConfig;
use crate::contract::ArtifactKind;
use crate::error::{Error, Result};
use crate::scan::FileStat;
use crate::sentence::{self, SessionFacts};
use crate::validate::{Artifact, GraphNode, Problem, Severity, Tombstone};

/// Bump when the derived schema changes: a mismatch rebuilds it from markdown.
pub const SCHEMA_VERSION: i64 = 11;

const DERIVED_SCHEMA: &str = "
CREATE TABLE files (
    path TEXT PRIMARY KEY,
    class TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    sha256 TEXT,
    token TEXT
) WITHOUT ROWID;
CREATE INDEX files_token ON files(token);
CREATE TABLE artifacts (
    id INTEGER PRIMARY KEY,
    source_path TEXT NOT NULL UNIQUE,
    source_sha256 TEXT NOT NULL,
    source_kind TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    token TEXT NOT NULL,
    session_id TEXT NOT NULL,
    session_key TEXT,
    project TEXT,
    harness TEXT,
    captured_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    membership_ts TEXT NOT NULL,
    manifest_path TEXT,
    summary_path TEXT,
    transcript_path TEXT,
    compaction_path TEXT,
    source_node_id TEXT,
    content_sha256 TEXT,
    memory_sentence TEXT,
    memory_sentence_quality TEXT,
    memory_sentence_version TEXT,
    memory_sentence_generated_at TEXT,
    sanitizer_version TEXT,
    private INTEGER NOT NULL,
    revision INTEGER,
    stale INTEGER NOT NULL DEFAULT 0,
    -- A session with no request from a person: searchable, never projected.
    noise INTEGER NOT NULL DEFAULT 0,
    -- The artifact of the same kind this one continues (a later part, a later compaction).
    continues TEXT
);
-- The whole frontmatter as JSON, kept apart so artifact rows stay small for projections.
CREATE TABLE frontmatter (
    artifact_id INTEGER PRIMARY KEY,
    json TEXT NOT NULL
);
CREATE INDEX artifacts_session ON artifacts(agent_id, token);
CREATE INDEX artifacts_membership ON artifacts(agent_id, membership_ts);
CREATE INDEX artifacts_captured ON artifacts(agent_id, captured_at);
CREATE INDEX artifacts_token ON artifacts(token);
-- One search document per session (rowid = sessions.fts_id): ranking whole sessions
-- is half the bm25 work of ranking their artifacts one by one. It also holds the
-- bodies: a rebuilt session takes its unchanged artifacts' text from its old row.
-- Removing a tombstoned session merges the index (`Index::purge_removed_text`).
CREATE VIRTUAL TABLE session_fts USING fts5(sentence, summary, transcript, compaction, tokenize = 'unicode61');
-- One row per (agent, session), derived from its artifacts at index time: what projections read.
CREATE TABLE sessions (
    agent_id TEXT NOT NULL,
    token TEXT NOT NULL,
    session_id TEXT NOT NULL,
    session_key TEXT,
    project TEXT,
    harness TEXT,
    membership_ts TEXT NOT NULL,
    private INTEGER NOT NULL,
    sentence TEXT NOT NULL,
    summary_path TEXT,
    transcript_path TEXT,
    compaction_path TEXT,
    manifest_path TEXT,
    compaction_at TEXT,
    compaction_sentence TEXT,
    noise INTEGER NOT NULL DEFAULT 0,
    -- The session's row in session_fts; a rebuilt session gets a new one.
    fts_id INTEGER NOT NULL,
    -- Clustered by time: the ledger window is one range scan of the table itself.
    PRIMARY KEY (agent_id, membership_ts, token)
) WITHOUT ROWID;
CREATE UNIQUE INDEX sessions_fts ON sessions(fts_id);
CREATE UNIQUE INDEX sessions_identity ON sessions(agent_id, token);
CREATE INDEX sessions_compaction ON sessions(agent_id, compaction_at);
CREATE INDEX sessions_token ON sessions(token);
CREATE TABLE links (
    source_path TEXT NOT NULL,
    target TEXT NOT NULL,
    label TEXT,
    origin TEXT NOT NULL
);
CREATE INDEX links_source ON links(source_path);
CREATE TABLE problems (
    path TEXT NOT NULL,
    severity TEXT NOT NULL,
    rule TEXT NOT NULL,
    reason TEXT NOT NULL,
    phase TEXT NOT NULL,
    token TEXT
);
CREATE INDEX problems_path ON problems(path, phase);
CREATE INDEX problems_token ON problems(token, phase);
CREATE TABLE tombstones (
    source_path TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    token TEXT NOT NULL,
    removed_at TEXT NOT NULL,
    reason TEXT NOT NULL,
    removed_paths_json TEXT NOT NULL
);
CREATE INDEX tombstones_token ON tombstones(agent_id, token);
CREATE TABLE projection_state (
    path TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    rendered_now TEXT NOT NULL
);
CREATE TABLE projection_dirty (
    -- Each mark is its own row: a render clears the ids it read, so an equal
    -- mark another process adds meanwhile is not cleared with it.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL,
    ts TEXT NOT NULL
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

const DERIVED_TABLES: &[&str] = &[
    "files",
    "artifacts",
    "artifact_fts",
    "session_fts",
    "frontmatter",
    "sessions",
    "links",
    "problems",
    "tombstones",
    "projection_state",
    "projection_dirty",
    "meta",
];

/// Runtime telemetry: DB-native state (spec "Authority split"); never cleared by re-index.
const TELEMETRY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS telemetry_access (
    agent_id TEXT NOT NULL,
    token TEXT NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_access TEXT,
    PRIMARY KEY (agent_id, token)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS telemetry_syncs (
    id INTEGER PRIMARY KEY,
    finished_at TEXT NOT NULL,
    scanned INTEGER NOT NULL,
    read INTEGER NOT NULL,
    indexed INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL
);
";

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

/// What the stat cache remembers of one file.
#[derive(Debug, Clone)]
pub struct CachedFile {
    pub stat: FileStat,
    pub sha256: Option<String>,
    pub token: Option<String>,
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
        if let Some(dir) = path.parent() {
            create_private_dir(dir)?;
        }
        match Self::open_inner(path) {
            Ok(index) => Ok(index),
            Err(Error::Index { source, .. }) if is_corrupt(&source) => {
                move_aside(path)?;
                Self::open_inner(path)
            }
            Err(e) => Err(e),
        }
    }

    fn open_inner(path: &Path) -> Result<Index> {
        let err = |source| Error::Index {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(err)?;
        set_private_mode(path);
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err)?;
        // The pipeline uses ~40 distinct statements; the default cache of 16 would re-prepare them.
        conn.set_prepared_statement_cache_capacity(128);
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;
             PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY;",
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
        use std::io::Read;
        if self.identity.is_none() || file_identity(&self.path) != self.identity {
            return false;
        }
        let mut header = [0u8; 16];
        std::fs::File::open(&self.path)
            .and_then(|mut f| f.read_exact(&mut header))
            .is_ok_and(|()| &header == b"SQLite format 3\0")
    }

    /// Closes this connection and opens the index afresh: a missing file is
    /// created, and one that is not a database (or, with `discard`, any file)
    /// is moved aside first. The caller then rebuilds the rows from markdown.
    pub fn reopen(&mut self, discard: bool) -> Result<()> {
        // The old connection must close first: closing deletes `index.db-wal`
        // by name, which must not be the new file's log.
        let placeholder = Connection::open_in_memory().map_err(|e| self.err(e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        self.identity = None;
        if discard && self.path.exists() {
            move_aside(&self.path)?;
        }
        *self = Index::open(&self.path)?;
        Ok(())
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::Index {
            path: self.path.clone(),
            source,
        }
    }

    fn ensure_schema(&mut self) -> Result<()> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        self.conn
            .execute_batch(TELEMETRY_SCHEMA)
            .map_err(|e| self.err(e))?;
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        if version != 0 {
            tracing::info!(
                found = version,
                want = SCHEMA_VERSION,
                "index schema changed; rebuilding derived tables from markdown"
            );
        }
        self.rebuild_derived()
    }

    /// Drops and recreates every derived table; telemetry stays.
    pub fn rebuild_derived(&mut self) -> Result<()> {
        let tx = self.conn.transaction().map_err(|e| Error::Index {
            path: self.path.clone(),
            source: e,
        })?;
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

    /// Skips fsync while the first build of an empty index runs (see `is_empty`);
    /// `durable` restores it. A crash mid-build leaves at worst a corrupt file,
    /// which `open` moves aside and rebuilds.
    pub fn set_durable(&self, durable: bool) -> Result<()> {
        let mode = if durable { "NORMAL" } else { "OFF" };
        self.conn
            .execute_batch(&format!("PRAGMA synchronous = {mode};"))
            .map_err(|e| self.err(e))
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

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `f` in one transaction; commits only if it succeeds.
    pub fn batch<T>(&mut self, f: impl FnOnce(&Batch<'_>) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| Error::Index {
            path: path.clone(),
            source: e,
        })?;
        let batch = Batch {
            tx,
            path: path.clone(),
            bodies: Default::default(),
        };
        let out = f(&batch)?;
        batch
            .tx
            .commit()
            .map_err(|e| Error::Index { path, source: e })?;
        Ok(out)
    }

    pub fn file_cache(&self) -> Result<HashMap<String, CachedFile>> {
        let sql = "SELECT path, size, mtime_ns, ctime_ns, inode, sha256, token FROM files";
        query(&self.conn, sql, [], cached_file).map_err(|e| self.err(e))
    }
    /// The stat cache entries of the given paths.
    pub fn cached_files<'a>(
        &self,
        paths: impl Iterator<Item = &'a str>,
    ) -> Result<HashMap<String, CachedFile>> {
        let sql = "SELECT path, size, mtime_ns, ctime_ns, inode, sha256, token FROM files WHERE path = ?1";
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
    /// Every stored problem, ordered by path, then rule.
    pub fn problems(&self) -> Result<Vec<Problem>> {
        let sql = "SELECT path, severity, rule, reason FROM problems ORDER BY path, severity DESC, rule, reason";
        query(&self.conn, sql, [], |r| {
            Ok(Problem {
                path: r.get(0)?,
                severity: Severity::parse(&r.get::<_, String>(1)?),
                rule: r.get(2)?,
                reason: r.get(3)?,
            })
        })
        .map_err(|e| self.err(e))
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

    /// Runs a query that returns (text, count) pairs, for status reports.
    pub fn counts(&self, sql: &str) -> Result<Vec<(String, i64)>> {
        query(&self.conn, sql, [], |r| Ok((r.get(0)?, r.get(1)?))).map_err(|e| self.err(e))
    }
    pub fn scalar(&self, sql: &str) -> Result<i64> {
        self.conn
            .query_row(sql, [], |r| r.get(0))
            .map_err(|e| self.err(e))
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

/// A session as projections see it: assembled from the newest artifact of each
/// kind. Identity, project and times come from the primary artifact (summary,
/// else transcript, else compaction, else manifest). The sentences are ready to
/// render: the frontmatter sentence (summary, else compaction, else transcript)
/// when it passes the floor, neutralised, else the deterministic fallback.
#[derive(Debug, Clone, Default)]
pub struct SessionRow {
    pub agent_id: String,
    pub token: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: Option<String>,
    pub membership_ts: String,
    pub private: bool,
    pub sentence: String,
    pub summary_path: Option<String>,
    pub transcript_path: Option<String>,
    pub compaction_path: Option<String>,
    pub manifest_path: Option<String>,
    pub compaction_at: Option<String>,
    pub compaction_sentence: Option<String>,
    /// No request from a person in it (heartbeats only): never projected.
    pub noise: bool,
}

const SESSION_COLUMNS: &str = "agent_id, token, session_id, session_key, project, harness, membership_ts, private,
    sentence, summary_path, transcript_path, compaction_path, manifest_path, compaction_at, compaction_sentence, noise";

fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        agent_id: r.get(0)?,
        token: r.get(1)?,
        session_id: r.get(2)?,
        session_key: r.get(3)?,
        project: r.get(4)?,
        harness: r.get(5)?,
        membership_ts: r.get(6)?,
        private: r.get(7)?,
        sentence: r.get(8)?,
        summary_path: r.get(9)?,
        transcript_path: r.get(10)?,
        compaction_path: r.get(11)?,
        manifest_path: r.get(12)?,
        compaction_at: r.get(13)?,
        compaction_sentence: r.get(14)?,
        noise: r.get(15)?,
    })
}

impl Index {
    /// An agent's sessions whose membership time lies in [from, to], newest first
    /// (ties by token, descending: the order the index already has).
    pub fn sessions_in_window(&self, agent: &str, from: &str, to: &str) -> Result<Vec<SessionRow>> {
        self.rows(
            &format!(
                "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3
                 ORDER BY membership_ts DESC, token DESC"
            ),
            params![agent, from, to],
            session_row,
        )
    }

    /// An agent's sessions that ended, or were compacted, within [from, to].
    pub fn sessions_touching(&self, agent: &str, from: &str, to: &str) -> Result<Vec<SessionRow>> {
        self.rows(
            &format!(
                "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3
                 UNION ALL SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND compaction_at BETWEEN ?2 AND ?3
                 AND membership_ts NOT BETWEEN ?2 AND ?3"
            ),
            params![agent, from, to],
            session_row,
        )
    }
}

/// The link-graph nodes of the touched sessions by token, and the artifact files present for them.
pub type TouchedGraph = (BTreeMap<String, Vec<GraphNode>>, HashSet<String>);

/// A projection file as last rendered.
#[derive(Debug, Clone)]
pub struct ProjectionState {
    pub path: String,
    pub agent_id: String,
    /// `memory` for MEMORY.md, `day:YYYY-MM-DD` for a daily log.
    pub scope: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub rendered_now: String,
}

impl Index {
    /// Runs a query and maps each row.
    pub fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        query(&self.conn, sql, params, f).map_err(|e| self.err(e))
    }

    pub fn strings(&self, sql: &str) -> Result<Vec<String>> {
        self.rows(sql, [], |r| r.get(0))
    }

    pub fn exists(&self, sql: &str, params: impl rusqlite::Params) -> Result<bool> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row(params, |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    pub fn projection_state(&self) -> Result<Vec<ProjectionState>> {
        self.rows(
            "SELECT path, agent_id, scope, size, mtime_ns, rendered_now FROM projection_state ORDER BY path",
            [],
            |r| {
                Ok(ProjectionState {
                    path: r.get(0)?,
                    agent_id: r.get(1)?,
                    scope: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    mtime_ns: r.get(4)?,
                    rendered_now: r.get(5)?,
                })
            },
        )
    }

    /// Projection inputs changed since the last render, as (agent_id,
    /// timestamp) marks, and the highest mark id among them.
    pub fn dirty_marks(&self) -> Result<(Vec<(String, String)>, i64)> {
        let rows: Vec<(String, String, i64)> =
            self.rows("SELECT agent_id, ts, id FROM projection_dirty", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        let through = rows.iter().map(|r| r.2).max().unwrap_or(0);
        Ok((rows.into_iter().map(|(a, t, _)| (a, t)).collect(), through))
    }

    /// Every (agent_id, timestamp) a daily log could be keyed by.
    pub fn all_projection_times(&self) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT agent_id, membership_ts FROM sessions
             UNION SELECT agent_id, compaction_at FROM sessions WHERE compaction_at IS NOT NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }
}

/// The columns of one artifact row that a session is assembled from.
struct ArtifactSummary {
    token: String,
    agent_id: String,
    kind: String,
    path: String,
    session_id: String,
    session_key: Option<String>,
    project: Option<String>,
    harness: Option<String>,
    captured_at: String,
    membership_ts: String,
    sentence: Option<String>,
    private: bool,
    noise: bool,
}

/// One agent's artifacts of a session (oldest first) as one `SessionRow`; the
/// newest artifact of each kind wins.
fn assemble_session(rows: &[ArtifactSummary], floor: &SentenceConfig) -> Option<SessionRow> {
    let newest = |kind: &str| rows.iter().rev().find(|r| r.kind == kind);
    let (summary, transcript, compaction, manifest) = (
        newest("summary"),
        newest("transcript"),
        newest("compaction"),
        newest("manifest"),
    );
    let primary = summary.or(transcript).or(compaction).or(manifest)?;
    let mut kinds = Vec::new();
    for (kind, row) in [
        ("summary", summary),
        ("transcript", transcript),
        ("compaction", compaction),
    ] {
        if row.is_some() {
            kinds.push(kind);
        }
    }
    let identity = primary
        .session_key
        .as_deref()
        .filter(|k| !k.trim().is_empty())
        .unwrap_or(&primary.session_id);
    let fallback = || {
        sentence::fallback(&SessionFacts {
            harness: primary.harness.as_deref(),
            identity,
            project: primary.project.as_deref(),
            membership_ts: &primary.membership_ts,
            token: &primary.token,
            kinds: &kinds,
        })
    };
    let display = |candidate: Option<&str>| match candidate {
        Some(s) if sentence::check(s, primary.project.as_deref(), floor).is_none() => {
            sentence::neutralise(s)
        }
        _ => fallback(),
    };
    let chosen = [summary, compaction, transcript]
        .into_iter()
        .flatten()
        .find_map(|r| r.sentence.as_deref());
    Some(SessionRow {
        agent_id: primary.agent_id.clone(),
        token: primary.token.clone(),
        session_id: primary.session_id.clone(),
        session_key: primary.session_key.clone(),
        project: primary.project.clone(),
        harness: primary.harness.clone(),
        membership_ts: primary.membership_ts.clone(),
        private: rows.iter().any(|r| r.private),
        sentence: display(chosen),
        summary_path: summary.map(|r| r.path.clone()),
        transcript_path: transcript.map(|r| r.path.clone()),
        compaction_path: compaction.map(|r| r.path.clone()),
        manifest_path: manifest.map(|r| r.path.clone()),
        compaction_at: compaction.map(|r| r.captured_at.clone()),
        compaction_sentence: compaction.map(|r| display(r.sentence.as_deref())),
        noise: rows.iter().any(|r| r.noise),
    })
}

/// The artifact paths of each kind that make up a session's search document.
struct DocumentParts {
    summary: Vec<String>,
    transcript: Vec<String>,
    compaction: Vec<String>,
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
        sha256: r.get(5)?,
        token: r.get(6)?,
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

/// Keeps a damaged index beside the new one (it may hold telemetry worth a
/// look) and removes its log files, which belong to no database now.
fn move_aside(path: &Path) -> Result<()> {
    let aside = path.with_extension(format!("db.corrupt-{}", std::process::id()));
    tracing::warn!(index = %path.display(), moved_to = %aside.display(), "index is damaged; rebuilding from markdown");
    std::fs::rename(path, &aside).map_err(|e| Error::io(path, e))?;
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    Ok(())
}

fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// SQLite's word for a damaged file, as opposed to a busy, full or briefly
/// failing one (those are retried, never a reason to set the index aside).
pub fn is_damage(e: &Error) -> bool {
    matches!(e, Error::Index { source, .. } if is_corrupt(source))
}

fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase) | Some(rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

/// memsync's state directory: `0700`, with a `.gitignore` of `*` so git never sees it.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Error::io(dir, e))?;
    }
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n").map_err(|e| Error::io(&ignore, e))?;
    }
    Ok(())
}

pub fn set_private_mode(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
}

/// The statements of one indexing transaction.
pub struct Batch<'a> {
    tx: Transaction<'a>,
    path: PathBuf,
    /// Bodies of the artifacts indexed in this batch, by path, for the session documents.
    bodies: std::cell::RefCell<HashMap<String, String>>,
}

impl Batch<'_> {
    fn err(&self, source: rusqlite::Error) -> Error {
        Error::Index {
            path: self.path.clone(),
            source,
        }
    }

    pub fn put_file(
        &self,
        path: &str,
        class: &str,
        stat: FileStat,
        sha256: Option<&str>,
        token: Option<&str>,
    ) -> Result<()> {
        self.exec(
            "INSERT INTO files(path, class, size, mtime_ns, ctime_ns, inode, sha256, token) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(path) DO UPDATE SET class = excluded.class, size = excluded.size, mtime_ns = excluded.mtime_ns,
                 ctime_ns = excluded.ctime_ns, inode = excluded.inode, sha256 = excluded.sha256, token = excluded.token",
            params![path, class, stat.size as i64, stat.mtime_ns, stat.ctime_ns, stat.inode as i64, sha256, token],
        )
    }

    /// Forgets every cached stat and hash, so the next scan reads and judges every file again.
    pub fn invalidate_cache(&self) -> Result<()> {
        self.exec("UPDATE files SET mtime_ns = -1, sha256 = NULL", [])
    }

    pub fn delete_file(&self, path: &str) -> Result<()> {
        self.exec("DELETE FROM files WHERE path = ?1", [path])
    }

    /// Runs one (cached) statement.
    fn exec(&self, sql: &str, params: impl rusqlite::Params) -> Result<()> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(params))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    pub fn has_artifact(&self, path: &str) -> Result<bool> {
        self.tx
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM artifacts WHERE source_path = ?1)")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// Paths of the rows of a session.
    pub fn session_paths(&self, agent_id: &str, token: &str) -> Result<Vec<String>> {
        let sql = "SELECT source_path FROM artifacts WHERE agent_id = ?1 AND token = ?2";
        query(&self.tx, sql, [agent_id, token], |r| r.get(0)).map_err(|e| self.err(e))
    }
    /// Replaces the rows of `a.source_path` with `a` (fresh, not stale).
    pub fn put_artifact(&self, a: &Artifact) -> Result<()> {
        self.delete_artifact(&a.source_path)?;
        let kind = a.kind.map(ArtifactKind::as_str).unwrap_or_default();
        self.tx
            .prepare_cached(
                "INSERT INTO artifacts(source_path, source_sha256, source_kind, agent_id, token, session_id, session_key,
                 project, harness, captured_at, started_at, ended_at, membership_ts, manifest_path, summary_path,
                 transcript_path, compaction_path, source_node_id, content_sha256, memory_sentence,
                 memory_sentence_quality, memory_sentence_version, memory_sentence_generated_at, sanitizer_version,
                 private, revision, stale, noise, continues)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                 ?21, ?22, ?23, ?24, ?25, ?26, 0, ?27, ?28)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    a.source_path,
                    a.source_sha256,
                    kind,
                    a.agent_id,
                    a.token,
                    a.session_id,
                    a.session_key,
                    a.project,
                    a.harness,
                    a.captured_at,
                    a.started_at,
                    a.ended_at,
                    a.membership_ts,
                    a.manifest_path,
                    a.summary_path,
                    a.transcript_path,
                    a.compaction_path,
                    a.source_node_id,
                    a.content_sha256,
                    a.memory_sentence,
                    a.memory_sentence_quality,
                    a.memory_sentence_version,
                    a.memory_sentence_generated_at,
                    a.sanitizer_version,
                    a.private,
                    a.revision,
                    a.noise,
                    a.continues,
                ])
            })
            .map_err(|e| self.err(e))?;
        let id = self.tx.last_insert_rowid();
        self.tx
            .prepare_cached("INSERT INTO frontmatter(artifact_id, json) VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![id, a.frontmatter_json]))
            .map_err(|e| self.err(e))?;
        self.bodies
            .borrow_mut()
            .insert(a.source_path.clone(), a.body.clone());
        let mut link = self
            .tx
            .prepare_cached(
                "INSERT INTO links(source_path, target, label, origin) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(|e| self.err(e))?;
        let declared = [
            ("manifest_path", &a.manifest_path),
            ("summary_path", &a.summary_path),
            ("transcript_path", &a.transcript_path),
            ("compaction_path", &a.compaction_path),
        ];
        for (origin, target) in declared {
            if let Some(t) = target {
                let t = crate::validate::link_path(t);
                link.execute(params![a.source_path, t, None::<String>, origin])
                    .map_err(|e| self.err(e))?;
            }
        }
        for l in &a.links {
            link.execute(params![a.source_path, l.target, l.label, "body"])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Removes the content rows of one file (artifact, body, links); its
    /// session's search document is rebuilt with the session.
    pub fn delete_artifact(&self, path: &str) -> Result<()> {
        let id: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM artifacts WHERE source_path = ?1")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
            .map_err(|e| self.err(e))?;
        let Some(id) = id else { return Ok(()) };
        self.tx
            .prepare_cached("DELETE FROM frontmatter WHERE artifact_id = ?1")
            .and_then(|mut s| s.execute([id]))
            .map_err(|e| self.err(e))?;
        self.exec("DELETE FROM artifacts WHERE source_path = ?1", [path])?;
        self.exec("DELETE FROM links WHERE source_path = ?1", [path])
    }

    /// Keeps the last good row of a file that is now invalid or unreadable, marked stale.
    pub fn mark_stale(&self, path: &str) -> Result<bool> {
        self.tx
            .prepare_cached("UPDATE artifacts SET stale = 1 WHERE source_path = ?1")
            .and_then(|mut s| s.execute([path]))
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    pub fn replace_problems(
        &self,
        path: &str,
        phase: Phase,
        token: Option<&str>,
        problems: &[Problem],
    ) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM problems WHERE path = ?1 AND phase = ?2")
            .and_then(|mut s| s.execute([path, phase.as_str()]))
            .map_err(|e| self.err(e))?;
        self.insert_problems(phase, token, problems)
    }

    pub fn clear_problems(&self, phase: Phase) -> Result<()> {
        self.exec("DELETE FROM problems WHERE phase = ?1", [phase.as_str()])
    }

    pub fn clear_path_problems(&self, path: &str) -> Result<()> {
        self.exec("DELETE FROM problems WHERE path = ?1", [path])
    }

    pub fn insert_problems(
        &self,
        phase: Phase,
        token: Option<&str>,
        problems: &[Problem],
    ) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached("INSERT INTO problems(path, severity, rule, reason, phase, token) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .map_err(|e| self.err(e))?;
        for p in problems {
            stmt.execute(params![
                p.path,
                p.severity.as_str(),
                p.rule,
                p.reason,
                phase.as_str(),
                token
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    pub fn put_tombstone(&self, t: &Tombstone) -> Result<()> {
        let removed = serde_json::to_string(&t.removed_paths).unwrap_or_else(|_| "[]".into());
        self.exec(
            "INSERT INTO tombstones(source_path, agent_id, token, removed_at, reason, removed_paths_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(source_path) DO UPDATE SET agent_id = excluded.agent_id,
                 token = excluded.token, removed_at = excluded.removed_at, reason = excluded.reason,
                 removed_paths_json = excluded.removed_paths_json",
            params![t.source_path, t.agent_id, t.token, t.removed_at, t.reason, removed],
        )
    }

    pub fn delete_tombstone(&self, path: &str) -> Result<()> {
        self.exec("DELETE FROM tombstones WHERE source_path = ?1", [path])
    }

    /// Marks a projection input as changed: the agent's MEMORY.md and the day of `ts`.
    pub fn mark_dirty(&self, agent_id: &str, ts: &str) -> Result<()> {
        self.exec(
            "INSERT INTO projection_dirty(agent_id, ts) VALUES (?1, ?2)",
            [agent_id, ts],
        )
    }

    pub fn put_projection_state(
        &self,
        path: &str,
        agent: &str,
        scope: &str,
        stat: FileStat,
        now: &str,
    ) -> Result<()> {
        self.exec(
            "INSERT INTO projection_state(path, agent_id, scope, size, mtime_ns, rendered_now) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, rendered_now = excluded.rendered_now",
            params![path, agent, scope, stat.size as i64, stat.mtime_ns, now],
        )
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        upsert_meta(&self.tx, key, value).map_err(|e| self.err(e))
    }

    /// Loads the sessions a batch touched into a temp table, for the set-based
    /// statements below (one query per batch, not one per session).
    pub fn set_touched(&self, tokens: &BTreeSet<String>) -> Result<()> {
        self.tx
            .execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS touched(token TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM temp.touched;",
            )
            .map_err(|e| self.err(e))?;
        let mut insert = self
            .tx
            .prepare_cached("INSERT INTO temp.touched(token) VALUES (?1)")
            .map_err(|e| self.err(e))?;
        for token in tokens {
            insert.execute([token]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The touched sessions' rows as link-graph nodes by token, and the artifact files present for them.
    pub fn touched_graph(&self) -> Result<TouchedGraph> {
        let sql = "SELECT token, source_path, source_kind, manifest_path, summary_path, transcript_path, compaction_path, continues
                   FROM artifacts WHERE token IN (SELECT token FROM temp.touched) ORDER BY token, source_path";
        let rows: Vec<GraphNode> = query(&self.tx, sql, [], |r| {
            let kind: String = r.get(2)?;
            Ok(GraphNode {
                token: r.get(0)?,
                source_path: r.get(1)?,
                kind: ArtifactKind::parse(&kind).unwrap_or(ArtifactKind::Summary),
                manifest_path: r.get(3)?,
                summary_path: r.get(4)?,
                transcript_path: r.get(5)?,
                compaction_path: r.get(6)?,
                continues: r.get(7)?,
            })
        })
        .map_err(|e| self.err(e))?;
        let mut nodes: BTreeMap<String, Vec<GraphNode>> = BTreeMap::new();
        for node in rows {
            nodes.entry(node.token.clone()).or_default().push(node);
        }
        let sql = "SELECT path FROM files WHERE class = 'artifact' AND token IN (SELECT token FROM temp.touched)";
        let present = query(&self.tx, sql, [], |r| r.get(0)).map_err(|e| self.err(e))?;
        Ok((nodes, present))
    }
    /// Replaces the link-graph problems of every touched session.
    pub fn replace_touched_graph_problems(&self, problems: &[(String, Problem)]) -> Result<()> {
        self.tx
            .execute("DELETE FROM problems WHERE phase = 'graph' AND token IN (SELECT token FROM temp.touched)", [])
            .map_err(|e| self.err(e))?;
        for (token, p) in problems {
            self.insert_problems(Phase::Graph, Some(token), std::slice::from_ref(p))?;
        }
        Ok(())
    }

    /// Re-derives the `sessions` rows of every touched session from its artifact
    /// rows, marking the days and agents of the old and new rows dirty.
    /// `load` reads the body of an artifact that is neither in this batch nor
    /// in the session's old search document (the earlier parts of a session
    /// that gained a continuation).
    pub fn refresh_touched_sessions(
        &self,
        floor: &SentenceConfig,
        load: &dyn Fn(&str) -> Option<String>,
    ) -> Result<()> {
        self.mark_touched_dirty()?;
        let old_bodies = self.touched_bodies()?;
        self.exec(
            "DELETE FROM session_fts WHERE rowid IN
             (SELECT fts_id FROM sessions WHERE token IN (SELECT token FROM temp.touched))",
            [],
        )?;
        self.tx
            .execute(
                "DELETE FROM sessions WHERE token IN (SELECT token FROM temp.touched)",
                [],
            )
            .map_err(|e| self.err(e))?;
        let sql = "SELECT token, agent_id, source_kind, source_path, session_id, session_key, project, harness,
                   captured_at, membership_ts, memory_sentence, private, noise FROM artifacts
                   WHERE token IN (SELECT token FROM temp.touched) ORDER BY token, agent_id, captured_at, source_path";
        let rows: Vec<ArtifactSummary> = query(&self.tx, sql, [], |r| {
            Ok(ArtifactSummary {
                token: r.get(0)?,
                agent_id: r.get(1)?,
                kind: r.get(2)?,
                path: r.get(3)?,
                session_id: r.get(4)?,
                session_key: r.get(5)?,
                project: r.get(6)?,
                harness: r.get(7)?,
                captured_at: r.get(8)?,
                membership_ts: r.get(9)?,
                sentence: r.get(10)?,
                private: r.get(11)?,
                noise: r.get(12)?,
            })
        })
        .map_err(|e| self.err(e))?;
        let mut insert = self
            .tx
            .prepare_cached(&format!(
                "INSERT INTO sessions({SESSION_COLUMNS}, fts_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
            ))
            .map_err(|e| self.err(e))?;
        // Ascending ids: FTS5 appends its content rows instead of scattering them.
        let mut next_fts_id: i64 = self
            .tx
            .query_row(
                "SELECT COALESCE(MAX(fts_id), 0) + 1 FROM sessions",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        for group in rows.chunk_by(|a, b| a.token == b.token && a.agent_id == b.agent_id) {
            let Some(s) = assemble_session(group, floor) else {
                continue;
            };
            insert
                .execute(params![
                    s.agent_id,
                    s.token,
                    s.session_id,
                    s.session_key,
                    s.project,
                    s.harness,
                    s.membership_ts,
                    s.private,
                    s.sentence,
                    s.summary_path,
                    s.transcript_path,
                    s.compaction_path,
                    s.manifest_path,
                    s.compaction_at,
                    s.compaction_sentence,
                    s.noise,
                    next_fts_id
                ])
                .map_err(|e| self.err(e))?;
            let parts = |kind: &str| -> Vec<String> {
                group
                    .iter()
                    .filter(|r| r.kind == kind)
                    .map(|r| r.path.clone())
                    .collect()
            };
            let doc = DocumentParts {
                summary: parts("summary"),
                transcript: parts("transcript"),
                compaction: parts("compaction"),
            };
            self.put_session_document(&s, &doc, next_fts_id, &old_bodies, load)?;
            next_fts_id += 1;
        }
        drop(insert);
        self.mark_touched_dirty()
    }

    /// The session's search document: its sentences and the bodies of the
    /// artifacts the session row names (the newest of each kind).
    /// The bodies in the touched sessions' current documents, by artifact path.
    fn touched_bodies(&self) -> Result<HashMap<String, String>> {
        let rows: Vec<(Option<String>, Option<String>)> = query(
            &self.tx,
            "SELECT s.summary_path, f.summary FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)
             UNION ALL SELECT s.transcript_path, f.transcript FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)
             UNION ALL SELECT s.compaction_path, f.compaction FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id
               WHERE s.token IN (SELECT token FROM temp.touched)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(path, body)| Some((path?, body?)))
            .collect())
    }

    /// The session's search document: its sentences and the bodies of the
    /// artifacts the session row names, from this batch or the old document.
    fn put_session_document(
        &self,
        s: &SessionRow,
        doc: &DocumentParts,
        fts_id: i64,
        old: &HashMap<String, String>,
        load: &dyn Fn(&str) -> Option<String>,
    ) -> Result<()> {
        let bodies = self.bodies.borrow();
        // Every part of a kind, oldest first: a search finds a continuation's
        // text and every compaction, not only the newest.
        let body = |paths: &[String]| -> Option<String> {
            let texts: Vec<String> = match paths {
                [] => return None,
                [one] => vec![
                    bodies
                        .get(one)
                        .or_else(|| old.get(one))
                        .cloned()
                        .or_else(|| load(one))?,
                ],
                many => many
                    .iter()
                    .filter_map(|p| bodies.get(p).cloned().or_else(|| load(p)))
                    .collect(),
            };
            Some(texts.join("\n\n"))
        };
        let mut sentence = s.sentence.clone();
        if let Some(c) = s
            .compaction_sentence
            .as_deref()
            .filter(|c| *c != s.sentence)
        {
            sentence.push('\n');
            sentence.push_str(c);
        }
        let (summary, transcript, compaction) = (
            body(&doc.summary),
            body(&doc.transcript),
            body(&doc.compaction),
        );
        self.exec(
            "INSERT INTO session_fts(rowid, sentence, summary, transcript, compaction) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                fts_id,
                sentence,
                summary,
                transcript,
                compaction
            ],
        )
    }

    /// Marks each touched session's agent (MEMORY.md) and days (membership, compaction) dirty.
    fn mark_touched_dirty(&self) -> Result<()> {
        self.exec("INSERT INTO projection_dirty(agent_id, ts)
                 SELECT agent_id, membership_ts FROM sessions WHERE token IN (SELECT token FROM temp.touched)
                 UNION SELECT agent_id, compaction_at FROM sessions
                 WHERE token IN (SELECT token FROM temp.touched) AND compaction_at IS NOT NULL", [])
    }

    /// Clears the marks a render at `now` consumed: ids up to `through`, at or
    /// before `now`. Marks another process added since (a capture indexing
    /// while this render ran) stay for its own render, even when they equal a
    /// consumed one; so do marks later than `now`, which this render's window
    /// could not show (a capture whose clock ran a millisecond ahead).
    pub fn clear_dirty(&self, through: i64, now: &str) -> Result<()> {
        self.exec(
            "DELETE FROM projection_dirty WHERE id <= ?1 AND ts <= ?2",
            params![through, now],
        )
    }
}
