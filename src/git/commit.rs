//! The daemon's projection commits, made with git's plumbing so that a
//! person's `git pull` beside the daemon never fails because of memsync.
//!
//! `git commit` holds `index.lock` for its whole run and moves HEAD before
//! it writes the index: a pull whose fetch ends in that window cannot
//! fast-forward its work tree, and an `add` left behind by a busy attempt
//! looked like the user's staging for ever after. Here the objects are
//! written first (invisible to anyone), then the real index takes the
//! committed blobs (one short `update-index`), and HEAD moves last with a
//! compare-and-swap (`update-ref HEAD new old`). At every moment the index
//! holds either what HEAD holds or what HEAD is about to hold, so a pull
//! that sees HEAD move under its fetch fast-forwards without touching a file.
//!
//! What is committed is memsync's block alone: the file as HEAD holds it
//! with its managed block replaced by the one on disk. Curated lines a
//! person typed around the block (half a line, while the editor autosaves)
//! stay in the work tree for the person to commit; a daemon commit never
//! holds text memsync did not render.
//!
//! Owns: the commit. Must not: commit a path the user staged other bytes
//! for, a symlink, an ignored file, or text outside memsync's block; run
//! while git is busy.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};

use super::{block, git, git_dir, git_ok};
use crate::config::CommitScope;
use crate::error::{Error, GitError, Result};

/// The temporary index the commit's tree is built in, inside the git dir
/// (one daemon per workspace, so one name is enough).
const SCRATCH_INDEX: &str = "memsync-commit.index";

/// Projection files git sees as modified or untracked, relative to `root`.
pub fn dirty_projections(root: &Path) -> Result<Vec<String>> {
    let prefix = super::show_prefix(root)?;
    let status = git_ok(
        root,
        &[
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--no-renames",
            "--",
            ".",
        ],
    )?;
    Ok(status
        .lines()
        .filter_map(|l| l.get(3..))
        .map(|p| p.trim_matches('"'))
        .filter_map(|p| p.strip_prefix(prefix.as_str()))
        .filter(|p| crate::scan::classify(p) == crate::scan::FileClass::Projection)
        .map(String::from)
        .collect())
}

/// What a projection commit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Committed {
    /// The commit was made with these paths.
    Paths(Vec<String>),
    /// Nothing to commit (ignored, staged by the user, or unchanged).
    Nothing,
    /// Git is busy; try again later.
    Busy(&'static str),
}

/// Blobs memsync itself put in the index, by path from the top of the work
/// tree: a staged entry holding one of them is memsync's, not the user's,
/// even when the file has been re-rendered since.
pub type OwnStaging = BTreeMap<String, String>;

/// The bytes memsync rendered lately, by path from the workspace root (their
/// SHA-256, the newest [`RecentRenders::KEEP`] per file). A staged entry
/// holding one of them was put there for memsync, not by the user: a pull's
/// autostash re-adds a new file with the bytes it stashed, which the daemon
/// rendered before the pull but never staged itself.
#[derive(Debug, Default)]
pub struct RecentRenders {
    by_path: BTreeMap<String, VecDeque<[u8; 32]>>,
}

impl RecentRenders {
    const KEEP: usize = 16;

    /// Notes bytes memsync just wrote to `rel`.
    pub fn note(&mut self, rel: &str, bytes: &[u8]) {
        let kept = self.by_path.entry(rel.to_string()).or_default();
        kept.push_back(Sha256::digest(bytes).into());
        if kept.len() > Self::KEEP {
            kept.pop_front();
        }
    }

    /// Whether memsync rendered exactly these bytes to `rel` lately.
    pub fn holds(&self, rel: &str, bytes: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(bytes).into();
        self.by_path
            .get(rel)
            .is_some_and(|kept| kept.contains(&digest))
    }
}

/// One entry of `ls-files -s` or `ls-tree`: mode and blob id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    mode: String,
    blob: String,
}

/// Commits the projection files memsync re-rendered, and only those: not an
/// ignored file, not a symlink, not one the user staged other bytes for.
pub fn commit_projections(
    root: &Path,
    paths: &[String],
    message: &str,
    scope: CommitScope,
    own: &mut OwnStaging,
    renders: &RecentRenders,
) -> Result<Committed> {
    let Some(dir) = git_dir(root) else {
        return Ok(Committed::Nothing);
    };
    if let Some(why) = crate::repo::busy(&dir) {
        return Ok(Committed::Busy(why));
    }
    let top = std::path::PathBuf::from(git_ok(root, &["rev-parse", "--show-toplevel"])?);
    let prefix = super::show_prefix(root)?;
    let head = git_ok(&top, &["rev-parse", "-q", "--verify", "HEAD^{commit}"]).ok();
    let candidates = candidates(root, &prefix, paths)?;
    if candidates.is_empty() {
        return Ok(Committed::Nothing);
    }
    let index = entries(&top, &["ls-files", "-s", "-z", "--"], &candidates)?;
    let committed = match &head {
        Some(h) => entries(&top, &["ls-tree", "-z", h, "--"], &candidates)?,
        None => BTreeMap::new(),
    };
    let mut changes = Vec::new();
    let mut told = Vec::new();
    for path in &candidates {
        let in_head = committed.get(path);
        let Some(own_bytes) = memsyncs_part(&top, path, in_head, scope)? else {
            continue; // no block of memsync's in it: nothing of ours to commit
        };
        let blob = hash_bytes(&top, &own_bytes.text)?;
        if let Some(staged) = index.get(path)
            && Some(staged) != in_head
            && staged.blob != blob
            && own.get(path) != Some(&staged.blob)
            && !rendered_by_memsync(&top, &staged.blob, path, &prefix, renders)
        {
            continue; // the user's staging: left alone
        }
        if in_head.is_some_and(|e| e.blob == blob) {
            continue;
        }
        let mode = in_head.map_or("100644", |e| e.mode.as_str()).to_string();
        told.push(own_bytes.what_changed(path.strip_prefix(prefix.as_str()).unwrap_or(path)));
        changes.push((path.clone(), Entry { mode, blob }));
    }
    if changes.is_empty() {
        return Ok(Committed::Nothing);
    }
    let tree = build_tree(&top, &dir, head.as_deref(), &changes)?;
    let full_message = format!("{message}\n\n{}\n", told.join("\n"));
    let commit = commit_tree(&top, &tree, head.as_deref(), &full_message)?;
    // Nothing anyone can see has changed yet; from here on it does.
    if crate::repo::git_running_at(root) {
        return Ok(Committed::Busy("a git command is running"));
    }
    if update_index(&top, None, &changes).is_err() {
        return Ok(Committed::Busy("index.lock exists"));
    }
    for (path, e) in &changes {
        own.insert(path.clone(), e.blob.clone());
    }
    if crate::repo::git_running_at(root) {
        // The index holds the blobs, marked as memsync's: the next attempt commits them.
        return Ok(Committed::Busy("a git command is running"));
    }
    let old = head.unwrap_or_default();
    if git_ok(&top, &["update-ref", "-m", message, "HEAD", &commit, &old]).is_err() {
        return Ok(Committed::Busy("HEAD moved while committing"));
    }
    let mut done = Vec::new();
    for (path, _) in changes {
        own.remove(&path);
        done.push(
            path.strip_prefix(prefix.as_str())
                .unwrap_or(&path)
                .to_string(),
        );
    }
    Ok(Committed::Paths(done))
}

/// Whether a staged blob holds bytes memsync rendered to `path` (from the
/// top of the work tree) lately.
fn rendered_by_memsync(
    top: &Path,
    blob: &str,
    path: &str,
    prefix: &str,
    renders: &RecentRenders,
) -> bool {
    let rel = path.strip_prefix(prefix).unwrap_or(path);
    git(top, &["cat-file", "blob", blob])
        .is_ok_and(|out| out.status.success() && renders.holds(rel, &out.stdout))
}

/// The paths (from the top of the work tree) worth committing: regular
/// files that git does not ignore.
fn candidates(root: &Path, prefix: &str, paths: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for p in paths {
        let regular = std::fs::symlink_metadata(root.join(p)).is_ok_and(|m| m.is_file());
        let ignored = git(root, &["check-ignore", "-q", "--", p])?
            .status
            .success();
        if regular && !ignored {
            out.push(format!("{prefix}{p}"));
        }
    }
    Ok(out)
}

/// `ls-files -s -z` or `ls-tree -z` output for `paths`, by path.
fn entries(top: &Path, args: &[&str], paths: &[String]) -> Result<BTreeMap<String, Entry>> {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(paths.iter().map(String::as_str));
    let out = git(top, &all)?;
    if !out.status.success() {
        return Err(command_error(&all, &out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .split('\0')
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            let mut f = meta.split(' ');
            let mode = f.next()?.to_string();
            // ls-files: mode blob stage; ls-tree: mode type blob.
            let second = f.next()?;
            let blob = if second == "blob" { f.next()? } else { second };
            Some((
                path.to_string(),
                Entry {
                    mode,
                    blob: blob.to_string(),
                },
            ))
        })
        .collect())
}

/// The bytes a projection commit holds for one file, and the block lines
/// it changes.
struct OwnPart {
    text: String,
    added: usize,
    removed: usize,
}

impl OwnPart {
    /// One line of the commit message's body.
    fn what_changed(&self, rel: &str) -> String {
        format!(
            "{rel}: {} lines added, {} removed in memsync's block",
            self.added, self.removed
        )
    }
}

/// `path` (from the top of the work tree) as HEAD holds it with its managed
/// block replaced by the one on disk (the whole file on disk with
/// [`CommitScope::File`]); `None` when the file on disk holds no block (or
/// is not text): nothing in it is memsync's to commit.
fn memsyncs_part(
    top: &Path,
    path: &str,
    in_head: Option<&Entry>,
    scope: CommitScope,
) -> Result<Option<OwnPart>> {
    let Ok(bytes) = crate::files::read_file_at(top.join(path)) else {
        return Ok(None);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(None);
    };
    let Some((b, e)) = block::block_range(&text) else {
        return Ok(None);
    };
    let block = &text[b..e];
    let base = match in_head {
        Some(entry) => {
            let out = git(top, &["cat-file", "blob", &entry.blob])?;
            if !out.status.success() {
                return Err(command_error(
                    &["cat-file", "blob", &entry.blob],
                    &out.stderr,
                ));
            }
            match String::from_utf8(out.stdout) {
                Ok(t) => t,
                Err(_) => return Ok(None),
            }
        }
        None => String::new(),
    };
    let old_block = block::block_range(&base).map_or("", |(b, e)| &base[b..e]);
    let (added, removed) = line_changes(old_block, block);
    let text = match scope {
        CommitScope::Block => block::splice(&base, block),
        CommitScope::File => text.clone(),
    };
    Ok(Some(OwnPart {
        text,
        added,
        removed,
    }))
}

/// Lines of `new` not in `old`, and of `old` not in `new` (as multisets).
fn line_changes(old: &str, new: &str) -> (usize, usize) {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for l in old.lines() {
        *counts.entry(l).or_default() -= 1;
    }
    for l in new.lines() {
        *counts.entry(l).or_default() += 1;
    }
    let added = counts
        .values()
        .filter(|c| **c > 0)
        .map(|c| *c as usize)
        .sum();
    let removed = counts
        .values()
        .filter(|c| **c < 0)
        .map(|c| (-*c) as usize)
        .sum();
    (added, removed)
}

/// Writes `text` as a blob; its id.
fn hash_bytes(top: &Path, text: &str) -> Result<String> {
    run(
        top,
        None,
        &["hash-object", "-w", "--stdin"],
        Some(text.as_bytes()),
    )
}

/// HEAD's tree with `changes` applied, built in a scratch index.
fn build_tree(
    top: &Path,
    git_dir: &Path,
    head: Option<&str>,
    changes: &[(String, Entry)],
) -> Result<String> {
    let scratch = git_dir.join(SCRATCH_INDEX);
    let read = match head {
        Some(h) => vec!["read-tree", h],
        None => vec!["read-tree", "--empty"],
    };
    let result = run(top, Some(&scratch), &read, None)
        .and_then(|_| update_index(top, Some(&scratch), changes))
        .and_then(|_| run(top, Some(&scratch), &["write-tree"], None));
    let _ = std::fs::remove_file(&scratch);
    result
}

/// Sets index entries (the real index, or `index` when given) in one
/// `update-index --index-info`.
fn update_index(top: &Path, index: Option<&Path>, changes: &[(String, Entry)]) -> Result<String> {
    let mut input = Vec::new();
    for (path, e) in changes {
        input.extend_from_slice(format!("{} {}\t{path}\0", e.mode, e.blob).as_bytes());
    }
    let args = ["update-index", "-z", "--index-info"];
    run(top, index, &args, Some(&input))
}

/// Runs git at `top` with an optional `GIT_INDEX_FILE` and stdin.
fn run(top: &Path, index: Option<&Path>, args: &[&str], input: Option<&[u8]>) -> Result<String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(top)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(i) = index {
        cmd.env("GIT_INDEX_FILE", i);
    }
    let mut child = cmd.spawn().map_err(|e| Error::io("git", e))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.unwrap_or_default())
            .map_err(|e| Error::io("git", e))?;
    }
    let out = child.wait_with_output().map_err(|e| Error::io("git", e))?;
    if !out.status.success() {
        return Err(command_error(args, &out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The commit object for `tree` on top of `parent`, under the user's
/// identity when git has one and memsync's otherwise.
fn commit_tree(top: &Path, tree: &str, parent: Option<&str>, message: &str) -> Result<String> {
    let identity = git(top, &["config", "user.email"])?.status.success();
    let mut args: Vec<&str> = Vec::new();
    if !identity {
        args.extend([
            "-c",
            "user.name=memsync",
            "-c",
            "user.email=memsync@localhost",
        ]);
    }
    args.extend(["commit-tree", tree, "-m", message]);
    if let Some(p) = parent {
        args.extend(["-p", p]);
    }
    git_ok(top, &args)
}

fn command_error(args: &[&str], stderr: &[u8]) -> Error {
    GitError::Command {
        args: args.join(" "),
        stderr: String::from_utf8_lossy(stderr).trim().to_string(),
    }
    .into()
}
