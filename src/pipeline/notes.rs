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
    settings: &Settings,
    present: &[ScannedFile],
    gone: &[String],
) -> Result<(usize, usize)> {
    let root = settings.root.as_path();
    if present.is_empty() && gone.is_empty() {
        // A watcher's batch of artifacts only: no note row is read.
        return Ok((0, 0));
    }
    let known = index.note_stats()?;
    // A forgotten note that came back (a pull, a copy) stays out.
    let forgotten = forgotten(root);
    let is_forgotten =
        |p: &str| !forgotten.is_empty() && forgotten.contains(&crate::note::tombstone_path(p));
    // A daily log as memsync rendered it, with no note row, holds no one's
    // lines: it is not read at every sync.
    let as_rendered = rendered_daily_logs(index, present, &known)?;
    let changed: Vec<&ScannedFile> = present
        .iter()
        .filter(|f| !is_forgotten(&f.path))
        .filter(|f| known.get(&f.path) != Some(&(f.stat.size, f.stat.mtime_ns)))
        .filter(|f| as_rendered.get(&f.path) != Some(&(f.stat.size, f.stat.mtime_ns)))
        .collect();
    let rule = settings.config.token.write_rule;
    let max = settings.config.scan.max_file_bytes;
    let (read, displaced): (Vec<_>, Vec<_>) = changed
        .par_iter()
        .filter_map(|f| {
            // The limit on artifacts holds for notes: an 18 MB note was
            // indexed (its start) and made every search that hit it slow.
            if f.stat.size > max {
                return Some(Err(validate::Problem::warning(
                    &f.path,
                    "file.too-large",
                    format!(
                        "note is {} bytes, over the {max}-byte limit (scan.max_file_bytes); not indexed",
                        f.stat.size
                    ),
                )));
            }
            let bytes = read_note(&root.join(&f.path))?;
            let text = String::from_utf8_lossy(&bytes);
            if scan::is_daily_log(&f.path) {
                let (before, after) = crate::project::file::outside_block(&text);
                let outside = format!("{}\n{}", before.trim_end(), after.trim_start());
                return Some(Ok((crate::note::from_daily_log(&f.path, &outside), f.stat)));
            }
            Some(match displacement(root, &f.path, &bytes, &text, rule) {
                Some(problem) => Err(problem),
                None => Ok((crate::note::read(&f.path, &text), f.stat)),
            })
        })
        .partition_map(|r| match r {
            Ok(note) => rayon::iter::Either::Left(note),
            Err(problem) => rayon::iter::Either::Right(problem),
        });
    // A daily log nobody wrote into is no note (any more).
    let (emptied, read): (Vec<_>, Vec<_>) = read
        .into_iter()
        .partition(|(note, _)| note.body.is_empty() && scan::is_daily_log(&note.path));
    let back: Vec<&String> = present
        .iter()
        .map(|f| &f.path)
        .filter(|p| is_forgotten(p))
        .collect();
    let removed: Vec<&String> = gone
        .iter()
        .chain(back)
        .chain(emptied.iter().map(|(note, _)| &note.path))
        .filter(|p| known.contains_key(*p))
        .collect();
    if read.is_empty() && removed.is_empty() && displaced.is_empty() && gone.is_empty() {
        return Ok((0, 0));
    }
    index.batch(|b| {
        for problem in &displaced {
            b.delete_note(&problem.path)?;
            b.replace_problems(
                &problem.path,
                Phase::File,
                None,
                std::slice::from_ref(problem),
            )?;
        }
        for path in gone {
            b.clear_path_problems(path)?;
        }
        for (note, stat) in &read {
            // A file that was a displaced artifact or a conflict copy is a note now.
            b.replace_problems(&note.path, Phase::File, None, &[])?;
            let own = note
                .updated
                .as_deref()
                .and_then(contract::parse_ts)
                .or_else(|| day_in_name(&note.path));
            let updated = own.unwrap_or_else(|| file_time(stat.mtime_ns));
            b.put_note(note, *stat, (&contract::format_ts(updated), own.is_some()))?;
        }
        for path in &removed {
            b.delete_note(path)?;
        }
        let looped = b.break_supersession_loops()?;
        let problems: Vec<validate::Problem> = looped
            .iter()
            .map(|(path, named)| {
                validate::Problem::warning(
                    path,
                    "note.supersedes-loop",
                    format!(
                        "supersedes {named}, whose chain leads back to this note: the supersession is ignored, so neither note hides the other (fix the `supersedes` key)"
                    ),
                )
            })
            .collect();
        b.insert_problems(Phase::File, None, &problems)?;
        Ok(())
    })?;
    Ok((read.len(), removed.len()))
}

/// The stat memsync recorded when it rendered each daily log among
/// `present` that has no note row: one query, only when there are such logs.
fn rendered_daily_logs(
    index: &Index,
    present: &[ScannedFile],
    known: &std::collections::HashMap<String, (u64, i64)>,
) -> Result<std::collections::HashMap<String, (u64, i64)>> {
    let unknown_logs = present
        .iter()
        .any(|f| scan::is_daily_log(&f.path) && !known.contains_key(&f.path));
    if !unknown_logs {
        return Ok(Default::default());
    }
    Ok(index
        .projection_state()?
        .into_iter()
        .filter(|s| scan::is_daily_log(&s.path) && !known.contains_key(&s.path))
        .map(|s| (s.path, (s.size, s.mtime_ns)))
        .collect())
}

/// The problem of a note that is not one: a session artifact renamed or
/// moved out of `memory/`, a copy of one, or a sync conflict copy.
fn displacement(
    root: &Path,
    rel: &str,
    bytes: &[u8],
    text: &str,
    rule: crate::contract::TokenRule,
) -> Option<Problem> {
    let exists = |p: &str| root.join(p).is_file();
    if let Some((original, tool)) = validate::conflict_original(rel, exists) {
        let same = crate::files::read_file_at(root.join(&original)).is_ok_and(|b| b == bytes);
        let rendered = scan::classify(&original) == FileClass::Projection;
        return Some(validate::conflict_copy(
            rel, &original, tool, same, rendered,
        ));
    }
    let displaced = validate::displaced_artifact(text, rule)?;
    let copy = exists(&displaced.canonical);
    Some(displaced.problem(rel, copy))
}

/// Clears the problems of displaced files and conflict copies a full scan
/// no longer found (they have no note row to notice them go).
pub(super) fn displaced_gone(index: &mut Index, present: &[ScannedFile]) -> Result<()> {
    let here: HashSet<&str> = present.iter().map(|f| f.path.as_str()).collect();
    let gone: Vec<String> = index
        .problem_paths(validate::DISPLACED_RULES)?
        .into_iter()
        .filter(|p| !here.contains(p.as_str()))
        .collect();
    if gone.is_empty() {
        return Ok(());
    }
    index.batch(|b| {
        for path in &gone {
            b.clear_path_problems(path)?;
        }
        Ok(())
    })
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
        let note = scan::classify(p) == FileClass::Note && crate::note::is_note_path(p);
        if !(note || scan::is_daily_log(p)) || !rules.wants_file(p) {
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
    // Non-blocking and regular only: a FIFO named like a note never hangs a sync.
    let file = crate::files::open_file(path).ok()?;
    let mut bytes = Vec::new();
    file.take(crate::note::MAX_NOTE_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// The day a note's name starts with (`notes/2026-11-28-title.md`, an
/// Obsidian daily note `2026-11-28.md`): its own date when its frontmatter
/// names none.
fn day_in_name(path: &str) -> Option<DateTime<Utc>> {
    let name = path.rsplit('/').next()?;
    let day = chrono::NaiveDate::parse_from_str(name.get(..10)?, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

fn file_time(mtime_ns: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(mtime_ns)
}
