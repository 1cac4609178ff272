//! Which projections a render pass must write: the agents whose MEMORY.md
//! and the days whose daily logs changed inputs, files changed behind
//! memsync's back, windows that rolled, or settings that changed.
//!
//! Owns: that decision. Must not: render or write anything.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::{Compare, memory_md, memory_md_path};
use crate::config::{Config, Settings};
use crate::contract::{self, DayZone};
use crate::error::Result;
use crate::scan::FileStat;
use crate::store::{Index, ProjectionState};

/// What must be rendered this pass.
pub(super) struct Dirty {
    pub(super) agents: BTreeSet<String>,
    pub(super) days: BTreeSet<(String, NaiveDate)>,
    pub(super) fingerprint: String,
    /// The notes MEMORY.md lists (their paths and titles), as a digest.
    pub(super) notes: String,
    /// The marks this render consumes, and the highest of their ids.
    pub(super) marks: Vec<(String, String)>,
    pub(super) marks_through: i64,
}

impl Dirty {
    /// Dirty = inputs changed (marks left by indexing), files changed behind
    /// memsync's back, windows that rolled past a row, projections never
    /// rendered, or a change to the projection settings (everything).
    pub(super) fn collect(
        index: &Index,
        state: &[ProjectionState],
        settings: &Settings,
        now: DateTime<Utc>,
        zone: DayZone,
        compare: Compare<'_>,
    ) -> Result<Dirty> {
        let cfg = &settings.config;
        let fingerprint = contract::sha256_hex(
            serde_json::to_string(&(
                &cfg.memory_md,
                &cfg.daily_logs,
                &cfg.projection,
                &cfg.sentence,
                &cfg.mirrors,
            ))
            .unwrap_or_default()
            .as_bytes(),
        );
        let full = index.meta("projection_config")?.as_deref() != Some(fingerprint.as_str());
        let (marks, marks_through) = index.dirty_marks()?;
        let notes = memory_md::notes_digest(index)?;
        let notes_changed = index.meta("projection_notes")?.as_deref() != Some(notes.as_str());
        let mut dirty = Dirty {
            agents: BTreeSet::new(),
            days: BTreeSet::new(),
            fingerprint,
            notes,
            marks,
            marks_through,
        };
        let rendered: BTreeSet<&str> = state.iter().map(|s| s.path.as_str()).collect();
        let mut agents = index.session_agents()?;
        // Agents read MEMORY.md even before their first session.
        agents.push("default".into());
        agents.extend(cfg.mirrors.iter().map(|m| m.agent.clone()));
        for agent in agents {
            if full || notes_changed || !rendered.contains(memory_md_path(&agent).as_str()) {
                dirty.agents.insert(agent);
            }
        }
        for (agent, ts) in &dirty.marks {
            if let Some(ts) = contract::parse_ts(ts) {
                dirty.days.insert((agent.clone(), zone.date(ts)));
            }
            dirty.agents.insert(agent.clone());
        }
        for s in state {
            let moved = compare.includes(&s.path) && {
                let on_disk = std::fs::symlink_metadata(settings.root.join(&s.path))
                    .ok()
                    .map(|m| FileStat::of(&m));
                on_disk.is_none_or(|st| st.size != s.size || st.mtime_ns != s.mtime_ns)
            };
            match s
                .scope
                .strip_prefix("day:")
                .and_then(|d| d.parse::<NaiveDate>().ok())
            {
                Some(day) if moved || full => {
                    dirty.days.insert((s.agent_id.clone(), day));
                }
                Some(_) => {}
                None if moved
                    || full
                    || window_rolled(index, &s.agent_id, &s.rendered_now, now, cfg)? =>
                {
                    dirty.agents.insert(s.agent_id.clone());
                }
                None => {}
            }
        }
        if full {
            for (agent, ts) in index.all_projection_times()? {
                if let Some(ts) = contract::parse_ts(&ts) {
                    dirty.days.insert((agent, zone.date(ts)));
                }
            }
        }
        Ok(dirty)
    }
}

/// Whether any session entered or left the window between the last render and now.
fn window_rolled(
    index: &Index,
    agent: &str,
    last: &str,
    now: DateTime<Utc>,
    cfg: &Config,
) -> Result<bool> {
    let Some(last) = contract::parse_ts(last) else {
        return Ok(true);
    };
    if last == now {
        return Ok(false);
    }
    let (lo, hi) = if last < now { (last, now) } else { (now, last) };
    let span = Duration::days(cfg.memory_md.window_days as i64);
    let f = contract::format_ts;
    index.session_crossed(agent, (&f(lo), &f(hi)), (&f(lo - span), &f(hi - span)))
}
