//! The canonical file names in `memory/`, by session token, from one listing
//! kept while nothing else changes the folder.
//!
//! A capture looks up its session's files several times (idempotency, the
//! manifest's compare-and-swap, the report), and a harvest captures
//! thousands of sessions in one process: listing a folder of thousands of
//! files each time made a first harvest quadratic. The listing is reused
//! while the folder's mtime is the one it was taken at; this process's own
//! writes (under the session's lock) are added to it and move that mtime on;
//! any other change (a hook's capture, `forget`, a git pull) moves the mtime
//! and the next look-up lists again. On a file system whose times have no
//! sub-second part, two changes in one second could look like none, so the
//! listing is not reused there. A listed file that is gone when read sends
//! the caller back for a fresh listing.
//!
//! Owns: that cache. Must not: read a file's content.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::contract;

struct Listing {
    dir: PathBuf,
    mtime: SystemTime,
    by_token: HashMap<String, Vec<String>>,
}

static LISTING: Mutex<Option<Listing>> = Mutex::new(None);

/// The folder's mtime, when it is fine-grained enough to trust.
fn mtime(dir: &Path) -> std::io::Result<Option<SystemTime>> {
    let m = std::fs::metadata(dir)?.modified()?;
    let fine = m
        .duration_since(SystemTime::UNIX_EPOCH)
        .is_ok_and(|d| d.subsec_nanos() != 0);
    Ok(fine.then_some(m))
}

/// The canonical names in `dir` (symbolic links left out) of `token`, sorted.
pub(super) fn names_of(dir: &Path, token: &str) -> std::io::Result<Vec<String>> {
    let before = mtime(dir)?;
    if let Ok(cache) = LISTING.lock()
        && let Some(l) = cache.as_ref()
        && l.dir == dir
        && Some(l.mtime) == before
    {
        return Ok(l.by_token.get(token).cloned().unwrap_or_default());
    }
    let mut by_token: HashMap<String, Vec<String>> = HashMap::new();
    for entry in std::fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue; // never read through a link
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(parsed) = contract::parse_canonical_name(&name) {
            by_token
                .entry(parsed.token.to_string())
                .or_default()
                .push(name);
        }
    }
    by_token.values_mut().for_each(|v| v.sort());
    let found = by_token.get(token).cloned().unwrap_or_default();
    if let (Some(mtime), Ok(mut cache)) = (before, LISTING.lock()) {
        // Stamped with the mtime from before the listing: a change made
        // while it was read moves the mtime past it, and the next look-up lists again.
        *cache = Some(Listing {
            dir: dir.to_path_buf(),
            mtime,
            by_token,
        });
    }
    Ok(found)
}

/// The folder's mtime before this process writes `name` into it.
pub(super) fn before_write(dir: &Path) -> Option<SystemTime> {
    mtime(dir).ok().flatten()
}

/// Adds `name`, just written into `dir`, to the listing, if the listing was
/// current before the write (`before`, from [`before_write`]); else forgets it.
pub(super) fn written(dir: &Path, name: &str, before: Option<SystemTime>) {
    let Ok(mut cache) = LISTING.lock() else {
        return;
    };
    let after = mtime(dir).ok().flatten();
    let current = cache
        .as_ref()
        .is_some_and(|l| l.dir == dir && Some(l.mtime) == before);
    match (current, after, contract::parse_canonical_name(name)) {
        (true, Some(after), Some(parsed)) => {
            if let Some(l) = cache.as_mut() {
                let names = l.by_token.entry(parsed.token.to_string()).or_default();
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                    names.sort();
                }
                l.mtime = after;
            }
        }
        _ => *cache = None,
    }
}

/// Drops the listing: the next look-up lists the folder again.
pub(super) fn forget() {
    if let Ok(mut cache) = LISTING.lock() {
        *cache = None;
    }
}
