//! Autostash entries a pull left behind, and the return of their lines to
//! the work tree.
//!
//! `git setup` turns autostash on, so a pull over a projection that the
//! daemon re-rendered or an agent appended to stashes it, merges, and puts
//! it back, instead of refusing. When the putting back fails (an agent wrote
//! the file again while git worked), git keeps the stash, prints a notice and
//! reports success: the lines in it would be hidden from every agent. An
//! entry that holds only this workspace's projections is merged back into
//! the work tree with the projection merge (both sides kept, never conflict
//! markers) and then dropped. A stuck `MERGE_AUTOSTASH` (left by a merge that
//! stopped half way, it makes every later pull fail) is treated the same.
//!
//! Owns: finding autostash entries and restoring projection-only ones. Must
//! not: touch an entry that holds any other file, or run while git works
//! in the repository (the caller asks).

use std::path::Path;

use serde::Serialize;

use super::{git, git_dir, git_ok, merge_projection, show_prefix};
use crate::error::{Error, Result};
use crate::files::{Replaced, WhileHeld};
use crate::scan::{FileClass, classify};

/// The ref git keeps a merge's autostash in until the merge ends.
const MERGE_AUTOSTASH: &str = "MERGE_AUTOSTASH";

/// An autostash git left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftStash {
    /// `stash@{N}`, or `MERGE_AUTOSTASH`.
    pub name: String,
    pub commit: String,
    /// The files it holds, relative to the top of the work tree.
    pub paths: Vec<String>,
    /// Whether it holds only this workspace's projections (memsync restores it).
    pub projections_only: bool,
}

/// A cheap fingerprint of the stash list and `MERGE_AUTOSTASH` (the stash's
/// reflog and the ref file, by size and time): `None` when there is neither,
/// and the same value as long as neither changed. The daemon looks at the
/// entries only when it changes.
pub fn stash_mark(root: &Path) -> Option<String> {
    let dir = git_dir(root)?;
    let stat = |p: &Path| {
        std::fs::metadata(p).ok().map(|m| {
            let at = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{}@{}", m.len(), at.map_or(0, |d| d.as_nanos()))
        })
    };
    let (list, merge) = (
        stat(&dir.join("logs/refs/stash")),
        stat(&dir.join(MERGE_AUTOSTASH)),
    );
    (list.is_some() || merge.is_some()).then(|| format!("{list:?} {merge:?}"))
}

/// The autostash entries in the stash list, and a `MERGE_AUTOSTASH` no merge
/// is using (no merge in progress).
pub fn left_stashes(root: &Path) -> Result<Vec<LeftStash>> {
    if stash_mark(root).is_none() {
        // No stash and no MERGE_AUTOSTASH: two stats, no git process.
        return Ok(Vec::new());
    }
    left_stashes_under(root, &show_prefix(root)?)
}

/// `left_stashes`, for a workspace at `prefix` in its work tree.
fn left_stashes_under(root: &Path, prefix: &str) -> Result<Vec<LeftStash>> {
    let mut found = Vec::new();
    let list = git_ok(root, &["stash", "list", "--format=%gd%x09%H%x09%gs"])?;
    for line in list.lines() {
        let mut fields = line.splitn(3, '\t');
        let (Some(name), Some(commit), Some(subject)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if subject == "autostash" {
            found.push(describe(root, prefix, name, commit)?);
        }
    }
    let merging = git_dir(root).is_some_and(|d| d.join("MERGE_HEAD").exists());
    let stuck = git(root, &["rev-parse", "-q", "--verify", MERGE_AUTOSTASH])?;
    if stuck.status.success() && !merging {
        let commit = String::from_utf8_lossy(&stuck.stdout).trim().to_string();
        found.push(describe(root, prefix, MERGE_AUTOSTASH, &commit)?);
    }
    Ok(found)
}

fn describe(root: &Path, prefix: &str, name: &str, commit: &str) -> Result<LeftStash> {
    let changed = git_ok(
        root,
        &[
            "diff",
            "--name-only",
            "--no-renames",
            &format!("{commit}^1"),
            commit,
        ],
    )?;
    let paths: Vec<String> = changed.lines().map(String::from).collect();
    let projections_only = !paths.is_empty()
        && paths.iter().all(|p| {
            p.strip_prefix(prefix)
                .is_some_and(|rel| classify(rel) == FileClass::Projection)
        });
    Ok(LeftStash {
        name: name.to_string(),
        commit: commit.to_string(),
        paths,
        projections_only,
    })
}

/// What `restore_left_stashes` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Restored {
    /// Entries merged back into the work tree and dropped.
    pub restored: Vec<LeftStash>,
    /// Entries left as they are: they hold other files too, or one of their
    /// projections is held open by a writer (a later pass restores it).
    pub kept: Vec<LeftStash>,
    /// Git started meanwhile: the rest waits for a later pass.
    pub interrupted: bool,
}

/// Merges every projection-only autostash back into the work tree and drops
/// it. `idle` is asked before each write: nothing is written once git works.
pub fn restore_left_stashes(
    root: &Path,
    while_held: WhileHeld<'_>,
    idle: &dyn Fn() -> bool,
) -> Result<Restored> {
    let mut done = Restored::default();
    if stash_mark(root).is_none() {
        return Ok(done);
    }
    let prefix = show_prefix(root)?;
    // Dropping `stash@{N}` renumbers the entries after it: the oldest go first.
    let mut left = left_stashes_under(root, &prefix)?;
    left.reverse();
    for stash in left {
        if !stash.projections_only {
            done.kept.push(stash);
            continue;
        }
        let mut all = true;
        for path in &stash.paths {
            if !idle() {
                done.interrupted = true;
                return Ok(done);
            }
            let rel = path.strip_prefix(prefix.as_str()).unwrap_or(path);
            all &= restore_file(root, rel, path, &stash.commit, while_held)?;
        }
        if !all {
            done.kept.push(stash);
            continue;
        }
        forget_stash(root, &stash)?;
        tracing::info!(stash = %stash.name, paths = ?stash.paths, "restored the lines a pull left in an autostash");
        done.restored.push(stash);
    }
    Ok(done)
}

/// The stash mark to remember after `done`, so that a later pass looks only
/// when the list changes: `None` (look again) when the pass was interrupted
/// or an entry memsync restores is still there, such as one a pull pushed
/// while the pass worked. The mark is read before the list, so an entry
/// pushed after the look changes the mark.
pub fn settled_mark(root: &Path, done: &Restored) -> Option<String> {
    let mark = stash_mark(root);
    let pending = done.interrupted
        || left_stashes(root).map_or(true, |left| {
            let kept = |s: &LeftStash| done.kept.iter().any(|k| k.commit == s.commit);
            left.iter().any(|s| s.projections_only && !kept(s))
        });
    if pending { None } else { mark }
}

/// Merges the stash's version of one projection into the work tree's, with
/// the version the stash was made from as the base. False when a writer
/// holds the file open (`WhileHeld::Defer`) and it was left alone.
fn restore_file(
    root: &Path,
    rel: &str,
    path: &str,
    commit: &str,
    while_held: WhileHeld<'_>,
) -> Result<bool> {
    let show = |rev: String| -> Result<Option<String>> {
        let out = git(root, &["show", &rev])?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
    };
    // A projection the stash deleted is not deleted again: renders own that.
    let Some(theirs) = show(format!("{commit}:{path}"))? else {
        return Ok(true);
    };
    let base = show(format!("{commit}^1:{path}"))?.unwrap_or_default();
    let file = root.join(rel);
    let failed = std::cell::RefCell::new(None);
    let replaced = crate::files::replace_in_workspace(root, rel, while_held, |ours| {
        match merge_projection(&base, ours, &theirs, &file) {
            Ok((text, _)) => Some(text),
            Err(e) => {
                *failed.borrow_mut() = Some(e);
                None
            }
        }
    })
    .map_err(|e| Error::io(&file, e))?;
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(replaced != Replaced::Held),
    }
}

/// Drops the entry, only if its name still means the same commit.
fn forget_stash(root: &Path, stash: &LeftStash) -> Result<()> {
    if stash.name == MERGE_AUTOSTASH {
        git_ok(root, &["update-ref", "-d", MERGE_AUTOSTASH, &stash.commit])?;
        return Ok(());
    }
    // A pull may have pushed a newer entry since the list was read: find
    // the entry by its commit, not by its number.
    let list = git_ok(root, &["stash", "list", "--format=%gd%x09%H"])?;
    let name = list.lines().find_map(|l| {
        l.split_once('\t')
            .filter(|(_, commit)| *commit == stash.commit)
            .map(|(name, _)| name.to_string())
    });
    if let Some(name) = name {
        git_ok(root, &["stash", "drop", "-q", &name])?;
    }
    Ok(())
}
