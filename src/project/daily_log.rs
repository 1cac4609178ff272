//! Daily logs in the OpenClaw layout: one managed block per day listing that
//! day's sessions and compactions in time order, dated in the configured zone.
//!
//! Owns: the content of daily-log managed blocks. Must not: delete a daily log
//! (a day that loses its sessions keeps its file with an empty block).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rayon::prelude::*;

use super::file::{read_existing, sealed_block};
use super::{Pending, RenderCtx, RenderOutcome, Target, daily_log_path, inert};
use crate::contract;
use crate::error::Result;
use crate::sentence;
use crate::store::{Index, SessionRow};
use crate::validate::Problem;

/// (timestamp, line) pairs for one day; sorted, they are in time order.
type DayEntries = Vec<(String, String)>;

/// Days rendered (and written) together: at 500 sessions a day, 2,000 rows.
const DAYS_PER_PASS: usize = 4;

impl RenderCtx<'_> {
    /// Renders the dirty days of one agent, a few days at a time: one query
    /// over each group's span, and the group's files written before the next
    /// is read, so a first render of years of sessions holds one group in memory.
    pub(super) fn render_daily_logs(
        &self,
        index: &Index,
        agent: &str,
        days: &[NaiveDate],
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        for group in days.chunks(DAYS_PER_PASS) {
            self.render_day_group(index, agent, group, out, problems)?;
            out.finish(
                index,
                self.root,
                self.while_held,
                self.git_at_work,
                problems,
            )?;
        }
        Ok(())
    }

    /// Renders a sorted group of days from one query over their span.
    fn render_day_group(
        &self,
        index: &Index,
        agent: &str,
        days: &[NaiveDate],
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        let (Some(first), Some(last)) = (days.first(), days.last()) else {
            return Ok(());
        };
        // The group's days in the zone, as a UTC span.
        let from = contract::format_ts(self.zone.day_start(*first));
        let to = contract::format_ts(self.zone.day_start(last.succ_opt().unwrap_or(*last)));
        let sessions: Vec<SessionRow> = index
            .sessions_touching(agent, &from, &to)?
            .into_iter()
            .filter(|s| !self.exclusions.excludes(s))
            .collect();
        let entries = self.daily_entries(&sessions);
        // Each day reads and splices its own file: independent, so in parallel.
        let rendered: Vec<(Option<Pending>, Vec<Problem>)> = days
            .par_iter()
            .map(|day| {
                let day_entries = entries.get(day).map(Vec::as_slice).unwrap_or(&[]);
                self.render_daily_log(agent, *day, day_entries)
            })
            .collect();
        for (pending, found) in rendered {
            out.pending.extend(pending);
            problems.extend(found);
        }
        Ok(())
    }

    /// Every entry of `sessions`, bucketed by day in the configured zone.
    fn daily_entries(&self, sessions: &[SessionRow]) -> BTreeMap<NaiveDate, DayEntries> {
        let mut days: BTreeMap<NaiveDate, DayEntries> = BTreeMap::new();
        for s in sessions {
            let has_primary = s.summary_path.is_some() || s.transcript_path.is_some();
            if let (true, Some(at)) = (has_primary, contract::parse_ts(&s.membership_ts)) {
                let link = if s.summary_path.is_some() {
                    "summary"
                } else {
                    "transcript"
                };
                // The sentence is the link (to the summary, else the
                // transcript): in a vault the row reads as text you click.
                let entry = format!(
                    "- {} | session={} | project={} | {}\n",
                    self.zone.clock(at),
                    inert(s.identity()),
                    s.project
                        .as_deref()
                        .and_then(sentence::project_basename)
                        .map(inert)
                        .unwrap_or_else(|| "none".into()),
                    s.linked(link, &s.sentence),
                );
                days.entry(self.zone.date(at))
                    .or_default()
                    .push((s.membership_ts.clone(), entry));
            }
            if let Some(compacted) = s.compaction_at.as_deref()
                && let Some(at) = contract::parse_ts(compacted)
            {
                let entry = format!(
                    "- {} | compaction | session={} | {}\n",
                    self.zone.clock(at),
                    inert(s.identity()),
                    s.linked(
                        "compaction",
                        s.compaction_sentence.as_deref().unwrap_or_default()
                    ),
                );
                days.entry(self.zone.date(at))
                    .or_default()
                    .push((compacted.to_string(), entry));
            }
        }
        for entries in days.values_mut() {
            entries.sort();
        }
        days
    }

    /// One day's file with its block re-rendered; `None` when it needs no file.
    fn render_daily_log(
        &self,
        agent: &str,
        day: NaiveDate,
        entries: &[(String, String)],
    ) -> (Option<Pending>, Vec<Problem>) {
        let rel = daily_log_path(agent, day);
        let mut problems = Vec::new();
        let Some(existing) = read_existing(&self.root.join(&rel), &rel, &mut problems) else {
            return (None, problems);
        };
        if entries.is_empty() && existing.is_empty() {
            return (None, problems); // never create an empty day
        }
        let mut body = String::new();
        if !entries.is_empty() {
            body.push_str("## Sessions\n\n");
            for (_, e) in entries {
                body.push_str(e);
            }
        }
        let block = sealed_block(&format!("daily-log agent={agent} day={day}"), &body);
        let target = Target {
            path: &rel,
            agent,
            scope: &format!("day:{day}"),
        };
        (Some(Pending::new(&target, &existing, block)), problems)
    }
}
