//! Sessions kept in a harness's own database, through harvest: OpenClaw's
//! agent database (2026.9 on) and opencode's `opencode.db`.
//!
//! Each session is remembered by a watermark keyed `<database>#<session_id>`
//! whose size is its newest `seq` + 1 and whose mtime is when that event was
//! written: an unchanged session costs nothing beyond the one listing query.
//! A session that grew is read whole (archive, then live events) and handed
//! to capture, whose cursor finds the new turns and writes them as a
//! continuation. A window is captured by its own session id, never by
//! OpenClaw's session key: every window after a reset shares the key
//! (`agent:main:main`), and one token for all of them would make a new
//! window look like the old one grown. Only finished windows, or windows idle for
//! `harvest.idle_minutes`, are read. A database OpenClaw holds busy is left
//! for the next run; one that cannot be read is reported, and the run goes on.
//!
//! Owns: the decision for one database session. Must not: run SQL
//! (`store::openclaw`) or write canonical files (capture does).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::file::{Run, mtime, unchanged};
use super::sources::SessionFile;
use super::{Entry, HarvestReport};
use crate::contract;
use crate::error::Result;
use crate::harness::Harness;
use crate::scan::FileStat;
use crate::store::harvest::Watermark;
use crate::store::openclaw::OpenClawDb;
use crate::store::opencode::OpencodeDb;
use crate::store::session_db::{DbSession, SessionDatabase};
use crate::transcript::{Failure, Title, Transcript};

/// Statuses that say the run itself did not finish well.
const UNFINISHED: [&str; 3] = ["failed", "killed", "timeout"];

impl Run<'_> {
    /// Harvests the sessions of one harness database; returns how many it holds.
    pub(super) fn database(
        &self,
        harness: Harness,
        db: &Path,
        agent_id: &str,
        known: &HashMap<String, Watermark>,
        report: &mut HarvestReport,
    ) -> Result<usize> {
        let listed = open(harness, db).and_then(|d| d.sessions().map(|s| (d, s)));
        let (handle, sessions) = match listed {
            Ok(found) => found,
            Err(e) if crate::store::session_db::is_busy(&e) => {
                report.busy += 1;
                return Ok(0);
            }
            Err(e) => {
                report.failed.push(Entry {
                    path: db.display().to_string(),
                    harness,
                    agent_id: Some(agent_id.to_string()),
                    session_id: None,
                    reason: Some(format!(
                        "{}'s session database cannot be read: {}",
                        harness.as_str(),
                        crate::error::message(&e)
                    )),
                });
                return Ok(0);
            }
        };
        for s in &sessions {
            let f = SessionFile {
                harness,
                path: PathBuf::from(format!("{}#{}", db.display(), s.session_id)),
                agent_id: agent_id.to_string(),
            };
            let key = f.path.to_string_lossy().into_owned();
            self.session(handle.as_ref(), &f, s, known.get(&key), report)?;
        }
        Ok(sessions.len())
    }

    fn session(
        &self,
        db: &dyn SessionDatabase,
        f: &SessionFile,
        s: &DbSession,
        mark: Option<&Watermark>,
        report: &mut HarvestReport,
    ) -> Result<()> {
        let stat = FileStat {
            size: (s.last_seq + 1).max(0) as u64,
            mtime_ns: s.last_event_ms.saturating_mul(1_000_000),
            ctime_ns: 0,
            inode: 0,
        };
        let now_ms = self.now.timestamp_millis();
        if let Some(w) = mark
            && unchanged(stat, w)
            && !(w.state == "failed" && w.next_attempt_ms <= now_ms)
        {
            report.unchanged += 1;
            return Ok(());
        }
        if mtime(stat) < self.since {
            report.too_old += 1;
            return Ok(());
        }
        if !s.finished && !s.resting && !self.no_wait && self.now - mtime(stat) < self.idle {
            report.live += 1;
            return Ok(());
        }
        if self.dry_run {
            report
                .would_capture
                .push(self.entry(f, Some(s.session_id.clone()), None));
            return Ok(());
        }
        self.leased(f, stat, report, |report, mark| {
            self.claimed_session(db, f, s, (stat, mark), report)
        })
    }

    fn claimed_session(
        &self,
        db: &dyn SessionDatabase,
        f: &SessionFile,
        s: &DbSession,
        (stat, mark): (FileStat, Option<Watermark>),
        report: &mut HarvestReport,
    ) -> Result<()> {
        let max = self.settings.config.harvest.max_file_bytes;
        let events = match db.events(s, max) {
            Ok(bytes) => bytes,
            Err(e) if crate::store::session_db::is_busy(&e) => {
                report.busy += 1;
                return Ok(());
            }
            Err(e) => {
                let reason = crate::error::message(&e);
                report
                    .failed
                    .push(self.entry(f, Some(s.session_id.clone()), Some(reason)));
                return Ok(());
            }
        };
        let keep = crate::capture::transcript_budget(self.settings);
        // Reading bytes held in memory cannot fail.
        let Ok(mut t) = crate::harnesses::read_from(&events[..], keep) else {
            report.busy += 1;
            return Ok(());
        };
        with_window_facts(&mut t, s);
        let tail = contract::sha256_hex(&events[events.len().saturating_sub(4096)..]);
        let session_id = t.session_id.clone().or_else(|| Some(s.session_id.clone()));
        let verdict = self.verdict(f, stat, t, session_id.as_deref());
        self.settle(f, (stat, tail), session_id, verdict, mark.as_ref(), report)
    }
}

/// A harness's database, opened read-only.
pub(super) fn open(harness: Harness, db: &Path) -> Result<Box<dyn SessionDatabase>> {
    Ok(match harness {
        Harness::Opencode => Box::new(OpencodeDb::open(db)?),
        _ => Box::new(OpenClawDb::open(db)?),
    })
}

/// What the database knows of a session that its events do not say: the
/// operator's label, the parent of a sub-agent's session, a run that failed.
fn with_window_facts(t: &mut Transcript, s: &DbSession) {
    if t.title.is_none()
        && let Some(label) = s.label.as_deref().filter(|l| !l.trim().is_empty())
    {
        t.title = Some(Title {
            text: label.trim().to_string(),
            by_model: false,
        });
    }
    if s.parent.is_some() || s.created_via.as_deref() == Some("spawn") {
        t.subagent = true;
        t.parent_session = t.parent_session.take().or_else(|| s.parent.clone());
    }
    if t.failure.is_none()
        && let Some(status) = s.status.as_deref().filter(|st| UNFINISHED.contains(st))
    {
        t.failure = Some(Failure {
            after: t.messages.len(),
            error: format!("OpenClaw ended the run with status {status}"),
        });
    }
}
