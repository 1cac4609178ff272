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

/// The roots of every work tree of the repository `dir` is in (the main one
/// and its linked worktrees), read from files; `dir` itself outside git.
/// A session recorded in any of them, or in a folder below one, belongs to
/// the same project.
pub fn work_trees(dir: &Path) -> Vec<PathBuf> {
    let Some(git_dir) = find_git_dir(dir) else {
        return vec![dir.to_path_buf()];
    };
    // A linked worktree's git dir is `<main>/.git/worktrees/<name>`.
    let common = match git_dir.parent() {
        Some(p) if p.file_name().is_some_and(|n| n == "worktrees") => {
            p.parent().map(Path::to_path_buf).unwrap_or(git_dir.clone())
        }
        _ => git_dir.clone(),
    };
    let mut roots = Vec::new();
    if common.file_name().is_some_and(|n| n == ".git")
        && let Some(main) = common.parent()
    {
        roots.push(main.to_path_buf());
    }
    for linked in std::fs::read_dir(common.join("worktrees"))
        .into_iter()
        .flatten()
        .flatten()
    {
        // `gitdir` holds the path of the worktree's `.git` file.
        if let Ok(text) = std::fs::read_to_string(linked.path().join("gitdir"))
            && let Some(root) = Path::new(text.trim()).parent()
        {
            roots.push(root.to_path_buf());
        }
    }
    if roots.is_empty() {
        roots.push(dir.to_path_buf());
    }
    roots.sort();
    roots.dedup();
    roots
}

/// Why git is busy for the work tree `root` is in, if it is.
pub fn busy_at(root: &Path) -> Option<&'static str> {
    busy(&find_git_dir(root)?)
}

/// Whether git works in the repository `root` is in now: an operation in
/// progress, the index locked, or (Linux) a git command running in the work
/// tree that writes. What memsync asks before it writes a tracked file.
pub fn git_at_work(root: &Path) -> bool {
    match find_git_dir(root) {
        Some(dir) => git_at_work_in(&dir, root),
        None => git_running_at(root),
    }
}

/// `git_at_work` with the git directory already found.
pub fn git_at_work_in(git_dir: &Path, root: &Path) -> bool {
    busy(git_dir).is_some() || git_running_at(root)
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

/// `git_running_in` for the whole work tree `root` is in (a workspace may be
/// a folder of a larger repository, and `git pull` runs at its top).
pub fn git_running_at(root: &Path) -> bool {
    let top = find_git_dir(root)
        .filter(|d| d.file_name().is_some_and(|n| n == ".git"))
        .and_then(|d| d.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| root.to_path_buf());
    git_running_in(&top)
}

/// Whether a git process (other than this one) works in `work_tree` now. A
/// `git pull` leaves no lock file while it fetches, yet a commit landing
/// meanwhile makes it fail: the daemon asks this before rendering or
/// committing. Linux reads /proc; elsewhere the answer is always false and
/// the lock files above are all there is.
pub fn git_running_in(work_tree: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    let work_tree = std::fs::canonicalize(work_tree).unwrap_or_else(|_| work_tree.to_path_buf());
    let me = std::process::id().to_string();
    entries.flatten().any(|e| {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            return false;
        };
        if pid == me {
            return false;
        }
        let dir = e.path();
        // "git", and the helpers it runs ("git-remote-…", "git-upload-pack").
        let is_git = std::fs::read(dir.join("comm")).is_ok_and(|c| c.starts_with(b"git"));
        is_git
            && std::fs::read_link(dir.join("cwd")).is_ok_and(|cwd| cwd.starts_with(&work_tree))
            && !std::fs::read(dir.join("cmdline")).is_ok_and(|c| only_reads(&c))
    })
}

/// Whether a git command line (NUL-separated, as /proc gives it) only reads:
/// an editor or a shell prompt running `git status` every second must not
/// keep memsync waiting for git to finish.
fn only_reads(cmdline: &[u8]) -> bool {
    const READERS: &[&str] = &[
        "status",
        "log",
        "show",
        "diff",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "cat-file",
        "rev-list",
        "for-each-ref",
        "describe",
        "blame",
        "grep",
        "merge-base",
        "shortlog",
        "check-ignore",
        "check-attr",
        "name-rev",
        "var",
        "version",
        "help",
    ];
    let mut args = cmdline
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // Global options that take the next word.
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                args.next();
            }
            a if a.starts_with('-') => {}
            "stash" => {
                return args
                    .next()
                    .is_some_and(|sub| sub == "list" || sub == "show");
            }
            a => return READERS.contains(&a),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn git_commands_that_only_read_do_not_count_as_git_at_work() {
        let reads = |line: &str| super::only_reads(line.replace(' ', "\0").as_bytes());
        assert!(reads("git status --porcelain"));
        assert!(reads("git -C /w -c core.quotepath=off stash list"));
        assert!(reads("/usr/bin/git --no-pager log -1"));
        assert!(!reads("git pull --rebase origin main"));
        assert!(!reads("git stash push"));
        assert!(!reads("git -C /w merge --no-edit FETCH_HEAD"));
        assert!(!reads("git-remote-https origin https://example.org/x"));
        assert!(!reads("git"));
    }
}
