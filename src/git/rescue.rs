//! Lines an agent appended to a projection just before git replaced the file
//! (a pull's `reset --hard` after its autostash snapshot, a checkout, an
//! aborted rebase), copied onto the file git left.
//!
//! Git rewrites a file by unlinking it and creating a new one; a line
//! appended after git last read the file is in no stash, no commit and no
//! index entry, and vanishes with the old inode. The daemon keeps the
//! projections it sees change open, so the old inode is still readable
//! after git replaced it; here its lines are compared with every version git
//! knows and with the file now on disk.
//!
//! Owns: deciding which lines of a replaced projection are in no version git
//! knows, and appending them. Must not: write while git works (the caller
//! asks), touch the managed block, or add a line the file already holds.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::git_ok;
use crate::error::{Error, Result};
use crate::files::WhileHeld;
use crate::project::file::block_range;

/// Revisions whose version of the file counts as known to git.
const KNOWN_REVS: &[&str] = &[
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_AUTOSTASH",
    "@{upstream}",
];

/// Appends to `root/rel` the lines of `old` (the text of the file git
/// replaced, or of several versions of it one after the other) that are
/// outside memsync's blocks, in no version git knows, and not in the file now. Returns how many lines were rescued, or `None` when
/// `idle` says git started meanwhile (nothing written; try again later).
pub fn rescue_lines(
    root: &Path,
    rel: &str,
    old: &str,
    while_held: WhileHeld<'_>,
    idle: &dyn Fn() -> bool,
) -> Result<Option<usize>> {
    let mut seen = HashSet::new();
    let candidates: Vec<&str> = outside_blocks(old)
        .into_iter()
        .filter(|l| !l.trim().is_empty() && seen.insert(*l))
        .collect();
    if candidates.is_empty() {
        return Ok(Some(0));
    }
    let known = known_text(root, rel)?;
    let known: HashSet<&str> = known.lines().collect();
    let lost: Vec<&str> = candidates
        .into_iter()
        .filter(|l| !known.contains(l))
        .collect();
    if lost.is_empty() {
        return Ok(Some(0));
    }
    // Asked last, just before the write: a pull may have begun meanwhile.
    if !idle() {
        return Ok(None);
    }
    let rescued = std::cell::Cell::new(0);
    crate::files::replace_in_workspace(root, rel, while_held, |now| {
        let present: HashSet<&str> = now.lines().collect();
        let missing: Vec<&str> = lost
            .iter()
            .copied()
            .filter(|l| !present.contains(l))
            .collect();
        rescued.set(missing.len());
        if missing.is_empty() {
            return None;
        }
        let mut text = now.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        for line in missing {
            text.push_str(line);
            text.push('\n');
        }
        Some(text)
    })
    .map_err(|e| Error::io(root.join(rel), e))?;
    let rescued = rescued.get();
    if rescued > 0 {
        tracing::info!(
            path = rel,
            lines = rescued,
            "restored lines appended while git replaced the file"
        );
    }
    Ok(Some(rescued))
}

/// The lines of `text` outside memsync's blocks.
fn outside_blocks(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some((b, e)) = block_range(rest) {
        lines.extend(rest[..b].lines());
        rest = &rest[e..];
    }
    lines.extend(rest.lines());
    lines
}

/// Every version of the file git holds: the commits in `KNOWN_REVS`, the
/// index (all stages), and every stash entry, concatenated.
fn known_text(root: &Path, rel: &str) -> Result<String> {
    let path = format!("{}{rel}", super::show_prefix(root)?);
    let stashes = git_ok(root, &["stash", "list", "--format=%H"])?;
    let mut names: Vec<String> = KNOWN_REVS.iter().map(|r| format!("{r}:{path}")).collect();
    names.extend((0..=3).map(|stage| format!(":{stage}:{path}")));
    names.extend(stashes.lines().map(|c| format!("{c}:{path}")));
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["cat-file", "--batch=%(objecttype)"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io("git cat-file", e))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(format!("{}\n", names.join("\n")).as_bytes())
            .map_err(|e| Error::io("git cat-file", e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io("git cat-file", e))?;
    // Missing names print "<name> missing"; those lines are never a
    // projection's own, so they need no parsing out.
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
