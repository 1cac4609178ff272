//! Git-synced workspaces: `git setup` (ignore rules, merge attributes and the
//! merge driver), the projection merge driver itself, and the daemon's
//! projection commits.
//!
//! Owns: every git command memsync runs. Must not: commit anything but
//! projection files, touch a file the user staged, or act while git is busy.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde::Serialize;

use crate::config::{AutoCommit, Settings};
use crate::error::{Error, GitError, Result};
use crate::project::file::{self as block, BLOCK_BEGIN, BLOCK_END};

mod autostash;
mod commit;
mod rescue;
mod tombstone_merge;
pub use autostash::{
    LeftStash, Restored, left_stashes, restore_left_stashes, settled_mark, stash_mark,
};
pub use commit::{Committed, OwnStaging, RecentRenders, commit_projections, dirty_projections};
pub use rescue::rescue_lines;

/// The managed block in `.gitignore` and `.gitattributes`.
const GIT_BLOCK_BEGIN: &str = "# memsync:begin";
const GIT_BLOCK_END: &str = "# memsync:end";

const IGNORE_LINES: &[&str] = &[
    "/.memsync/",
    "*.tmp-*",
    ".*.tmp*",
    // Obsidian's window layout (rewritten on every click) and its trash
    // (a session deleted there must not travel to every clone).
    "/.obsidian/workspace.json",
    "/.obsidian/workspace-mobile.json",
    "/.trash/",
];
const ATTRIBUTE_LINES: &[&str] = &[
    "/MEMORY.md merge=memsync",
    "/agents/*/MEMORY.md merge=memsync",
    "/memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md merge=memsync",
    "/agents/*/memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md merge=memsync",
    // Two clones that forget the same session merge their tombstones.
    "/memory/tombstones/*.md merge=memsync",
];

/// A line that stands for the managed block while the text around it is merged.
const PLACEHOLDER: &str = "<!-- memsync:merge-placeholder 3f9c1d -->\n";

/// Where union merges are logged for `status`.
pub const MERGE_LOG: &str = "merges.jsonl";

fn git(dir: &Path, args: &[&str]) -> Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        // `status` and `diff` refresh the index under index.lock when they
        // can; a person's `git pull` meeting that lock fails ("Unable to
        // write index"). memsync's reads never take it.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .map_err(|e| Error::io("git", e))
}

/// Where `root` sits inside its work tree (`sub/dir/`, or empty at the top):
/// git names paths from the top, memsync from the workspace.
fn show_prefix(root: &Path) -> Result<String> {
    git_ok(root, &["rev-parse", "--show-prefix"])
}

fn git_ok(dir: &Path, args: &[&str]) -> Result<String> {
    let out = git(dir, args)?;
    if !out.status.success() {
        return Err(GitError::Command {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        }
        .into());
    }
    // Only the end: porcelain lines start with a meaningful space.
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The repository's git directory, if `root` is in a work tree.
pub fn git_dir(root: &Path) -> Option<PathBuf> {
    let out = git(root, &["rev-parse", "--absolute-git-dir"]).ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// What `git setup` changed (or would change).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SetupReport {
    pub changes: Vec<String>,
    pub dry_run: bool,
}

/// Makes the workspace's repository ready for memsync: ignore rules, merge
/// attributes for the projections, the merge driver, and projection commits.
pub fn setup(settings: &Settings, exe: &Path, dry_run: bool) -> Result<SetupReport> {
    let root = &settings.root;
    git_dir(root).ok_or_else(|| GitError::NotARepository { path: root.clone() })?;
    let mut report = SetupReport {
        changes: Vec::new(),
        dry_run,
    };
    // Whether the two files hold nothing of the user's that is not committed:
    // only then may setup commit them (see `commit_setup_files`).
    let clean_before = git_ok(
        root,
        &[
            "status",
            "--porcelain",
            "--",
            ".gitignore",
            ".gitattributes",
        ],
    )
    .is_ok_and(|s| s.trim().is_empty());
    let mut written = Vec::new();
    for (file, lines) in [
        (".gitignore", IGNORE_LINES),
        (".gitattributes", ATTRIBUTE_LINES),
    ] {
        let path = root.join(file);
        let existing = crate::files::read_text_at(&path).unwrap_or_default();
        let mut managed = format!("{GIT_BLOCK_BEGIN} (managed by `memsync git setup`)\n");
        for l in lines {
            managed.push_str(l);
            managed.push('\n');
        }
        managed.push_str(GIT_BLOCK_END);
        managed.push('\n');
        let range = block::block_range_with(&existing, GIT_BLOCK_BEGIN, GIT_BLOCK_END);
        let updated = block::splice_with(&existing, &managed, range);
        if updated != existing {
            report.changes.push(format!(
                "{file}: managed block {}",
                if range.is_some() { "updated" } else { "added" }
            ));
            if !dry_run {
                crate::files::write_atomic(&path, updated.as_bytes())
                    .map_err(|e| Error::io(&path, e))?;
                written.push(file);
            }
        }
    }
    if !written.is_empty() {
        report
            .changes
            .push(commit_setup_files(root, &written, clean_before));
    }
    let driver = format!(
        "{} --workspace {} git merge-driver %O %A %B %P",
        shell_quote(&exe.to_string_lossy()),
        shell_quote(&root.to_string_lossy())
    );
    for (key, value) in [
        (
            "merge.memsync.name",
            "memsync projections: union of curated text, managed block regenerated",
        ),
        ("merge.memsync.driver", driver.as_str()),
        // The daemon may have re-rendered a projection that is not committed
        // yet (it commits only after a quiet second): a pull that brings a
        // new MEMORY.md then stashes it, merges, and re-applies it through
        // the merge driver, instead of refusing with "local changes would be
        // overwritten".
        ("merge.autoStash", "true"),
        ("rebase.autoStash", "true"),
    ] {
        let current = git(root, &["config", "--local", "--get", key])?;
        if String::from_utf8_lossy(&current.stdout).trim() != value {
            report.changes.push(format!("git config {key} = {value}"));
            if !dry_run {
                git_ok(root, &["config", "--local", key, value])?;
            }
        }
    }
    Ok(report)
}

/// Commits the ignore and attribute files `setup` wrote, and only them, so a
/// second clone that ran `git setup` before its first pull does not hold the
/// same files untracked (git would refuse the pull). Left uncommitted, with a
/// note, when they held uncommitted text of the user's, on an unborn branch (a
/// first commit would make the first pull merge unrelated histories), or
/// while git is busy.
fn commit_setup_files(root: &Path, files: &[&str], clean_before: bool) -> String {
    let names = files.join(" and ");
    let has_head =
        git(root, &["rev-parse", "--verify", "-q", "HEAD"]).is_ok_and(|o| o.status.success());
    let why_not = if !clean_before {
        Some("they had uncommitted changes of yours")
    } else if !has_head {
        Some("the branch has no commit yet")
    } else {
        crate::repo::busy_at(root)
    };
    if let Some(why) = why_not {
        return format!("{names}: not committed ({why}); commit them before your next pull");
    }
    let mut add = vec!["add", "--"];
    add.extend(files);
    let mut commit = vec![
        "commit",
        "-q",
        "-m",
        "memsync git setup: ignore rules and merge attributes",
        "--",
    ];
    commit.extend(files);
    match git_ok(root, &add).and_then(|_| git_ok(root, &commit)) {
        Ok(_) => format!("{names}: committed"),
        Err(e) => format!("{names}: not committed ({e}); commit them before your next pull"),
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What git history still holds of a forgotten session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionHistory {
    /// Commits, on any branch, that touch one of the session's files.
    pub commits: usize,
    /// The files' paths from the top of the repository.
    pub paths: Vec<String>,
    /// How to take them out of history (memsync does not rewrite it).
    pub recipe: String,
}

/// The commits of the repository `root` is in that hold a file of session
/// `token` (its artifacts are named `…--{token}--{kind}.md`), if any.
pub fn session_history(root: &Path, token: &str) -> Option<SessionHistory> {
    git_dir(root)?;
    let spec = format!(":(top,glob)**/*--{token}--*.md");
    // One walk of history: a "commit" line per commit, then its paths.
    let log = git_ok(
        root,
        &[
            "log",
            "--all",
            "--name-only",
            "--format=commit %H",
            "--",
            &spec,
        ],
    )
    .ok()?;
    let commits = log.lines().filter(|l| l.starts_with("commit ")).count();
    if commits == 0 {
        return None;
    }
    let paths: std::collections::BTreeSet<String> = log
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("commit "))
        .map(String::from)
        .collect();
    let mut recipe = String::from("git filter-repo --invert-paths");
    for p in &paths {
        recipe.push_str(&format!(" --path {}", shell_quote(p)));
    }
    recipe.push_str(
        "  (then force-push every branch; every other clone and fork keeps the text until it is re-cloned)",
    );
    Some(SessionHistory {
        commits,
        paths: paths.into_iter().collect(),
        recipe,
    })
}

/// Whether the daemon commits projections here.
pub fn auto_commit_enabled(settings: &Settings) -> bool {
    match settings.config.git.auto_commit {
        AutoCommit::Off => false,
        AutoCommit::On => git_dir(&settings.root).is_some(),
        AutoCommit::Auto => git(&settings.root, &["config", "--get", "merge.memsync.driver"])
            .is_ok_and(|o| o.status.success()),
    }
}

/// A projection file split around its managed block.
struct Split {
    outside: String,
    block: Option<String>,
}

fn split(text: &str) -> Split {
    match block::block_range_with(text, BLOCK_BEGIN, BLOCK_END) {
        Some((b, e)) => Split {
            outside: format!("{}{PLACEHOLDER}{}", &text[..b], &text[e..]),
            block: Some(text[b..e].to_string()),
        },
        None => Split {
            outside: text.to_string(),
            block: None,
        },
    }
}

/// What the merge driver did.
#[derive(Debug, Clone, Serialize)]
pub struct MergeOutcome {
    pub path: String,
    /// Both sides changed the same lines outside the block; both were kept.
    pub union: bool,
}

/// The merge driver: merges the text outside the managed block three-way,
/// keeping both sides where they overlap (never conflict markers, never loss),
/// and writes the block from our side; the next reconcile regenerates it from
/// the merged tree. The result replaces `ours`, as git expects.
pub fn merge_driver(base: &Path, ours: &Path, theirs: &Path, name: &str) -> Result<MergeOutcome> {
    if crate::scan::classify(name) == crate::scan::FileClass::Tombstone {
        return merge_tombstones(ours, theirs, name);
    }
    let read = |p: &Path| -> Result<String> {
        let bytes = crate::files::read_file_at(p).map_err(|e| Error::io(p, e))?;
        String::from_utf8(bytes).map_err(|_| {
            GitError::NotUtf8 {
                path: name.to_string(),
            }
            .into()
        })
    };
    let (text, union) = merge_projection(&read(base)?, &read(ours)?, &read(theirs)?, ours)?;
    crate::files::write_atomic(ours, text.as_bytes()).map_err(|e| Error::io(ours, e))?;
    Ok(MergeOutcome {
        path: name.to_string(),
        union,
    })
}

/// Merges three versions of a projection: the text outside the managed
/// block three-way (both sides kept where they overlap), the block from our
/// side. Returns the text and whether the sides overlapped. `near` names
/// the file, for the scratch directory.
fn merge_projection(base: &str, ours: &str, theirs: &str, near: &Path) -> Result<(String, bool)> {
    let (b, o, t) = (split(base), split(ours), split(theirs));
    let tmp = tempdir_near(near)?;
    let write = |n: &str, text: &str| -> Result<PathBuf> {
        let p = tmp.join(n);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
        Ok(p)
    };
    let (pb, po, pt) = (
        write("base", &b.outside)?,
        write("ours", &o.outside)?,
        write("theirs", &t.outside)?,
    );
    let run = |union: bool| -> Result<Output> {
        let mut cmd = Command::new("git");
        cmd.args(["merge-file", "-p"]);
        if union {
            cmd.arg("--union");
        }
        cmd.arg(&po)
            .arg(&pb)
            .arg(&pt)
            .output()
            .map_err(|e| Error::io("git merge-file", e))
    };
    let plain = run(false)?;
    let union = !plain.status.success();
    let merged = if union { run(true)? } else { plain };
    let _ = std::fs::remove_dir_all(&tmp);
    let merged = String::from_utf8_lossy(&merged.stdout).into_owned();
    let block = o.block.or(t.block).unwrap_or_default();
    let text = if merged.contains(PLACEHOLDER) {
        merged
            .replacen(PLACEHOLDER, &block, 1)
            .replace(PLACEHOLDER, "")
    } else {
        block::splice(&merged, &block)
    };
    Ok((text, union))
}

fn tempdir_near(file: &Path) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "memsync-merge-{}-{}",
        std::process::id(),
        file.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(dir)
}

/// Two tombstones of one session merged into one (`tombstone_merge`).
fn merge_tombstones(ours: &Path, theirs: &Path, name: &str) -> Result<MergeOutcome> {
    let read = |p: &Path| {
        String::from_utf8_lossy(&crate::files::read_file_at(p).unwrap_or_default()).into_owned()
    };
    let Some(text) = tombstone_merge::merge(name, &read(ours), &read(theirs)) else {
        return Err(GitError::NoTombstone {
            path: name.to_string(),
        }
        .into());
    };
    crate::files::write_atomic(ours, text.as_bytes()).map_err(|e| Error::io(ours, e))?;
    Ok(MergeOutcome {
        path: name.to_string(),
        union: false,
    })
}

/// Appends a union merge to the state directory's log, for `status`.
pub fn log_union(state_dir: &Path, outcome: &MergeOutcome, at: &str) {
    if !outcome.union || crate::files::create_private_dir(state_dir).is_err() {
        return;
    }
    let line = serde_json::json!({ "path": outcome.path, "at": at }).to_string();
    let path = state_dir.join(MERGE_LOG);
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()));
}

/// The last few union merges, newest first.
pub fn recent_unions(state_dir: &Path) -> Vec<serde_json::Value> {
    let text = crate::files::read_text_at(state_dir.join(MERGE_LOG)).unwrap_or_default();
    text.lines()
        .rev()
        .take(5)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
