//! The daemon's state file (what `status` reads) and its one-per-workspace lock.
//!
//! Owns: `daemon.json`'s shape and the daemon lock. Must not: decide what the
//! daemon does.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::STATE_FILE;
use crate::error::{Error, Result};
use crate::lock::{Acquired, PidLock};

/// What the daemon last did, for `memsync status`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DaemonState {
    pub pid: u32,
    pub started_at: String,
    pub last_batch_at: Option<String>,
    /// One line: what the last batch read, indexed, removed and wrote.
    pub last_batch: Option<String>,
    /// `watching`, or `polling` when file events are unavailable.
    pub mode: String,
    /// Why the daemon is polling, if it is.
    pub degraded: Option<String>,
    /// The index it keeps, and a digest of the configuration it runs with:
    /// `sync` leaves the work to a daemon only when both are its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_digest: Option<String>,
}

/// What `DaemonState::config_digest` holds for these settings.
pub fn config_digest(settings: &crate::config::Settings) -> String {
    let json = serde_json::to_string(&settings.config).unwrap_or_default();
    crate::contract::sha256_hex(json.as_bytes())
}

/// The daemon's view as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct DaemonStatus {
    pub running: bool,
    #[serde(flatten)]
    pub state: Option<DaemonState>,
}

/// Reads the daemon state; `running` is true only while a daemon holds the lock.
pub fn daemon_status(state_dir: &Path) -> DaemonStatus {
    let state = std::fs::read(state_dir.join(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<DaemonState>(&b).ok());
    let running = PidLock::is_held(state_dir, crate::lock::DAEMON_LOCK);
    DaemonStatus { running, state }
}

/// One daemon per workspace: an OS lock on `.memsync/daemon.lock`.
pub(super) struct DaemonLock {
    _lock: PidLock,
}

impl DaemonLock {
    pub(super) fn acquire(state_dir: &Path, root: &Path) -> Result<DaemonLock> {
        match PidLock::acquire(state_dir, crate::lock::DAEMON_LOCK, Duration::ZERO)? {
            Acquired::Held(lock) => Ok(DaemonLock { _lock: lock }),
            Acquired::Busy { path, holder } => Err(Error::Locked {
                path,
                reason: format!(
                    "another memsync watch (pid {holder}) is already running for {}",
                    root.display()
                ),
            }),
        }
    }
}
