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
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer_opt};
use serde::{Deserialize, Serialize};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use crate::config::Settings;
use crate::contract;
use crate::error::{Error, Result};
use crate::lock::{Acquired, PidLock};
use crate::pipeline::{self, SyncOptions, SyncReport};
use crate::scan::{self, FileClass, ScanRules};
use crate::store::Index;

/// The file `status` reads to report on the daemon.
pub const STATE_FILE: &str = "daemon.json";

/// What the daemon last did, for `memsync status`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DaemonState {
    pub pid: u32,
    pub started_at: String,
    pub last_batch_at: Option<String>,
    /// One line: what the last batch read, indexed, removed and wrote.
    pub last_batch: Option<String>,
    /// `watching`, or `polling` when file events are unavailable.
    pub mode: String,
    /// Why the daemon is polling, if it is.
    pub degraded: Option<String>,
}

/// The daemon's view as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct DaemonStatus {
    pub running: bool,
    #[serde(flatten)]
    pub state: Option<DaemonState>,
}

/// Reads the daemon state; `running` is true only while a daemon holds the lock.
pub fn daemon_status(state_dir: &Path) -> DaemonStatus {
    let state = std::fs::read(state_dir.join(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<DaemonState>(&b).ok());
    let running = PidLock::is_held(state_dir, crate::lock::DAEMON_LOCK);
    DaemonStatus { running, state }
}

/// One daemon per workspace: an OS lock on `.memsync/daemon.lock`.
struct DaemonLock {
    _lock: PidLock,
}

impl DaemonLock {
    fn acquire(state_dir: &Path, root: &Path) -> Result<DaemonLock> {
        match PidLock::acquire(state_dir, crate::lock::DAEMON_LOCK, Duration::ZERO)? {
            Acquired::Held(lock) => Ok(DaemonLock { _lock: lock }),
            Acquired::Busy { path, holder } => Err(Error::Locked {
                path,
                reason: format!(
                    "another memsync watch (pid {holder}) is already running for {}",
                    root.display()
                ),
            }),
        }
    }
}

/// Runs the daemon until SIGTERM or SIGINT. `load` reads the settings (again on SIGHUP).
pub fn run(load: impl Fn() -> Result<Settings>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    runtime.block_on(Daemon::start(load)?.serve())
}

/// What woke the daemon.
enum Wake {
    Events(DebounceEventResult),
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
    events: UnboundedReceiver<DebounceEventResult>,
    sender: UnboundedSender<DebounceEventResult>,
    watcher: Option<Debouncer<notify::RecommendedWatcher, RecommendedCache>>,
    state: DaemonState,
    _lock: DaemonLock,
    next_full: Instant,
    /// Paths seen while git held `.git/index.lock`; reconciled once it is gone.
    deferred: bool,
    /// Files that failed validation while still being written, retried with backoff.
    retry: Option<Retry>,
    /// The thread draining the capture job queue, while it runs.
    jobs: Option<std::thread::JoinHandle<()>>,
    /// The repository's git directory, when the workspace is in a work tree.
    git_dir: Option<PathBuf>,
    /// Projections re-rendered but not yet committed (git was busy).
    uncommitted: BTreeSet<String>,
    /// When to look for projections another memsync process wrote.
    commit_check: Option<Instant>,
}

/// Unsettled files to look at again.
struct Retry {
    paths: Vec<String>,
    attempt: u32,
    at: Instant,
}

/// How long a git workspace must be quiet before the daemon commits projections.
const GIT_QUIET: Duration = Duration::from_secs(1);

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
            ..DaemonState::default()
        };
        let next_full = Instant::now() + reconcile_every(&settings);
        let mut daemon = Daemon {
            load,
            settings,
            rules,
            root,
            index,
            events,
            sender,
            watcher: None,
            state,
            _lock: lock,
            next_full,
            deferred: false,
            retry: None,
            jobs: None,
            git_dir: None,
            uncommitted: BTreeSet::new(),
            commit_check: None,
        };
        daemon.git_dir = crate::repo::find_git_dir(&daemon.root);
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
            self.deferred = true;
            self.state.last_batch = Some("start-up: waiting for git to finish".into());
            self.save_state()?;
        } else {
            self.full("start-up")?;
        }
        let _ = sd_notify::notify(false, &[sd_notify::NotifyState::Ready]);
        let watchdog = watchdog_interval();
        tracing::info!(root = %self.root.display(), mode = %self.state.mode, "watching");
        loop {
            let deadline = self.next_wake(watchdog)?;
            let wake = tokio::select! {
                Some(result) = self.events.recv() => Wake::Events(result),
                _ = hangup.recv() => Wake::Reload,
                _ = terminate.recv() => Wake::Stop,
                _ = interrupt.recv() => Wake::Stop,
                _ = jobs.recv() => Wake::Jobs,
                _ = tokio::time::sleep_until(deadline) => Wake::Timer,
            };
            match wake {
                Wake::Events(first) => self.on_events(first)?,
                Wake::Reload => self.reload()?,
                Wake::Stop => break,
                Wake::Timer => self.on_timer()?,
                Wake::Jobs => self.run_jobs(),
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
        if let Some(at) = self.index.next_window_change(now, window)? {
            let wait = (at - now).to_std().unwrap_or_default() + Duration::from_millis(5);
            next = next.min(Instant::now() + wait);
        }
        if self.deferred {
            next = next.min(Instant::now() + Duration::from_millis(250));
        }
        if let Some(r) = &self.retry {
            next = next.min(r.at);
        }
        if let Some(at) = self.commit_check {
            next = next.min(at);
        }
        if self.jobs.is_some() {
            // A job queued while the last drain was finishing must not wait for the next reconcile.
            next = next.min(Instant::now() + Duration::from_secs(1));
        }
        if self.watcher.is_none() {
            next = next.min(Instant::now() + poll_every(&self.settings));
        }
        if let Some(w) = watchdog {
            next = next.min(Instant::now() + w);
        }
        Ok(next)
    }

    /// Reconciles what a batch of events names; a rescan flag, an error, a
    /// directory event or a missing root means a full reconcile.
    fn on_events(&mut self, first: DebounceEventResult) -> Result<()> {
        let mut batch = vec![first];
        while let Ok(more) = self.events.try_recv() {
            batch.push(more);
        }
        let mut paths = BTreeSet::new();
        let mut full_reason = None;
        let mut projection_written = false;
        // Events in the workspace itself, not in git's directory or memsync's state.
        let mut activity = false;
        for result in batch {
            match result {
                Ok(events) => {
                    for event in events {
                        // Reads (ours included) never change content: no feedback loop.
                        if matches!(event.kind, EventKind::Access(_)) {
                            continue;
                        }
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
                }
                Err(errors) => {
                    for e in errors {
                        tracing::warn!(error = %e, "watch error; reconciling everything");
                    }
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
            self.deferred = true;
            return Ok(());
        }
        match full_reason {
            Some(reason) => self.full(reason),
            None => self.paths(paths.into_iter().collect()),
        }
    }

    fn on_timer(&mut self) -> Result<()> {
        if self.commit_check.is_some_and(|at| Instant::now() >= at) {
            self.commit_check = None;
            if self.git_busy() {
                self.schedule_commit();
            } else {
                self.commit_projections();
            }
            return Ok(());
        }
        if self.jobs.as_ref().is_some_and(|t| t.is_finished()) {
            self.jobs = None;
            if self.has_due_jobs() {
                self.run_jobs();
            }
            return Ok(());
        }
        if !self.root.exists() {
            // Never recreate a vanished workspace or drop its rows: wait for it.
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
        if self.deferred && !self.git_busy() {
            self.deferred = false;
            return self.full("git finished");
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
                    self.settings = settings;
                    self.rules = rules;
                    tracing::info!("configuration reloaded");
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

    /// A workspace-relative path the pipeline cares about: a canonical artifact
    /// or tombstone, or a projection someone other than memsync changed. Notes,
    /// excluded paths (git internals, memsync's state, editor temp files) and
    /// memsync's own projection writes are `None`, so they never wake a batch.
    fn is_projection(&self, path: &Path) -> bool {
        scan::relative(&self.root, path)
            .is_some_and(|rel| scan::classify(&rel) == FileClass::Projection)
    }

    fn relevant(&self, path: &Path) -> Option<String> {
        let rel = scan::relative(&self.root, path)?;
        if !self.rules.wants_file(&rel) {
            return None;
        }
        match scan::classify(&rel) {
            FileClass::Artifact | FileClass::Tombstone => Some(rel),
            FileClass::Projection if !self.index.projection_unchanged(&self.root, &rel) => {
                Some(rel)
            }
            FileClass::Projection | FileClass::Note => None,
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

    /// Git holds the index, or a merge, rebase, cherry-pick or revert is in
    /// progress: rendering now could make git's next step refuse, so wait.
    fn git_busy(&self) -> bool {
        match &self.git_dir {
            Some(dir) => crate::repo::busy(dir).is_some(),
            None => self.root.join(".git/index.lock").exists(),
        }
    }

    /// Projections a one-shot memsync (`capture`, `forget`, `sync`) rendered
    /// and nobody committed: dirty in git, with exactly the bytes memsync wrote.
    fn note_memsync_writes(&mut self) {
        match crate::git::dirty_projections(&self.root) {
            Ok(dirty) => {
                for p in dirty {
                    if self.index.projection_unchanged(&self.root, &p) {
                        self.uncommitted.insert(p);
                    }
                }
            }
            Err(e) => tracing::debug!(error = %e, "git status"),
        }
    }

    /// Commits the projections this daemon re-rendered, when git allows.
    /// Asks git once whether auto-commit is on (a process spawn), then notes
    /// and commits.
    fn commit_projections(&mut self) {
        if self.git_dir.is_none() || !crate::git::auto_commit_enabled(&self.settings) {
            self.uncommitted.clear();
            return;
        }
        self.note_memsync_writes();
        if self.uncommitted.is_empty() {
            return;
        }
        let paths: Vec<String> = self.uncommitted.iter().cloned().collect();
        match crate::git::commit_projections(
            &self.root,
            &paths,
            &self.settings.config.git.commit_message,
        ) {
            Ok(crate::git::Committed::Busy(why)) => {
                tracing::debug!(why, "projection commit waits for git");
                self.schedule_commit();
            }
            Ok(done) => {
                tracing::info!(?done, "projection commit");
                self.uncommitted.clear();
            }
            Err(e) => {
                tracing::warn!(error = %e, "projection commit failed; retrying when quiet");
                self.schedule_commit();
            }
        }
    }

    /// Projection commits wait for a quiet second in a git workspace, so they
    /// do not contend with the git commands a person or a sync tool is running.
    fn schedule_commit(&mut self) {
        if self.git_dir.is_some() {
            self.commit_check = Some(Instant::now() + GIT_QUIET);
        }
    }

    /// Drains the capture job queue on a worker thread (one at a time), so a
    /// slow summary command never holds up file events. The captures' own
    /// writes then arrive as events like any other writer's.
    fn run_jobs(&mut self) {
        if self.jobs.as_ref().is_some_and(|t| !t.is_finished()) {
            // The running drain claims new jobs before it exits.
            return;
        }
        let settings = self.settings.clone();
        self.jobs = Some(std::thread::spawn(move || {
            match crate::jobs::run_worker(&settings) {
                Ok(r) => tracing::info!(
                    succeeded = r.succeeded,
                    retried = r.retried,
                    waiting = r.waiting,
                    failed = r.failed,
                    "capture jobs"
                ),
                Err(e) => tracing::error!(error = %e, "capture jobs"),
            }
        }));
    }

    fn has_due_jobs(&self) -> bool {
        crate::jobs::JobQueue::open_existing(&self.settings.state_dir())
            .ok()
            .flatten()
            .is_some_and(|q| q.has_due(Utc::now()).unwrap_or(false))
    }

    fn full(&mut self, reason: &str) -> Result<()> {
        self.check_index();
        if self.has_due_jobs() {
            self.run_jobs();
        }
        self.next_full = Instant::now() + reconcile_every(&self.settings);
        let opts = SyncOptions {
            defer_unsettled: true,
            ..SyncOptions::RENDER
        };
        let report = pipeline::sync_with(&mut self.index, &self.settings, Utc::now(), opts);
        self.schedule_retry(&report, 0);
        self.record(reason, report)
    }

    fn paths(&mut self, paths: Vec<String>) -> Result<()> {
        self.settle(paths, 0)
    }

    /// Reconciles `paths`; files that fail validation while still being written
    /// are retried with backoff (250 ms, 500 ms, 1 s) before they are judged.
    fn settle(&mut self, paths: Vec<String>, attempt: u32) -> Result<()> {
        if self.check_index() {
            return self.full("the index was rebuilt");
        }
        let opts = SyncOptions {
            defer_unsettled: attempt < MAX_DEFERRALS,
            ..SyncOptions::RENDER
        };
        let report =
            pipeline::sync_paths(&mut self.index, &self.settings, Utc::now(), opts, &paths);
        self.schedule_retry(&report, attempt);
        let reason = if attempt == 0 {
            "file events"
        } else {
            "a retry of unsettled files"
        };
        self.record(reason, report)
    }

    /// Reopens the index when it was deleted, replaced, truncated or damaged
    /// under the daemon; true when it did, and the next batch must be a full one.
    fn check_index(&mut self) -> bool {
        if self.index.still_on_disk() {
            return false;
        }
        tracing::warn!(index = %self.index.path.display(), "the index was deleted or damaged under the daemon; rebuilding it from markdown");
        self.reopen_index(false);
        true
    }

    fn reopen_index(&mut self, discard: bool) {
        if let Err(e) = self.index.reopen(discard) {
            tracing::error!(error = %e, "index not reopened; retrying at the next batch");
        }
        self.next_full = Instant::now();
    }

    /// Files still being written are looked at again after a backoff.
    fn schedule_retry(&mut self, report: &Result<SyncReport>, attempt: u32) {
        if let Ok(r) = report
            && !r.unsettled.is_empty()
        {
            tracing::debug!(files = ?r.unsettled, attempt, "still being written; retrying");
            self.retry = Some(Retry {
                paths: r.unsettled.clone(),
                attempt: attempt + 1,
                at: Instant::now() + Duration::from_millis(250 << attempt),
            });
        }
    }

    /// Logs a batch and saves the state file. A failed batch is logged and the
    /// daemon carries on: the next event or timer reconciles again.
    fn record(&mut self, reason: &str, report: Result<SyncReport>) -> Result<()> {
        let now = contract::format_ts(Utc::now());
        let line = match report {
            Ok(r) => {
                self.uncommitted
                    .extend(r.projections_written.iter().cloned());
                self.schedule_commit();
                tracing::info!(
                    reason,
                    read = r.read,
                    indexed = r.indexed,
                    removed = r.removed,
                    written = r.projections_written.len(),
                    ms = r.duration_ms as u64,
                    "batch"
                );
                format!(
                    "{reason}: read {}, indexed {}, removed {}, wrote {} projection(s) in {} ms",
                    r.read,
                    r.indexed,
                    r.removed,
                    r.projections_written.len(),
                    r.duration_ms
                )
            }
            Err(e) => {
                tracing::error!(reason, error = %e, "batch failed");
                if crate::store::is_damage(&e) {
                    // A damaged page the header check could not see.
                    self.reopen_index(true);
                }
                format!("{reason}: failed: {e}")
            }
        };
        self.state.last_batch_at = Some(now);
        self.state.last_batch = Some(line);
        if let Err(e) = self.save_state() {
            // The state file only feeds `status`; an unwritable state
            // directory must not stop the daemon keeping projections current.
            tracing::warn!(error = %e, "state file not written");
        }
        Ok(())
    }

    fn save_state(&self) -> Result<()> {
        let dir = self.settings.state_dir();
        if !dir.is_dir() {
            return Ok(()); // the workspace is gone; never recreate it
        }
        let path = dir.join(STATE_FILE);
        let bytes = serde_json::to_vec_pretty(&self.state).unwrap_or_default();
        crate::files::write_atomic(&path, &bytes).map_err(|e| Error::io(&path, e))
    }

    /// (Re)creates the recursive watch; on failure the daemon polls instead.
    fn rewatch(&mut self) {
        self.watcher = None;
        let debounce = Duration::from_millis(self.settings.config.watch.debounce_ms);
        let sender = self.sender.clone();
        let handler = move |result: DebounceEventResult| {
            let _ = sender.send(result);
        };
        // Symlinks are never followed: one watch tree, the workspace itself.
        let config = notify::Config::default().with_follow_symlinks(false);
        let made = new_debouncer_opt::<_, notify::RecommendedWatcher, RecommendedCache>(
            debounce,
            None,
            handler,
            RecommendedCache::new(),
            config,
        )
        .and_then(|mut d| {
            d.watch(&self.root, notify::RecursiveMode::Recursive)
                .map(|_| d)
        });
        match made {
            Ok(d) => {
                self.watcher = Some(d);
                if self.state.degraded.take().is_some() {
                    tracing::info!("file events are back; stopped polling");
                    self.next_full = Instant::now(); // catch up on what happened meanwhile
                }
                self.state.mode = "watching".into();
            }
            Err(e) => self.degrade(&format!("cannot watch {}: {e}", self.root.display())),
        }
    }

    fn degrade(&mut self, why: &str) {
        if self.state.degraded.as_deref() != Some(why) {
            tracing::warn!(
                reason = why,
                every_s = poll_every(&self.settings).as_secs(),
                "polling instead of watching"
            );
        }
        self.watcher = None;
        self.state.mode = "polling".into();
        self.state.degraded = Some(why.to_string());
        let _ = self.save_state();
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
