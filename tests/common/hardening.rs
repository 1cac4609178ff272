//! The counts the hardening tests run with, shared with the report test so
//! that `docs/HARDENING.md` states what the suite really does.

/// How the index is destroyed under a running daemon.
pub const INDEX_FAULTS: &[&str] = &["deleted", "truncated", "corrupted"];

/// `kill -9` at a random moment of a one-shot `sync`.
pub const KILL_SYNC_RUNS: usize = 50;

/// `kill -9` at a random moment of a `capture session-end`.
pub const KILL_CAPTURE_RUNS: usize = 50;
