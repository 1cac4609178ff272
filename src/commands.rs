//! The one-shot commands behind the CLI (`sync`, `check`, `reindex`, `status`,
//! `demo`, `generate`), each returning a report that prints as text or JSON.
//!
//! Owns: composing the pipeline into commands and rendering their reports.
//! Must not: parse arguments (that is `main.rs`) or hold pipeline logic.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::config::Settings;
use crate::contract;
use crate::error::{ExitStatus, Result};
use crate::index::Index;
use crate::pipeline::{self, SyncOptions, SyncReport};
use crate::validate::{Problem, Severity};

/// How many problems `sync` lists before pointing at `check`.
const SYNC_PROBLEM_LINES: usize = 20;

/// A progress bar on stderr for long reads (a cold sync or a reindex): drawn
/// only on a terminal, outside CI, and when there are many files to read.
pub struct TerminalProgress {
    bar: indicatif::ProgressBar,
}

impl TerminalProgress {
    /// Fewer files than this finish before a bar would be worth drawing.
    const MIN_FILES: u64 = 500;

    /// `None` unless stderr is a terminal and `CI` is unset; `quiet` turns it off.
    pub fn for_stderr(quiet: bool) -> Option<TerminalProgress> {
        use std::io::IsTerminal;
        let wanted = !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        wanted.then(|| TerminalProgress {
            bar: indicatif::ProgressBar::hidden(),
        })
    }
}

impl pipeline::Progress for TerminalProgress {
    fn begin(&self, total: u64) {
        if total < Self::MIN_FILES {
            return;
        }
        self.bar.set_length(total);
        self.bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} indexing {pos}/{len} files {wide_bar} {eta}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        self.bar
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn end(&self) {
        self.bar.finish_and_clear();
    }
}

pub fn sync(
    settings: &Settings,
    now: DateTime<Utc>,
    progress: Option<&dyn pipeline::Progress>,
) -> Result<(SyncReport, Vec<Problem>)> {
    let started = std::time::Instant::now();
    let mut index = Index::open(&settings.index_path())?;
    let opts = SyncOptions::RENDER.with_progress(progress);
    let report = pipeline::sync_with(&mut index, settings, now, opts)?;
    let problems = index.problems()?;
    Ok((
        SyncReport {
            duration_ms: started.elapsed().as_millis(),
            ..report
        },
        problems,
    ))
}

/// Problems in the workspace's files are not `sync`'s failure (exit 0); a
/// projection it could not write (disk full, read-only) is: exit 3, and the
/// next sync retries it.
pub fn sync_exit_status(problems: &[Problem]) -> ExitStatus {
    if problems.iter().any(|p| p.rule == "projection.write") {
        ExitStatus::Runtime
    } else {
        ExitStatus::Ok
    }
}

pub fn render_sync(report: &SyncReport, problems: &[Problem]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "memsync sync: {}", report.workspace);
    let _ = writeln!(
        out,
        "  scanned {} canonical files ({} unchanged, {} read); indexed {}, stale {}, removed {}",
        report.scanned, report.unchanged, report.read, report.indexed, report.stale, report.removed
    );
    if report.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: up to date");
    } else {
        let _ = writeln!(out, "  wrote {}", report.projections_written.join(", "));
    }
    let _ = writeln!(
        out,
        "  problems: {} errors, {} warnings",
        report.errors, report.warnings
    );
    for p in problems.iter().take(SYNC_PROBLEM_LINES) {
        let _ = writeln!(out, "    {}", problem_line(p));
    }
    if problems.len() > SYNC_PROBLEM_LINES {
        let _ = writeln!(
            out,
            "    … and {} more (memsync check lists them all)",
            problems.len() - SYNC_PROBLEM_LINES
        );
    }
    let _ = writeln!(out, "  took {} ms", report.duration_ms);
    out
}

pub fn problem_line(p: &Problem) -> String {
    format!(
        "{}: {}: {}: {}",
        p.path,
        p.severity.as_str(),
        p.rule,
        p.reason
    )
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
    let mut index = Index::open(&settings.index_path())?;
    let opts = SyncOptions::INDEX_ONLY.with_progress(progress);
    pipeline::sync_with(&mut index, settings, now, opts)?;
    let problems = index.problems()?;
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    Ok(CheckReport {
        errors,
        warnings: problems.len() - errors,
        problems,
    })
}

pub fn render_check(report: &CheckReport) -> String {
    let mut out = String::new();
    for p in &report.problems {
        let _ = writeln!(out, "{}", problem_line(p));
    }
    let _ = writeln!(
        out,
        "{} errors, {} warnings",
        report.errors, report.warnings
    );
    out
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

#[derive(Debug, Serialize)]
pub struct AgentStatus {
    pub agent_id: String,
    pub sessions: i64,
    pub sessions_in_window: i64,
    pub artifacts: BTreeMap<String, i64>,
    pub stale: i64,
}

#[derive(Debug, Serialize)]
pub struct RuleStatus {
    pub rule: String,
    pub severity: Severity,
    pub count: usize,
    pub first_paths: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct ProjectionStatus {
    pub path: String,
    pub fresh: bool,
}

#[derive(Debug, Serialize)]
pub struct Status {
    /// `ok`, or what needs a person, in one line.
    pub health: String,
    pub workspace: PathBuf,
    pub machine_config: Option<PathBuf>,
    pub workspace_config: Option<PathBuf>,
    pub index: PathBuf,
    pub index_bytes: u64,
    pub last_sync: Option<String>,
    pub agents: Vec<AgentStatus>,
    pub tombstones: i64,
    pub errors: usize,
    pub warnings: usize,
    pub problems: Vec<RuleStatus>,
    pub projections: Vec<ProjectionStatus>,
    pub daemon: crate::watch::DaemonStatus,
    /// Capture jobs queued by hooks; `None` when no hook has run.
    pub jobs: Option<crate::jobs::JobStats>,
    /// Recent git merges of projections where both sides changed the same lines (both kept).
    pub union_merges: Vec<serde_json::Value>,
}

/// Reads the index as it is; runs no sync.
pub fn status(settings: &Settings, now: DateTime<Utc>) -> Result<Status> {
    let index_path = settings.index_path();
    let index = Index::open(&index_path)?;
    let window_start =
        contract::format_ts(now - Duration::days(settings.config.memory_md.window_days as i64));
    let window_end = contract::format_ts(now);
    let mut agents = Vec::new();
    for agent in index.strings("SELECT DISTINCT agent_id FROM artifacts ORDER BY agent_id")? {
        let count = |sql: &str| {
            index
                .rows(sql, [&agent], |r| r.get::<_, i64>(0))
                .map(|v| v.first().copied().unwrap_or(0))
        };
        let in_window = index.rows(
            "SELECT COUNT(DISTINCT token) FROM artifacts WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3",
            [&agent, &window_start, &window_end],
            |r| r.get::<_, i64>(0),
        )?;
        let artifacts = index.rows(
            "SELECT source_kind, COUNT(*) FROM artifacts WHERE agent_id = ?1 GROUP BY source_kind ORDER BY source_kind",
            [&agent],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
        )?;
        agents.push(AgentStatus {
            sessions: count("SELECT COUNT(DISTINCT token) FROM artifacts WHERE agent_id = ?1")?,
            sessions_in_window: in_window.first().copied().unwrap_or(0),
            artifacts: artifacts.into_iter().collect(),
            stale: count("SELECT COUNT(*) FROM artifacts WHERE agent_id = ?1 AND stale = 1")?,
            agent_id: agent,
        });
    }
    let problems = index.problems()?;
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let dirty: Vec<String> = index.dirty_marks()?.0.into_iter().map(|(a, _)| a).collect();
    let projections = index
        .projection_state()?
        .into_iter()
        .map(|s| {
            let on_disk = std::fs::symlink_metadata(settings.root.join(&s.path))
                .ok()
                .map(|m| crate::scan::FileStat::of(&m));
            let fresh = on_disk.is_some_and(|st| st.size == s.size && st.mtime_ns == s.mtime_ns)
                && !dirty.contains(&s.agent_id);
            ProjectionStatus {
                path: s.path,
                fresh,
            }
        })
        .collect();
    let mut status = Status {
        health: String::new(),
        workspace: settings.root.clone(),
        machine_config: settings.sources.machine.clone(),
        workspace_config: settings.sources.workspace.clone(),
        index_bytes: std::fs::metadata(&index_path).map(|m| m.len()).unwrap_or(0),
        index: index_path,
        last_sync: index.meta("last_sync")?,
        agents,
        tombstones: index.scalar("SELECT COUNT(*) FROM tombstones")?,
        errors,
        warnings: problems.len() - errors,
        problems: group_by_rule(&problems),
        projections,
        daemon: crate::watch::daemon_status(&settings.state_dir()),
        jobs: crate::jobs::JobQueue::open_existing(&settings.state_dir())?
            .map(|q| q.stats())
            .transpose()?,
        union_merges: crate::git::recent_unions(&settings.state_dir()),
    };
    status.health = health(&status);
    Ok(status)
}

fn group_by_rule(problems: &[Problem]) -> Vec<RuleStatus> {
    let mut rules: BTreeMap<(std::cmp::Reverse<Severity>, &str), RuleStatus> = BTreeMap::new();
    for p in problems {
        let entry = rules
            .entry((std::cmp::Reverse(p.severity), &p.rule))
            .or_insert_with(|| RuleStatus {
                rule: p.rule.clone(),
                severity: p.severity,
                count: 0,
                first_paths: Vec::new(),
            });
        entry.count += 1;
        if entry.first_paths.len() < 3 {
            entry.first_paths.push(p.path.clone());
        }
    }
    rules.into_values().collect()
}

pub fn render_status(s: &Status) -> String {
    let mut out = String::new();
    let show = |p: &Option<PathBuf>| {
        p.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "none".into())
    };
    let _ = writeln!(out, "health      {}", s.health);
    let _ = writeln!(out, "workspace   {}", s.workspace.display());
    let _ = writeln!(
        out,
        "config      machine: {}; workspace: {}",
        show(&s.machine_config),
        show(&s.workspace_config)
    );
    let _ = writeln!(
        out,
        "index       {} ({} KiB)",
        s.index.display(),
        s.index_bytes / 1024
    );
    let _ = writeln!(
        out,
        "last sync   {}",
        s.last_sync.as_deref().unwrap_or("never")
    );
    let _ = writeln!(out, "agents");
    if s.agents.is_empty() {
        let _ = writeln!(out, "  none indexed");
    }
    for a in &s.agents {
        let kinds: Vec<String> = a
            .artifacts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(
            out,
            "  {:<12} {} sessions ({} in window); {}; {} stale",
            a.agent_id,
            a.sessions,
            a.sessions_in_window,
            kinds.join(", "),
            a.stale
        );
    }
    let _ = writeln!(out, "tombstones  {}", s.tombstones);
    let _ = writeln!(
        out,
        "problems    {} errors, {} warnings",
        s.errors, s.warnings
    );
    for r in &s.problems {
        let _ = writeln!(
            out,
            "  {:<7} {:<24} {:>4}  {}",
            r.severity.as_str(),
            r.rule,
            r.count,
            r.first_paths.join(", ")
        );
    }
    let _ = writeln!(out, "daemon      {}", daemon_line(&s.daemon));
    if let Some(j) = &s.jobs {
        let _ = writeln!(
            out,
            "jobs        {} pending, {} running, {} waiting, {} failed, {} done",
            j.pending, j.running, j.waiting, j.failed, j.succeeded
        );
        for job in &j.attention {
            let _ = writeln!(
                out,
                "  #{} {} {} {} (attempts {}): {}",
                job.id,
                job.state,
                job.kind,
                job.session_id,
                job.attempts,
                job.last_error.as_deref().unwrap_or("")
            );
        }
    }
    // MEMORY.md files one by one; daily logs counted, with only the stale ones named.
    for m in &s.union_merges {
        let _ = writeln!(
            out,
            "merge       {} {}: both sides' lines kept (union); check the order",
            m["at"].as_str().unwrap_or("?"),
            m["path"].as_str().unwrap_or("?")
        );
    }
    let _ = writeln!(out, "projections");
    let (logs, memory): (Vec<&ProjectionStatus>, Vec<&ProjectionStatus>) = s
        .projections
        .iter()
        .partition(|p| !p.path.ends_with("MEMORY.md"));
    for p in memory.iter().chain(logs.iter().filter(|p| !p.fresh)) {
        let state = if p.fresh {
            "fresh"
        } else {
            "stale: the next sync renders it"
        };
        let _ = writeln!(out, "  {:<40} {state}", p.path);
    }
    let fresh_logs = logs.iter().filter(|p| p.fresh).count();
    let _ = writeln!(out, "  {fresh_logs} of {} daily logs fresh", logs.len());
    out
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// One line: whether anything needs a person.
fn health(s: &Status) -> String {
    let mut issues = Vec::new();
    if s.errors > 0 {
        issues.push(format!(
            "{} (memsync check lists them)",
            plural(s.errors, "error")
        ));
    }
    if let Some(why) = s
        .daemon
        .state
        .as_ref()
        .and_then(|st| st.degraded.as_ref())
        .filter(|_| s.daemon.running)
    {
        issues.push(format!("daemon degraded: {why}"));
    }
    if let Some(j) = &s.jobs
        && j.failed > 0
    {
        issues.push(plural(j.failed as usize, "failed capture job"));
    }
    let stale = s.projections.iter().filter(|p| !p.fresh).count();
    if stale > 0 {
        issues.push(format!("{} stale", plural(stale, "projection")));
    }
    if issues.is_empty() {
        match s.warnings {
            0 => "ok".into(),
            n => format!("ok ({})", plural(n, "warning")),
        }
    } else {
        issues.join("; ")
    }
}

fn daemon_line(d: &crate::watch::DaemonStatus) -> String {
    match (&d.state, d.running) {
        (Some(st), true) => {
            let mut line = format!(
                "running (pid {}, since {}, {})",
                st.pid, st.started_at, st.mode
            );
            if let Some(why) = &st.degraded {
                line.push_str(&format!("; degraded: {why}"));
            }
            if let (Some(at), Some(batch)) = (&st.last_batch_at, &st.last_batch) {
                line.push_str(&format!("; last batch {at}: {batch}"));
            }
            line
        }
        (_, true) => "running".into(),
        (Some(st), false) => format!(
            "not running (last ran as pid {}, started {})",
            st.pid, st.started_at
        ),
        (None, false) => "not running".into(),
    }
}

/// Hook mode: reads one payload from stdin, queues its capture as a job, and
/// hands the queue to the daemon or a detached worker. Returns a log line.
pub fn hook(
    settings: &Settings,
    now: DateTime<Utc>,
    harness: &str,
    agent_id: &str,
    config_flag: Option<&Path>,
    env: &crate::config::Env,
) -> Result<String> {
    use crate::capture::hook::{self, Harness, HookAction};
    let harness = Harness::parse(harness).ok_or_else(|| {
        crate::Error::Usage(format!(
            "unknown hook harness {harness:?}; supported: claude-code"
        ))
    })?;
    let idle = std::time::Duration::from_millis(settings.config.capture.hook_idle_ms);
    let queue = crate::jobs::JobQueue::open(&settings.state_dir())?;
    let action = hook::read_payload(std::io::stdin(), idle)
        .and_then(|payload| hook::interpret(harness, &payload, agent_id, now, env.home.as_deref()));
    match action {
        Ok(HookAction::Enqueue(request)) => {
            let id = queue.enqueue(&request, now)?;
            let by = crate::jobs::wake_worker(settings, config_flag)?;
            Ok(format!("queued capture job {id}; the {by} runs it"))
        }
        Ok(HookAction::Ignore(event)) => Ok(format!("{event}: nothing to capture")),
        Err(e) => {
            // Recorded so `status` shows it: a hook's stderr is easily lost.
            queue.record_failure("hook", agent_id, &e.to_string(), now)?;
            Err(e)
        }
    }
}

pub fn render_capture(r: &crate::capture::CaptureReport) -> String {
    let mut out = String::new();
    let outcome = match r.outcome {
        crate::capture::Outcome::Written => "written",
        crate::capture::Outcome::AlreadyCaptured => "already captured (a retry; nothing rewritten)",
    };
    let _ = writeln!(out, "memsync capture {}: {outcome}", r.kind);
    let _ = writeln!(
        out,
        "  session {} (agent {}, token {})",
        r.session_id, r.agent_id, r.token
    );
    for f in &r.written {
        let _ = writeln!(out, "  wrote {f}");
    }
    if let Some(q) = &r.sentence_quality {
        let _ = writeln!(out, "  memory sentence: {q}");
    }
    if !r.redactions.is_empty() {
        let kinds: Vec<String> = r
            .redactions
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(out, "  redacted: {}", kinds.join(", "));
    }
    if r.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "  skipped {} unreadable transcript lines",
            r.skipped_lines
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if !r.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: {}", r.projections_written.join(", "));
    }
    out
}

pub fn render_forget(r: &crate::forget::ForgetReport) -> String {
    let mut out = String::new();
    let outcome = match r.outcome {
        crate::forget::ForgetOutcome::Forgotten => "forgotten",
        crate::forget::ForgetOutcome::AlreadyForgotten => "already forgotten",
    };
    let _ = writeln!(
        out,
        "memsync forget: {outcome} (agent {}, token {})",
        r.agent_id, r.token
    );
    let _ = writeln!(out, "  tombstone {}", r.tombstone);
    for f in &r.removed {
        let _ = writeln!(out, "  deleted {f}");
    }
    if r.jobs_removed > 0 {
        let _ = writeln!(out, "  removed {} queued jobs", r.jobs_removed);
    }
    if !r.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: {}", r.projections_written.join(", "));
    }
    out
}

pub fn render_worker(r: &crate::jobs::WorkerReport) -> String {
    format!(
        "capture jobs: {} succeeded, {} to retry, {} waiting for their session, {} failed\n",
        r.succeeded, r.retried, r.waiting, r.failed
    )
}

/// Searches the index as the last sync left it.
pub fn search(
    settings: &Settings,
    q: &crate::search::Query,
    now: DateTime<Utc>,
) -> Result<Vec<crate::search::Hit>> {
    let index = Index::open(&settings.index_path())?;
    crate::search::search(&index, &settings.config.search, q, now)
}

/// Shows one session.
pub fn open(
    settings: &Settings,
    target: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<crate::session::SessionView> {
    let index = Index::open(&settings.index_path())?;
    crate::session::open(&index, target, agent, now)
}

/// A snippet with its matches in bold (terminal) or `**` (anywhere else).
fn highlight(snippet: &str, color: bool) -> String {
    let (start, end) = if color {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("**", "**")
    };
    snippet
        .replace(crate::search::MARK_START, start)
        .replace(crate::search::MARK_END, end)
}

pub fn render_search(hits: &[crate::search::Hit], color: bool) -> String {
    let mut out = String::new();
    if hits.is_empty() {
        let _ = writeln!(out, "no session matches");
    }
    for (i, h) in hits.iter().enumerate() {
        let identity = h.session_key.as_deref().unwrap_or(&h.session_id);
        let _ = writeln!(
            out,
            "{}. {}  {}  session={}  project={}  ({}, score {:.2})",
            i + 1,
            h.membership_ts,
            h.agent_id,
            identity,
            h.project.as_deref().unwrap_or("none"),
            h.kind,
            h.score
        );
        let _ = writeln!(out, "   {}", h.sentence);
        let _ = writeln!(out, "   {}", highlight(&h.snippet, color));
        let _ = writeln!(out, "   {}", h.links.join(" "));
    }
    out
}

pub fn render_open(v: &crate::session::SessionView) -> String {
    let mut out = String::new();
    let show = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".into());
    let _ = writeln!(
        out,
        "session   {} (agent {}, token {})",
        show(&v.session_id),
        v.agent_id,
        v.token
    );
    if let Some(f) = &v.forgotten {
        let _ = writeln!(
            out,
            "FORGOTTEN {} — {} ({})",
            f.removed_at, f.reason, f.tombstone
        );
    }
    let _ = writeln!(out, "key       {}", show(&v.session_key));
    let _ = writeln!(out, "project   {}", show(&v.project));
    let _ = writeln!(out, "harness   {}", show(&v.harness));
    let _ = writeln!(out, "time      {}", show(&v.membership_ts));
    if v.private {
        let _ = writeln!(out, "private   yes (never projected)");
    }
    let _ = writeln!(out, "sentence  {}", show(&v.sentence));
    let _ = writeln!(out, "opened    {} times", v.accesses);
    let _ = writeln!(out, "artifacts");
    for a in &v.artifacts {
        let _ = writeln!(out, "  {:<10} {:<7} {}", a.kind, a.state, a.wikilink);
    }
    if !v.problems.is_empty() {
        let _ = writeln!(out, "problems");
        for p in &v.problems {
            let _ = writeln!(out, "  {}", problem_line(p));
        }
    }
    out
}

pub fn render_git_setup(r: &crate::git::SetupReport) -> String {
    let mut out = String::new();
    if r.changes.is_empty() {
        let _ = writeln!(out, "memsync git setup: already set up; nothing to change");
        return out;
    }
    let verb = if r.dry_run { "would change" } else { "changed" };
    let _ = writeln!(out, "memsync git setup {verb}:");
    for c in &r.changes {
        let _ = writeln!(out, "  {c}");
    }
    out
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
    let (report, problems) = sync(&settings, now, None)?;
    Ok((settings, report, problems))
}

pub fn render_demo(settings: &Settings, report: &SyncReport, problems: &[Problem]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Wrote the example workspace to {}",
        settings.root.display()
    );
    let _ = writeln!(
        out,
        "(two agents, a compaction, a tombstone, a private and a test session, a curated"
    );
    let _ = writeln!(
        out,
        " MEMORY.md, a hand-written daily log and a few invalid files), then synced it:\n"
    );
    out.push_str(&render_sync(report, problems));
    let memory = settings.root.join("MEMORY.md");
    let _ = writeln!(out, "\nMEMORY.md for agent default: {}", memory.display());
    let _ = writeln!(
        out,
        "MEMORY.md for agent reviewer: {}",
        settings.root.join("agents/reviewer/MEMORY.md").display()
    );
    if let Ok(text) = std::fs::read_to_string(&memory) {
        let _ = writeln!(out, "\n----- {} -----\n{text}-----", memory.display());
    }
    let ws = settings.root.display();
    let _ = writeln!(
        out,
        "\nNext: memsync --workspace {ws} check   |   memsync --workspace {ws} status"
    );
    out
}
