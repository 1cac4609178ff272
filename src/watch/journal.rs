//! The daemon's journal: one JSON line for each thing it did that changed
//! something (a batch that indexed, removed or wrote; a commit; a harvest
//! that captured; a failure), so `memsync log` can show what happened while
//! nobody watched the service's own log.
//!
//! Owns: `.memsync/daemon-log.jsonl` and its one rotated predecessor. Must
//! not: grow without bound (1 MiB, then the older half goes), or stop the
//! daemon when it cannot be written.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The journal, in the state directory.
pub const JOURNAL_FILE: &str = "daemon-log.jsonl";
/// Past this size the journal is renamed to `daemon-log.1.jsonl` (replacing
/// the one before) and a new one started.
const ROTATE_BYTES: u64 = 1 << 20;

/// One thing the daemon did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub at: String,
    /// `batch`, `commit`, `harvest` or `error`.
    pub what: String,
    /// One line, as `status` words it.
    pub detail: String,
    /// The files it wrote or committed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

/// Appends `entry`; a journal that cannot be written is logged and skipped.
pub fn append(state_dir: &Path, entry: &JournalEntry) {
    let path = state_dir.join(JOURNAL_FILE);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        let _ = std::fs::rename(&path, state_dir.join("daemon-log.1.jsonl"));
    }
    let line = match serde_json::to_string(entry) {
        Ok(l) => l + "\n",
        Err(_) => return,
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        tracing::warn!(path = %path.display(), error = %e, "journal not written");
    }
}

/// The last `n` entries, oldest first (a torn or foreign line is skipped).
pub fn last(state_dir: &Path, n: usize) -> Vec<JournalEntry> {
    let read = |name: &str| crate::files::read_text_at(state_dir.join(name)).unwrap_or_default();
    let text = read("daemon-log.1.jsonl") + &read(JOURNAL_FILE);
    let entries: Vec<JournalEntry> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let skip = entries.len().saturating_sub(n);
    entries.into_iter().skip(skip).collect()
}
