//! The one-shot commands behind the CLI (`sync`, `check`, `reindex`, `status`,
//! `demo`, `generate`), each returning a report that prints as text or JSON.
//!
//! Owns: composing the pipeline into commands and the reports they return.
//! Must not: parse arguments (`args`), print (`dispatch`), word the text
//! (`render`) or hold pipeline logic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::Settings;
use crate::contract;
use crate::error::{ExitStatus, Result};
use crate::pipeline::{self, SyncOptions, SyncReport};
use crate::store::Index;
use crate::validate::Problem;

/// Reconciles once and renders; the index is returned so the caller reads
/// the problems as it prints them. Unless `full`, a daemon watching this
/// workspace with the same index and configuration is asked to reconcile
/// what it has pending instead (`watch::ask_daemon_to_flush`): it saw every
/// change as an event, so a stat of every file would find nothing more.
pub fn sync(
    settings: &Settings,
    now: DateTime<Utc>,
    full: bool,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<(SyncReport, Index)> {
    let started = std::time::Instant::now();
    // A fixed clock (`--now`) renders as of that clock: only this process can.
    // Autostash entries a pull left are merged back here (the daemon does so only
    // on its full reconciles).
    let stashes_left = crate::git::left_stashes(&settings.root).map_or(true, |l| !l.is_empty());
    if !full && !settings.fixed_clock && !stashes_left {
        let answer = crate::watch::ask_daemon_to_flush(settings);
        if let Some(answer) = answer.filter(|a| a.declined.is_none()) {
            let index = Index::open(&settings.index_path())?;
            let (errors, warnings) = index.problem_counts()?;
            let report = SyncReport {
                workspace: settings.root.display().to_string(),
                index: index.path.display().to_string(),
                errors,
                warnings,
                daemon_pid: Some(answer.pid),
                duration_ms: started.elapsed().as_millis(),
                ..answer.report.unwrap_or_default()
            };
            return Ok((report, index));
        }
    }
    let autostash_restored = restore_autostashes(&settings.root);
    let mut index = Index::open(&settings.index_path())?;
    let opts = SyncOptions::RENDER.with_progress(progress);
    let report = pipeline::sync_with(&mut index, settings, now, opts)?;
    Ok((
        SyncReport {
            duration_ms: started.elapsed().as_millis(),
            autostash_restored,
            ..report
        },
        index,
    ))
}

/// Merges back what a pull left in projection-only autostash entries, unless
/// git works in the repository now (`git::restore_left_stashes`). A failure
/// is logged: the entries stay, and `status` reports them.
fn restore_autostashes(root: &Path) -> Vec<String> {
    let idle = || !crate::repo::git_at_work(root);
    match crate::git::restore_left_stashes(root, crate::files::WhileHeld::Defer, &idle) {
        Ok(done) => done.restored.into_iter().map(|s| s.commit).collect(),
        Err(e) => {
            tracing::warn!(error = %e, "cannot restore an autostash entry");
            Vec::new()
        }
    }
}

/// Problems in the workspace's files are not `sync`'s failure (exit 0); a
/// projection it could not write is: exit 3, and the next sync retries it.
/// That covers a full or read-only disk, and a file memsync must not touch
/// (MEMORY.md that is a directory, or holds a pasted second block).
pub fn sync_exit_status(index: &Index) -> Result<ExitStatus> {
    Ok(if index.has_error_of("projection.")? {
        ExitStatus::Runtime
    } else {
        ExitStatus::Ok
    })
}

#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub errors: usize,
    pub warnings: usize,
    pub problems: Vec<Problem>,
}

impl CheckReport {
    pub fn exit_status(&self) -> ExitStatus {
        if self.errors > 0 {
            ExitStatus::Problems
        } else {
            ExitStatus::Ok
        }
    }
}

/// Validates the whole workspace (indexing what changed, writing no projection).
pub fn check(
    settings: &Settings,
    now: DateTime<Utc>,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<CheckReport> {
    let (counts, index) = check_index(settings, now, progress)?;
    Ok(CheckReport {
        problems: index.problems()?,
        ..counts
    })
}

/// [`check`] with the problems left in the index, to be read as they are printed.
pub fn check_index(
    settings: &Settings,
    now: DateTime<Utc>,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<(CheckReport, ReadIndex)> {
    let index = open_for_reading(settings, now, Freshness::Current, progress)?;
    let (errors, warnings) = index.problem_counts()?;
    let counts = CheckReport {
        errors,
        warnings,
        problems: Vec::new(),
    };
    Ok((counts, index))
}

/// Drops the content rows and rebuilds them from markdown; telemetry stays unless reset.
pub fn reindex(
    settings: &Settings,
    now: DateTime<Utc>,
    reset_telemetry: bool,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<SyncReport> {
    let mut index = Index::open(&settings.index_path())?;
    index.rebuild_derived()?;
    if reset_telemetry {
        index.reset_telemetry()?;
    }
    let opts = SyncOptions::RENDER.with_progress(progress);
    pipeline::sync_with(&mut index, settings, now, opts)
}

/// Each agent whose MEMORY.md leaves in-window sessions out, and why: what
/// `sync` says after rendering.
pub fn clipped_ledgers(
    settings: &Settings,
    index: &Index,
    now: DateTime<Utc>,
) -> Result<BTreeMap<String, crate::project::LedgerAccount>> {
    let mut out = BTreeMap::new();
    for agent in index.session_agents()? {
        let a = crate::project::ledger_account(index, settings, &agent, now)?;
        if a.kept < a.in_window {
            out.insert(agent, a);
        }
    }
    Ok(out)
}

/// Hook mode: records the capture job before anything else that can fail.
/// A broken config still gets the job queued (in the workspace the flag,
/// the variables or the default name); the config error is returned after,
/// and the job runs once the config is fixed.
pub fn hook(
    settings: Result<Settings>,
    places: HookPlaces<'_>,
    now: DateTime<Utc>,
    harness: &str,
    agent_id: &str,
) -> Result<String> {
    use crate::harness::Harness;
    use crate::jobs::hook::{self, HookAction};
    let harness =
        Harness::from_hook_arg(harness).ok_or_else(|| crate::error::HookError::UnknownHarness {
            harness: harness.to_string(),
            supported: hook::HOOK_HARNESSES,
        })?;
    if is_model_call() {
        // memsync's own sentence or summary call fired the harness's hooks:
        // no capture (it would call the model again), no digest, no recall.
        // The payload is still read, so the harness never writes into a closed pipe.
        let _ = hook::read_payload(std::io::stdin(), std::time::Duration::from_millis(200));
        return Ok("memsync's own model call: nothing captured, nothing offered".into());
    }
    let root = match &settings {
        Ok(s) => Some(s.root.clone()),
        Err(_) => crate::config::fallback_root(places.workspace, places.config, places.env),
    };
    // Nothing to record into without a workspace; a typo must not create one.
    let Some(root) = root.filter(|r| r.is_dir()) else {
        return Err(match settings {
            Err(e) => e,
            Ok(s) => match s.require_workspace() {
                Err(e) => e,
                Ok(()) => crate::error::ConfigError::NotADirectory { path: s.root }.into(),
            },
        });
    };
    let idle = std::time::Duration::from_millis(match &settings {
        Ok(s) => s.config.capture.hook_idle_ms,
        Err(_) => crate::config::CaptureConfig::default().hook_idle_ms,
    });
    let queue = crate::jobs::JobQueue::open(&root.join(crate::STATE_DIR))?;
    let harvest = settings.as_ref().map(|s| s.config.harvest.clone());
    let harness_home = harness.home(&harvest.unwrap_or_default(), places.env);
    let dirs = hook::HookDirs {
        home: places.env.home.as_deref(),
        harness_home: harness_home.as_deref(),
    };
    let action = hook::read_payload(std::io::stdin(), idle)
        .and_then(|payload| hook::interpret(harness, &payload, agent_id, now, dirs));
    match action {
        Ok(HookAction::Enqueue(request)) => {
            let id = crate::jobs::enqueue(&queue, &request, now)?;
            let settings = settings.inspect_err(|_| {
                eprintln!(
                    "memsync capture --hook: queued capture job {id}; it runs once the config is fixed"
                );
            })?;
            let by = crate::jobs::wake_worker(&settings, places.config)?;
            Ok(format!("queued capture job {id}; the {by} runs it"))
        }
        Ok(HookAction::Ignore(event)) => Ok(format!("{event}: nothing to capture")),
        Ok(HookAction::Context { cwd, event }) => {
            let settings = settings?;
            let req = crate::context::ContextRequest {
                cwd: crate::context::resolve_cwd(&cwd.unwrap_or_else(|| PathBuf::from("."))),
                agent: agent_id.to_string(),
                budget_tokens: crate::context::DEFAULT_BUDGET_TOKENS,
                include_untrusted: false,
            };
            let digest = context(&settings, &req, now)?;
            let reply = harness.context_reply(&event, &digest.text);
            Ok(format!("{HOOK_STDOUT}{reply}"))
        }
        Ok(HookAction::Prompt {
            prompt,
            session_id,
            cwd,
            event,
        }) => {
            let settings = settings?;
            let req = crate::recall::PromptRequest {
                prompt,
                session_id,
                cwd: crate::context::resolve_cwd(&cwd.unwrap_or_else(|| PathBuf::from("."))),
                agent: agent_id.to_string(),
            };
            let index = open_for_reading(&settings, now, Freshness::Complete, None)?;
            let offer = crate::recall::offer(&index, &settings, &req, now)?;
            if offer.tokens.is_empty() {
                // Nothing relevant: nothing at all reaches the agent.
                return Ok(HOOK_STDOUT.to_string());
            }
            let reply = harness.context_reply(&event, &offer.text);
            Ok(format!("{HOOK_STDOUT}{reply}"))
        }
        Err(e) => {
            // Recorded so `status` shows it: a hook's stderr is easily lost.
            queue.record_failure("hook", agent_id, &e.to_string(), now)?;
            Err(e)
        }
    }
}

/// Whether this process runs inside one of memsync's own model calls.
pub fn is_model_call() -> bool {
    std::env::var_os(crate::contract::MODEL_CALL_ENV).is_some_and(|v| !v.is_empty())
}

/// A hook outcome that starts with this goes to stdout (the harness reads
/// it); every other is a log line.
pub const HOOK_STDOUT: &str = "stdout:";

/// Where hook mode looks when the settings cannot be loaded.
pub struct HookPlaces<'a> {
    pub workspace: Option<&'a Path>,
    pub config: Option<&'a Path>,
    pub env: &'a crate::config::Env,
}

/// Makes a workspace: its folder and `memory/`, then a first sync. Running it
/// on an existing workspace only syncs it.
pub fn init(settings: &Settings, now: DateTime<Utc>) -> Result<(SyncReport, Index)> {
    let memory = settings.root.join(contract::MEMORY_DIR);
    std::fs::create_dir_all(&memory).map_err(|e| crate::Error::io(&memory, e))?;
    settings.require_workspace()?;
    sync(settings, now, false, None)
}

/// Searches the index as the last sync left it; with no hit, what to try.
pub fn search(
    settings: &Settings,
    q: &crate::search::Query,
    now: DateTime<Utc>,
) -> Result<(crate::search::Found, Vec<crate::search::Suggestion>)> {
    let index = open_for_reading(settings, now, Freshness::Complete, None)?;
    index.defer_checkpoint()?;
    let cfg = &settings.config.search;
    let hits = crate::search::search(&index, cfg, q, now)?;
    let suggestions = match hits.hits.is_empty() {
        true => crate::search::suggest(&index, cfg, q, now)?,
        false => Vec::new(),
    };
    Ok((hits, suggestions))
}

/// The start-up digest for a working directory, from the index as it is.
pub fn context(
    settings: &Settings,
    req: &crate::context::ContextRequest,
    now: DateTime<Utc>,
) -> Result<crate::context::Context> {
    let index = open_for_reading(settings, now, Freshness::Complete, None)?;
    crate::context::context(&index, settings, req, now)
}

/// Whether a destructive command should ask first: a person at a terminal.
pub fn asks_first() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Shows `what` on stderr and asks; only `y` or `yes` goes ahead.
pub fn confirmed(what: &str) -> Result<bool> {
    use std::io::Write;
    let mut err = std::io::stderr();
    let _ = write!(err, "{what}Go ahead? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .map_err(|e| crate::error::Error::io("stdin", e))?;
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}

/// Shows one session.
pub fn open(
    settings: &Settings,
    target: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<crate::session::SessionView> {
    let index = open_for_reading(settings, now, Freshness::Complete, None)?;
    index.defer_checkpoint()?;
    crate::session::open(&index, target, agent, now)
}

/// A note as `open` shows it: its row, the notes it corrects and that
/// correct it, and its text (sanitized as search shows it).
#[derive(Debug, serde::Serialize)]
pub struct NoteView {
    #[serde(flatten)]
    pub note: crate::store::notes::NoteRow,
    pub text: String,
}

/// `open` on a note's path; `None` when `target` is not an indexed note.
pub fn open_note(
    settings: &Settings,
    target: &str,
    now: DateTime<Utc>,
) -> Result<Option<NoteView>> {
    if !crate::note::is_note_path(target) {
        return Ok(None);
    }
    let index = open_for_reading(settings, now, Freshness::Complete, None)?;
    Ok(index.note(target)?.map(|(note, text)| NoteView {
        note,
        text: crate::capture::sanitize::sanitize(&text).text,
    }))
}

/// How current the index a reading command uses must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Freshness {
    /// As the last sync left it (`status`).
    AsItIs,
    /// Holding the whole workspace, built first if it does not yet (a fresh
    /// clone, an index set aside as damaged): never a partial answer.
    Complete,
    /// Up to date with every file (`check`).
    Current,
}

/// The index a reading command answers from. Where this user cannot write
/// the index (a read-only mount, another user's checkout), a scratch index
/// is built from the markdown in a temp dir and removed with this value:
/// `search`, `open`, `status` and `check` still answer, and nothing in the
/// workspace is written.
pub struct ReadIndex {
    index: Index,
    _scratch: Option<tempfile::TempDir>,
}

impl std::ops::Deref for ReadIndex {
    type Target = Index;
    fn deref(&self) -> &Index {
        &self.index
    }
}

pub(super) fn open_for_reading(
    settings: &Settings,
    now: DateTime<Utc>,
    freshness: Freshness,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<ReadIndex> {
    let path = settings.index_path();
    let opts = SyncOptions::INDEX_ONLY.with_progress(progress);
    if crate::files::writable(&path) {
        let mut index = Index::open(&path)?;
        let incomplete = || index.meta(pipeline::COMPLETE).map(|m| m.is_none());
        if freshness == Freshness::Current || (freshness == Freshness::Complete && incomplete()?) {
            pipeline::sync_with(&mut index, settings, now, opts)?;
        }
        // `check` renders nothing, yet says what a render would find: a
        // MEMORY.md that another tool renders.
        if freshness == Freshness::Current {
            crate::project::report_foreign_ledgers(&mut index, settings)?;
        }
        return Ok(ReadIndex {
            index,
            _scratch: None,
        });
    }
    let scratch = tempfile::Builder::new()
        .prefix("memsync-scratch-")
        .tempdir()
        .map_err(|e| crate::Error::io(std::env::temp_dir(), e))?;
    tracing::warn!(
        index = %path.display(),
        "cannot write the index (a read-only workspace?): answering from a scratch index built from the markdown"
    );
    let mut index = Index::open(&scratch.path().join("index.db"))?;
    pipeline::sync_with(&mut index, settings, now, opts)?;
    Ok(ReadIndex {
        index,
        _scratch: Some(scratch),
    })
}

/// Writes the example workspace into `dir` (or a new temp directory), syncs it,
/// and returns the report and where MEMORY.md is.
pub fn demo(
    dir: Option<&Path>,
    now: DateTime<Utc>,
    load: impl Fn(&Path) -> Result<Settings>,
) -> Result<(Settings, SyncReport, Vec<Problem>)> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => std::env::temp_dir().join(format!("memsync-demo-{}", now.format("%Y%m%dT%H%M%S"))),
    };
    // The example has no memsync.yaml, so the settings loaded before writing it hold.
    let settings = load(&dir)?;
    crate::example::write(&dir, now, &settings.config)?;
    let (report, index) = sync(&settings, now, true, None)?;
    // The example's handful of problems.
    let problems = index.problems()?;
    Ok((settings, report, problems))
}
