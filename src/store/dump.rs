//! A canonical text form of every derived row, so two indexes built in
//! different ways (a cold bulk build, file by file, before and after a change
//! to the store) can be compared row for row.
//!
//! Owns: which columns are content. Row ids, the search-document ids and
//! clock-dependent columns (render times, the last sync) are left out: they
//! differ between equal indexes.

use rusqlite::types::ValueRef;

use super::*;

/// Each derived table as a query with a total order on content columns.
const DUMP: &[(&str, &str)] = &[
    (
        "files",
        "SELECT path, class, size, mtime_ns, ctime_ns, inode, sha256, token FROM files ORDER BY path",
    ),
    (
        "artifacts",
        "SELECT source_path, source_sha256, source_kind, agent_id, token, session_id, session_key, project,
         harness, captured_at, started_at, ended_at, membership_ts, manifest_path, summary_path,
         transcript_path, compaction_path, source_node_id, content_sha256, memory_sentence,
         memory_sentence_quality, memory_sentence_version, memory_sentence_generated_at,
         sanitizer_version, private, revision, stale, noise, continues
         FROM artifacts ORDER BY source_path",
    ),
    (
        "sessions",
        "SELECT agent_id, token, session_id, session_key, project, harness, membership_ts, private,
         sentence, summary_path, transcript_path, compaction_path, manifest_path, compaction_at,
         compaction_sentence, noise, untrusted, shown FROM sessions ORDER BY agent_id, token",
    ),
    (
        "session_days",
        // Totals a removal brought to zero are the same as no row.
        "SELECT agent_id, day, project, n FROM session_days WHERE n <> 0 ORDER BY agent_id, day, project",
    ),
    (
        "session_fts",
        "SELECT s.agent_id, s.token, f.sentence, f.summary, f.transcript, f.compaction,
         f.sentence_cjk, f.summary_cjk, f.transcript_cjk, f.compaction_cjk
         FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id ORDER BY s.agent_id, s.token",
    ),
    (
        "session_fts rows",
        "SELECT COUNT(*) FROM session_fts",
    ),
    (
        "problems",
        "SELECT path, severity, rule, reason, phase, token FROM problems
         ORDER BY path, phase, rule, reason, severity, token",
    ),
    (
        "tombstones",
        "SELECT source_path, agent_id, token, removed_at, reason, removed_paths_json FROM tombstones
         ORDER BY source_path",
    ),
    (
        "projection_state",
        "SELECT path, agent_id, scope, size FROM projection_state ORDER BY path",
    ),
    (
        "projection_dirty",
        // A set: how many batches marked a day is not content.
        "SELECT DISTINCT agent_id, ts FROM projection_dirty ORDER BY agent_id, ts",
    ),
    (
        "meta",
        "SELECT key, value FROM meta WHERE key <> 'last_sync' ORDER BY key",
    ),
];

impl Index {
    /// Every derived row as text: one `## table` heading per table, one line per row.
    pub fn dump(&self) -> Result<String> {
        let mut out = String::new();
        for (table, sql) in DUMP {
            out.push_str(&format!("## {table}\n"));
            let rows: Vec<String> =
                query(&self.conn, sql, [], |r| Ok(row_text(r))).map_err(|e| self.err(e))?;
            for row in rows {
                out.push_str(&row);
                out.push('\n');
            }
        }
        Ok(out)
    }
}

/// One row's columns, ` | `-separated, with NULL shown as `∅` and newlines escaped.
fn row_text(row: &rusqlite::Row<'_>) -> String {
    let columns = row.as_ref().column_count();
    (0..columns)
        .map(|i| match row.get_ref(i) {
            Ok(ValueRef::Null) => "∅".to_string(),
            Ok(ValueRef::Integer(n)) => n.to_string(),
            Ok(ValueRef::Real(x)) => x.to_string(),
            Ok(ValueRef::Text(t)) => String::from_utf8_lossy(t).replace('\n', "\\n"),
            Ok(ValueRef::Blob(b)) => format!("<{} bytes>", b.len()),
            Err(e) => format!("<{e}>"),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}
