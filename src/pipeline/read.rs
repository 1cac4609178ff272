//! Reading one file for the pipeline: a stable read (the file did not change
//! while it was read), decoding, and the verdict of parse and validate.
//!
//! Owns: what counts as a settled read. Must not: write rows (that is `apply`).

use super::*;

/// Files modified this recently may still change within the same mtime tick, so
/// their stat is not trusted by the next scan (git's "racy clean" problem).
pub(super) const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The result of reading one file.
pub(super) enum ReadOutcome {
    /// Same bytes as last indexed: only the stat changed.
    Same {
        stat: FileStat,
        sha: String,
    },
    Text {
        stat: FileStat,
        sha: String,
        text: String,
    },
    Failed {
        problem: Problem,
    },
}

/// Reads a file whole, re-statting around the read; a file that changes while
/// read is retried with backoff, then reported.
pub(super) fn read_stable(
    root: &Path,
    f: &ScannedFile,
    cached: Option<&CachedFile>,
    max: u64,
    force: bool,
) -> ReadOutcome {
    let abs = root.join(&f.path);
    let mut delay = Duration::from_millis(20);
    for attempt in 0..4 {
        match read_once(&abs, max) {
            Err(reason) => {
                return ReadOutcome::Failed {
                    problem: Problem::error(&f.path, reason.0, reason.1),
                };
            }
            Ok(Some((stat, bytes))) => return decode(f, stat, bytes, cached, force),
            Ok(None) if attempt < 3 => {
                std::thread::sleep(delay);
                delay *= 2;
            }
            Ok(None) => {}
        }
    }
    ReadOutcome::Failed {
        problem: Problem::warning(
            &f.path,
            "read.unstable",
            "file kept changing while being read; will retry at the next scan",
        ),
    }
}

pub(super) type ReadFailure = (&'static str, String);

/// One read: `Ok(None)` when the file changed during the read.
pub(super) fn read_once(abs: &Path, max: u64) -> Result<Option<(FileStat, Vec<u8>)>, ReadFailure> {
    let io = |e: std::io::Error| ("read.io", format!("cannot read: {e}"));
    let mut file = crate::files::open_file(abs).map_err(io)?;
    let before = FileStat::of(&file.metadata().map_err(io)?);
    if before.size > max {
        return Err((
            "file.too-large",
            format!(
                "file is {} bytes, over the {max}-byte limit (scan.max_file_bytes); not read",
                before.size
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(before.size as usize);
    file.by_ref()
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let after = std::fs::symlink_metadata(abs)
        .map(|m| FileStat::of(&m))
        .map_err(io)?;
    if after != before || bytes.len() as u64 != before.size {
        return Ok(None);
    }
    Ok(Some((before, bytes)))
}

pub(super) fn decode(
    f: &ScannedFile,
    stat: FileStat,
    bytes: Vec<u8>,
    cached: Option<&CachedFile>,
    force: bool,
) -> ReadOutcome {
    let sha = contract::sha256_hex(&bytes);
    let stat = trusted_stat(stat);
    if !force && cached.is_some_and(|c| c.has_sha256(&sha)) {
        return ReadOutcome::Same { stat, sha };
    }
    if bytes.contains(&0) {
        return ReadOutcome::Failed {
            problem: Problem::error(
                &f.path,
                "encoding.nul",
                "file contains NUL bytes; not a text file",
            ),
        };
    }
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            ReadOutcome::Text { stat, sha, text }
        }
        Err(e) => ReadOutcome::Failed {
            problem: Problem::error(
                &f.path,
                "encoding.utf8",
                format!(
                    "file is not valid UTF-8 (at byte {})",
                    e.utf8_error().valid_up_to()
                ),
            ),
        },
    }
}

/// A stat from within the racy window is stored as "unknown" so the next scan reads again.
pub(super) fn trusted_stat(stat: FileStat) -> FileStat {
    if within_racy_window(stat.mtime_ns) {
        FileStat {
            mtime_ns: -1,
            ..stat
        }
    } else {
        stat
    }
}

pub(super) fn within_racy_window(mtime_ns: i64) -> bool {
    let now_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(i64::MAX);
    now_ns - mtime_ns < RACY_WINDOW_NS
}

/// Validates what was read; `None` when the file could not be read as text.
pub(super) fn judge(
    f: &ScannedFile,
    outcome: &ReadOutcome,
    config: &crate::config::Config,
) -> Option<Verdict> {
    let ReadOutcome::Text { text, sha, .. } = outcome else {
        return None;
    };
    let name = contract::parse_canonical_name(file_name(&f.path))?;
    let mut verdict = validate::validate_artifact(&f.path, text, &name, config);
    if let Some(a) = verdict.artifact.as_mut() {
        a.source_sha256 = sha.clone();
        a.source_path = f.path.clone();
    }
    Some(verdict)
}

pub(super) fn needs_read(f: &ScannedFile, cache: &HashMap<String, CachedFile>) -> bool {
    match cache.get(&f.path) {
        Some(c) => c.stat != f.stat || c.stat.mtime_ns < 0,
        None => true,
    }
}

/// A file that failed validation and changed too recently to be judged: it
/// may be half-written.
pub(super) fn is_unsettled((f, outcome, verdict): &FileRead<'_>) -> bool {
    let failed = match (outcome, verdict) {
        (ReadOutcome::Failed { .. }, _) => true,
        (_, Some(v)) => v.artifact.is_none(),
        _ => false,
    };
    failed && within_racy_window(f.stat.mtime_ns)
}

pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

pub(super) fn file_token(path: &str) -> Option<String> {
    contract::parse_canonical_name(file_name(path)).map(|n| n.token)
}

/// The body of a canonical file on disk, for a session document that needs a
/// part this batch did not read.
pub(super) fn load_body(root: &Path, rel: &str) -> Option<String> {
    let text = crate::files::read_text(&root.join(rel)).ok()?;
    let doc = crate::parse::parse_document(&text).ok()?;
    Some(doc.body.to_string())
}

/// The threads that read and parse: one per core, beside the thread writing
/// SQLite. While the writer keeps up they share its core (on two cores,
/// parsing is the longer job of a cold build: 0.73 -> 0.65 s with a second
/// parser); when it falls behind, the bounded channel puts them to sleep.
/// `None` when no pool can be built; the work then runs on rayon's global pool.
pub(super) fn parse_pool() -> Option<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new()
        .num_threads(cores.max(1))
        .build()
        .ok()
}

/// Walks the scan and the stat cache side by side, both in path order: a
/// file whose stat matches its entry is counted and dropped, and only the
/// entries of changed and deleted files are kept. Memory follows what
/// changed, not the size of the workspace (100,000 cache entries held at
/// once cost 47 MB).
pub(super) fn merge_with_cache(
    index: &Index,
    mut files: Vec<ScannedFile>,
    stale: &HashSet<String>,
) -> Result<Plan> {
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    // Marked in place, then dropped with `retain`: a second list of every
    // file would double the scan's memory on a first build.
    let mut unchanged = vec![false; files.len()];
    let (mut cache, mut deleted) = (HashMap::new(), Vec::new());
    let mut next = 0;
    index.each_cached_file(|path, cached| {
        while next < files.len() && files[next].path < path {
            next += 1;
        }
        match files.get(next).filter(|f| f.path == path) {
            // Read again as if new: the cache says unchanged, the rows are gone.
            Some(_) if stale.contains(&path) => {}
            Some(f) if f.stat == cached.stat && cached.stat.mtime_ns >= 0 => unchanged[next] = true,
            Some(_) => {
                cache.insert(path, cached);
            }
            None => {
                deleted.push(path.clone());
                cache.insert(path, cached);
            }
        }
        Ok(())
    })?;
    let mut marks = unchanged.iter();
    files.retain(|_| marks.next() == Some(&false));
    Ok(Plan {
        files,
        unchanged: unchanged.iter().filter(|u| **u).count(),
        cache,
        deleted,
        scan_problems: None,
        named_projections: None,
    })
}
