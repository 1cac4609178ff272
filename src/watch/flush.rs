//! `sync` by hand beside a running daemon. The daemon has seen every change
//! as an event, so instead of a stat of every file, `sync` asks it to
//! reconcile what it holds pending now and to say what it did.
//!
//! The protocol: the caller creates `.memsync/flush/<id>.request`. The kernel
//! queues that event behind the events of every earlier change, so when the
//! daemon reads it, its pending batch holds everything that happened before
//! the request. It reconciles that batch at once and writes `<id>.done` (the
//! report, or why it left the work to the caller); the caller removes both.
//! No answer within `ANSWER_WITHIN`: the caller syncs by itself.
//!
//! Owns: that protocol. Must not: reconcile (the daemon's `on_events` does).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::state::{config_digest, daemon_status};
use crate::config::Settings;
use crate::pipeline::SyncReport;

/// The folder in `.memsync/` requests and answers live in; the daemon makes
/// it before it starts watching, so a request never races a new folder's watch.
pub const FLUSH_DIR: &str = "flush";

/// A daemon that has not answered by then is busy (a cold build, a harvest)
/// or stuck: the caller's own sync is then the faster way.
const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// Answers and requests older than this are left over from a caller that gave up.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// What a daemon answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlushAnswer {
    pub pid: u32,
    /// What its reconcile did; `None` when nothing was pending.
    pub report: Option<SyncReport>,
    /// Why it left the work to the caller (git at work, a failed reconcile).
    pub declined: Option<String>,
}

/// Asks the daemon watching this workspace, with this index and this
/// configuration, to reconcile what is pending. `None`: no such daemon, or
/// no answer in time.
pub fn ask_daemon_to_flush(settings: &Settings) -> Option<FlushAnswer> {
    let status = daemon_status(&settings.state_dir());
    let state = status.state.filter(|_| status.running)?;
    let same_index = state.index.as_deref() == Some(canonical_index(settings)?.as_str());
    let watching = state.mode == "watching" && state.degraded.is_none();
    if !(same_index && watching && state.config_digest == Some(config_digest(settings))) {
        return None;
    }
    let dir = settings.state_dir().join(FLUSH_DIR);
    if !dir.is_dir() {
        return None; // a daemon from before this protocol
    }
    let nanos = chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let id = format!("{}-{nanos}", std::process::id());
    let request = dir.join(format!("{id}.request"));
    let answer = dir.join(format!("{id}.done"));
    std::fs::File::create(&request).ok()?;
    let deadline = Instant::now() + ANSWER_WITHIN;
    let got = loop {
        // The daemon writes the answer atomically: a file there is whole.
        if let Ok(bytes) = crate::files::read_file_at(&answer) {
            break serde_json::from_slice::<FlushAnswer>(&bytes).ok();
        }
        if Instant::now() >= deadline {
            tracing::info!("the daemon did not answer in time; syncing here");
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = std::fs::remove_file(&request);
    let _ = std::fs::remove_file(&answer);
    got
}

/// The index path as the daemon records it (symlinks resolved).
pub(super) fn canonical_index(settings: &Settings) -> Option<String> {
    std::fs::canonicalize(settings.index_path())
        .ok()
        .map(|p| p.display().to_string())
}

/// The answer file for a request the event names, if it names one.
pub(super) fn answer_for(state_dir: &Path, path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let id = name.strip_suffix(".request")?;
    (path.parent()? == state_dir.join(FLUSH_DIR)).then(|| path.with_file_name(format!("{id}.done")))
}

/// Writes the answer, unless the caller already gave up (its request is gone).
pub(super) fn answer(path: &Path, answer: &FlushAnswer) {
    if !path.with_extension("request").exists() {
        return;
    }
    let bytes = serde_json::to_vec(answer).unwrap_or_default();
    if let Err(e) = crate::files::write_atomic(path, &bytes) {
        tracing::warn!(path = %path.display(), error = %e, "flush answer not written");
    }
}

/// Makes the folder, and removes what callers that gave up left in it.
pub(super) fn prepare(state_dir: &Path) {
    let dir = state_dir.join(FLUSH_DIR);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::warn!(dir = %dir.display(), error = %e, "`sync` will not ask this daemon");
        return;
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_AFTER));
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
