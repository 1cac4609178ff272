//! The daemon's hold on projections that others write, so that lines an
//! agent appended just before git replaced a file can be brought back
//! (`git::rescue_lines`).
//!
//! Owns: which projection inodes the daemon keeps open, and which replaced
//! ones count as git's doing. Must not: write, or keep more than a few files
//! open. It runs on the file watcher's own thread, at the moment of each
//! event: git may replace a file again within milliseconds (a rebase checks
//! out, replays and re-applies), too fast for the daemon's batches.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::scan::{self, FileClass};

/// How many projection files the daemon keeps open at most (the ones that
/// changed last: today's logs and MEMORY.md).
const MAX_TRACKED: usize = 32;
/// How many replaced files wait for git to finish at most.
const MAX_REPLACED: usize = 256;

/// Projection files held open, shared by the watcher's thread and the daemon.
#[derive(Clone)]
pub(super) struct Holds {
    root: PathBuf,
    git_dir: Option<PathBuf>,
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    tracked: Vec<Tracked>,
    replaced: Vec<(String, File)>,
}

/// A projection file as last opened.
struct Tracked {
    rel: String,
    dev: u64,
    ino: u64,
    file: File,
}

impl Holds {
    pub(super) fn new(root: &Path, git_dir: Option<PathBuf>) -> Holds {
        Holds {
            root: root.to_path_buf(),
            git_dir,
            inner: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For every event: keeps each projection it names open at its current
    /// inode, and one that git replaced (a git command runs in the work tree,
    /// or a merge or rebase is under way) for a later rescue.
    pub(super) fn on_event(&self, event: &notify::Event) {
        let Some(git_dir) = &self.git_dir else {
            return;
        };
        for path in &event.paths {
            let Some(rel) = scan::relative(&self.root, path)
                .filter(|rel| scan::classify(rel) == FileClass::Projection)
            else {
                continue;
            };
            // A lock file alone is not enough: git writes a file and then
            // releases the index within a millisecond, before this runs.
            self.track(&rel, path, || {
                crate::repo::git_at_work_in(git_dir, &self.root)
            });
        }
    }

    fn track(&self, rel: &str, path: &Path, git_at_work: impl Fn() -> bool) {
        let now = std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| (m.dev(), m.ino()));
        let mut inner = self.lock();
        if let Some(i) = inner.tracked.iter().position(|t| t.rel == rel) {
            if now == Some((inner.tracked[i].dev, inner.tracked[i].ino)) {
                return;
            }
            let old = inner.tracked.remove(i);
            // memsync's own renders wait for git, and anyone else's
            // replacement (an editor's save) is theirs to keep.
            if git_at_work() && inner.replaced.len() < MAX_REPLACED {
                tracing::debug!(rel, ino = old.ino, "git replaced a projection");
                inner.replaced.push((old.rel, old.file));
            }
        }
        let Some((dev, ino)) = now else {
            return;
        };
        if let Ok(file) = crate::files::open_file(path) {
            if inner.tracked.len() >= MAX_TRACKED {
                inner.tracked.remove(0);
            }
            inner.tracked.push(Tracked {
                rel: rel.to_string(),
                dev,
                ino,
                file,
            });
        }
    }

    /// The text of the replaced files waiting for a rescue, added to
    /// `texts` by path (a rescue compares all of one file's at once).
    pub(super) fn take_replaced(&self, texts: &mut BTreeMap<String, String>) {
        let replaced = std::mem::take(&mut self.lock().replaced);
        for (rel, mut file) in replaced {
            let mut bytes = Vec::new();
            if std::io::Read::read_to_end(&mut file, &mut bytes).is_ok() {
                let text = texts.entry(rel).or_default();
                text.push_str(&String::from_utf8_lossy(&bytes));
                if !text.ends_with('\n') {
                    text.push('\n');
                }
            }
        }
    }
}
