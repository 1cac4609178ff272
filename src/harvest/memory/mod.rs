//! The harnesses' own memory, carried by the workspace: `harvest` imports
//! Claude Code's auto memory, Codex's memories and OpenClaw's curated
//! MEMORY.md text as notes ([`import`]), and `connect` writes a project's
//! imported memory back into the harness's folder on a machine that lacks
//! it ([`restore`]), byte for byte.
//!
//! An imported note is the harness's file after a frontmatter that says
//! where it came from (`note::imported`). Neither direction ever overwrites
//! an edit: a note edited in the workspace is not replaced by a newer
//! harness file, and a harness file whose bytes are neither what memsync
//! imported from it nor what it restored into it is not replaced by the
//! workspace's. Both cases are reported as conflicts and both texts kept.
//!
//! Owns: deciding what to copy each way, and this machine's record of it
//! (`store::copies`). Must not: touch a note it did not import, or a
//! harness file but the memory files named above.

mod import;
mod restore;
pub mod sources;

use serde::Serialize;

pub use import::import;
pub use restore::restore;

use crate::harness::Harness;

/// One harness file and its note.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MemoryEntry {
    pub harness: Harness,
    /// The harness's file.
    pub path: String,
    /// The workspace-relative note.
    pub note: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What an import did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ImportReport {
    /// New notes.
    pub imported: Vec<MemoryEntry>,
    /// Notes rewritten with the harness file's new text.
    pub updated: Vec<MemoryEntry>,
    /// Files as last imported (most cost one `stat`).
    pub unchanged: usize,
    /// Notes whose harness file is gone: marked `source_deleted`, kept.
    pub deleted_upstream: Vec<MemoryEntry>,
    /// Both sides changed: the note is left as it is, the file too.
    pub conflicts: Vec<MemoryEntry>,
    pub skipped: Vec<MemoryEntry>,
}

impl ImportReport {
    pub fn is_empty(&self) -> bool {
        self.imported.is_empty()
            && self.updated.is_empty()
            && self.deleted_upstream.is_empty()
            && self.conflicts.is_empty()
            && self.skipped.is_empty()
    }
}

/// What a restore did (or, dry, would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RestoreReport {
    pub dry_run: bool,
    /// Harness files written (created, or memsync's own earlier copy updated).
    pub written: Vec<MemoryEntry>,
    /// Harness files that already hold the note's text.
    pub unchanged: usize,
    /// Harness files edited here: kept, the note's text left in the workspace.
    pub conflicts: Vec<MemoryEntry>,
    /// Notes about a project with no folder on this machine.
    pub no_project_here: Vec<MemoryEntry>,
}

/// `~/x` for a path in the home (no user name in a note), else the path.
fn display_path(path: &std::path::Path, home: Option<&std::path::Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => path.display().to_string(),
    }
}

/// The sha256 of a file's bytes, and the bytes; `None` when it is missing.
fn read_place(path: &std::path::Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => Err(std::io::Error::other(
            "not a regular file (a directory, link or device)",
        )),
        Ok(_) => crate::files::read_file(path).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
