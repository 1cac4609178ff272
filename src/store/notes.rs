//! The notes' rows: one per note file (its stat, the keys `note::read`
//! took from it) and its text in `note_fts`, matched by the same FTS5
//! expressions as sessions' words.
//!
//! Owns: those tables and statements. Must not: read files or decide what
//! a note says (that is `note`).

use std::collections::HashMap;

use rusqlite::params;

use super::*;
use crate::note::Note;

/// A note as search, `context` and `open` show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NoteRow {
    pub path: String,
    pub title: String,
    pub project: Option<String>,
    pub author: Option<String>,
    pub updated: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The note this one corrects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// When the harness deleted the file this imported note came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_deleted: Option<String>,
}

fn note_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<NoteRow> {
    Ok(NoteRow {
        path: r.get(0)?,
        title: r.get(1)?,
        project: r.get(2)?,
        author: r.get(3)?,
        updated: r.get(4)?,
        superseded_by: r.get(5)?,
        supersedes: r.get(6)?,
        source_deleted: r.get(7)?,
    })
}

/// The columns of a [`NoteRow`] from `notes n`; a note is superseded by its
/// own `superseded_by`, else by a note that names it in `supersedes`.
const NOTE_COLUMNS: &str = "n.path, n.title, n.project, n.author, n.updated,
    COALESCE(NULLIF(n.superseded_by, n.path), (SELECT s.path FROM notes s WHERE s.supersedes = n.path
        AND s.path NOT IN (SELECT path FROM problems WHERE rule = 'note.supersedes-loop')
        ORDER BY s.updated DESC LIMIT 1)),
    n.supersedes, n.source_deleted";

impl Batch<'_> {
    /// Replaces the rows of `note.path`; `updated` is the note's own time
    /// when it names one, else the file's.
    /// `dated`: `updated` is the note's own time, not the file's.
    pub fn put_note(
        &self,
        note: &Note,
        stat: FileStat,
        (updated, dated): (&str, bool),
    ) -> Result<()> {
        self.delete_note(&note.path)?;
        self.exec(
            "INSERT INTO notes(path, size, mtime_ns, title, project, author, updated, superseded_by, supersedes, source_deleted, session_id, dated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                note.path,
                stat.size as i64,
                stat.mtime_ns,
                note.title,
                note.project,
                note.author,
                updated,
                note.superseded_by,
                note.supersedes,
                note.source_deleted,
                note.session_id,
                dated
            ],
        )?;
        self.exec(
            "INSERT INTO note_fts(rowid, title, body)
             SELECT rowid, ?2, ?3 FROM notes WHERE path = ?1",
            params![note.path, note.title, note.body],
        )
    }

    pub fn delete_note(&self, path: &str) -> Result<()> {
        self.exec(
            "DELETE FROM note_fts WHERE rowid IN (SELECT rowid FROM notes WHERE path = ?1)",
            [path],
        )?;
        self.exec("DELETE FROM notes WHERE path = ?1", [path])
    }
}

impl Batch<'_> {
    /// Finds notes whose `supersedes` chain leads back to themselves (a note
    /// that supersedes itself, or a loop of them: each would hide the
    /// others for good and block `memory_correct`), and returns each with
    /// the note it named. The caller records them as `note.supersedes-loop`
    /// problems (replacing the last ones), which every query reads to
    /// ignore those links: the note rows stay as the files say.
    pub fn break_supersession_loops(&self) -> Result<Vec<(String, String)>> {
        let looped: Vec<(String, String)> = self
            .tx
            .prepare_cached(
                "WITH RECURSIVE chain(start, cur, depth) AS (
                     SELECT path, supersedes, 1 FROM notes WHERE supersedes IS NOT NULL
                     UNION ALL
                     SELECT c.start, n.supersedes, c.depth + 1 FROM chain c
                     JOIN notes n ON n.path = c.cur
                     WHERE n.supersedes IS NOT NULL AND c.cur != c.start AND c.depth < 64
                 )
                 SELECT DISTINCT c.start, n.supersedes FROM chain c JOIN notes n ON n.path = c.start
                 WHERE c.cur = c.start ORDER BY c.start",
            )
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(|e| self.err(e))?;
        self.exec(
            "DELETE FROM problems WHERE rule = 'note.supersedes-loop'",
            [],
        )?;
        Ok(looped)
    }
}

impl Index {
    /// Every indexed note's (size, mtime): what the next scan compares.
    pub fn note_stats(&self) -> Result<HashMap<String, (u64, i64)>> {
        let rows = self.rows("SELECT path, size, mtime_ns FROM notes", [], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get(2)?))
        })?;
        Ok(rows
            .into_iter()
            .map(|(p, size, mtime)| (p, (size as u64, mtime)))
            .collect())
    }

    /// How many notes each source wrote: `person` (no `author` key),
    /// `agent`, or a harness's name.
    pub fn note_sources(&self) -> Result<Vec<(String, i64)>> {
        self.rows(
            "SELECT COALESCE(author, 'person'), count(*) FROM notes GROUP BY 1 ORDER BY 2 DESC, 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    pub fn note_count(&self) -> Result<usize> {
        let n: Vec<i64> = self.rows("SELECT count(*) FROM notes", [], |r| r.get(0))?;
        Ok(n.first().copied().unwrap_or(0) as usize)
    }

    /// Notes matching an FTS5 expression, best first by bm25 (the title
    /// weighing more than the body), with the match's rowid.
    pub fn notes_matching(&self, fts: &str, limit: usize) -> Result<Vec<(i64, NoteRow)>> {
        let sql = format!(
            "SELECT {NOTE_COLUMNS}, n.rowid FROM note_fts JOIN notes n ON n.rowid = note_fts.rowid
             WHERE note_fts MATCH ?1 ORDER BY bm25(note_fts, 4.0, 1.0) LIMIT ?2"
        );
        self.rows(&sql, params![fts, limit as i64], |r| {
            Ok((r.get(8)?, note_row(r)?))
        })
    }

    /// Which of `rowids` hold a match for `fts`.
    pub fn notes_holding(&self, fts: &str, rowids: &[i64]) -> Result<Vec<i64>> {
        let ids = serde_json::to_string(rowids).unwrap_or_default();
        self.rows(
            "SELECT rowid FROM note_fts WHERE note_fts MATCH ?1
             AND rowid IN (SELECT value FROM json_each(?2))",
            params![fts, ids],
            |r| r.get(0),
        )
    }

    /// A snippet of a note's body around the match.
    pub fn note_snippet(&self, rowid: i64, fts: &str, open: &str, close: &str) -> Result<String> {
        let rows: Vec<String> = self.rows(
            "SELECT snippet(note_fts, 1, ?3, ?4, '…', 16) FROM note_fts
             WHERE note_fts MATCH ?1 AND rowid = ?2",
            params![fts, rowid, open, close],
            |r| r.get(0),
        )?;
        Ok(rows.into_iter().next().unwrap_or_default())
    }

    /// Current notes, newest first by their own time (then by path; a file's
    /// mtime differs between clones, so it never orders them): not superseded, their harness file not
    /// deleted, and not written from a session with a request from someone
    /// other than the owner (those are searchable, never injected).
    pub fn current_notes(&self, limit: usize) -> Result<Vec<NoteRow>> {
        let sql = format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE COALESCE(n.superseded_by, n.path) = n.path AND n.source_deleted IS NULL
             AND NOT EXISTS (SELECT 1 FROM sessions u WHERE n.session_id IS NOT NULL
                             AND u.session_id = n.session_id AND u.untrusted = 1)
             AND NOT EXISTS (SELECT 1 FROM notes s WHERE s.supersedes = n.path
                             AND s.path NOT IN (SELECT path FROM problems WHERE rule = 'note.supersedes-loop'))
             ORDER BY n.dated DESC, CASE WHEN n.dated = 1 THEN n.updated END DESC, n.path
             LIMIT ?1"
        );
        self.rows(&sql, [limit as i64], note_row)
    }

    /// One note by path, with its body.
    pub fn note(&self, path: &str) -> Result<Option<(NoteRow, String)>> {
        let sql = format!(
            "SELECT {NOTE_COLUMNS}, f.body FROM notes n JOIN note_fts f ON f.rowid = n.rowid WHERE n.path = ?1"
        );
        let rows = self.rows(&sql, [path], |r| Ok((note_row(r)?, r.get::<_, String>(8)?)))?;
        Ok(rows.into_iter().next())
    }
}
