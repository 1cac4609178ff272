//! What a sync is asked to do (`SyncOptions`) and what it reports
//! (`SyncReport`).
//!
//! Owns: those two types and the progress hook. Must not: run anything.

use serde::{Deserialize, Serialize};

use crate::files::HeldFiles;

/// What one run of the pipeline did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncReport {
    pub workspace: String,
    pub index: String,
    /// Canonical artifacts and tombstones found by the scan.
    pub scanned: usize,
    /// Files whose stat matched the cache and were not read.
    pub unchanged: usize,
    /// Files read and hashed.
    pub read: usize,
    /// Artifacts (re)indexed.
    pub indexed: usize,
    /// Artifacts now invalid or unreadable whose last good rows were kept.
    pub stale: usize,
    /// Rows removed: deleted files and tombstoned sessions.
    pub removed: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Notes (`crate::note`) read and indexed, and notes whose rows went
    /// with their file.
    #[serde(skip_serializing_if = "is_zero")]
    pub notes_indexed: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub notes_removed: usize,
    /// Projection files written.
    pub projections_written: Vec<String>,
    /// Files left for a retry because they failed validation while still settling.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<String>,
    /// Projection (or mirror) files left as they were because another process
    /// holds them open for writing; a later pass renders them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub projections_held: Vec<String>,
    /// Why no projection was written: git was at work in the repository
    /// (a pull, a merge) when the pass came to write; a later pass renders.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projections_deferred: Option<String>,
    /// Autostash entries (their commits) whose projection lines `sync`
    /// merged back into the work tree before indexing, and dropped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub autostash_restored: Vec<String>,
    /// The daemon that reconciled instead (`sync` beside a watching daemon):
    /// the counts are its batch's, and nothing was scanned here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon_pid: Option<u32>,
    pub duration_ms: u128,
}

/// Told how reading and indexing advance, for a progress bar. Must not print
/// unless it knows it owns a terminal.
pub trait Progress: Sync {
    /// `total` files are about to be read.
    fn begin(&self, total: u64);
    /// One more file was indexed.
    fn advance(&self);
    fn end(&self);
}

#[derive(Clone, Copy)]
pub struct SyncOptions<'p> {
    /// Render projections after indexing (`sync`), or only index (`check`).
    pub render: bool,
    /// Leave a file that fails validation while it may still be being written
    /// (modified within the last 2 s) untouched: not indexed, no problem
    /// recorded, listed in `SyncReport::unsettled` for the caller to retry.
    pub defer_unsettled: bool,
    /// Leave the projections alone while any git process works in the
    /// repository (one-shot commands). The daemon asks that itself before a
    /// reconcile and retries when git is done, so it turns this off.
    pub defer_while_git_runs: bool,
    /// The daemon's follower of replaced files that writers still hold open;
    /// without one (one-shot commands), a projection a writer holds open is
    /// left for later (`SyncReport::projections_held`).
    pub held_files: Option<&'p HeldFiles>,
    /// A watcher reports every projection file that changes (the daemon):
    /// `sync_paths` then compares only the projection files it is given with
    /// what was last rendered, instead of a stat of every one.
    pub watched: bool,
    pub progress: Option<&'p dyn Progress>,
}

impl SyncOptions<'static> {
    pub const RENDER: SyncOptions<'static> = SyncOptions {
        render: true,
        defer_unsettled: false,
        defer_while_git_runs: true,
        held_files: None,
        watched: false,
        progress: None,
    };
    pub const INDEX_ONLY: SyncOptions<'static> = SyncOptions {
        render: false,
        defer_unsettled: false,
        defer_while_git_runs: false,
        held_files: None,
        watched: false,
        progress: None,
    };
}

impl<'p> SyncOptions<'p> {
    pub fn with_progress(self, progress: Option<&'p dyn Progress>) -> SyncOptions<'p> {
        SyncOptions { progress, ..self }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
