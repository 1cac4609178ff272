//! `memsync status`: what the index, the daemon, the job queue, harvest,
//! git and the projections say, and one line on whether anything needs a
//! person.
//!
//! Owns: gathering the status report. Must not: sync, write, or word the
//! text (`render_status`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::commands::{Freshness, open_for_reading};
use super::render::plural;
use crate::config::Settings;
use crate::contract;
use crate::error::Result;
use crate::validate::Severity;

#[derive(Debug, Serialize)]
pub struct AgentStatus {
    pub agent_id: String,
    pub sessions: i64,
    pub sessions_in_window: i64,
    pub artifacts: BTreeMap<String, i64>,
    pub stale: i64,
    /// Its in-window sessions against its MEMORY.md: kept, and why not.
    pub memory_md: crate::project::LedgerAccount,
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
    /// A MEMORY.md another tool renders (Signet's ledger): memsync renders
    /// nothing there, so it is never stale.
    pub foreign: bool,
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
    /// Notes by who wrote them: `person`, `agent`, or a harness's name.
    pub notes: Vec<NoteSource>,
    /// Notes `forget` removed (their tombstones).
    pub notes_forgotten: usize,
    pub errors: usize,
    pub warnings: usize,
    pub problems: Vec<RuleStatus>,
    pub projections: Vec<ProjectionStatus>,
    /// `memory/` is gone while the index holds sessions from it: nothing is
    /// rendered until it is back, so no projection is "about to be".
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_missing: bool,
    pub daemon: crate::watch::DaemonStatus,
    /// Capture jobs queued by hooks; `None` when no hook has run.
    pub jobs: Option<crate::jobs::JobStats>,
    /// Harness session files `harvest` has seen; `None` when it never ran.
    pub harvest: Option<crate::store::harvest::HarvestStats>,
    /// Recent git merges of projections where both sides changed the same lines (both kept).
    pub union_merges: Vec<serde_json::Value>,
    /// Autostash entries git pulls left behind (and a stuck MERGE_AUTOSTASH):
    /// the lines in them are in no file an agent reads.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub autostash: Vec<crate::git::LeftStash>,
    /// Earlier sessions offered with prompts (the UserPromptSubmit hook).
    pub prompt_recall: PromptRecallStatus,
    /// Who writes memory sentences, and what the model's calls came to.
    pub sentences: SentenceStatus,
}

/// The sentence provider in force and its calls of the last 7 days.
#[derive(Debug, Serialize)]
pub struct SentenceStatus {
    /// `None`: every sentence is composed from its session.
    pub provider: Option<String>,
    pub last_7_days: crate::store::model_calls::ModelCallStats,
}

/// How many notes one source wrote.
#[derive(Debug, Serialize)]
pub struct NoteSource {
    pub source: String,
    pub notes: i64,
}

/// What the per-prompt recall has offered, over the agent sessions it kept a record for.
#[derive(Debug, Serialize)]
pub struct PromptRecallStatus {
    pub enabled: bool,
    /// Agent sessions that were offered at least one earlier session.
    pub sessions: usize,
    /// Earlier sessions offered in all.
    pub offered: usize,
}

/// Reads the index as it is; runs no sync.
pub fn status(settings: &Settings, now: DateTime<Utc>) -> Result<Status> {
    let index_path = settings.index_path();
    let index = open_for_reading(settings, now, Freshness::AsItIs, None)?;
    let window_start =
        contract::format_ts(now - Duration::days(settings.config.memory_md.window_days as i64));
    let window_end = contract::format_ts(now);
    let agents = index
        .agent_counts((&window_start, &window_end))?
        .into_iter()
        .map(|a| {
            Ok(AgentStatus {
                memory_md: crate::project::ledger_account(&index, settings, &a.agent_id, now)?,
                agent_id: a.agent_id,
                sessions: a.sessions,
                sessions_in_window: a.sessions_in_window,
                artifacts: a.artifacts.into_iter().collect(),
                stale: a.stale,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let (errors, warnings) = index.problem_counts()?;
    let dirty: Vec<String> = index.dirty_marks()?.0.into_iter().map(|(a, _)| a).collect();
    // A MEMORY.md holding rows a render would drop is not fresh either.
    let outdated: Vec<String> = agents
        .iter()
        .filter(|a| a.memory_md.outdated > 0)
        .map(|a| crate::project::memory_md_path(&a.agent_id))
        .collect();
    let foreign: Vec<String> = agents
        .iter()
        .filter(|a| a.memory_md.foreign)
        .map(|a| crate::project::memory_md_path(&a.agent_id))
        .collect();
    let projections = index
        .projection_state()?
        .into_iter()
        .map(|s| {
            let on_disk = std::fs::symlink_metadata(settings.root.join(&s.path))
                .ok()
                .map(|m| crate::scan::FileStat::of(&m));
            let fresh = on_disk.is_some_and(|st| st.size == s.size && st.mtime_ns == s.mtime_ns)
                && !dirty.contains(&s.agent_id)
                && !outdated.contains(&s.path);
            ProjectionStatus {
                foreign: foreign.contains(&s.path),
                path: s.path,
                fresh,
            }
        })
        .collect();
    let memory_missing =
        !crate::pipeline::memory_dir_present(settings) && agents.iter().any(|a| a.sessions > 0);
    let mut status = Status {
        health: String::new(),
        workspace: settings.root.clone(),
        machine_config: settings.sources.machine.clone(),
        workspace_config: settings.sources.workspace.clone(),
        index_bytes: std::fs::metadata(&index_path).map(|m| m.len()).unwrap_or(0),
        index: index_path,
        last_sync: index.meta("last_sync")?,
        agents,
        tombstones: index.tombstone_count()?,
        notes: index
            .note_sources()?
            .into_iter()
            .map(|(source, notes)| NoteSource { source, notes })
            .collect(),
        notes_forgotten: std::fs::read_dir(settings.root.join(crate::note::FORGOTTEN_DIR))
            .map(|d| d.flatten().count())
            .unwrap_or(0),
        errors,
        warnings,
        problems: index
            .problems_by_rule(3)?
            .into_iter()
            .map(|r| RuleStatus {
                rule: r.rule,
                severity: r.severity,
                count: usize::try_from(r.count).unwrap_or(0),
                first_paths: r.first_paths,
            })
            .collect(),
        memory_missing,
        projections,
        daemon: crate::watch::daemon_status(&settings.state_dir()),
        jobs: crate::jobs::JobQueue::open_existing(&settings.state_dir())?
            .map(|q| q.stats())
            .transpose()?,
        harvest: crate::store::harvest::Watermarks::open_existing(&settings.state_dir())?
            .map(|w| w.stats())
            .transpose()?
            .filter(|h| h.files > 0),
        union_merges: crate::git::recent_unions(&settings.state_dir()),
        autostash: crate::git::left_stashes(&settings.root).unwrap_or_default(),
        prompt_recall: {
            let (sessions, offered) = crate::recall::offered_counts(&settings.state_dir());
            PromptRecallStatus {
                enabled: settings.config.search.prompt_recall,
                sessions,
                offered,
            }
        },
        sentences: SentenceStatus {
            provider: settings
                .config
                .sentence
                .provider()
                .map(|p| p.name().to_string()),
            last_7_days: crate::store::model_calls::ModelCallLedger::open_existing(
                &settings.state_dir(),
            )?
            .map(|l| l.stats_since(now - Duration::days(7)))
            .transpose()?
            .unwrap_or_default(),
        },
    };
    status.health = health(&status);
    Ok(status)
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
    if let Some(h) = &s.harvest
        && h.failed + h.replaced > 0
    {
        issues.push(plural(
            (h.failed + h.replaced) as usize,
            "harvested file needing a look",
        ));
    }
    if !s.autostash.is_empty() {
        issues.push(format!(
            "{} left by git pulls",
            match s.autostash.len() {
                1 => "1 autostash entry".to_string(),
                n => format!("{n} autostash entries"),
            }
        ));
    }
    let stale = s
        .projections
        .iter()
        .filter(|p| !p.fresh && !p.foreign)
        .count();
    if s.memory_missing {
        issues.push(
            "memory/ is missing: nothing is rendered until it is back (move it back; `memsync check` says more)"
                .into(),
        );
    } else if stale > 0 {
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
