//! Replaced files that a writer still holds open, and the copying of what it
//! writes there onto the live file.
//!
//! Owns: one replaced file's catch-up (`Held`), and the daemon's thread that
//! keeps catching up for as long as writers hold replaced files (`HeldFiles`).
//! Must not: render or decide what a file means.
//!
//! A program that opened today's log once and keeps it open (a logger,
//! `fs.createWriteStream(p, {flags: 'a'})`, a shell's `exec >>`) writes into
//! the inode it opened, for minutes or hours, whatever memsync renamed over
//! it. The daemon keeps that inode open and copies each whole line written
//! there onto the file now at the path, until the writer closes it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Without leases: how long the old file must stay unchanged to count as closed.
const QUIET_SPELL: Duration = Duration::from_millis(20);
/// How often the daemon's thread looks at the files writers still hold.
const TICK: Duration = Duration::from_millis(25);

/// A replaced file, and how much of it the live file already holds.
#[derive(Debug)]
pub(super) struct Held {
    old: File,
    offset: u64,
    path: PathBuf,
    quiet_since: Instant,
    /// Whether a failed copy was already reported (it is retried every tick).
    warned: bool,
}

/// What one look at a held file found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Catch {
    /// No writer holds it any more and every byte is copied.
    Done,
    /// A writer still holds it (or may: it changed within the quiet spell).
    Writing,
}

impl Held {
    pub(super) fn new(old: File, offset: u64, path: &Path) -> Held {
        Held {
            old,
            offset,
            path: path.to_path_buf(),
            quiet_since: Instant::now(),
            warned: false,
        }
    }

    /// Whether the writer added bytes the live file does not hold yet.
    fn has_news(&self) -> bool {
        self.old.metadata().map_or(true, |m| m.len() > self.offset)
    }

    /// Copies what was appended to the old file since the last look onto the
    /// live one. While a writer holds the old file only whole lines are
    /// copied: a write that crosses a page may be seen half done, and its
    /// other half must follow it, not a newer line.
    pub(super) fn catch_up(&mut self) -> std::io::Result<Catch> {
        loop {
            // Checked before the length is read: a writer that closed the file
            // before this check wrote all it will.
            let closed = match no_writer_holds(&self.old) {
                Some(closed) => closed,
                None => self.quiet_since.elapsed() >= QUIET_SPELL,
            };
            let len = self.old.metadata()?.len();
            if len > self.offset {
                let mut tail = Vec::with_capacity((len - self.offset) as usize);
                self.old.seek(SeekFrom::Start(self.offset))?;
                (&mut self.old)
                    .take(len - self.offset)
                    .read_to_end(&mut tail)?;
                let whole = match closed {
                    true => tail.len(),
                    false => tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1),
                };
                if whole > 0 {
                    append(&self.path, &tail[..whole])?;
                    self.offset += whole as u64;
                    self.quiet_since = Instant::now();
                    continue;
                }
            }
            return Ok(match closed && len == self.offset {
                true => Catch::Done,
                false => Catch::Writing,
            });
        }
    }
}

/// Appends `bytes` to the file now at `path`, as any other writer would
/// (creating it if it went meanwhile: the lines are the writer's, not ours).
fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_data()
}

/// Whether no process has `file` open for writing: `Some` when the system can
/// tell (a Linux read lease is granted only then), `None` when it cannot.
#[cfg(target_os = "linux")]
pub(super) fn no_writer_holds(file: &File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    // fcntl.h's F_SETSIG, which the libc crate does not export.
    const F_SETSIG: libc::c_int = 10;
    let fd = file.as_raw_fd();
    // A lease break signals its holder; SIGURG is ignored by default, where
    // the default SIGIO would end the process.
    // SAFETY: fcntl on a descriptor this function borrows; no memory is passed.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return None;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return Some(true);
        }
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(false),
        // Not the owner, or a file system without leases.
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn no_writer_holds(_file: &File) -> Option<bool> {
    None
}

/// The daemon's replaced files that writers still hold, followed by a thread
/// of their own until each writer closes its file. Dropping it stops the
/// thread after a last catch-up.
pub struct HeldFiles {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Where the files still held at stop are recorded for the next start.
    record: Option<PathBuf>,
}

/// A replaced file a writer still held when the daemon stopped: found again
/// by its inode among the open files of the running processes.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Recorded {
    path: PathBuf,
    dev: u64,
    ino: u64,
    offset: u64,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    /// True while the files must not be written (git works in the repository).
    paused: Box<dyn Fn() -> bool + Send + Sync>,
}

#[derive(Default)]
struct State {
    files: Vec<Held>,
    stopping: bool,
}

impl HeldFiles {
    /// Starts the follower; `paused` is asked before each round of copying.
    /// With a `record`, the files still held at stop are written there, and
    /// `adopt_recorded` follows them again after a restart.
    pub fn start(
        paused: impl Fn() -> bool + Send + Sync + 'static,
        record: Option<PathBuf>,
    ) -> std::io::Result<HeldFiles> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            paused: Box::new(paused),
        });
        let thread = std::thread::Builder::new()
            .name("memsync-held-files".into())
            .spawn({
                let shared = shared.clone();
                move || shared.follow()
            })?;
        Ok(HeldFiles {
            shared,
            thread: Some(thread),
            record,
        })
    }

    /// Follows again the files a writer still held when the previous daemon
    /// stopped (Linux: each is found through `/proc/<pid>/fd` by its inode),
    /// from where that daemon had copied them to. Returns how many.
    pub fn adopt_recorded(&self) -> usize {
        let Some(record) = &self.record else {
            return 0;
        };
        let Ok(bytes) = std::fs::read(record) else {
            return 0;
        };
        let _ = std::fs::remove_file(record);
        let recorded: Vec<Recorded> = serde_json::from_slice(&bytes).unwrap_or_default();
        let mut adopted = 0;
        for r in recorded {
            match open_by_inode(r.dev, r.ino) {
                Some(file) => {
                    self.adopt(Held::new(file, r.offset, &r.path));
                    adopted += 1;
                }
                None => {
                    tracing::info!(path = %r.path.display(), "the writer of a replaced file closed it while memsync was stopped; what it wrote meanwhile stays in that file")
                }
            }
        }
        adopted
    }

    /// Follows `held` from now on.
    pub(super) fn adopt(&self, held: Held) {
        let mut state = self.shared.lock();
        state.files.push(held);
        self.shared.wake.notify_all();
    }

    /// How many replaced files writers still hold.
    pub fn count(&self) -> usize {
        self.shared.lock().files.len()
    }
}

impl Drop for HeldFiles {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let Some(record) = &self.record else {
            return;
        };
        let left: Vec<Recorded> = self
            .shared
            .lock()
            .files
            .iter()
            .filter_map(|h| {
                let meta = h.old.metadata().ok()?;
                Some(Recorded {
                    path: h.path.clone(),
                    dev: std::os::unix::fs::MetadataExt::dev(&meta),
                    ino: std::os::unix::fs::MetadataExt::ino(&meta),
                    offset: h.offset,
                })
            })
            .collect();
        if left.is_empty() {
            return;
        }
        let written = serde_json::to_vec(&left)
            .map_err(std::io::Error::other)
            .and_then(|bytes| super::write_atomic(record, &bytes));
        if let Err(e) = written {
            tracing::warn!(record = %record.display(), error = %e, "cannot record the files writers still hold");
        }
    }
}

/// A file with this inode that some process holds open, opened again through
/// `/proc/<pid>/fd` (which reaches a file that has no name any more).
fn open_by_inode(dev: u64, ino: u64) -> Option<File> {
    use std::os::unix::fs::MetadataExt;
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let same = std::fs::metadata(fd.path())
                .is_ok_and(|m| m.is_file() && m.dev() == dev && m.ino() == ino);
            if same && let Ok(file) = File::open(fd.path()) {
                return Some(file);
            }
        }
    }
    None
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while copying leaves the list as it was: keep using it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn follow(&self) {
        let mut state = self.lock();
        loop {
            if state.files.is_empty() && !state.stopping {
                state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            // Asked only when there is something to write: it may read /proc.
            let news = state.files.iter().any(Held::has_news);
            if !news || !(self.paused)() {
                state.files.retain_mut(|held| match held.catch_up() {
                    Ok(Catch::Done) => false,
                    Ok(Catch::Writing) => true,
                    Err(e) => {
                        if !std::mem::replace(&mut held.warned, true) {
                            tracing::warn!(path = %held.path.display(), error = %e, "cannot copy lines a writer added to the replaced file; trying again");
                        }
                        true
                    }
                });
            }
            if state.stopping {
                if !state.files.is_empty() {
                    tracing::info!(
                        files = state.files.len(),
                        "memsync stops while writers still hold replaced files open; the next start follows them again"
                    );
                }
                return;
            }
            state = self
                .wake
                .wait_timeout(state, TICK)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

impl std::fmt::Debug for HeldFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldFiles")
            .field("count", &self.count())
            .finish()
    }
}
