//! One session file through harvest: stat against its watermark, the idle
//! and age rules, the lease, one stable read, the reader's verdict
//! (sub-agent, no request from a person, excluded project, forgotten), the
//! capture, and the watermark that records the outcome.
//!
//! Owns: the decision for one file. Must not: list files or run SQL.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use globset::GlobSet;

use super::sources::SessionFile;
use super::{Entry, HarvestReport};
use crate::capture::{self, Outcome};
use crate::config::{Config, Settings, glob_set};
use crate::contract;
use crate::error::{Error, Result};
use crate::scan::FileStat;
use crate::store::harvest::{Watermark, Watermarks};
use crate::transcript;

/// How much of a file's end its watermark digests.
const TAIL_BYTES: u64 = 4096;

/// Projects and sessions that are never harvested: `harvest.exclude_projects`
/// and the projections' own private/test rules.
pub(super) struct Exclusions {
    projects: GlobSet,
    sessions: GlobSet,
}

impl Exclusions {
    pub(super) fn new(cfg: &Config) -> Result<Exclusions> {
        Ok(Exclusions {
            projects: glob_set(
                "harvest.exclude_projects",
                cfg.harvest
                    .exclude_projects
                    .iter()
                    .chain(&cfg.projection.exclude_projects),
            )?,
            sessions: glob_set(
                "projection.exclude_sessions",
                &cfg.projection.exclude_sessions,
            )?,
        })
    }
}

impl Exclusions {
    /// Whether a project is left out (`harvest.exclude_projects`, `projection.exclude_projects`).
    pub(super) fn excludes_project(&self, project: &str) -> bool {
        self.projects.is_match(project)
    }
}

/// A regular file's stat (symlinks are not followed), as the scan's cache keeps it.
pub(crate) fn stat_of(path: &Path) -> Option<FileStat> {
    let m = std::fs::symlink_metadata(path).ok()?;
    m.is_file().then(|| FileStat::of(&m))
}

pub(super) fn mtime(stat: FileStat) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(stat.mtime_ns)
}

/// Whether the file is as its watermark recorded it.
pub(super) fn unchanged(stat: FileStat, w: &Watermark) -> bool {
    stat.size == w.size && stat.mtime_ns == w.mtime_ns && stat.inode == w.inode
}

/// The digest of the last bytes of the file's first `end` bytes: what a
/// watermark checks to tell an append from a rewrite.
fn tail_digest(file: &std::fs::File, end: u64) -> std::io::Result<String> {
    use std::os::unix::fs::FileExt;
    let start = end.saturating_sub(TAIL_BYTES);
    let mut buf = vec![0; (end - start) as usize];
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], start + got as u64)? {
            0 => break,
            n => got += n,
        }
    }
    buf.truncate(got);
    Ok(contract::sha256_hex(&buf))
}

/// One harvest run's settings, shared by every file.
pub(super) struct Run<'a> {
    pub(super) settings: &'a Settings,
    pub(super) marks: &'a Watermarks,
    pub(super) now: DateTime<Utc>,
    pub(super) since: DateTime<Utc>,
    pub(super) idle: Duration,
    pub(super) owner: String,
    pub(super) dry_run: bool,
    pub(super) exclusions: Exclusions,
    /// The files this run's captures wrote or kept: indexed together at the end.
    pub(super) touched: std::cell::RefCell<Vec<String>>,
    /// Take sessions still within `idle_minutes` too (`harvest --no-wait`).
    pub(super) no_wait: bool,
    /// The settings for a session that ended before
    /// [`super::FRESH_MINUTES`]: no sentence provider (unless `--sentences`).
    pub(super) without_model: Option<Settings>,
}

/// What became of a file that was read.
pub(super) enum Verdict {
    Skip(String),
    Fail {
        reason: String,
        permanent: bool,
    },
    /// With when the session ended (its last entry, else its file's mtime).
    Captured(Box<capture::CaptureReport>, DateTime<Utc>),
}

impl Run<'_> {
    pub(super) fn entry(
        &self,
        f: &SessionFile,
        session_id: Option<String>,
        reason: Option<String>,
    ) -> Entry {
        Entry {
            path: f.path.display().to_string(),
            harness: f.harness,
            agent_id: Some(f.agent_id.clone()),
            session_id,
            reason,
        }
    }

    /// Skips a file too large to read whole, and remembers it until it changes.
    fn too_large(
        &self,
        f: &SessionFile,
        stat: FileStat,
        max: u64,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let reason = format!(
            "{} bytes, over harvest.max_file_bytes ({max}); not read",
            stat.size
        );
        report
            .skipped
            .push(self.entry(f, None, Some(reason.clone())));
        if self.dry_run {
            return Ok(());
        }
        self.marks.record(
            &Watermark {
                path: f.path.to_string_lossy().into_owned(),
                harness: f.harness.as_str().to_string(),
                size: stat.size,
                mtime_ns: stat.mtime_ns,
                inode: stat.inode,
                tail_sha256: String::new(),
                state: "skipped".into(),
                reason: Some(reason),
                agent_id: Some(f.agent_id.clone()),
                session_id: None,
                attempts: 0,
                next_attempt_ms: 0,
            },
            self.now,
        )
    }

    /// Decides and does what one file needs.
    pub(super) fn one(
        &self,
        f: &SessionFile,
        mark: Option<&Watermark>,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let Some(stat) = stat_of(&f.path) else {
            return Ok(());
        };
        let now_ms = self.now.timestamp_millis();
        let retry_due = |w: &Watermark| w.state == "failed" && w.next_attempt_ms <= now_ms;
        // A replaced file was reported once; it is not read again (capture it
        // by hand with `capture session-end` if it is a session worth keeping).
        if let Some(w) = mark
            && ((unchanged(stat, w) && !retry_due(w)) || w.state == "replaced")
        {
            report.unchanged += 1;
            return Ok(());
        }
        if mtime(stat) < self.since {
            report.too_old += 1;
            return Ok(());
        }
        if self.now - mtime(stat) < self.idle && !self.no_wait && !f.ended_by_harness() {
            report.live += 1;
            return Ok(());
        }
        if let Some(w) = mark.filter(|w| w.state == "captured")
            && !f.rewritten_whole()
            && (stat.inode != w.inode || stat.size < w.size)
        {
            return self.replaced(f, stat, w, None, report);
        }
        if self.dry_run {
            // A session a hook (or another machine) captured has no mark
            // here: a real run finds it in the workspace and writes nothing.
            match mark.is_none() && self.in_workspace(f) {
                true => report.already_captured += 1,
                false => report.would_capture.push(self.entry(f, None, None)),
            }
            return Ok(());
        }
        self.leased(f, stat, report, |report, mark| {
            self.claimed(f, stat, mark, report)
        })
    }

    /// Whether the file's session has files in the workspace already (its
    /// id as a real run would take it: the transcript's, else the name's).
    fn in_workspace(&self, f: &SessionFile) -> bool {
        let read = crate::files::open_file(&f.path).ok().and_then(|file| {
            let keep = capture::transcript_budget(self.settings);
            crate::harnesses::read_from(std::io::BufReader::new(file), keep).ok()
        });
        let Some(id) = read
            .and_then(|t| t.session_id)
            .or_else(|| transcript::id_in_name(&f.path))
            .or_else(|| f.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        else {
            return false;
        };
        let rule = self.settings.config.token.write_rule;
        let token = contract::token_for(rule, &f.agent_id, None, &id);
        capture::session_file_paths(&self.settings.root, &token).is_ok_and(|p| !p.is_empty())
    }

    /// Runs `work` on a session under its lease, with its watermark read
    /// afresh: another harvester may have finished it since the run began
    /// (then it is unchanged and `work` does not run). Busy when another holds it.
    pub(super) fn leased(
        &self,
        f: &SessionFile,
        stat: FileStat,
        report: &mut HarvestReport,
        work: impl FnOnce(&mut HarvestReport, Option<Watermark>) -> Result<()>,
    ) -> Result<()> {
        let key = f.path.to_string_lossy().into_owned();
        let lease = std::time::Duration::from_secs(self.settings.config.capture.job_lease_seconds);
        if !self.marks.claim(&key, &self.owner, self.now, lease)? {
            report.busy += 1;
            return Ok(());
        }
        let outcome = match self.marks.get(&key) {
            Ok(Some(w)) if unchanged(stat, &w) && w.state != "failed" => {
                report.unchanged += 1;
                Ok(())
            }
            Ok(mark) => work(report, mark),
            Err(e) => Err(e),
        };
        self.marks.release(&key, &self.owner)?;
        outcome
    }

    /// The part of `one` done under the lease.
    fn claimed(
        &self,
        f: &SessionFile,
        stat: FileStat,
        mark: Option<Watermark>,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let max = self.settings.config.harvest.max_file_bytes;
        if stat.size > max {
            return self.too_large(f, stat, max, report);
        }
        let Ok(file) = crate::files::open_file(&f.path) else {
            report.busy += 1;
            return Ok(());
        };
        // Read a line at a time, within the transcript budget: memory follows
        // the budget, not the file (a daemon harvests every interval).
        let keep = capture::transcript_budget(self.settings);
        let read =
            crate::harnesses::read_from(std::io::BufReader::with_capacity(64 * 1024, &file), keep);
        let (Ok(t), Ok(tail)) = (read, tail_digest(&file, stat.size)) else {
            report.busy += 1;
            return Ok(());
        };
        // A file that changed while it was read is left for the next run.
        if stat_of(&f.path) != Some(stat) {
            report.busy += 1;
            return Ok(());
        }
        if let Some(w) = mark.as_ref().filter(|w| w.state == "captured")
            && !f.rewritten_whole()
            && tail_digest(&file, w.size).ok().as_ref() != Some(&w.tail_sha256)
        {
            return self.replaced(f, stat, w, Some(tail), report);
        }
        let session_id = t
            .session_id
            .clone()
            .or_else(|| transcript::id_in_name(&f.path))
            .or_else(|| f.path.file_stem().map(|s| s.to_string_lossy().into_owned()));
        // Quiet for `idle_minutes`, or ended by the harness's own marker, or
        // a turn's end that no process writes after (`codex exec` exited).
        let ended = t.closed
            || self.no_wait
            || (t.turn_ended && crate::files::no_writer_holds(&file) == Some(true));
        if !ended && t.ended_at.is_some_and(|end| self.now - end < self.idle) {
            report.live += 1;
            return Ok(());
        }
        let verdict = self.verdict(f, stat, t, session_id.as_deref());
        self.settle(f, (stat, tail), session_id, verdict, mark.as_ref(), report)
    }

    /// Records what became of a read session (its watermark) and reports it.
    pub(super) fn settle(
        &self,
        f: &SessionFile,
        (stat, tail): (FileStat, String),
        session_id: Option<String>,
        verdict: Verdict,
        mark: Option<&Watermark>,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let mut w = Watermark {
            path: f.path.to_string_lossy().into_owned(),
            harness: f.harness.as_str().to_string(),
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            inode: stat.inode,
            tail_sha256: tail,
            state: String::new(),
            reason: None,
            agent_id: Some(f.agent_id.clone()),
            session_id: session_id.clone(),
            attempts: 0,
            next_attempt_ms: 0,
        };
        match verdict {
            Verdict::Skip(reason) => {
                w.state = "skipped".into();
                w.reason = Some(reason.clone());
                report.skipped.push(self.entry(f, session_id, Some(reason)));
            }
            Verdict::Fail { reason, permanent } => {
                let attempts = mark.map_or(0, |m| m.attempts) + 1;
                let cfg = &self.settings.config.capture;
                let gave_up = permanent || attempts >= i64::from(cfg.job_attempts);
                let backoff = cfg
                    .job_backoff_seconds
                    .saturating_mul(1 << (attempts - 1).clamp(0, 16));
                w.state = "failed".into();
                w.attempts = attempts;
                // A failure that a retry cannot mend waits for the file to change.
                w.next_attempt_ms = if gave_up {
                    i64::MAX
                } else {
                    self.now.timestamp_millis() + (backoff as i64).saturating_mul(1000)
                };
                let note = if gave_up { "" } else { "; retried later" };
                w.reason = Some(reason.clone());
                report
                    .failed
                    .push(self.entry(f, session_id, Some(format!("{reason}{note}"))));
            }
            Verdict::Captured(done, ended) => {
                self.touched.borrow_mut().extend(done.files.iter().cloned());
                w.state = "captured".into();
                w.session_id = Some(done.session_id.clone());
                let e = self.entry(f, Some(done.session_id.clone()), None);
                match (done.outcome, mark.map(|m| m.state.as_str())) {
                    (Outcome::AlreadyCaptured, _) => report.already_captured += 1,
                    (Outcome::Written, Some("captured")) => report.continued.push(e),
                    (Outcome::Written, _) => {
                        let window = self.settings.config.memory_md.window_days;
                        if ended < self.now - Duration::days(window.min(36_500) as i64) {
                            report.older_than_window += 1;
                        }
                        report.captured.push(e)
                    }
                }
            }
        }
        self.marks.record(&w, self.now)
    }

    /// The reader's and the rules' verdict on a file's session, and the capture.
    pub(super) fn verdict(
        &self,
        f: &SessionFile,
        stat: FileStat,
        t: transcript::Transcript,
        session_id: Option<&str>,
    ) -> Verdict {
        let skip = |why: &str| Verdict::Skip(why.to_string());
        // A harness folder holds JSON lines; text that reads only as plain
        // text (or as no format at all) is not a session file.
        if matches!(
            t.format,
            transcript::Format::Unknown | transcript::Format::Plain
        ) || (!t.understood() && t.has_request())
        {
            return Verdict::Fail {
                reason: format!(
                    "not a {} session file: no reader understands it",
                    f.harness.as_str()
                ),
                permanent: true,
            };
        }
        if t.is_model_call() {
            return skip("memsync's own model call (a sentence or summary it asked a model for)");
        }
        if t.subagent {
            return skip("a sub-agent's session (its parent session holds the work)");
        }
        if !t.has_request() {
            return match (&t.forked_from, t.nothing_to_capture()) {
                (Some(_), Some(why)) => Verdict::Skip(why),
                _ => skip("no request from a person (heartbeats or an empty session)"),
            };
        }
        if t.project
            .as_deref()
            .is_some_and(|p| self.exclusions.projects.is_match(p))
        {
            return skip(
                "its project is excluded (harvest.exclude_projects, projection.exclude_projects)",
            );
        }
        let Some(session_id) = session_id else {
            return skip("no session id in the file or its name");
        };
        if self.exclusions.sessions.is_match(session_id) {
            return skip("a test session (projection.exclude_sessions)");
        }
        let cfg = &self.settings.config;
        let token = contract::token_for(cfg.token.write_rule, &f.agent_id, None, session_id);
        if self
            .settings
            .root
            .join(contract::tombstone_path(&f.agent_id, &token))
            .exists()
        {
            return skip("forgotten: its tombstone keeps it out");
        }
        let req = capture::SessionEnd {
            agent_id: f.agent_id.clone(),
            session_id: Some(session_id.to_string()),
            harness: Some(f.harness.as_str().to_string()),
            transcript: f.path.clone(),
            captured_at: Some(mtime(stat).min(self.now)),
            defer_render: true,
            defer_index: true,
            ..Default::default()
        };
        let ended = t.ended_at.unwrap_or_else(|| mtime(stat));
        let settings = match &self.without_model {
            Some(quiet) if ended < self.now - Duration::minutes(super::FRESH_MINUTES) => quiet,
            _ => self.settings,
        };
        match capture::session_end_of(settings, self.now, &req, t) {
            Ok(done) => Verdict::Captured(Box::new(done), ended),
            Err(e) => Verdict::Fail {
                reason: crate::error::message(&e),
                permanent: matches!(e, Error::Capture(_) | Error::Usage(_) | Error::Config(_)),
            },
        }
    }

    /// A captured file that is shorter, another inode, or rewritten: reported
    /// once, and never captured again as a new session.
    fn replaced(
        &self,
        f: &SessionFile,
        stat: FileStat,
        old: &Watermark,
        tail: Option<String>,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let reason = format!(
            "truncated or replaced since it was captured ({} bytes, inode {} → {} bytes, inode {}); not captured again",
            old.size, old.inode, stat.size, stat.inode
        );
        report
            .replaced
            .push(self.entry(f, old.session_id.clone(), Some(reason.clone())));
        if self.dry_run {
            return Ok(());
        }
        let tail = tail.unwrap_or_else(|| {
            crate::files::open_file(&f.path)
                .and_then(|file| tail_digest(&file, stat.size))
                .unwrap_or_default()
        });
        let w = Watermark {
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            inode: stat.inode,
            tail_sha256: tail,
            state: "replaced".into(),
            reason: Some(reason),
            ..old.clone()
        };
        self.marks.record(&w, self.now)
    }
}
