//! One indexing transaction: file, artifact, problem, tombstone and
//! projection-state rows written in one go.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};

use super::*;

/// The statements of one indexing transaction.
pub struct Batch<'a> {
    pub(super) tx: Transaction<'a>,
    pub(super) path: PathBuf,
    /// Bodies of the artifacts indexed in this batch, by path, for the session documents.
    pub(super) bodies: std::cell::RefCell<HashMap<String, String>>,
}

impl Batch<'_> {
    pub(super) fn err(&self, source: rusqlite::Error) -> Error {
        Error::store(self.path.clone(), source)
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

    /// Drops the bodies held for session documents already written.
    pub fn forget_bodies(&self) {
        self.bodies.borrow_mut().clear();
    }

    /// Forgets every cached stat and hash, so the next scan reads and judges every file again.
    pub fn invalidate_cache(&self) -> Result<()> {
        self.exec("UPDATE files SET mtime_ns = -1, sha256 = NULL", [])
    }

    pub fn delete_file(&self, path: &str) -> Result<()> {
        self.exec("DELETE FROM files WHERE path = ?1", [path])
    }

    /// Runs one (cached) statement.
    pub(super) fn exec(&self, sql: &str, params: impl rusqlite::Params) -> Result<()> {
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

    /// The agent of the row a file holds, if it holds one.
    pub fn artifact_agent(&self, path: &str) -> Result<Option<String>> {
        self.tx
            .prepare_cached("SELECT agent_id FROM artifacts WHERE source_path = ?1 LIMIT 1")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
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
                 private, revision, stale, noise, continues, untrusted, properties)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                 ?21, ?22, ?23, ?24, ?25, ?26, 0, ?27, ?28, ?29, ?30)",
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
                    a.untrusted,
                    a.properties,
                ])
            })
            .map_err(|e| self.err(e))?;
        self.bodies
            .borrow_mut()
            .insert(a.source_path.clone(), a.body.clone());
        Ok(())
    }

    /// Removes the row of one file; its session's search document is
    /// rebuilt with the session.
    pub fn delete_artifact(&self, path: &str) -> Result<()> {
        self.exec("DELETE FROM artifacts WHERE source_path = ?1", [path])
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

    /// Drops a session's problems under `rule` (kept by token, their path
    /// may be gone).
    pub fn clear_token_problems(&self, token: &str, rule: &str) -> Result<()> {
        self.exec(
            "DELETE FROM problems WHERE token = ?1 AND rule = ?2",
            [token, rule],
        )
    }

    pub fn clear_path_rule(&self, path: &str, rule: &str) -> Result<()> {
        self.exec(
            "DELETE FROM problems WHERE path = ?1 AND rule = ?2",
            [path, rule],
        )
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
}
