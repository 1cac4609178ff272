//! opencode's database (`~/.local/share/opencode/opencode.db`, 1.18 on),
//! read as a guest, like OpenClaw's: read-only, `query_only`, a short busy
//! timeout, a few short statements per session. A session is a `session`
//! row; its conversation is its `message` rows and their `part` rows, each
//! with a JSON `data` column. One session's rows are handed to the opencode
//! transcript reader as JSON lines `{"table": …, columns…, "data": {…}}`.
//!
//! Owns: the SQL. Must not: read a session's meaning (the reader does) or
//! decide what harvest captures.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};

use super::session_db::{DbSession, SessionDatabase, harness_error, open_read_only};
use crate::error::{Error, Result};

/// A read-only handle on opencode's database.
pub struct OpencodeDb {
    path: PathBuf,
    conn: Connection,
}

impl OpencodeDb {
    pub fn open(path: &Path) -> Result<OpencodeDb> {
        Ok(OpencodeDb {
            path: path.to_path_buf(),
            conn: open_read_only(path)?,
        })
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        harness_error(&self.path, source)
    }

    /// One table's rows of a session, with `data` parsed, as JSON lines.
    fn rows(&self, sql: &str, table: &str, id: &str, out: &mut Vec<u8>, max: u64) -> Result<()> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut rows = stmt.query(params![id]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let mut obj = Map::new();
            obj.insert("table".into(), json!(table));
            for (i, name) in names.iter().enumerate() {
                let value = match row.get_ref(i).map_err(|e| self.err(e))? {
                    rusqlite::types::ValueRef::Integer(n) => json!(n),
                    rusqlite::types::ValueRef::Text(t) => {
                        let text = String::from_utf8_lossy(t);
                        match name.as_str() {
                            "data" => serde_json::from_str(&text).unwrap_or(json!(text)),
                            _ => json!(text),
                        }
                    }
                    _ => Value::Null,
                };
                obj.insert(name.clone(), value);
            }
            serde_json::to_writer(&mut *out, &Value::Object(obj))
                .map_err(|e| Error::io(&self.path, std::io::Error::other(e)))?;
            out.push(b'\n');
            if out.len() as u64 > max {
                return Err(Error::io(
                    &self.path,
                    std::io::Error::other(format!(
                        "a session over harvest.max_file_bytes ({max}); not read"
                    )),
                ));
            }
        }
        Ok(())
    }
}

/// The rows of one session of the opencode database at `path`, for
/// `capture`: the session named `session_id`, else the newest session no
/// other started. `None` when the file is not an opencode database.
pub fn session_rows(path: &Path, session_id: Option<&str>, max: u64) -> Result<Option<Vec<u8>>> {
    // A FIFO or a device is never opened: it could block (capture refuses it later).
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return Ok(None);
    }
    let mut head = [0u8; 16];
    let is_sqlite = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head.starts_with(b"SQLite format 3"));
    if !is_sqlite {
        return Ok(None);
    }
    let Ok(sessions) = OpencodeDb::open(path).and_then(|db| db.sessions().map(|s| (db, s))) else {
        return Ok(None);
    };
    let (db, sessions) = sessions;
    let chosen = match session_id {
        Some(id) => sessions.iter().find(|s| s.session_id == id),
        None => sessions
            .iter()
            .filter(|s| s.parent.is_none())
            .max_by_key(|s| s.last_event_ms),
    };
    let Some(chosen) = chosen else {
        let held: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        return Err(Error::io(
            path,
            std::io::Error::other(format!(
                "this opencode database holds no session {}; it holds {}",
                session_id.unwrap_or("started by a person"),
                if held.is_empty() {
                    "none".to_string()
                } else {
                    held.join(", ")
                }
            )),
        ));
    };
    db.events(chosen, max).map(Some)
}

impl SessionDatabase for OpencodeDb {
    /// Every session, oldest first. Its size is its rows (a part's state
    /// changes in place, so the newest `time_updated` is its mtime). The
    /// size is `octet_length`, which SQLite takes from each record's header
    /// without reading the text (`length` would read every part's data on
    /// every harvest).
    fn sessions(&self) -> Result<Vec<DbSession>> {
        let sql = "
            SELECT s.id, s.parent_id, s.time_archived,
                   (SELECT COUNT(*) FROM message m WHERE m.session_id = s.id)
                 + (SELECT COUNT(*) FROM part p WHERE p.session_id = s.id),
                   MAX(s.time_updated,
                       COALESCE((SELECT MAX(time_updated) FROM part p WHERE p.session_id = s.id), 0)),
                   COALESCE((SELECT SUM(octet_length(data)) FROM part p WHERE p.session_id = s.id), 0)
            FROM session s ORDER BY s.time_created, s.id";
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                let rows: i64 = r.get(3)?;
                Ok(DbSession {
                    session_id: r.get(0)?,
                    session_key: None,
                    last_seq: rows - 1,
                    last_event_ms: r.get(4)?,
                    bytes: r.get::<_, i64>(5)?.max(0) as u64,
                    // An archived session gets no more turns.
                    finished: r.get::<_, Option<i64>>(2)?.is_some(),
                    resting: false,
                    status: None,
                    label: None,
                    created_via: None,
                    parent: r.get(1)?,
                    archive: None,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    fn events(&self, s: &DbSession, max_bytes: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let id = s.session_id.as_str();
        self.rows(
            "SELECT id, directory, title, version, parent_id, time_created, time_updated
             FROM session WHERE id = ?1",
            "session",
            id,
            &mut out,
            max_bytes,
        )?;
        self.rows(
            "SELECT id, session_id, time_created, data FROM message
             WHERE session_id = ?1 ORDER BY time_created, id",
            "message",
            id,
            &mut out,
            max_bytes,
        )?;
        self.rows(
            "SELECT id, message_id, session_id, time_created, data FROM part
             WHERE session_id = ?1 ORDER BY id",
            "part",
            id,
            &mut out,
            max_bytes,
        )?;
        Ok(out)
    }
}
