//! `memsync harvest`: captures every finished session from the harnesses' own
//! folders ([`sources`]), with no hook to install, through the same capture
//! path as `capture session-end` (readers, sanitizer, sentences, crash safety).
//!
//! The model is Codex's own memory pipeline (seeds/004), for every harness:
//! a session is harvested once its file has been idle for
//! `harvest.idle_minutes` (by its mtime and its last entry); a watermark per
//! file (size, mtime, inode, a digest of the last bytes read) makes an
//! unchanged file cost one `stat`; a file that grew adds its new turns as a
//! continuation of the same session; a truncated or replaced file is
//! reported, never captured again as a new session; each file is claimed with
//! a lease, so two harvesters (or the daemon and a one-shot run) never work
//! on one file at once; a failed capture is retried with doubling backoff.
//!
//! Owns: choosing what to capture and remembering what was. Must not: write
//! canonical files itself (it calls `capture`) or run SQL (`store::harvest`).

mod database;
mod file;
pub mod memory;
pub mod sources;

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::config::{Env, Settings};
use crate::error::Result;
use crate::harness::Harness;
use crate::pipeline::SyncOptions;
use crate::store::harvest::{Watermark, Watermarks};
pub(crate) use file::stat_of;

/// What a run is asked to do.
#[derive(Debug, Clone, Default)]
pub struct HarvestOptions {
    /// Only these harnesses (else `harvest.harnesses`).
    pub harnesses: Vec<Harness>,
    /// Look no further back than this (else `harvest.max_age_days`).
    pub since: Option<DateTime<Utc>>,
    /// Report what would be captured; capture and record nothing.
    pub dry_run: bool,
    /// The daemon runs it (else a person did): `doctor` tells them apart.
    pub daemon: bool,
    /// Ask the sentence provider for sessions of any age (else only for
    /// sessions that ended within [`FRESH_MINUTES`]): a first harvest of a
    /// year of sessions never calls a model unless asked.
    pub sentences: bool,
    /// Take sessions that look live (within `harvest.idle_minutes`) too: the
    /// person knows they ended.
    pub no_wait: bool,
}

/// A session that ended this recently gets the model's sentence in a
/// harvest without `--sentences`: it is one the person just had.
pub const FRESH_MINUTES: i64 = 60;

/// One file the report names.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub path: String,
    pub harness: Harness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A harness folder and how many session files it held.
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    pub harness: Harness,
    pub home: Option<String>,
    pub files: usize,
    /// Sessions in the harness's own databases (OpenClaw 2026.9 on, opencode).
    #[serde(skip_serializing_if = "is_zero")]
    pub database_sessions: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What one run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HarvestReport {
    pub dry_run: bool,
    pub places: Vec<Place>,
    /// Files whose stat matched their watermark: not read.
    pub unchanged: usize,
    /// Files written to within `harvest.idle_minutes`: the session may go on.
    pub live: usize,
    /// Files older than the look-back (`--since`, `harvest.max_age_days`).
    pub too_old: usize,
    /// The look-back: files last written before this were left out.
    pub since: String,
    /// Files another harvester held, or that changed while read: next run.
    pub busy: usize,
    /// Files already captured another way (a hook): their watermark is set.
    pub already_captured: usize,
    /// New sessions captured.
    pub captured: Vec<Entry>,
    /// Sessions that grew: their new turns captured as a continuation.
    pub continued: Vec<Entry>,
    /// With `--dry-run`: what a run would capture.
    pub would_capture: Vec<Entry>,
    pub skipped: Vec<Entry>,
    pub failed: Vec<Entry>,
    pub replaced: Vec<Entry>,
    /// Captured sessions that ended before MEMORY.md's window: in the
    /// workspace and search, not in MEMORY.md.
    pub older_than_window: usize,
    /// The harnesses' own memory files, imported as notes ([`memory`]).
    #[serde(skip_serializing_if = "memory::ImportReport::is_empty")]
    pub memory: memory::ImportReport,
}

impl HarvestReport {
    /// Files that need a person: failed or replaced.
    pub fn has_problems(&self) -> bool {
        !self.failed.is_empty() || !self.replaced.is_empty() || !self.memory.conflicts.is_empty()
    }
}

/// Harvests the harness folders of this machine into the workspace.
pub fn harvest(
    settings: &Settings,
    env: &Env,
    now: DateTime<Utc>,
    opts: &HarvestOptions,
    progress: Option<&dyn crate::pipeline::Progress>,
) -> Result<HarvestReport> {
    let cfg = &settings.config.harvest;
    let harnesses: Vec<Harness> = if opts.harnesses.is_empty() {
        cfg.harnesses
            .iter()
            .filter_map(|h| Harness::parse(h))
            .collect()
    } else {
        opts.harnesses.clone()
    };
    let marks = Watermarks::open(&settings.state_dir())?;
    let known: HashMap<String, Watermark> = marks.all()?;
    let run = file::Run {
        settings,
        marks: &marks,
        now,
        since: opts
            .since
            .unwrap_or(now - Duration::days(cfg.max_age_days.min(36_500) as i64)),
        idle: Duration::minutes(cfg.idle_minutes.min(525_600) as i64),
        owner: format!("harvest pid {}", std::process::id()),
        dry_run: opts.dry_run,
        exclusions: file::Exclusions::new(&settings.config)?,
        touched: Default::default(),
        no_wait: opts.no_wait,
        without_model: (!opts.sentences).then(|| {
            let mut quiet = settings.clone();
            quiet.config.sentence.provider = None;
            quiet.config.sentence.command = None;
            quiet
        }),
    };
    let mut report = HarvestReport {
        dry_run: opts.dry_run,
        since: crate::contract::format_ts(run.since),
        ..Default::default()
    };
    let listed: Vec<_> = harnesses
        .iter()
        .copied()
        .map(|harness| {
            let home = harness.home(cfg, env);
            let files = home
                .as_deref()
                .map(|h| sources::list(harness, h, &cfg.agent))
                .unwrap_or_default();
            (harness, home, files)
        })
        .collect();
    if let Some(p) = progress {
        p.begin(listed.iter().map(|(_, _, f)| f.len() as u64).sum());
    }
    for (harness, home, files) in listed {
        let place = report.places.len();
        report.places.push(Place {
            harness,
            home: home.as_ref().map(|h| h.display().to_string()),
            files: files.len(),
            database_sessions: 0,
        });
        for f in files {
            let key = f.path.to_string_lossy().into_owned();
            run.one(&f, known.get(&key), &mut report)?;
            if let Some(p) = progress {
                p.advance();
            }
        }
        let databases = home
            .as_deref()
            .map(|h| sources::databases(harness, h, &cfg.agent))
            .unwrap_or_default();
        for (db, agent) in databases {
            let held = run.database(harness, &db, &agent, &known, &mut report)?;
            report.places[place].database_sessions += held;
        }
    }
    if let Some(p) = progress {
        p.end();
    }
    let excluded = |project: &str| run.exclusions.excludes_project(project);
    let (memory, notes) = memory::import(settings, env, now, &harnesses, &excluded, opts.dry_run)?;
    report.memory = memory;
    run.touched.borrow_mut().extend(notes);
    if !opts.dry_run {
        marks.ran(if opts.daemon { "daemon" } else { "manual" }, now)?;
    }
    // The captures wrote their files durably; they are indexed in one
    // transaction and the projections rendered once for the run. A run
    // killed before this loses nothing: the daemon indexes what it finds on
    // its own, and a run by hand ends with a whole sync (a no-op sync costs
    // a stat a file), which also indexes what a killed run left.
    let touched = run.touched.take();
    if !opts.dry_run && (!opts.daemon || !touched.is_empty()) {
        let mut index = crate::store::Index::open(&settings.index_path())?;
        match opts.daemon {
            true => crate::pipeline::sync_paths(
                &mut index,
                settings,
                now,
                SyncOptions::RENDER,
                &touched,
            )?,
            false => crate::pipeline::sync_with(&mut index, settings, now, SyncOptions::RENDER)?,
        };
    }
    Ok(report)
}

/// How many session files and database sessions a run listed in all.
pub fn files_listed(report: &HarvestReport) -> usize {
    report
        .places
        .iter()
        .map(|p| p.files + p.database_sessions)
        .sum()
}

/// How many sessions harvest finds for `harness` under `home`: session
/// files, and the sessions of its databases (OpenClaw, opencode). A database that exists
/// but cannot be read is an error naming it and the reason.
pub fn sessions_found(
    harness: Harness,
    home: &std::path::Path,
    agent: &str,
) -> std::result::Result<usize, String> {
    let mut n = sources::list(harness, home, agent).len();
    for (db, _) in sources::databases(harness, home, agent) {
        let held = database::open(harness, &db).and_then(|d| d.sessions());
        match held {
            Ok(s) => n += s.len(),
            Err(e) if crate::store::session_db::is_busy(&e) => {}
            Err(e) => return Err(crate::error::message(&e)),
        }
    }
    Ok(n)
}
