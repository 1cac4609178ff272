//! Pid-stamped advisory locks in memsync's state directory: the projection
//! writer lease and the one-daemon-per-workspace lock.
//!
//! Owns: taking and testing the locks. Must not: decide what they guard. The OS
//! releases a lock when its holder exits, however it exits, so a crashed
//! holder's lease always expires.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The lock `memsync watch` holds: one daemon per workspace.
pub const DAEMON_LOCK: &str = "daemon.lock";

/// The lock projection writers share (`project::WriterLock`).
pub const WRITER_LOCK: &str = "writer.lock";

/// A held lock; released on drop.
pub struct PidLock {
    _file: File,
}

/// The outcome of trying to take a lock.
pub enum Acquired {
    Held(PidLock),
    /// Someone else holds it; `holder` is the pid they wrote.
    Busy {
        path: PathBuf,
        holder: String,
    },
}

impl PidLock {
    /// Takes `state_dir/name`, retrying for up to `wait`, and writes our pid into it.
    pub fn acquire(state_dir: &Path, name: &str, wait: Duration) -> Result<Acquired> {
        crate::files::create_private_dir(state_dir)?;
        let path = state_dir.join(name);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let deadline = Instant::now() + wait;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(&path)
                        .unwrap_or_default()
                        .trim()
                        .to_string();
                    return Ok(Acquired::Busy { path, holder });
                }
                Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
        let _ = file.set_len(0);
        let _ = std::io::Write::write_all(&mut &file, std::process::id().to_string().as_bytes());
        Ok(Acquired::Held(PidLock { _file: file }))
    }

    /// Whether some process holds `state_dir/name` now.
    pub fn is_held(state_dir: &Path, name: &str) -> bool {
        File::open(state_dir.join(name))
            .is_ok_and(|f| matches!(f.try_lock(), Err(TryLockError::WouldBlock)))
    }
}

/// Sends `signal` to the daemon of the workspace whose state is in
/// `state_dir`, if one runs; whether it was sent.
pub fn signal_daemon(state_dir: &Path, signal: libc::c_int) -> bool {
    PidLock::is_held(state_dir, DAEMON_LOCK)
        && std::fs::read_to_string(state_dir.join(DAEMON_LOCK))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .filter(|pid| *pid > 0)
            // SAFETY: kill(2) with a pid read from the daemon's own lock, which it holds.
            .is_some_and(|pid| unsafe { libc::kill(pid, signal) } == 0)
}
