//! OpenClaw's own agent database (`agents/<id>/agent/openclaw-agent.sqlite`,
//! OpenClaw 2026.9 and later), read the way a guest must read it: read-only,
//! `query_only`, a short busy timeout, one short statement at a time, so
//! OpenClaw's writer is never blocked or locked out (in WAL mode a reader
//! blocks nobody; a read that finds the database busy gives up and harvest
//! tries again on its next run).
//!
//! A session is a `session_windows` row: its events are `transcript_events`
//! rows in `seq` order (JSON text, or zstd in `event_zstd`), the same lines
//! OpenClaw's JSONL files held. Older events may sit in a cold archive (a
//! `.jsonl.zst` file under `agents/<id>/sessions/cold/`, or a blob); a reset
//! or deleted session's last generation in `session_transcript_archives`.
//!
//! Owns: the SQL and the decoding. Must not: read a session's meaning (the
//! transcript readers do) or decide what harvest captures.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use super::session_db::{Archive, DbSession, SessionDatabase, harness_error, open_read_only};
use crate::error::{Error, Result};

/// Statuses after which a window gets no more turns.
const FINISHED: [&str; 4] = ["done", "failed", "killed", "timeout"];

impl SessionDatabase for OpenClawDb {
    fn sessions(&self) -> Result<Vec<DbSession>> {
        OpenClawDb::sessions(self)
    }
    fn events(&self, s: &DbSession, max_bytes: u64) -> Result<Vec<u8>> {
        OpenClawDb::events(self, s, max_bytes)
    }
}

/// A read-only handle on one OpenClaw agent database.
pub struct OpenClawDb {
    path: PathBuf,
    conn: Connection,
}

impl OpenClawDb {
    /// Opens the database read-only; never creates, migrates or writes it.
    pub fn open(path: &Path) -> Result<OpenClawDb> {
        Ok(OpenClawDb {
            path: path.to_path_buf(),
            conn: open_read_only(path)?,
        })
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        harness_error(&self.path, source)
    }

    /// Every session with events, live or archived, oldest window first.
    pub fn sessions(&self) -> Result<Vec<DbSession>> {
        let mut out = self.windows()?;
        out.extend(self.retired(&out)?);
        Ok(out)
    }

    fn windows(&self) -> Result<Vec<DbSession>> {
        let run_ends = self.run_ends()?;
        let sql = "
            SELECT w.session_id, w.session_key,
                   ev.last_seq, ev.last_ms, ev.bytes,
                   w.ended_at, COALESCE(w.status, n.status),
                   COALESCE(n.label, w.display_name, n.display_name),
                   n.created_via,
                   COALESCE(w.parent_session_key, w.spawned_by, n.parent_session_key, n.spawned_by),
                   c.archive_name, c.last_seq, c.storage, c.archived_at,
                   w.updated_at
            FROM session_windows w
            LEFT JOIN session_nodes n ON n.session_key = w.session_key
            LEFT JOIN (
                SELECT session_id, MAX(seq) AS last_seq, MAX(created_at) AS last_ms,
                       SUM(COALESCE(event_utf8_bytes, length(event_json), length(event_zstd))) AS bytes
                FROM transcript_events GROUP BY session_id
            ) ev ON ev.session_id = w.session_id
            LEFT JOIN session_transcript_cold_archives c ON c.session_id = w.session_id
            WHERE ev.session_id IS NOT NULL OR c.session_id IS NOT NULL
            ORDER BY w.created_at, w.session_id";
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                let status: Option<String> = r.get(6)?;
                let cold: Option<String> = r.get(10)?;
                let archive = match cold {
                    Some(name) => Some(Archive::Cold {
                        name,
                        last_seq: r.get(11)?,
                        in_file: r.get::<_, Option<String>>(12)?.as_deref() == Some("file"),
                    }),
                    None => None,
                };
                let last_ms: Option<i64> = r.get(3)?;
                let archived_ms: Option<i64> = r.get(13)?;
                let updated_ms: i64 = r.get(14)?;
                let session_id: String = r.get(0)?;
                let resting = match (run_ends.get(&session_id), last_ms) {
                    (Some(end), Some(last)) => *end >= last,
                    _ => false,
                };
                Ok(DbSession {
                    session_id,
                    session_key: r.get(1)?,
                    last_seq: r.get::<_, Option<i64>>(2)?.unwrap_or(-1),
                    last_event_ms: last_ms.or(archived_ms).unwrap_or(updated_ms),
                    bytes: r.get::<_, Option<i64>>(4)?.unwrap_or(0).max(0) as u64,
                    finished: r.get::<_, Option<i64>>(5)?.is_some()
                        || status.as_deref().is_some_and(|s| FINISHED.contains(&s)),
                    resting,
                    status,
                    label: r.get(7)?,
                    created_via: r.get(8)?,
                    parent: r.get(9)?,
                    archive,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// When each window's last run ended, for windows whose newest runtime
    /// event is `session.ended` (OpenClaw's own end of an agent run). A
    /// database without the trajectory table (older OpenClaw) has none.
    fn run_ends(&self) -> Result<HashMap<String, i64>> {
        let sql = "
            SELECT t.session_id, t.created_at
            FROM trajectory_runtime_events t
            JOIN (SELECT session_id, MAX(seq) AS seq FROM trajectory_runtime_events
                  GROUP BY session_id) m ON m.session_id = t.session_id AND m.seq = t.seq
            WHERE json_extract(t.event_json, '$.type') = 'session.ended'";
        if !self.has_table("trajectory_runtime_events")? {
            return Ok(HashMap::new());
        }
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<HashMap<_, _>>>()
            .map_err(|e| self.err(e))
    }

    fn has_table(&self, name: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(|e| self.err(e))
    }

    /// Reset or deleted sessions whose window holds no events any more: the
    /// newest archived generation of each.
    fn retired(&self, live: &[DbSession]) -> Result<Vec<DbSession>> {
        let sql = "
            SELECT a.session_id, a.session_key, a.generation, a.encoding, a.created_at,
                   length(a.archive_blob)
            FROM session_transcript_archives a
            WHERE a.created_at = (SELECT MAX(b.created_at) FROM session_transcript_archives b
                                  WHERE b.session_id = a.session_id)
            ORDER BY a.created_at, a.session_id";
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(DbSession {
                    session_id: r.get(0)?,
                    session_key: r.get(1)?,
                    last_seq: -1,
                    last_event_ms: r.get(4)?,
                    bytes: r.get::<_, Option<i64>>(5)?.unwrap_or(0).max(0) as u64,
                    finished: true,
                    resting: true,
                    status: None,
                    label: None,
                    created_via: None,
                    parent: None,
                    archive: Some(Archive::Retired {
                        generation: r.get(2)?,
                        zstd: r.get::<_, String>(3)? == "zstd",
                    }),
                })
            })
            .map_err(|e| self.err(e))?;
        let all = rows
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))?;
        Ok(all
            .into_iter()
            .filter(|a| !live.iter().any(|s| s.session_id == a.session_id))
            .collect())
    }

    /// The session's events through `last_seq`, as JSON lines in order:
    /// its archive's first, then the live rows after it. No line is longer
    /// than `max_bytes` once decoded, and no more than `max_bytes` are read.
    pub fn events(&self, s: &DbSession, max_bytes: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut after = -1;
        match &s.archive {
            Some(Archive::Cold {
                name,
                last_seq,
                in_file,
            }) => {
                let blob = if *in_file {
                    let file = self.cold_folder().join(name);
                    std::fs::read(&file).map_err(|e| Error::io(&file, e))?
                } else {
                    self.blob(
                        "SELECT archive_blob FROM session_transcript_cold_archives WHERE session_id = ?1",
                        params![s.session_id],
                    )?
                };
                out = self.unpacked(&blob, name.ends_with(".zst"), max_bytes)?;
                after = *last_seq;
            }
            Some(Archive::Retired { generation, zstd }) => {
                let blob = self.blob(
                    "SELECT archive_blob FROM session_transcript_archives WHERE session_id = ?1 AND generation = ?2",
                    params![s.session_id, generation],
                )?;
                return self.unpacked(&blob, *zstd, max_bytes);
            }
            None => {}
        }
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        self.live_events(&s.session_id, after, s.last_seq, max_bytes, &mut out)?;
        Ok(out)
    }

    fn live_events(
        &self,
        session_id: &str,
        after: i64,
        through: i64,
        max_bytes: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT event_json, event_zstd FROM transcript_events
                 WHERE session_id = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params![session_id, after, through])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let text: Option<String> = row.get(0).map_err(|e| self.err(e))?;
            match text {
                Some(t) => out.extend_from_slice(t.as_bytes()),
                None => {
                    let z: Vec<u8> = row.get(1).map_err(|e| self.err(e))?;
                    out.extend(self.unpacked(&z, true, max_bytes)?);
                }
            }
            out.push(b'\n');
            if out.len() as u64 > max_bytes {
                return Err(self.too_large(max_bytes));
            }
        }
        Ok(())
    }

    fn blob(&self, sql: &str, args: impl rusqlite::Params) -> Result<Vec<u8>> {
        self.conn
            .query_row(sql, args, |r| r.get::<_, Vec<u8>>(0))
            .optional()
            .map_err(|e| self.err(e))
            .map(Option::unwrap_or_default)
    }

    /// Cold archive files sit in the agent's `sessions/cold/` folder, beside
    /// the `agent/` folder that holds the database.
    fn cold_folder(&self) -> PathBuf {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        match dir.file_name() {
            Some(n) if n == "agent" => dir.with_file_name("sessions").join("cold"),
            _ => dir.join("cold"),
        }
    }

    /// A blob as it was before OpenClaw compressed it, within `max_bytes`.
    fn unpacked(&self, blob: &[u8], zstd: bool, max_bytes: u64) -> Result<Vec<u8>> {
        if !zstd {
            return Ok(blob.to_vec());
        }
        let broken = |why: String| Error::io(&self.path, std::io::Error::other(why));
        let decoder = ruzstd::decoding::StreamingDecoder::new(blob)
            .map_err(|e| broken(format!("a zstd event that does not decode: {e}")))?;
        let mut out = Vec::new();
        decoder
            .take(max_bytes + 1)
            .read_to_end(&mut out)
            .map_err(|e| broken(format!("a zstd event that does not decode: {e}")))?;
        if out.len() as u64 > max_bytes {
            return Err(self.too_large(max_bytes));
        }
        Ok(out)
    }

    fn too_large(&self, max_bytes: u64) -> Error {
        Error::io(
            &self.path,
            std::io::Error::other(format!(
                "a session over harvest.max_file_bytes ({max_bytes}) once decompressed; not read"
            )),
        )
    }
}
