//! The pipeline every entry point runs: scan → parse → validate → index → project.
//!
//! Owns: deciding which files to read (the stat cache), reading them safely,
//! and applying the verdicts to the index in one transaction.
//! Must not: contain SQL (that is `index`) or validation rules (that is `validate`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rayon::prelude::*;

use crate::config::Settings;
use crate::contract;
use crate::error::Result;
use crate::files::WhileHeld;
use crate::project::{Compare, Exclusions};
use crate::scan::{self, FileClass, FileStat, ScanRules, ScannedFile};
use crate::store::{Batch, CachedFile, Index, Phase};
use crate::validate::{self, Problem, Tombstone, Verdict};

mod apply;
mod kept;
mod notes;
mod options;
mod read;

pub use options::{Progress, SyncOptions, SyncReport};

use apply::*;
pub use apply::{keep_heap_compact, release_freed_memory};
use kept::*;
use notes::*;
use read::*;

/// An artifact file, how reading it went, and its verdict when it was read as text.
type FileRead<'a> = (&'a ScannedFile, ReadOutcome, Option<Verdict>);

/// A tombstone file, how reading it went, and its verdict when it was read.
type TombstoneRead<'a> = (
    &'a ScannedFile,
    ReadOutcome,
    Option<Result<Tombstone, Vec<Problem>>>,
);

/// Runs the pipeline once over the whole workspace.
pub fn sync(settings: &Settings, now: DateTime<Utc>, opts: SyncOptions) -> Result<SyncReport> {
    let started = Instant::now();
    let mut index = Index::open(&settings.index_path())?;
    let report = sync_with(&mut index, settings, now, opts)?;
    Ok(SyncReport {
        duration_ms: started.elapsed().as_millis(),
        ..report
    })
}

/// Runs the pipeline over the whole workspace with an index the caller holds open.
pub fn sync_with(
    index: &mut Index,
    settings: &Settings,
    now: DateTime<Utc>,
    opts: SyncOptions,
) -> Result<SyncReport> {
    let started = Instant::now();
    invalidate_on_config_change(index, settings)?;
    let rules = scan_rules(settings)?;
    let mut scan = scan::scan(&settings.root, &rules)?;
    let notes = std::mem::take(&mut scan.notes);
    remove_interrupted_writes(settings, &scan.interrupted_writes);
    let stale: HashSet<String> = index.files_without_rows()?.into_iter().collect();
    for path in &stale {
        tracing::info!(path = %path, "the index lacks this file's rows; reading it again");
    }
    tracing::info!(
        files = scan.files.len(),
        ms = started.elapsed().as_millis() as u64,
        "scanned"
    );
    let mut plan = read::merge_with_cache(index, scan.files, &stale)?;
    keep_rows_of_a_missing_memory_dir(settings, &mut plan.deleted, &mut scan.problems);
    plan.scan_problems = Some(scan.problems);
    // Notes first: MEMORY.md lists the newest ones, and renders in reconcile.
    let gone = notes_gone(index, &notes)?;
    let counts = index_notes(index, settings, &notes, &gone)?;
    displaced_gone(index, &notes)?;
    let report = reconcile(index, settings, now, opts, plan, started)?;
    Ok(with_notes(report, counts))
}

/// The report with how many notes were indexed and removed.
fn with_notes(report: SyncReport, (indexed, removed): (usize, usize)) -> SyncReport {
    SyncReport {
        notes_indexed: indexed,
        notes_removed: removed,
        ..report
    }
}

/// Whether the workspace has its `memory/` folder.
pub fn memory_dir_present(settings: &Settings) -> bool {
    settings.root.join(contract::MEMORY_DIR).is_dir()
}

/// Removes the temporary files of memsync writes that a crash cut short; the
/// files they were to replace still hold their previous bytes.
fn remove_interrupted_writes(settings: &Settings, paths: &[String]) {
    for rel in paths {
        match std::fs::remove_file(settings.root.join(rel)) {
            Ok(()) => {
                tracing::info!(path = %rel, "removed the temporary file of an interrupted write")
            }
            Err(e) => {
                tracing::warn!(path = %rel, error = %e, "temporary file of an interrupted write not removed")
            }
        }
    }
}

/// Runs the pipeline over the given workspace-relative paths only: what a file
/// watcher or a writer knows changed. Paths that are not canonical artifacts or
/// tombstones are ignored; paths that no longer exist are deletions. Like a full
/// sync, it trusts the filesystem, not the caller: an unchanged file is not re-read.
pub fn sync_paths(
    index: &mut Index,
    settings: &Settings,
    now: DateTime<Utc>,
    opts: SyncOptions,
    paths: &[String],
) -> Result<SyncReport> {
    let started = Instant::now();
    // A missing root would make every path look deleted: refuse rather than drop rows.
    std::fs::metadata(&settings.root).map_err(|e| crate::Error::io(&settings.root, e))?;
    if index.meta(COMPLETE)?.is_none() {
        // A fresh clone, a deleted or rebuilt index: projections rendered from
        // these paths alone would drop every other session.
        tracing::info!("the index does not hold the whole workspace yet; syncing all of it");
        return sync_with(index, settings, now, opts);
    }
    if !memory_dir_present(settings) {
        // Every session file would look deleted: the full sync keeps their
        // rows and says so.
        return sync_with(index, settings, now, opts);
    }
    invalidate_on_config_change(index, settings)?;
    let rules = scan_rules(settings)?;
    let origins = origins_of_moved_copies(index, paths)?;
    let wanted: BTreeSet<&str> = paths
        .iter()
        .chain(&origins)
        .map(String::as_str)
        .filter(|p| {
            rules.wants_file(p)
                && matches!(
                    scan::classify(p),
                    FileClass::Artifact | FileClass::Tombstone
                )
        })
        .collect();
    let cache = index.cached_files(wanted.iter().copied())?;
    let named_projections = opts.watched.then(|| {
        paths
            .iter()
            .filter(|p| scan::classify(p) == FileClass::Projection)
            .cloned()
            .collect()
    });
    let mut plan = Plan {
        files: Vec::new(),
        unchanged: 0,
        cache,
        deleted: Vec::new(),
        scan_problems: None,
        named_projections,
    };
    for path in wanted {
        match stat_regular(&settings.root, path) {
            Some(f) => plan.files.push(f),
            None if plan.cache.contains_key(path) => plan.deleted.push(path.to_string()),
            None => {}
        }
    }
    let (present, gone) = named_notes(&settings.root, &rules, paths);
    let counts = index_notes(index, settings, &present, &gone)?;
    let report = reconcile(index, settings, now, opts, plan, started)?;
    Ok(with_notes(report, counts))
}

/// The meta key a full sync sets once the index holds the whole workspace;
/// until then nothing renders from a partial index.
pub const COMPLETE: &str = "complete_since";

/// What one reconcile looks at.
struct Plan {
    /// Canonical files present on disk that may have changed (all of them,
    /// or the given paths).
    files: Vec<ScannedFile>,
    /// Files a full sync found unchanged and left out of `files`.
    unchanged: usize,
    /// The stat cache for (at least) those files and the deleted ones.
    cache: HashMap<String, CachedFile>,
    /// The only projection files to compare with what was last rendered
    /// (a watcher named them); `None`: every one.
    named_projections: Option<Vec<String>>,
    /// Cached files that are gone.
    deleted: Vec<String>,
    /// Path-level findings of a full scan, which replace the previous ones.
    scan_problems: Option<Vec<Problem>>,
}

/// A regular file's scan entry; `None` if it is missing, a symlink, or not a file.
fn stat_regular(root: &Path, rel: &str) -> Option<ScannedFile> {
    // Like the walk, never reach a file through a symlinked directory.
    crate::files::check_real_dirs(root, rel).ok()?;
    let meta = std::fs::symlink_metadata(root.join(rel)).ok()?;
    meta.is_file().then(|| ScannedFile {
        path: rel.to_string(),
        class: scan::classify(rel),
        stat: FileStat::of(&meta),
    })
}

/// Reads what changed, applies it to the index in one transaction, and renders.
fn reconcile(
    index: &mut Index,
    settings: &Settings,
    now: DateTime<Utc>,
    opts: SyncOptions,
    mut plan: Plan,
    started: Instant,
) -> Result<SyncReport> {
    let config = &settings.config;
    keep_rows_of_moved_artifacts(index, &mut plan.deleted)?;
    let mut report = SyncReport {
        workspace: settings.root.display().to_string(),
        index: index.path.display().to_string(),
        scanned: plan.files.len() + plan.unchanged,
        ..SyncReport::default()
    };
    let changed: Vec<&ScannedFile> = plan
        .files
        .iter()
        .filter(|f| needs_read(f, &plan.cache))
        .collect();
    report.unchanged = plan.unchanged + plan.files.len() - changed.len();

    // Tombstones first: they decide what may be indexed.
    let (tomb_files, artifact_files): (Vec<&ScannedFile>, Vec<&ScannedFile>) = changed
        .into_iter()
        .partition(|f| f.class == FileClass::Tombstone);
    let max = config.scan.max_file_bytes;
    let tomb_verdicts: Vec<TombstoneRead<'_>> = tomb_files
        .into_iter()
        .map(|f| {
            let outcome = read_stable(&settings.root, f, plan.cache.get(&f.path), max, false);
            let verdict = match &outcome {
                ReadOutcome::Text { text, .. } => Some(validate::validate_tombstone(&f.path, text)),
                _ => None,
            };
            (f, outcome, verdict)
        })
        .collect();
    let deleted_tombs: HashSet<&str> = plan
        .deleted
        .iter()
        .filter(|p| scan::classify(p) == FileClass::Tombstone)
        .map(String::as_str)
        .collect();
    let before = index.tombstoned()?;
    let mut after = before.clone();
    for (_, _, v) in &tomb_verdicts {
        if let Some(Ok(t)) = v {
            after.insert((t.agent_id.clone(), t.token.clone()));
        }
    }
    for key in lifted_tombstones(index, &deleted_tombs)? {
        after.remove(&key);
    }
    // Sessions whose tombstone state changed are judged again, even if unchanged on disk.
    let flipped: BTreeSet<String> = after
        .symmetric_difference(&before)
        .map(|(_, t)| t.clone())
        .collect();
    let queued: HashSet<&str> = artifact_files.iter().map(|f| f.path.as_str()).collect();
    let forced: Vec<ScannedFile> = index
        .paths_of_tokens(&flipped)?
        .iter()
        .filter(|p| !queued.contains(p.as_str()))
        .filter_map(|p| stat_regular(&settings.root, p))
        .collect();
    // A queued file of such a session is judged again too, even if its
    // bytes are the ones cached (a clone's copy has new times, same bytes).
    let flips = |f: &ScannedFile| file_token(&f.path).is_some_and(|t| flipped.contains(&t));
    let mut to_read: Vec<(&ScannedFile, bool)> = artifact_files
        .into_iter()
        .map(|f| (f, flips(f)))
        .chain(forced.iter().map(|f| (f, true)))
        .collect();
    // In name order a capture's files (same time, same token) arrive together,
    // so the batch's periodic session refresh rarely writes a session twice;
    // in directory order they were scattered over the whole batch.
    to_read.sort_unstable_by(|a, b| a.0.path.cmp(&b.0.path));

    // Stored verdicts made by these rules before any row is written by them.
    let exclusions = Exclusions::new(config)?;
    exclusions.judge_sessions(index)?;
    // A large first build writes each page once, without a journal.
    let unjournaled =
        to_read.len() >= UNJOURNALED_BUILD_FILES && index.begin_unjournaled_build()?;
    report.read = tomb_verdicts.len();
    let changes = Changes {
        exclusions: &exclusions,
        tombstones: &tomb_verdicts,
        deleted_tombstones: &deleted_tombs,
        tombstoned_before: &before,
        tombstoned_after: &after,
        deleted: &plan.deleted,
        scan_problems: plan.scan_problems.as_deref(),
        defer_unsettled: opts.defer_unsettled,
        progress: opts.progress,
    };
    let indexed = index_changes(
        index,
        settings,
        &plan.cache,
        &to_read,
        &changes,
        &mut report,
        started,
    );
    if unjournaled {
        index.end_unjournaled_build(indexed.is_ok())?;
    }
    indexed?;
    let whole_workspace = plan.scan_problems.is_some();
    // The scan's list and the reads are done with: a first build of a big
    // workspace renders without holding them (a third of its peak memory).
    drop(to_read);
    drop(tomb_verdicts);
    drop(deleted_tombs);
    drop(forced);
    let named = plan.named_projections.take();
    drop(plan);
    if report.read >= REFRESH_EVERY {
        release_freed_memory();
    }
    if whole_workspace && index.meta(COMPLETE)?.is_none() {
        index.set_meta(COMPLETE, "yes")?;
    }
    if !flipped.is_empty() {
        // A tombstone removed (or restored) sessions: no removed text may linger.
        index.purge_removed_text()?;
    }
    tracing::info!(
        indexed = report.indexed,
        removed = report.removed,
        ms = started.elapsed().as_millis() as u64,
        "indexed"
    );
    // A git command at work in the repository (a pull's fetch leaves no
    // lock file) is busy too: a projection written under a merge makes git
    // refuse ("local changes would be overwritten") or re-creates a file
    // git just removed. One-shot commands (capture, harvest, hook jobs,
    // forget, sync) leave it to the next sync or the daemon, as it does.
    let git_busy = if opts.render {
        crate::repo::busy_at(&settings.root).or_else(|| {
            (opts.defer_while_git_runs && crate::repo::git_running_at(&settings.root))
                .then_some("a git command is running")
        })
    } else {
        None
    };
    if let Some(why) = git_busy {
        // Writing a projection mid-merge or mid-rebase can make git's next step
        // refuse; the dirty marks stay, and the next sync or the daemon renders.
        tracing::info!(why, "projections left for later: git is busy");
        report.projections_deferred = Some(why.to_string());
    }
    // A moved `memory/` keeps its rows (see `keep_rows_of_a_missing_memory_dir`);
    // a render now would re-create the folder with a daily log, after which
    // the next sync would take every session for deleted.
    let memory_missing = !memory_dir_present(settings) && index.has_artifacts()?;
    if memory_missing {
        // The report says so (`memory.missing`); a warning line here would
        // say it again on every one-shot command.
        tracing::info!("projections left as they are: memory/ is missing");
    }
    if opts.render && git_busy.is_none() && !memory_missing {
        let while_held = match opts.held_files {
            Some(files) => WhileHeld::Follow(files),
            None => WhileHeld::Defer,
        };
        let compare = match &named {
            Some(paths) => Compare::Only(paths),
            None => Compare::Every,
        };
        // Asked again at the last moment: a pull may have begun while this
        // pass indexed and rendered, whoever checked before it.
        let git_at_work = || {
            crate::repo::busy_at(&settings.root).or_else(|| {
                crate::repo::git_running_at(&settings.root).then_some("a git command is running")
            })
        };
        let rendered =
            crate::project::render(index, settings, now, while_held, compare, &git_at_work)?;
        report.projections_written = rendered.written;
        report.projections_held = rendered.held;
        report.projections_deferred = rendered.deferred.map(str::to_string);
        tracing::info!(
            rendered = rendered.rendered.len(),
            ms = started.elapsed().as_millis() as u64,
            "projected"
        );
    }
    finish_report(index, now, report, started)
}

/// Everything a reconcile applies besides the artifact files it reads.
struct Changes<'a> {
    tombstones: &'a [TombstoneRead<'a>],
    deleted_tombstones: &'a HashSet<&'a str>,
    tombstoned_before: &'a HashSet<(String, String)>,
    tombstoned_after: &'a HashSet<(String, String)>,
    deleted: &'a [String],
    scan_problems: Option<&'a [Problem]>,
    defer_unsettled: bool,
    progress: Option<&'a dyn Progress>,
    /// Who projections show: a session row is judged as it is written.
    exclusions: &'a Exclusions,
}

/// Reads and validates `to_read` on every core while this thread
/// applies the results, and every other change, in one SQLite transaction.
fn index_changes(
    index: &mut Index,
    settings: &Settings,
    cache: &HashMap<String, CachedFile>,
    to_read: &[(&ScannedFile, bool)],
    changes: &Changes<'_>,
    report: &mut SyncReport,
    started: Instant,
) -> Result<()> {
    let config = &settings.config;
    let (max, root) = (config.scan.max_file_bytes, &settings.root);
    let (sender, receiver) = std::sync::mpsc::sync_channel::<FileRead<'_>>(256);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let work = || {
                to_read
                    .par_iter()
                    .for_each_with(sender, |sender, (f, force)| {
                        let outcome = read_stable(root, f, cache.get(&f.path), max, *force);
                        let verdict = judge(f, &outcome, config);
                        // A closed channel means indexing failed; the error is reported there.
                        let _ = sender.send((f, outcome, verdict));
                    })
            };
            match parse_pool() {
                Some(pool) => pool.install(work),
                None => work(),
            }
        });
        index.batch(|b| {
            let mut touched: BTreeSet<String> = BTreeSet::new();
            apply_tombstones(b, changes, &mut touched, report)?;
            apply_deletions(b, changes, &mut touched, report)?;
            if let Some(p) = changes.progress {
                p.begin(to_read.len() as u64);
            }
            for read in receiver.iter() {
                if let Some(p) = changes.progress {
                    p.advance();
                }
                if changes.defer_unsettled && is_unsettled(&read) {
                    report.unsettled.push(read.0.path.clone());
                    continue;
                }
                apply_read(b, &read, changes.tombstoned_after, &mut touched, report)?;
                report.read += 1;
                if report.read.is_multiple_of(REFRESH_EVERY) {
                    // Bounded memory on a big build: the bodies held for the
                    // session documents go once their sessions are written. A
                    // session with files still to come is refreshed again then.
                    refresh_sessions(b, &touched, config, root, changes.exclusions)?;
                    release_freed_memory();
                    touched.clear();
                }
            }
            if let Some(p) = changes.progress {
                p.end();
            }
            tracing::info!(
                read = report.read,
                ms = started.elapsed().as_millis() as u64,
                "read, validated and indexed files"
            );
            refresh_sessions(b, &touched, config, root, changes.exclusions)?;
            if let Some(problems) = changes.scan_problems {
                b.clear_problems(Phase::Scan)?;
                b.insert_problems(Phase::Scan, None, problems)?;
            }
            Ok(())
        })
    })
}

/// The fewest files a first build of an empty index must read to be written
/// without a journal (see `store::first_build`): below it the switch costs
/// more than it saves, and the index stays readable by others while it builds.
const UNJOURNALED_BUILD_FILES: usize = 1000;

/// Counts the problems in the index and records the run.
fn finish_report(
    index: &Index,
    now: DateTime<Utc>,
    mut report: SyncReport,
    started: Instant,
) -> Result<SyncReport> {
    (report.errors, report.warnings) = index.problem_counts()?;
    let finished = contract::format_ts(now);
    index.set_meta("last_sync", &finished)?;
    report.duration_ms = started.elapsed().as_millis();
    index.record_sync(
        &finished,
        report.scanned,
        report.read,
        report.indexed,
        report.removed,
        report.duration_ms,
    )?;
    Ok(report)
}

/// A change to the settings that shape validation re-judges every file.
fn invalidate_on_config_change(index: &mut Index, settings: &Settings) -> Result<()> {
    let c = &settings.config;
    // The sentence floor judges files; who writes new sentences does not.
    let floor = (
        c.sentence.min_words,
        c.sentence.max_words,
        &c.sentence.low_signal,
    );
    let fingerprint = contract::sha256_hex(
        serde_json::to_string(&(&c.scan, floor, &c.token))
            .unwrap_or_default()
            .as_bytes(),
    );
    if index.meta("validation_config")?.as_deref() == Some(fingerprint.as_str()) {
        return Ok(());
    }
    index.batch(|b| b.invalidate_cache())?;
    index.set_meta("validation_config", &fingerprint)
}

/// The scan rules in force, memsync's own state included.
pub fn scan_rules(settings: &Settings) -> Result<ScanRules> {
    ScanRules::new(&settings.config.scan, &own_state_patterns(settings))
}

/// memsync's own files inside the workspace, beyond the default excludes.
fn own_state_patterns(settings: &Settings) -> Vec<String> {
    let index = settings.index_path();
    match scan::relative(&settings.root, &index) {
        Some(rel) => vec![rel.clone(), format!("{rel}-*")],
        None => Vec::new(),
    }
}

/// Tombstone keys whose files were deleted.
fn lifted_tombstones(index: &Index, deleted: &HashSet<&str>) -> Result<HashSet<(String, String)>> {
    if deleted.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(index
        .tombstone_rows()?
        .into_iter()
        .filter(|(path, _)| deleted.contains(path.as_str()))
        .map(|(_, key)| key)
        .collect())
}
