//! Notes in the pipeline: the scan's notes (or the paths a watcher named)
//! compared with the index by stat, the changed ones read and indexed, the
//! rows of notes gone dropped. A note that cannot be read keeps its rows.
//!
//! Owns: which notes to read. Must not: judge artifacts or render.

use super::*;

/// Indexes `present` notes whose stat changed; with `gone`, drops the rows of
/// those paths. Returns how many notes were (re)indexed and removed.
pub(super) fn index_notes(
    index: &mut Index,
    root: &Path,
    present: &[ScannedFile],
    gone: &[String],
) -> Result<(usize, usize)> {
    if present.is_empty() && gone.is_empty() {
        // A watcher's batch of artifacts only: no note row is read.
        return Ok((0, 0));
    }
    let known = index.note_stats()?;
    // A forgotten note that came back (a pull, a copy) stays out.
    let forgotten = forgotten(root);
    let is_forgotten =
        |p: &str| !forgotten.is_empty() && forgotten.contains(&crate::note::tombstone_path(p));
    let changed: Vec<&ScannedFile> = present
        .iter()
        .filter(|f| !is_forgotten(&f.path))
        .filter(|f| known.get(&f.path) != Some(&(f.stat.size, f.stat.mtime_ns)))
        .collect();
    let read: Vec<(crate::note::Note, FileStat)> = changed
        .par_iter()
        .filter_map(|f| {
            let bytes = read_note(&root.join(&f.path))?;
            let text = String::from_utf8_lossy(&bytes);
            Some((crate::note::read(&f.path, &text), f.stat))
        })
        .collect();
    let back: Vec<&String> = present
        .iter()
        .map(|f| &f.path)
        .filter(|p| is_forgotten(p))
        .collect();
    let removed: Vec<&String> = gone
        .iter()
        .chain(back)
        .filter(|p| known.contains_key(*p))
        .collect();
    if read.is_empty() && removed.is_empty() {
        return Ok((0, 0));
    }
    index.batch(|b| {
        for (note, stat) in &read {
            let updated = note
                .updated
                .as_deref()
                .and_then(contract::parse_ts)
                .unwrap_or_else(|| file_time(stat.mtime_ns));
            b.put_note(note, *stat, &contract::format_ts(updated))?;
        }
        for path in &removed {
            b.delete_note(path)?;
        }
        Ok(())
    })?;
    Ok((read.len(), removed.len()))
}

/// The tombstones of forgotten notes, as workspace-relative paths.
fn forgotten(root: &Path) -> HashSet<String> {
    std::fs::read_dir(root.join(crate::note::FORGOTTEN_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            format!(
                "{}/{}",
                crate::note::FORGOTTEN_DIR,
                e.file_name().to_string_lossy()
            )
        })
        .collect()
}

/// The indexed notes a full scan no longer found.
pub(super) fn notes_gone(index: &Index, present: &[ScannedFile]) -> Result<Vec<String>> {
    let here: HashSet<&str> = present.iter().map(|f| f.path.as_str()).collect();
    Ok(index
        .note_stats()?
        .into_keys()
        .filter(|p| !here.contains(p.as_str()))
        .collect())
}

/// Of the paths a watcher named, the notes present and the notes gone.
pub(super) fn named_notes(
    root: &Path,
    rules: &ScanRules,
    paths: &[String],
) -> (Vec<ScannedFile>, Vec<String>) {
    let mut present = Vec::new();
    let mut gone = Vec::new();
    for p in paths {
        if scan::classify(p) != FileClass::Note
            || !crate::note::is_note_path(p)
            || !rules.wants_file(p)
        {
            continue;
        }
        match stat_regular(root, p) {
            Some(f) => present.push(f),
            None => gone.push(p.clone()),
        }
    }
    (present, gone)
}

/// A note's first bytes (up to `note::MAX_NOTE_BYTES`); `None` when it
/// cannot be read now (its rows stay).
fn read_note(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(crate::note::MAX_NOTE_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

fn file_time(mtime_ns: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(mtime_ns)
}
