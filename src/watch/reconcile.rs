//! The daemon's reconciling side: syncing what changed (with retries),
//! keeping the index healthy, running capture jobs, committing projections,
//! and recording what it did for `status`.
//!
//! Owns: what one wake-up does to the workspace. Must not: decide when to
//! wake (that is the event loop in `watch`).

use super::*;

/// How often the daemon looks whether git has let go.
const GIT_RECHECK: Duration = Duration::from_millis(250);

/// What arrived while git held the repository.
#[derive(Debug)]
pub(super) struct Deferred {
    pub paths: BTreeSet<String>,
    /// Why a full reconcile is owed instead, when one is.
    pub full: Option<&'static str>,
    /// When to look again whether git has let go. A fixed instant, not
    /// "250 ms from now" at every wake: git's own writes in its directory
    /// (a prompt's `git status` every 50 ms) wake the daemon more often
    /// than that, and the look would never come.
    pub recheck_at: Instant,
}

impl Default for Deferred {
    fn default() -> Deferred {
        Deferred {
            paths: BTreeSet::new(),
            full: None,
            recheck_at: Instant::now() + GIT_RECHECK,
        }
    }
}

impl Deferred {
    pub fn full(reason: &'static str) -> Deferred {
        Deferred {
            full: Some(reason),
            ..Deferred::default()
        }
    }

    /// Git still holds the repository: look again a little later.
    pub fn recheck_later(&mut self) {
        self.recheck_at = Instant::now() + GIT_RECHECK;
    }

    pub fn add(&mut self, paths: BTreeSet<String>, full: Option<&'static str>) {
        self.paths.extend(paths);
        self.full = self.full.or(full);
    }
}

/// The thread draining the capture job queue, and when to look whether it
/// has finished: a fixed instant, for the reason `Deferred::recheck_at` is.
#[derive(Debug)]
pub(super) struct JobDrain {
    pub thread: std::thread::JoinHandle<()>,
    pub look_at: Instant,
}

impl JobDrain {
    fn new(thread: std::thread::JoinHandle<()>) -> JobDrain {
        JobDrain {
            thread,
            look_at: Instant::now() + Duration::from_secs(1),
        }
    }

    /// Still draining: look again a second later, once that look is due.
    pub fn look_later(&mut self) {
        if Instant::now() >= self.look_at {
            self.look_at = Instant::now() + Duration::from_secs(1);
        }
    }
}

impl<L: Fn() -> Result<Settings>> Daemon<L> {
    /// The index is derived, so no failure of it stops the daemon: it is
    /// reopened (set aside first when damaged) and the next batch is a full
    /// one. Anything else (a configuration that no longer loads) does.
    pub(super) fn survive(&mut self, e: Error) -> Result<()> {
        if !matches!(e, Error::Store(_)) {
            return Err(e);
        }
        tracing::error!(error = %e, "index failed; reopening it and reconciling in full");
        let damaged = crate::store::is_damage(&e);
        self.reopen_index(damaged);
        Ok(())
    }

    /// Git holds the index, or a merge, rebase, cherry-pick or revert is in
    /// progress: rendering now could make git's next step refuse, so wait.
    /// A git command running in the work tree counts too: a pull's fetch
    /// leaves no lock file, and a commit or render landing before its merge
    /// makes the pull fail.
    pub(super) fn git_busy(&self) -> bool {
        match &self.git_dir {
            Some(dir) => crate::repo::git_at_work_in(dir, &self.root),
            None => self.root.join(".git/index.lock").exists(),
        }
    }

    /// Projections a one-shot memsync (`capture`, `forget`, `sync`) rendered
    /// and nobody committed: dirty in git, with exactly the bytes memsync wrote.
    pub(super) fn note_memsync_writes(&mut self) {
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

    /// Merges back into the work tree the projection lines a pull left in an
    /// autostash entry, and drops the entry (`git::restore_left_stashes`).
    /// Called only while git is idle; looks at the stash list only when it
    /// changed.
    pub(super) fn restore_stashes(&mut self) {
        if self.git_dir.is_none() {
            return;
        }
        let mut rescues = std::mem::take(&mut self.rescues);
        self.holds.take_replaced(&mut rescues);
        let idle = || !self.git_busy();
        let while_held = crate::files::WhileHeld::Follow(&self.held_files);
        let mut later = std::collections::BTreeMap::new();
        // Rescued before the stash entries are restored: the lines of an
        // entry count as known to git until it is merged back.
        for (rel, old) in rescues {
            match crate::git::rescue_lines(&self.root, &rel, &old, while_held, &idle) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    later.insert(rel, old);
                }
                Err(e) => {
                    tracing::warn!(path = rel, error = %e, "cannot restore lines git replaced")
                }
            }
        }
        let mark = crate::git::stash_mark(&self.root);
        let restored = (mark.is_some() && mark != self.stash_mark)
            .then(|| crate::git::restore_left_stashes(&self.root, while_held, &idle));
        if !later.is_empty() {
            self.schedule_commit();
        }
        self.rescues = later;
        match restored {
            None => self.stash_mark = mark,
            Some(Ok(done)) => {
                if !done.kept.is_empty() {
                    tracing::warn!(kept = ?done.kept, "autostash entries that hold other files than projections are left for you");
                }
                // Interrupted by git, or an entry is still to restore (one a
                // pull pushed while this pass worked): look again once quiet.
                self.stash_mark = crate::git::settled_mark(&self.root, &done);
                if self.stash_mark.is_none() {
                    self.schedule_commit();
                }
            }
            Some(Err(e)) => {
                tracing::warn!(error = %e, "cannot restore an autostash entry; trying again later")
            }
        }
    }

    /// Commits the projections this daemon re-rendered, when git allows.
    /// Asks git once whether auto-commit is on (a process spawn), then notes
    /// and commits.
    pub(super) fn commit_projections(&mut self) {
        self.restore_stashes();
        if self.git_dir.is_none() || !crate::git::auto_commit_enabled(&self.settings) {
            self.uncommitted.clear();
            self.commit_pending_since = None;
            return;
        }
        self.note_memsync_writes();
        if self.uncommitted.is_empty() {
            self.commit_pending_since = None;
            return;
        }
        let paths: Vec<String> = self.uncommitted.iter().cloned().collect();
        match crate::git::commit_projections(
            &self.root,
            &paths,
            &self.settings.config.git.commit_message,
            self.settings.config.git.commit_scope,
            &mut self.own_staging,
            &self.renders,
        ) {
            Ok(crate::git::Committed::Busy(why)) => {
                tracing::debug!(why, "projection commit waits for git");
                self.schedule_commit();
            }
            Ok(done) => {
                tracing::info!(?done, "projection commit");
                if let crate::git::Committed::Paths(paths) = done {
                    self.journal(
                        "commit",
                        format!("committed memsync's block of {} file(s)", paths.len()),
                        paths,
                    );
                }
                self.uncommitted.clear();
                self.commit_pending_since = None;
            }
            Err(e) => {
                tracing::warn!(error = %e, "projection commit failed; retrying when quiet");
                self.schedule_commit();
            }
        }
    }

    /// Projection commits wait until the workspace has been quiet for
    /// `git.commit_quiet_ms` (every event moves it on), so they neither
    /// contend with a person's git commands nor land while someone types;
    /// but no longer than `git.commit_max_delay_seconds` after the first
    /// change waiting, so steady writes still reach git.
    pub(super) fn schedule_commit(&mut self) {
        if self.git_dir.is_some() {
            let git = &self.settings.config.git;
            let now = Instant::now();
            let since = *self.commit_pending_since.get_or_insert(now);
            let latest = since + Duration::from_secs(git.commit_max_delay_seconds);
            let quiet = now + Duration::from_millis(git.commit_quiet_ms);
            self.commit_check = Some(if now < latest {
                quiet.min(latest)
            } else {
                // Overdue: an event moves a pending check on no more; a
                // retry (git busy, a failed commit) waits a second, never spins.
                self.commit_check.unwrap_or(now + Duration::from_secs(1))
            });
        }
    }

    /// Drains the capture job queue on a worker thread (one at a time), so a
    /// slow summary command never holds up file events. The captures' own
    /// writes then arrive as events like any other writer's.
    pub(super) fn run_jobs(&mut self) {
        if self.jobs.as_ref().is_some_and(|d| !d.thread.is_finished()) {
            // The running drain claims new jobs before it exits.
            return;
        }
        let settings = self.settings.clone();
        let thread = std::thread::spawn(move || match crate::jobs::run_worker(&settings) {
            Ok(r) => tracing::info!(
                succeeded = r.succeeded,
                retried = r.retried,
                waiting = r.waiting,
                failed = r.failed,
                "capture jobs"
            ),
            Err(e) => tracing::error!(error = %e, "capture jobs"),
        });
        self.jobs = Some(JobDrain::new(thread));
    }

    /// When the next harvest is due, if `harvest.enabled`.
    pub(super) fn harvest_due(&self) -> Option<Instant> {
        self.settings
            .config
            .harvest
            .enabled
            .then(|| self.next_harvest.unwrap_or_else(Instant::now))
    }

    /// Harvests the harness folders on a thread of its own; one at a time.
    /// Adds a line to the journal `memsync log` reads.
    fn journal(&self, what: &str, detail: String, paths: Vec<String>) {
        let entry = super::journal::JournalEntry {
            at: contract::format_ts(Utc::now()),
            what: what.to_string(),
            detail,
            paths,
        };
        super::journal::append(&self.settings.state_dir(), &entry);
    }

    pub(super) fn run_harvest(&mut self) {
        if self.harvest.as_ref().is_some_and(|t| !t.is_finished()) {
            return;
        }
        let settings = self.settings.clone();
        let state_dir = settings.state_dir();
        self.harvest = Some(std::thread::spawn(move || {
            let env = crate::config::Env::from_process();
            let opts = crate::harvest::HarvestOptions {
                daemon: true,
                ..Default::default()
            };
            let result = crate::harvest::harvest(&settings, &env, Utc::now(), &opts, None);
            if let Ok(r) = &result
                && !r.captured.is_empty()
            {
                let entry = super::journal::JournalEntry {
                    at: contract::format_ts(Utc::now()),
                    what: "harvest".into(),
                    detail: format!("captured {} session(s)", r.captured.len()),
                    paths: Vec::new(),
                };
                super::journal::append(&state_dir, &entry);
            }
            match result {
                Ok(r) => tracing::info!(
                    captured = r.captured.len(),
                    continued = r.continued.len(),
                    skipped = r.skipped.len(),
                    failed = r.failed.len(),
                    replaced = r.replaced.len(),
                    unchanged = r.unchanged,
                    "harvest"
                ),
                Err(e) => tracing::error!(error = %e, "harvest"),
            }
        }));
    }

    pub(super) fn has_due_jobs(&self) -> bool {
        crate::jobs::JobQueue::open_existing(&self.settings.state_dir())
            .ok()
            .flatten()
            .is_some_and(|q| q.has_due(Utc::now()).unwrap_or(false))
    }

    pub(super) fn full(&mut self, reason: &str) -> Result<()> {
        self.check_index();
        if !self.git_busy() {
            self.restore_stashes();
        }
        if self.has_due_jobs() {
            self.run_jobs();
        }
        self.next_full = Instant::now() + reconcile_every(&self.settings);
        super::flush::prepare(&self.settings.state_dir());
        let opts = SyncOptions {
            defer_unsettled: true,
            defer_while_git_runs: false,
            held_files: Some(&self.held_files),
            ..SyncOptions::RENDER
        };
        self.rendered_at = Utc::now();
        let report = pipeline::sync_with(&mut self.index, &self.settings, self.rendered_at, opts);
        self.schedule_retry(&report, 0);
        self.record(reason, report)
    }

    /// Whether git has let go of the repository since work waited for it,
    /// looked at when the look is due; a look that finds git still at work
    /// sets the next one.
    pub(super) fn git_let_go(&mut self) -> bool {
        let due = self.deferred.as_ref().map(|d| d.recheck_at);
        if due.is_none_or(|at| Instant::now() < at) {
            return false;
        }
        if !self.git_busy() {
            return true;
        }
        if let Some(d) = self.deferred.as_mut() {
            d.recheck_later();
        }
        false
    }

    /// Git has let go of the repository: reconcile what arrived meanwhile,
    /// only those paths unless something owed a full reconcile (a directory
    /// event, a rescan flag, git busy at start-up), and bring back what its
    /// pull put aside. An agent committing every second would otherwise cost
    /// a walk of the whole workspace each time.
    pub(super) fn after_git(&mut self) -> Result<()> {
        let Some(deferred) = self.deferred.take() else {
            return Ok(());
        };
        match deferred.full {
            Some(reason) => self.full(reason),
            None => {
                self.restore_stashes();
                self.paths(deferred.paths.into_iter().collect())
            }
        }
    }

    pub(super) fn paths(&mut self, paths: Vec<String>) -> Result<()> {
        self.settle(paths, 0)
    }

    /// Reconciles `paths`; files that fail validation while still being written
    /// are retried with backoff (250 ms, 500 ms, 1 s) before they are judged.
    pub(super) fn settle(&mut self, paths: Vec<String>, attempt: u32) -> Result<()> {
        if self.check_index() {
            return self.full("the index was rebuilt");
        }
        let opts = SyncOptions {
            defer_unsettled: attempt < MAX_DEFERRALS,
            defer_while_git_runs: false,
            held_files: Some(&self.held_files),
            watched: true,
            ..SyncOptions::RENDER
        };
        self.rendered_at = Utc::now();
        let report = pipeline::sync_paths(
            &mut self.index,
            &self.settings,
            self.rendered_at,
            opts,
            &paths,
        );
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
    pub(super) fn check_index(&mut self) -> bool {
        if self.index.still_on_disk() {
            return false;
        }
        tracing::warn!(index = %self.index.path.display(), "the index was deleted or damaged under the daemon; rebuilding it from markdown");
        self.reopen_index(false);
        true
    }

    pub(super) fn reopen_index(&mut self, discard: bool) {
        if let Err(e) = self.index.reopen(discard) {
            tracing::error!(error = %e, "index not reopened; retrying at the next batch");
        }
        self.next_full = Instant::now();
    }

    /// Files still being written are looked at again after a backoff.
    pub(super) fn schedule_retry(&mut self, report: &Result<SyncReport>, attempt: u32) {
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
    pub(super) fn record(&mut self, reason: &str, report: Result<SyncReport>) -> Result<()> {
        let now = contract::format_ts(Utc::now());
        self.last_report = report.as_ref().ok().cloned();
        let line = match report {
            Ok(r) => {
                // Git began while the pass rendered: render once it lets go.
                if r.projections_deferred.is_some() {
                    self.deferred
                        .get_or_insert_default()
                        .add(BTreeSet::new(), None);
                }
                for rel in &r.projections_written {
                    if let Ok(bytes) = crate::files::read_file_at(self.root.join(rel)) {
                        self.renders.note(rel, &bytes);
                    }
                }
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
                let line = format!(
                    "{reason}: read {}, indexed {}, removed {}, wrote {} projection(s) in {} ms",
                    r.read,
                    r.indexed,
                    r.removed,
                    r.projections_written.len(),
                    r.duration_ms
                );
                if r.indexed + r.removed + r.projections_written.len() > 0 {
                    self.journal("batch", line.clone(), r.projections_written.clone());
                }
                line
            }
            Err(e) => {
                tracing::error!(reason, error = %e, "batch failed");
                self.journal("error", format!("{reason}: failed: {e}"), Vec::new());
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

    pub(super) fn save_state(&self) -> Result<()> {
        let dir = self.settings.state_dir();
        if !dir.is_dir() {
            return Ok(()); // the workspace is gone; never recreate it
        }
        let path = dir.join(STATE_FILE);
        let bytes = serde_json::to_vec_pretty(&self.state).unwrap_or_default();
        crate::files::write_atomic(&path, &bytes).map_err(|e| Error::io(&path, e))
    }

    /// (Re)creates the recursive watch; on failure the daemon polls instead.
    pub(super) fn rewatch(&mut self) {
        self.watcher = None;
        let sender = self.sender.clone();
        let holds = self.holds.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(e) = &event {
                holds.on_event(e);
            }
            // Reads (ours included) never change content: dropping them here
            // keeps a reader polling MEMORY.md from waking the daemon at all.
            if !matches!(&event, Ok(e) if matches!(e.kind, EventKind::Access(_))) {
                let _ = sender.send(event);
            }
        };
        // Symlinks are never followed: one watch tree, the workspace itself.
        let config = notify::Config::default().with_follow_symlinks(false);
        let made = <notify::RecommendedWatcher as notify::Watcher>::new(handler, config).and_then(
            |mut w| {
                notify::Watcher::watch(&mut w, &self.root, notify::RecursiveMode::Recursive)
                    .map(|_| w)
            },
        );
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

    pub(super) fn degrade(&mut self, why: &str) {
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
