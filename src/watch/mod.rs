//! Watch stage: the daemon behind `memsync watch`.
//!
//! Owns: turning file events into reconciles (events are hints, the filesystem
//! is the truth), the timers (a slow full reconcile, the ledger window rolling
//! past a row), the one-daemon-per-workspace lock, signals, systemd
//! notifications, and the state file `status` reads. Must not: validate, index
//! or render by itself (that is `pipeline`), or write any canonical file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::Utc;
use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind, RenameMode};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use crate::config::Settings;
use crate::contract;
use crate::error::{Error, Result};
use crate::pipeline::{self, SyncOptions, SyncReport};
use crate::scan::{self, FileClass, ScanRules};
use crate::store::Index;

mod flush;
pub mod journal;
mod reconcile;
mod replaced;
mod state;

pub use flush::{FlushAnswer, ask_daemon_to_flush};
use state::DaemonLock;
pub use state::{DaemonState, DaemonStatus, daemon_status};

/// The file `status` reads to report on the daemon.
pub const STATE_FILE: &str = "daemon.json";

/// The replaced files writers still held when the daemon stopped.
const HELD_FILES: &str = "held-files.json";

/// Runs the daemon until SIGTERM or SIGINT. `load` reads the settings (again on SIGHUP).
pub fn run(load: impl Fn() -> Result<Settings>) -> Result<()> {
    pipeline::keep_heap_compact();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    runtime.block_on(Daemon::start(load)?.serve())
}

/// What woke the daemon.
enum Wake {
    Event(RawEvent),
    Reload,
    Stop,
    Timer,
    /// A hook queued a capture job (SIGUSR1).
    Jobs,
}

struct Daemon<L> {
    load: L,
    settings: Settings,
    rules: ScanRules,
    root: PathBuf,
    index: Index,
    events: UnboundedReceiver<RawEvent>,
    sender: UnboundedSender<RawEvent>,
    watcher: Option<notify::RecommendedWatcher>,
    /// Events gathered since the last batch: reconciled once the tree has
    /// been quiet for `watch.debounce_ms` (or after `MAX_GATHER` of activity).
    /// The timer is armed only while something is pending, so an idle
    /// daemon sleeps until the next event.
    pending: Vec<RawEvent>,
    /// (first event of the batch, latest event).
    pending_at: Option<(Instant, Instant)>,
    state: DaemonState,
    _lock: DaemonLock,
    next_full: Instant,
    /// What arrived while git held `.git/index.lock`; reconciled once it is gone.
    deferred: Option<reconcile::Deferred>,
    /// Files that failed validation while still being written, retried with backoff.
    retry: Option<Retry>,
    /// The thread draining the capture job queue, while it runs.
    jobs: Option<reconcile::JobDrain>,
    /// The repository's git directory, when the workspace is in a work tree.
    git_dir: Option<PathBuf>,
    /// Projections re-rendered but not yet committed (git was busy).
    uncommitted: BTreeSet<String>,
    /// Blobs this daemon put in git's index for a commit that has not landed
    /// yet, and what it rendered lately (to know its bytes when git stages them).
    own_staging: crate::git::OwnStaging,
    renders: crate::git::RecentRenders,
    /// When to look for projections to commit, and since when a change waits.
    commit_check: Option<Instant>,
    commit_pending_since: Option<Instant>,
    /// The thread harvesting the harness folders, while it runs.
    harvest: Option<std::thread::JoinHandle<()>>,
    /// When to harvest next (`harvest.enabled`); `None`: soon after start-up.
    next_harvest: Option<Instant>,
    /// Replaced projections that writers still hold open, followed until they close them.
    held_files: crate::files::HeldFiles,
    /// Projections others write, kept open so a file git replaces stays
    /// readable until git is done and its lines can be compared.
    holds: replaced::Holds,
    /// Replaced projections' text by path, waiting for git to be idle for a rescue.
    rescues: std::collections::BTreeMap<String, String>,
    /// `git::stash_mark` when the daemon last restored autostash entries.
    stash_mark: Option<String>,
    /// The clock the last render judged the ledger window by. The next roll
    /// is the first window change after it, so a wake-up for any other
    /// reason just past a roll cannot skip it.
    rendered_at: chrono::DateTime<Utc>,
    /// Answers owed to `sync`s that asked for the pending batch now (`flush`).
    flushes: Vec<PathBuf>,
    /// The report of the last reconcile, for those answers.
    last_report: Option<SyncReport>,
}

/// Unsettled files to look at again.
struct Retry {
    paths: Vec<String>,
    attempt: u32,
    at: Instant,
}

/// One event as notify delivers it.
type RawEvent = notify::Result<notify::Event>;

/// A tree that never goes quiet is still reconciled this often.
const MAX_GATHER: Duration = Duration::from_secs(2);

/// After this many deferrals an unsettled file is judged as it is.
const MAX_DEFERRALS: u32 = 3;

impl<L: Fn() -> Result<Settings>> Daemon<L> {
    fn start(load: L) -> Result<Daemon<L>> {
        let settings = load()?;
        let root =
            std::fs::canonicalize(&settings.root).map_err(|e| Error::io(&settings.root, e))?;
        let lock = DaemonLock::acquire(&settings.state_dir(), &root)?;
        let index = Index::open(&settings.index_path())?;
        let rules = pipeline::scan_rules(&settings)?;
        let (sender, events) = unbounded_channel();
        let state = DaemonState {
            pid: std::process::id(),
            started_at: contract::format_ts(Utc::now()),
            mode: "watching".into(),
            index: flush::canonical_index(&settings),
            config_digest: Some(state::config_digest(&settings)),
            ..DaemonState::default()
        };
        let next_full = Instant::now() + reconcile_every(&settings);
        // Lines a writer adds to a replaced file are copied over, but never
        // while git works in the repository.
        let held_files = crate::files::HeldFiles::start(
            {
                let root = root.clone();
                move || crate::repo::git_at_work(&root)
            },
            Some(settings.state_dir().join(HELD_FILES)),
        )
        .map_err(|e| Error::io("<thread>", e))?;
        let adopted = held_files.adopt_recorded();
        if adopted > 0 {
            tracing::info!(
                files = adopted,
                "following again the replaced files writers held when the daemon stopped"
            );
        }
        let holds = replaced::Holds::new(&root, crate::repo::find_git_dir(&root));
        let mut daemon = Daemon {
            load,
            settings,
            rules,
            root,
            index,
            events,
            sender,
            watcher: None,
            pending: Vec::new(),
            pending_at: None,
            state,
            _lock: lock,
            next_full,
            deferred: None,
            retry: None,
            jobs: None,
            git_dir: None,
            uncommitted: BTreeSet::new(),
            own_staging: Default::default(),
            renders: Default::default(),
            commit_check: None,
            commit_pending_since: None,
            harvest: None,
            next_harvest: None,
            held_files,
            stash_mark: None,
            holds,
            rescues: Default::default(),
            rendered_at: Utc::now(),
            flushes: Vec::new(),
            last_report: None,
        };
        daemon.git_dir = crate::repo::find_git_dir(&daemon.root);
        flush::prepare(&daemon.settings.state_dir());
        daemon.rewatch();
        Ok(daemon)
    }

    async fn serve(mut self) -> Result<()> {
        let mut hangup = signal(SignalKind::hangup()).map_err(|e| Error::io("<signal>", e))?;
        let mut terminate =
            signal(SignalKind::terminate()).map_err(|e| Error::io("<signal>", e))?;
        let mut interrupt =
            signal(SignalKind::interrupt()).map_err(|e| Error::io("<signal>", e))?;
        let mut jobs = signal(SignalKind::user_defined1()).map_err(|e| Error::io("<signal>", e))?;
        if self.git_busy() {
            // Mid-merge or mid-rebase: rendering now could stop git's next step.
            self.deferred = Some(reconcile::Deferred::full("git finished"));
            self.state.last_batch = Some("start-up: waiting for git to finish".into());
            self.save_state()?;
        } else {
            self.full("start-up")?;
        }
        let _ = sd_notify::notify(false, &[sd_notify::NotifyState::Ready]);
        let watchdog = watchdog_interval();
        tracing::info!(root = %self.root.display(), mode = %self.state.mode, "watching");
        if let Some(warning) = crate::service::hardening_warning(&self.settings) {
            tracing::warn!("{warning}");
        }
        loop {
            let deadline = match self.next_wake(watchdog) {
                Ok(deadline) => deadline,
                Err(e) => {
                    self.survive(e)?;
                    tokio::time::Instant::now() + Duration::from_secs(1)
                }
            };
            let wake = tokio::select! {
                Some(event) = self.events.recv() => Wake::Event(event),
                _ = hangup.recv() => Wake::Reload,
                _ = terminate.recv() => Wake::Stop,
                _ = interrupt.recv() => Wake::Stop,
                _ = jobs.recv() => Wake::Jobs,
                _ = tokio::time::sleep_until(deadline) => Wake::Timer,
            };
            let settled = !matches!(wake, Wake::Event(_));
            let handled = match wake {
                Wake::Event(event) => {
                    self.gather(event);
                    Ok(())
                }
                Wake::Reload => self.reload(),
                Wake::Stop => break,
                Wake::Timer if self.batch_due() => self.on_events(),
                Wake::Timer => self.on_timer(),
                Wake::Jobs => {
                    self.run_jobs();
                    Ok(())
                }
            };
            if let Err(e) = handled {
                self.survive(e)?;
            }
            if settled {
                self.index.release_cache();
                pipeline::release_freed_memory();
            }
            if watchdog.is_some() {
                let _ = sd_notify::notify(false, &[sd_notify::NotifyState::Watchdog]);
            }
        }
        tracing::info!("stopping");
        let _ = sd_notify::notify(false, &[sd_notify::NotifyState::Stopping]);
        Ok(())
    }

    /// The earliest of: the slow full reconcile, the next moment a ledger row
    /// enters or leaves the window, a git lock retry, a poll, and the watchdog.
    fn next_wake(&self, watchdog: Option<Duration>) -> Result<Instant> {
        let mut next = self.next_full;
        let now = Utc::now();
        let window = chrono::Duration::days(self.settings.config.memory_md.window_days as i64);
        if let Some(at) = self.index.next_window_change(self.rendered_at, window)? {
            let wait = (at - now).to_std().unwrap_or_default() + Duration::from_millis(5);
            next = next.min(Instant::now() + wait);
        }
        if let Some(d) = &self.deferred {
            next = next.min(d.recheck_at);
        }
        if let Some(r) = &self.retry {
            next = next.min(r.at);
        }
        if let Some(at) = self.commit_check {
            next = next.min(at);
        }
        if let Some(at) = self.harvest_due() {
            next = next.min(at);
        }
        if let Some(drain) = &self.jobs {
            // A job queued while the last drain was finishing must not wait for the next reconcile.
            next = next.min(drain.look_at);
        }
        if self.watcher.is_none() {
            next = next.min(Instant::now() + poll_every(&self.settings));
        }
        if let Some(w) = watchdog {
            next = next.min(Instant::now() + w);
        }
        if let Some(at) = self.batch_at() {
            next = next.min(at);
        }
        Ok(next)
    }

    /// Adds an event (and any already queued behind it) to the pending batch.
    /// Events in excluded places (memsync's own state, git's objects) do not
    /// extend the quiet period.
    fn gather(&mut self, event: RawEvent) {
        let mut queued = vec![event];
        while let Ok(more) = self.events.try_recv() {
            queued.push(more);
        }
        let now = Instant::now();
        let state_dir = self.root.join(crate::STATE_DIR);
        for event in queued {
            if let Ok(e) = &event {
                let asked = e
                    .paths
                    .iter()
                    .filter_map(|p| flush::answer_for(&state_dir, p));
                for answer in asked {
                    if !self.flushes.contains(&answer) {
                        self.flushes.push(answer);
                    }
                }
            }
            let counts = match &event {
                Ok(e) => e.paths.iter().any(|p| {
                    scan::relative(&self.root, p)
                        .is_none_or(|rel| !self.rules.is_under_excluded(&rel))
                }),
                Err(_) => true,
            };
            self.pending.push(event);
            self.pending_at = match self.pending_at {
                Some((first, _)) if counts => Some((first, now)),
                Some(at) => Some(at),
                None => Some((now, now)),
            };
        }
    }

    /// When the pending batch is due: quiet for the debounce, or gathering too long.
    fn batch_at(&self) -> Option<Instant> {
        let debounce = Duration::from_millis(self.settings.config.watch.debounce_ms);
        let asked = !self.flushes.is_empty();
        self.pending_at.map(|(first, last)| match asked {
            true => first,
            false => (last + debounce).min(first + MAX_GATHER),
        })
    }

    fn batch_due(&self) -> bool {
        self.batch_at().is_some_and(|at| Instant::now() >= at)
    }

    /// Reconciles the pending batch, then answers the `sync`s that asked for it.
    fn on_events(&mut self) -> Result<()> {
        let flushes = std::mem::take(&mut self.flushes);
        self.last_report = None;
        let done = self.reconcile_events();
        let declined = match &done {
            Err(e) => Some(format!("its reconcile failed: {e}")),
            Ok(()) if self.deferred.is_some() => Some("git is at work in the repository".into()),
            Ok(()) if self.watcher.is_none() => Some("it is not watching".into()),
            Ok(()) => None,
        };
        for path in flushes {
            let answer = flush::FlushAnswer {
                pid: self.state.pid,
                report: self.last_report.clone(),
                declined: declined.clone(),
            };
            flush::answer(&path, &answer);
        }
        done
    }

    /// Reconciles what a batch of events names; a rescan flag, an error, a
    /// directory event or a missing root means a full reconcile.
    fn reconcile_events(&mut self) -> Result<()> {
        let batch = std::mem::take(&mut self.pending);
        self.pending_at = None;
        let mut paths = BTreeSet::new();
        let mut full_reason = None;
        let mut projection_written = false;
        // Events in the workspace itself, not in git's directory or memsync's state.
        let mut activity = false;
        for result in batch {
            match result {
                Ok(event) => {
                    tracing::debug!(kind = ?event.kind, paths = ?event.paths, "event");
                    if self.needs_full(&event) {
                        full_reason = Some("a rescan or directory event");
                    }
                    for path in &event.paths {
                        projection_written |= self.is_projection(path);
                        activity |= scan::relative(&self.root, path)
                            .is_some_and(|rel| !self.rules.is_under_excluded(&rel));
                        if let Some(rel) = self.relevant(path) {
                            paths.insert(rel);
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "watch error; reconciling everything");
                    full_reason = Some("a watcher error");
                }
            }
        }
        if !self.root.exists() {
            self.degrade("the workspace root disappeared");
            return Ok(());
        }
        if projection_written || (activity && self.commit_check.is_some()) {
            // A one-shot memsync (capture, forget, sync) rendered, or activity
            // continues: commit once things are quiet.
            self.schedule_commit();
        }
        if paths.is_empty() && full_reason.is_none() {
            return Ok(());
        }
        if self.git_busy() {
            self.deferred
                .get_or_insert_default()
                .add(paths, full_reason);
            return Ok(());
        }
        match full_reason {
            Some(reason) => self.full(reason),
            None => self.paths(paths.into_iter().collect()),
        }
    }

    fn on_timer(&mut self) -> Result<()> {
        if self.harvest_due().is_some_and(|at| Instant::now() >= at) {
            let every = Duration::from_secs(self.settings.config.harvest.interval_seconds.max(1));
            self.next_harvest = Some(Instant::now() + every);
            self.run_harvest();
            return Ok(());
        }
        if self.commit_check.is_some_and(|at| Instant::now() >= at) {
            self.commit_check = None;
            if self.git_busy() {
                self.schedule_commit();
            } else {
                self.commit_projections();
            }
            return Ok(());
        }
        if self.jobs.as_ref().is_some_and(|d| d.thread.is_finished()) {
            self.jobs = None;
            if self.has_due_jobs() {
                self.run_jobs();
            }
            return Ok(());
        }
        if let Some(drain) = self.jobs.as_mut() {
            drain.look_later();
        }
        if !self.root.exists() {
            // Never recreate a vanished workspace or drop its rows: wait for it.
            // Nothing renders meanwhile, so no window roll is owed either.
            self.rendered_at = Utc::now();
            self.degrade("the workspace root disappeared");
            return Ok(());
        }
        if self.watcher.is_none() {
            self.rewatch();
        }
        if self.retry.as_ref().is_some_and(|r| Instant::now() >= r.at)
            && let Some(r) = self.retry.take()
        {
            return self.settle(r.paths, r.attempt);
        }
        if self.git_let_go() {
            return self.after_git();
        }
        if Instant::now() >= self.next_full || self.watcher.is_none() {
            return self.full("the periodic reconcile");
        }
        // The window rolled: only projections can change.
        self.paths(Vec::new())
    }

    fn reload(&mut self) -> Result<()> {
        match (self.load)() {
            Ok(settings) => match pipeline::scan_rules(&settings) {
                Ok(rules) => {
                    self.state.config_digest = Some(state::config_digest(&settings));
                    self.settings = settings;
                    self.rules = rules;
                    tracing::info!("configuration reloaded");
                    if let Some(warning) = crate::service::hardening_warning(&self.settings) {
                        tracing::warn!("{warning}");
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, "configuration not reloaded; keeping the previous one")
                }
            },
            Err(e) => {
                tracing::error!(error = %e, "configuration not reloaded; keeping the previous one")
            }
        }
        self.full("SIGHUP")
    }

    fn is_projection(&self, path: &Path) -> bool {
        let rel = scan::relative(&self.root, path);
        rel.is_some_and(|rel| scan::classify(&rel) == FileClass::Projection)
    }

    /// A workspace-relative path the pipeline cares about: an artifact, a
    /// tombstone, a note, or a projection someone other than memsync changed;
    /// excluded paths and memsync's own writes never wake a batch.
    fn relevant(&self, path: &Path) -> Option<String> {
        let rel = scan::relative(&self.root, path)?;
        if !self.rules.wants_file(&rel) {
            return None;
        }
        match scan::classify(&rel) {
            FileClass::Artifact | FileClass::Tombstone => Some(rel),
            FileClass::Note => crate::note::is_note_path(&rel).then_some(rel),
            FileClass::Projection => {
                (!self.index.projection_unchanged(&self.root, &rel)).then_some(rel)
            }
        }
    }

    /// A rescan flag, or a directory created, removed or moved: inotify may miss
    /// what happens inside a new directory before its watch exists, and a moved
    /// directory arrives as one path, so the daemon reconciles everything.
    fn needs_full(&self, event: &notify::Event) -> bool {
        if event.need_rescan() {
            return true;
        }
        // Git's own directories (objects, refs) change with every commit, ours included.
        let inside = |p: &Path| {
            scan::relative(&self.root, p).is_none_or(|rel| !self.rules.is_under_excluded(&rel))
        };
        if !event.paths.iter().any(|p| inside(p)) {
            return false;
        }
        if is_directory_event(&event.kind) {
            return true;
        }
        let moved = matches!(
            event.kind,
            EventKind::Modify(ModifyKind::Name(_)) | EventKind::Remove(_)
        );
        moved
            && event.paths.iter().any(|p| {
                p.is_dir()
                    || (!p.exists()
                        && scan::relative(&self.root, p)
                            .is_some_and(|rel| self.index.has_files_under(&rel)))
            })
    }
}

/// Events that name a directory by their kind.
fn is_directory_event(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(CreateKind::Folder)
            | EventKind::Remove(RemoveKind::Folder)
            | EventKind::Modify(ModifyKind::Name(RenameMode::Any | RenameMode::Other))
    )
}

fn reconcile_every(settings: &Settings) -> Duration {
    Duration::from_secs(settings.config.watch.reconcile_minutes.max(1) * 60)
}

fn poll_every(settings: &Settings) -> Duration {
    Duration::from_secs(settings.config.watch.poll_seconds.max(1))
}

/// Half the systemd watchdog interval, when systemd asked for pings.
fn watchdog_interval() -> Option<Duration> {
    let mut usec = 0;
    sd_notify::watchdog_enabled(false, &mut usec).then(|| Duration::from_micros(usec / 2))
}
