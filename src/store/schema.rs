//! The derived schema and the telemetry tables: the index's shape and version.

/// Bump when the derived schema, or what its rows hold, changes: a mismatch
/// rebuilds it from markdown. 23: a summary's column leaves out the lines its
/// transcript holds.
pub const SCHEMA_VERSION: i64 = 23;

pub(super) const DERIVED_SCHEMA: &str = "
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
    -- A request from someone other than the owner: searchable, never injected.
    untrusted INTEGER NOT NULL DEFAULT 0,
    -- The artifact of the same kind this one continues (a later part, a later compaction).
    continues TEXT,
    -- A person's aliases and tags (Obsidian's standard properties): searched
    -- with the session's sentence.
    properties TEXT
);
CREATE INDEX artifacts_session ON artifacts(agent_id, token);
CREATE INDEX artifacts_membership ON artifacts(agent_id, membership_ts);
CREATE INDEX artifacts_token ON artifacts(token);
-- One search document per session (rowid = sessions.fts_id): ranking whole sessions
-- is half the bm25 work of ranking their artifacts one by one. It also holds the
-- bodies: a rebuilt session takes its unchanged artifacts' text from its old row.
-- Removing a tombstoned session merges the index (`Index::purge_removed_text`).
-- The `*_cjk` columns hold the Han and kana of the four others as bigrams (`store::cjk`).
CREATE VIRTUAL TABLE session_fts USING fts5(sentence, summary, transcript, compaction,
    sentence_cjk, summary_cjk, transcript_cjk, compaction_cjk, tokenize = 'porter unicode61');
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
    untrusted INTEGER NOT NULL DEFAULT 0,
    -- Whether projections show it (1) or exclude it (0), as the projection
    -- rules judged it; NULL until the next render judges a new or rebuilt row.
    shown INTEGER,
    -- The session's row in session_fts; a rebuilt session gets a new one.
    fts_id INTEGER NOT NULL,
    -- Clustered by time: the ledger window is one range scan of the table itself.
    PRIMARY KEY (agent_id, membership_ts, token)
) WITHOUT ROWID;
CREATE UNIQUE INDEX sessions_fts ON sessions(fts_id);
CREATE UNIQUE INDEX sessions_identity ON sessions(agent_id, token);
CREATE INDEX sessions_compaction ON sessions(agent_id, compaction_at);
CREATE INDEX sessions_token ON sessions(token);
CREATE INDEX sessions_unjudged ON sessions(agent_id) WHERE shown IS NULL;
-- MEMORY.md's head: a project's newest shown session, and the shown sessions
-- of the window's two edge days.
CREATE INDEX sessions_shown_project ON sessions(agent_id, shown, project, membership_ts);
CREATE INDEX sessions_shown_time ON sessions(agent_id, shown, membership_ts, project);
-- Shown sessions per (agent, UTC day, project; '' for none), kept by the
-- store's own statements (`store::days`; triggers would make each session
-- insert a statement savepoint, and FTS5 flushes a segment per savepoint):
-- the head counts a window from a row per day and project instead of
-- reading every session in it.
CREATE TABLE session_days (
    agent_id TEXT NOT NULL,
    day TEXT NOT NULL,
    project TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (agent_id, day, project)
) WITHOUT ROWID;
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
-- Notes (`crate::note`): one row per file, its text in note_fts (rowid = notes.rowid).
CREATE TABLE notes (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    title TEXT NOT NULL,
    project TEXT,
    author TEXT,
    updated TEXT NOT NULL,
    -- 1 when `updated` is the note's own (its frontmatter or the day its
    -- name starts with), 0 when it is the file's mtime: a rendered list
    -- orders by the note's own time only, so clones render the same bytes.
    dated INTEGER NOT NULL DEFAULT 0,
    superseded_by TEXT,
    -- The note this one corrects (written by `remember::correct`).
    supersedes TEXT,
    -- An imported note whose harness file is gone: kept, out of `context`.
    source_deleted TEXT,
    -- The session an agent wrote it from (`memory_store`): an untrusted
    -- session's note is searchable, never injected.
    session_id TEXT
);
CREATE INDEX notes_supersedes ON notes(supersedes);
CREATE VIRTUAL TABLE note_fts USING fts5(title, body, tokenize = 'porter unicode61');
";

pub(super) const DERIVED_TABLES: &[&str] = &[
    "files",
    "artifacts",
    "artifact_fts",
    "session_fts",
    // Tables of older schemas, dropped on the rebuild: `frontmatter` (each
    // artifact's frontmatter as JSON) and `links` (its wikilinks) were written
    // for every file and read by nothing but index dumps; they were 12 % of a
    // cold sync's CPU. The files hold both; validation reads them there.
    "frontmatter",
    "sessions",
    "session_days",
    "links",
    "problems",
    "tombstones",
    "projection_state",
    "projection_dirty",
    "meta",
    "notes",
    "note_fts",
];

/// Runtime telemetry: DB-native state (spec "Authority split"); never cleared by re-index.
pub(super) const TELEMETRY_SCHEMA: &str = "
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
