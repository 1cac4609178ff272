//! The rows at 4×, 16× and 32× the reference workspace: cold peak RSS (the
//! docs promise ≤ 64 MiB at any size) and what one daemon event costs.

use std::path::Path;
use std::time::Duration;

use memsync::config::{Env, Settings};
use memsync::generate::{self, Shape};

use crate::{Timing, median, reset, rewrite, settle, summaries, sync, time};

/// One scale's figures.
pub struct Scale {
    pub times: i64,
    pub sessions: usize,
    pub files: usize,
    pub cold: Duration,
    pub cold_rss_kib: i64,
    pub noop: Duration,
    pub per_event: Option<Events>,
}

/// Generates `times` × the reference workspace, syncs it cold once (time and
/// peak RSS), re-syncs it, and (when `events`) measures one daemon event.
pub fn measure(tmp: &Path, now: chrono::DateTime<chrono::Utc>, times: i64, events: bool) -> Scale {
    let root = tmp.join(format!("ws{times}x"));
    let mut settings = Settings::load(Some(&root), None, &Env::default()).expect("settings");
    settings.config.daily_logs.timezone = "UTC".into();
    let base = Shape::default();
    let shape = Shape {
        per_day: base.per_day * times,
        older: base.older * times,
        ..base
    };
    let g = generate::generate(&root, now, shape, &settings.config).expect("generate");
    settle();
    reset(&root);
    let started = std::time::Instant::now();
    let cold_rss_kib = sync(&root);
    let cold = started.elapsed();
    let noop = time(|| {
        sync(&root);
    });
    let per_event = events.then(|| per_event(&root, &settings));
    let _ = std::fs::remove_dir_all(&root);
    Scale {
        times,
        sessions: g.sessions,
        files: g.files,
        cold,
        cold_rss_kib,
        noop,
        per_event,
    }
}

/// What one daemon event costs, by what it changes.
#[derive(Clone, Copy)]
pub struct Events {
    /// A summary's body: the index and search change, no projection does.
    pub body: Timing,
    /// A summary's ledger sentence: MEMORY.md and today's log are rendered again.
    pub line: Timing,
}

/// What the daemon pays for one event: today's newest summary rewritten,
/// then a reconcile of that one path (index, daily log, MEMORY.md), in
/// process with the index open, median of 15 each.
pub fn per_event(root: &Path, settings: &Settings) -> Events {
    let mut index = memsync::store::Index::open(&settings.index_path()).expect("index");
    // As the daemon reconciles a batch of events: a watcher names the
    // projection files that changed.
    let opts = memsync::pipeline::SyncOptions {
        watched: true,
        ..memsync::pipeline::SyncOptions::RENDER
    };
    memsync::pipeline::sync_with(&mut index, settings, chrono::Utc::now(), opts).expect("sync");
    let newest = summaries(root, 1).pop().expect("a summary");
    let rel = newest
        .strip_prefix(root)
        .expect("in the workspace")
        .to_string_lossy()
        .into_owned();
    let mut timed = |new_line: bool, from: usize| {
        median(
            (0..15)
                .map(|i| {
                    rewrite(&newest, from + i, new_line);
                    time(|| {
                        memsync::pipeline::sync_paths(
                            &mut index,
                            settings,
                            chrono::Utc::now(),
                            opts,
                            std::slice::from_ref(&rel),
                        )
                        .expect("one event");
                    })
                })
                .collect(),
        )
    };
    Events {
        body: timed(false, 1000),
        line: timed(true, 2000),
    }
}
