//! The state git leaves on disk in a workspace's repository: where the git
//! directory is and whether an operation (merge, rebase, a locked index) is
//! in progress, read from files without running git.
//!
//! Owns: those probes, which the pipeline and the daemon ask before writing.
//! Must not: run git or write anything (`git` does).

use std::path::{Path, PathBuf};

/// The git directory of the work tree `root` is in, found on disk without
/// running git (a `.git` directory, or a `.git` file naming one).
pub fn find_git_dir(root: &Path) -> Option<PathBuf> {
    let mut dir = Some(root);
    while let Some(d) = dir {
        let dot = d.join(".git");
        if dot.is_dir() {
            return Some(dot);
        }
        if let Ok(text) = std::fs::read_to_string(&dot)
            && let Some(target) = text.trim().strip_prefix("gitdir:")
        {
            return Some(d.join(target.trim()));
        }
        dir = d.parent();
    }
    None
}

/// Why git is busy for the work tree `root` is in, if it is.
pub fn busy_at(root: &Path) -> Option<&'static str> {
    busy(&find_git_dir(root)?)
}

/// Why git is busy in `git_dir` (an operation in progress, or the index locked).
pub fn busy(git_dir: &Path) -> Option<&'static str> {
    [
        ("index.lock", "index.lock exists"),
        ("MERGE_HEAD", "a merge is in progress"),
        ("rebase-merge", "a rebase is in progress"),
        ("rebase-apply", "a rebase is in progress"),
        ("CHERRY_PICK_HEAD", "a cherry-pick is in progress"),
        ("REVERT_HEAD", "a revert is in progress"),
    ]
    .into_iter()
    .find(|(f, _)| git_dir.join(f).exists())
    .map(|(_, why)| why)
}
