//! Durable capture jobs: hook mode records one and returns at once; the daemon
//! or a detached worker runs it with a lease, bounded attempts and doubling
//! backoff (the leased-job model of seeds/004). The queue lives in
//! `.memsync/jobs.db`, apart from the index, so re-indexing never loses a job.
//!
//! Owns: what a job asks for, hook mode ([`hook`]), running jobs and their
//! retries, and starting a worker. Must not: write canonical files itself (it
//! calls `capture`) or run SQL (the queue is `store::jobs`).

pub mod hook;

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::capture;
use crate::config::Settings;
use crate::error::{Error, Result, UsageError};
use crate::harness::Harness;
use crate::store::jobs::ms;
pub use crate::store::jobs::{JobQueue, JobRow, JobStats};

/// How long a worker waits for a retry that is due soon before it exits.
const WORKER_MAX_WAIT: Duration = Duration::from_secs(120);

/// What a job asks for: the request of a capture, as the hook gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum JobRequest {
    SessionEnd {
        agent_id: String,
        session_id: String,
        harness: String,
        transcript_path: PathBuf,
        /// The hook's working directory: the project when the transcript names none.
        cwd: Option<String>,
        /// When the hook fired: the capture's timestamps, however late the job runs.
        captured_at: DateTime<Utc>,
    },
    Compaction {
        agent_id: String,
        session_id: String,
        /// Sanitized before it is stored, so no secret waits in the queue.
        body: String,
        captured_at: DateTime<Utc>,
    },
}

impl JobRequest {
    fn kind(&self) -> &'static str {
        match self {
            JobRequest::SessionEnd { .. } => "session-end",
            JobRequest::Compaction { .. } => "compaction",
        }
    }

    fn session(&self) -> (&str, &str) {
        match self {
            JobRequest::SessionEnd {
                agent_id,
                session_id,
                ..
            }
            | JobRequest::Compaction {
                agent_id,
                session_id,
                ..
            } => (agent_id, session_id),
        }
    }

    fn run(&self, settings: &Settings) -> Result<capture::CaptureReport> {
        let now = Utc::now();
        match self {
            JobRequest::SessionEnd {
                agent_id,
                session_id,
                harness,
                transcript_path,
                cwd,
                captured_at,
            } => {
                if let Some(h) = Harness::from_hook_arg(harness)
                    && let Some(limit) = crate::harnesses::program(h).end_written_after_hook()
                {
                    await_end_in_file(h, transcript_path, limit);
                }
                // After the wait: a clock read before it would put the
                // session's last events in the future, out of MEMORY.md's window.
                let now = Utc::now();
                let req = capture::SessionEnd {
                    agent_id: agent_id.clone(),
                    session_id: Some(session_id.clone()),
                    harness: Some(harness.clone()),
                    transcript: transcript_path.clone(),
                    project_fallback: cwd.clone(),
                    captured_at: Some(*captured_at),
                    from_hook: true,
                    ..Default::default()
                };
                capture::session_end(settings, now, &req)
            }
            JobRequest::Compaction {
                agent_id,
                session_id,
                body,
                captured_at,
            } => {
                let req = capture::Compaction {
                    agent_id: agent_id.clone(),
                    session_id: session_id.clone(),
                    body: body.clone(),
                    captured_at: Some(*captured_at),
                    ..Default::default()
                };
                capture::compaction(settings, now, &req)
            }
        }
    }
}

/// A harness that runs its end hook before it has written the session's
/// last events (the final reply among them) marks the file whole itself.
/// Waits for that mark, within `limit`, then the capture takes what is there.
fn await_end_in_file(harness: Harness, events: &Path, limit: Duration) {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline && !harness.ended_in_file(events) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What one worker run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WorkerReport {
    pub succeeded: usize,
    pub retried: usize,
    pub waiting: usize,
    /// Hook events that held no session (a transcript never written, a
    /// sub-agent's file): recorded with the reason, not failures.
    pub skipped: usize,
    pub failed: usize,
}

/// Whether a job's error says its hook event held no session to capture:
/// `claude mcp list` ends a "session" whose transcript is never written.
fn holds_no_session(request: &JobRequest, e: &Error) -> bool {
    match e {
        Error::Capture(crate::error::CaptureError::NothingToCapture { .. }) => true,
        Error::Io { path, source } => {
            source.kind() == std::io::ErrorKind::NotFound
                && matches!(request, JobRequest::SessionEnd { transcript_path, .. } if transcript_path == path)
        }
        _ => false,
    }
}

/// Queues `request` and returns its job id.
pub fn enqueue(queue: &JobQueue, request: &JobRequest, now: DateTime<Utc>) -> Result<i64> {
    let json = serde_json::to_string(request).unwrap_or_default();
    queue.enqueue(request.kind(), request.session(), &json, now)
}

/// Runs due jobs until none is left; waits for retries due within
/// `max_wait`. Several workers may run at once: the lease keeps each job to one.
pub fn drain(queue: &JobQueue, settings: &Settings, max_wait: Duration) -> Result<WorkerReport> {
    let cfg = &settings.config.capture;
    let owner = format!("pid {}", std::process::id());
    let lease = Duration::from_secs(cfg.job_lease_seconds);
    let mut report = WorkerReport::default();
    loop {
        let now = Utc::now();
        let Some((id, attempts, json)) = queue.claim(&owner, now, lease)? else {
            match queue.next_due()? {
                Some(at)
                    if at - now <= chrono::Duration::from_std(max_wait).unwrap_or_default() =>
                {
                    std::thread::sleep((at - now).to_std().unwrap_or_default());
                    continue;
                }
                _ => return Ok(report),
            }
        };
        run_one(queue, settings, id, attempts, &json, &mut report)?;
    }
}

fn run_one(
    queue: &JobQueue,
    settings: &Settings,
    id: i64,
    attempts: i64,
    json: &str,
    report: &mut WorkerReport,
) -> Result<()> {
    let cfg = &settings.config.capture;
    let request: JobRequest = match serde_json::from_str(json) {
        Ok(r) => r,
        Err(e) => {
            report.failed += 1;
            return queue.set_state(
                id,
                "failed",
                0,
                Some(&format!("unreadable job: {e}")),
                Utc::now(),
            );
        }
    };
    let outcome = request.run(settings);
    let now = Utc::now();
    match outcome {
        Ok(done) => {
            tracing::info!(job = id, kind = done.kind, token = %done.token, outcome = ?done.outcome, "capture job done");
            report.succeeded += 1;
            queue.succeed(id, now)?;
            let (agent, session) = request.session();
            if matches!(request, JobRequest::SessionEnd { .. }) {
                queue.wake_waiting(agent, session, now)?;
            }
            Ok(())
        }
        // A compaction can arrive before its session ends: wait for the session end.
        Err(Error::Usage(UsageError::UnknownSession { session: why })) => {
            report.waiting += 1;
            queue.set_state(
                id,
                "waiting",
                i64::MAX,
                Some(&format!("no session yet: {why}")),
                now,
            )
        }
        Err(e) if holds_no_session(&request, &e) => {
            report.skipped += 1;
            queue.set_state(id, "skipped", 0, Some(&e.to_string()), now)
        }
        Err(e) => {
            let permanent = match &e {
                Error::Capture(_) | Error::Usage(_) | Error::Config(_) | Error::Hook(_) => true,
                Error::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
                _ => false,
            };
            let message = e.to_string();
            tracing::warn!(job = id, attempts, error = %message, "capture job failed");
            if permanent || attempts >= i64::from(cfg.job_attempts) {
                report.failed += 1;
                return queue.set_state(id, "failed", 0, Some(&message), now);
            }
            report.retried += 1;
            let backoff = cfg
                .job_backoff_seconds
                .saturating_mul(1 << (attempts - 1).clamp(0, 16));
            queue.set_state(
                id,
                "pending",
                ms(now) + (backoff as i64) * 1000,
                Some(&message),
                now,
            )
        }
    }
}

/// Hands the queue to the daemon if one runs (SIGUSR1), else starts a
/// detached worker process that drains it.
pub fn wake_worker(settings: &Settings, config_flag: Option<&Path>) -> Result<&'static str> {
    let state_dir = settings.state_dir();
    if crate::lock::signal_daemon(&state_dir, libc::SIGUSR1) {
        return Ok("daemon");
    }
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().map_err(|e| Error::io("<current exe>", e))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--workspace").arg(&settings.root);
    if let Some(config) = config_flag {
        cmd.arg("--config").arg(config);
    }
    cmd.args(["--quiet", "capture", "jobs"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        // Its own process group: a harness that kills the hook's group on timeout spares it.
        .process_group(0)
        .spawn()
        .map_err(|e| Error::io("<worker>", e))?;
    Ok("worker")
}

/// Drains the queue in this process (the `capture jobs` command and the daemon).
pub fn run_worker(settings: &Settings) -> Result<WorkerReport> {
    drain(
        &JobQueue::open(&settings.state_dir())?,
        settings,
        WORKER_MAX_WAIT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(root: &Path) -> Settings {
        let mut s =
            Settings::load(Some(root), None, &crate::config::Env::default()).expect("settings");
        s.config.capture.job_backoff_seconds = 0;
        s.config.capture.job_attempts = 3;
        s
    }

    /// The capture of a Copilot CLI session waits for the events its
    /// program writes after the sessionEnd hook, and no longer than needed.
    #[test]
    fn a_copilot_capture_waits_for_the_sessions_last_events() {
        let dir = tempfile::tempdir().expect("tempdir");
        let events = dir.path().join("events.jsonl");
        let start = "{\"type\":\"session.start\",\"data\":{}}\n";
        std::fs::write(&events, start).expect("write");
        assert!(!crate::harness::Harness::CopilotCli.ended_in_file(&events));
        let late = events.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let end = "{\"type\":\"assistant.message\",\"data\":{}}\n{\"type\":\"session.shutdown\",\"data\":{}}\n";
            std::fs::write(&late, format!("{start}{end}")).expect("write");
        });
        let began = std::time::Instant::now();
        await_end_in_file(Harness::CopilotCli, &events, Duration::from_secs(10));
        writer.join().expect("writer");
        assert!(crate::harness::Harness::CopilotCli.ended_in_file(&events));
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "{:?}",
            began.elapsed()
        );
        let missing = dir.path().join("never.jsonl");
        let began = std::time::Instant::now();
        await_end_in_file(Harness::CopilotCli, &missing, Duration::from_millis(200));
        assert!(began.elapsed() >= Duration::from_millis(200));
    }

    fn session_end(transcript: PathBuf) -> JobRequest {
        JobRequest::SessionEnd {
            agent_id: "default".into(),
            session_id: "s-1".into(),
            harness: "claude-code".into(),
            transcript_path: transcript,
            cwd: None,
            captured_at: Utc::now(),
        }
    }

    /// A Claude Code session log with one request and its answer.
    fn claude_session(path: &std::path::Path) {
        let lines = [
            r#"{"type":"user","uuid":"u","sessionId":"s-1","cwd":"/w/shop","timestamp":"2026-11-20T09:00:00.000Z","message":{"role":"user","content":"Fix src/pay.rs"}}"#,
            r#"{"type":"assistant","uuid":"a","sessionId":"s-1","timestamp":"2026-11-20T09:00:05.000Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"We fixed src/pay.rs."}]}}"#,
        ];
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }

    #[test]
    fn a_failing_job_is_retried_up_to_its_attempts_then_failed() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        // A file where the memory/ folder belongs: an I/O error a retry could outlive.
        let t = dir.path().join("t.jsonl");
        claude_session(&t);
        std::fs::write(dir.path().join("memory"), "not a folder").unwrap();
        enqueue(&queue, &session_end(t), Utc::now()).unwrap();
        let report = drain(&queue, &settings, Duration::ZERO).unwrap();
        assert_eq!((report.retried, report.failed), (2, 1));
        let stats = queue.stats().unwrap();
        assert_eq!((stats.failed, stats.attention[0].attempts), (1, 3));
    }

    #[test]
    fn a_hooks_file_that_is_no_session_log_is_refused_at_once_not_retried() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        enqueue(&queue, &session_end(dir.path().to_path_buf()), Utc::now()).unwrap();
        let plain = dir.path().join("notes.txt");
        std::fs::write(&plain, "We fixed src/pay.rs.").unwrap();
        enqueue(&queue, &session_end(plain), Utc::now()).unwrap();
        let report = drain(&queue, &settings, Duration::ZERO).unwrap();
        assert_eq!((report.retried, report.failed), (0, 2));
        let stats = queue.stats().unwrap();
        assert!(
            stats.attention.iter().all(|j| j.attempts == 1),
            "{:?}",
            stats.attention
        );
    }

    #[test]
    fn a_transcript_never_written_is_skipped_with_its_reason_and_a_good_job_succeeds() {
        // `claude mcp list` fires SessionEnd for a transcript it never writes.
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        enqueue(
            &queue,
            &session_end(dir.path().join("gone.jsonl")),
            Utc::now(),
        )
        .unwrap();
        let t = dir.path().join("t.jsonl");
        claude_session(&t);
        enqueue(&queue, &session_end(t), Utc::now()).unwrap();
        let report = drain(&queue, &settings, Duration::ZERO).unwrap();
        assert_eq!(
            (
                report.succeeded,
                report.skipped,
                report.failed,
                report.retried
            ),
            (1, 1, 0, 0)
        );
        assert!(dir.path().join("MEMORY.md").exists());
        let stats = queue.stats().unwrap();
        assert_eq!((stats.skipped, stats.failed), (1, 0));
        assert!(stats.attention.is_empty(), "{:?}", stats.attention);
        let last = queue.last().unwrap().unwrap();
        assert_eq!(last.state, "succeeded");
    }

    #[test]
    fn an_expired_lease_is_taken_over_and_a_live_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        let now = Utc::now();
        enqueue(&queue, &session_end(dir.path().join("t")), now).unwrap();
        let lease = Duration::from_secs(60);
        assert!(queue.claim("a", now, lease).unwrap().is_some());
        assert!(
            queue.claim("b", now, lease).unwrap().is_none(),
            "leased to a"
        );
        let later = now + chrono::Duration::seconds(61);
        let (_, attempts, _) = queue
            .claim("b", later, lease)
            .unwrap()
            .expect("expired lease");
        assert_eq!(attempts, 2);
    }
}
