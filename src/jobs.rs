//! Durable capture jobs: hook mode records one and returns at once; the daemon
//! or a detached worker runs it with a lease, bounded attempts and doubling
//! backoff (the leased-job model of seeds/004). The queue lives in
//! `.memsync/jobs.db`, apart from the index, so re-indexing never loses a job.
//!
//! Owns: the queue, claiming, outcomes, and starting a worker. Must not: write
//! canonical files itself (it calls `capture`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::capture;
use crate::config::Settings;
use crate::contract;
use crate::error::{Error, Result};

pub const JOBS_DB: &str = "jobs.db";

/// How long a worker waits for a retry that is due soon before it exits.
const WORKER_MAX_WAIT: Duration = Duration::from_secs(120);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    request TEXT NOT NULL,
    -- pending | running | waiting (a compaction whose session has not ended) | succeeded | failed
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL,
    lease_owner TEXT,
    lease_until_ms INTEGER,
    last_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(state, next_attempt_ms);
";

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
                let req = capture::SessionEnd {
                    agent_id: agent_id.clone(),
                    session_id: Some(session_id.clone()),
                    harness: Some(harness.clone()),
                    transcript: transcript_path.clone(),
                    project_fallback: cwd.clone(),
                    captured_at: Some(*captured_at),
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

/// A job as `status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobRow {
    pub id: i64,
    pub kind: String,
    pub agent_id: String,
    pub session_id: String,
    pub state: String,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub updated_at: String,
}

/// Counts per state and the jobs that need a person.
#[derive(Debug, Clone, Default, Serialize)]
pub struct JobStats {
    pub pending: i64,
    pub running: i64,
    pub waiting: i64,
    pub succeeded: i64,
    pub failed: i64,
    /// Failed and waiting jobs, newest first (at most 10).
    pub attention: Vec<JobRow>,
}

/// What one worker run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WorkerReport {
    pub succeeded: usize,
    pub retried: usize,
    pub waiting: usize,
    pub failed: usize,
}

pub struct JobQueue {
    path: PathBuf,
    conn: Connection,
}

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

impl JobQueue {
    pub fn open(state_dir: &Path) -> Result<JobQueue> {
        crate::index::create_private_dir(state_dir)?;
        let path = state_dir.join(JOBS_DB);
        let err = |source| Error::Index {
            path: path.clone(),
            source,
        };
        let conn = Connection::open(&path).map_err(err)?;
        crate::index::set_private_mode(&path);
        conn.busy_timeout(Duration::from_secs(10)).map_err(err)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA secure_delete = ON;")
            .map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        Ok(JobQueue { path, conn })
    }

    /// Opens the queue only if one exists (`status` must not create it).
    pub fn open_existing(state_dir: &Path) -> Result<Option<JobQueue>> {
        if !state_dir.join(JOBS_DB).exists() {
            return Ok(None);
        }
        JobQueue::open(state_dir).map(Some)
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::Index {
            path: self.path.clone(),
            source,
        }
    }

    pub fn enqueue(&self, request: &JobRequest, now: DateTime<Utc>) -> Result<i64> {
        let (agent, session) = request.session();
        let json = serde_json::to_string(request).unwrap_or_default();
        self.conn
            .execute(
                "INSERT INTO jobs(kind, agent_id, session_id, request, state, next_attempt_ms, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?6)",
                params![request.kind(), agent, session, json, ms(now), contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Records a hook call that could not become a job (bad payload), for `status`.
    pub fn record_failure(
        &self,
        kind: &str,
        agent_id: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO jobs(kind, agent_id, session_id, request, state, attempts, next_attempt_ms, last_error, created_at, updated_at)
                 VALUES (?1, ?2, '', '{}', 'failed', 0, 0, ?3, ?4, ?4)",
                params![kind, agent_id, error, contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Claims the oldest due job, or one whose worker's lease ran out.
    fn claim(
        &self,
        owner: &str,
        now: DateTime<Utc>,
        lease: Duration,
    ) -> Result<Option<(i64, i64, String)>> {
        self.conn
            .query_row(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?1,
                        lease_until_ms = ?2, updated_at = ?3
                 WHERE id = (SELECT id FROM jobs
                             WHERE (state = 'pending' AND next_attempt_ms <= ?4)
                                OR (state = 'running' AND lease_until_ms < ?4)
                             ORDER BY id LIMIT 1)
                 RETURNING id, attempts, request",
                params![
                    owner,
                    ms(now) + lease.as_millis() as i64,
                    contract::format_ts(now),
                    ms(now)
                ],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    fn set_state(
        &self,
        id: i64,
        state: &str,
        next_ms: i64,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.conn
            .execute(
                "UPDATE jobs SET state = ?2, next_attempt_ms = ?3, last_error = ?4, lease_owner = NULL,
                        lease_until_ms = NULL, updated_at = ?5 WHERE id = ?1",
                params![id, state, next_ms, error, contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A finished job keeps its metadata, not its text.
    fn succeed(&self, id: i64, now: DateTime<Utc>) -> Result<()> {
        self.set_state(id, "succeeded", 0, None, now)?;
        self.conn
            .execute(
                "UPDATE jobs SET request = json_remove(request, '$.body') WHERE id = ?1",
                [id],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Makes the compactions waiting for this session due now.
    fn wake_waiting(&self, agent_id: &str, session_id: &str, now: DateTime<Utc>) -> Result<()> {
        self.conn
            .execute(
                "UPDATE jobs SET state = 'pending', next_attempt_ms = ?3, updated_at = ?4
                 WHERE state = 'waiting' AND agent_id = ?1 AND session_id = ?2",
                params![agent_id, session_id, ms(now), contract::format_ts(now)],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Removes every job of a forgotten session, text and all.
    pub fn forget(&self, agent_id: &str, session_id: &str) -> Result<usize> {
        let n = self
            .conn
            .execute(
                "DELETE FROM jobs WHERE agent_id = ?1 AND session_id = ?2",
                params![agent_id, session_id],
            )
            .map_err(|e| self.err(e))?;
        let _ = self.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
        Ok(n)
    }

    /// The soonest moment a pending job becomes due.
    fn next_due(&self) -> Result<Option<DateTime<Utc>>> {
        let next: Option<i64> = self
            .conn
            .query_row(
                "SELECT MIN(next_attempt_ms) FROM jobs WHERE state = 'pending'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        Ok(next.and_then(DateTime::from_timestamp_millis))
    }

    pub fn has_due(&self, now: DateTime<Utc>) -> Result<bool> {
        Ok(self.next_due()?.is_some_and(|t| t <= now))
    }

    pub fn stats(&self) -> Result<JobStats> {
        let mut stats = JobStats::default();
        let mut stmt = self
            .conn
            .prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state")
            .map_err(|e| self.err(e))?;
        let counts = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .and_then(|rows| rows.collect::<std::result::Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        for (state, n) in counts {
            match state.as_str() {
                "pending" => stats.pending = n,
                "running" => stats.running = n,
                "waiting" => stats.waiting = n,
                "succeeded" => stats.succeeded = n,
                _ => stats.failed += n,
            }
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, kind, agent_id, session_id, state, attempts, last_error, updated_at FROM jobs
                 WHERE state IN ('failed', 'waiting') ORDER BY id DESC LIMIT 10",
            )
            .map_err(|e| self.err(e))?;
        stats.attention = stmt
            .query_map([], |r| {
                Ok(JobRow {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    agent_id: r.get(2)?,
                    session_id: r.get(3)?,
                    state: r.get(4)?,
                    attempts: r.get(5)?,
                    last_error: r.get(6)?,
                    updated_at: r.get(7)?,
                })
            })
            .and_then(|rows| rows.collect::<std::result::Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        Ok(stats)
    }

    /// Runs due jobs until none is left; waits for retries due within
    /// `max_wait`. Several workers may run at once: the lease keeps each job to one.
    pub fn drain(&self, settings: &Settings, max_wait: Duration) -> Result<WorkerReport> {
        let cfg = &settings.config.capture;
        let owner = format!("pid {}", std::process::id());
        let lease = Duration::from_secs(cfg.job_lease_seconds);
        let mut report = WorkerReport::default();
        loop {
            let now = Utc::now();
            let Some((id, attempts, json)) = self.claim(&owner, now, lease)? else {
                match self.next_due()? {
                    Some(at)
                        if at - now <= chrono::Duration::from_std(max_wait).unwrap_or_default() =>
                    {
                        std::thread::sleep((at - now).to_std().unwrap_or_default());
                        continue;
                    }
                    _ => return Ok(report),
                }
            };
            self.run_one(settings, id, attempts, &json, &mut report)?;
        }
    }

    fn run_one(
        &self,
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
                return self.set_state(
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
                self.succeed(id, now)?;
                let (agent, session) = request.session();
                if matches!(request, JobRequest::SessionEnd { .. }) {
                    self.wake_waiting(agent, session, now)?;
                }
                Ok(())
            }
            // A compaction can arrive before its session ends: wait for the session end.
            Err(Error::UnknownSession(why)) => {
                report.waiting += 1;
                self.set_state(
                    id,
                    "waiting",
                    i64::MAX,
                    Some(&format!("no session yet: {why}")),
                    now,
                )
            }
            Err(e) => {
                let permanent = match &e {
                    Error::Refused { .. } | Error::Usage(_) | Error::Config { .. } => true,
                    Error::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
                    _ => false,
                };
                let message = e.to_string();
                tracing::warn!(job = id, attempts, error = %message, "capture job failed");
                if permanent || attempts >= i64::from(cfg.job_attempts) {
                    report.failed += 1;
                    return self.set_state(id, "failed", 0, Some(&message), now);
                }
                report.retried += 1;
                let backoff = cfg
                    .job_backoff_seconds
                    .saturating_mul(1 << (attempts - 1).clamp(0, 16));
                self.set_state(
                    id,
                    "pending",
                    ms(now) + (backoff as i64) * 1000,
                    Some(&message),
                    now,
                )
            }
        }
    }
}

/// Hands the queue to the daemon if one runs (SIGUSR1), else starts a
/// detached worker process that drains it.
pub fn wake_worker(settings: &Settings, config_flag: Option<&Path>) -> Result<&'static str> {
    let state_dir = settings.state_dir();
    if crate::lock::PidLock::is_held(&state_dir, crate::watch::DAEMON_LOCK)
        && let Some(pid) = std::fs::read_to_string(state_dir.join(crate::watch::DAEMON_LOCK))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        // SAFETY: kill(2) with a pid read from the daemon's own lock, which it holds.
        && unsafe { libc::kill(pid, libc::SIGUSR1) } == 0
    {
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
    JobQueue::open(&settings.state_dir())?.drain(settings, WORKER_MAX_WAIT)
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

    #[test]
    fn a_failing_job_is_retried_up_to_its_attempts_then_failed() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        // A directory where a transcript belongs: an I/O error a retry could outlive.
        queue
            .enqueue(&session_end(dir.path().to_path_buf()), Utc::now())
            .unwrap();
        let report = queue.drain(&settings, Duration::ZERO).unwrap();
        assert_eq!((report.retried, report.failed), (2, 1));
        let stats = queue.stats().unwrap();
        assert_eq!((stats.failed, stats.attention[0].attempts), (1, 3));
    }

    #[test]
    fn a_missing_transcript_fails_at_once_and_a_good_job_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        queue
            .enqueue(&session_end(dir.path().join("gone.jsonl")), Utc::now())
            .unwrap();
        let t = dir.path().join("t.txt");
        std::fs::write(&t, "We fixed src/pay.rs.").unwrap();
        queue.enqueue(&session_end(t), Utc::now()).unwrap();
        let report = queue.drain(&settings, Duration::ZERO).unwrap();
        assert_eq!((report.succeeded, report.failed, report.retried), (1, 1, 0));
        assert!(dir.path().join("MEMORY.md").exists());
    }

    #[test]
    fn an_expired_lease_is_taken_over_and_a_live_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let settings = settings(dir.path());
        let queue = JobQueue::open(&settings.state_dir()).unwrap();
        let now = Utc::now();
        queue
            .enqueue(&session_end(dir.path().join("t")), now)
            .unwrap();
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
