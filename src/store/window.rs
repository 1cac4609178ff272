//! What MEMORY.md's head needs from a whole ledger window (counts, each
//! project's newest session, the newest compactions) at a cost that follows
//! the window's days and projects, not its sessions: `session_days` (kept by
//! `store::days`) counts the whole days, and only the window's two edge days are
//! read row by row.
//!
//! Owns: the stored `shown` judgement and those reads. Must not: decide who
//! is shown (the projection's exclusion rules do).

use std::collections::BTreeMap;

use rusqlite::params;

use super::sessions::{SESSION_COLUMNS, session_row};
use super::*;

/// One project's share of a window.
#[derive(Debug, Clone)]
pub struct ProjectInWindow {
    pub project: String,
    pub sessions: usize,
    /// Its newest shown session in the window.
    pub newest: SessionRow,
}

/// The head's facts about one agent's window, shown sessions only.
#[derive(Debug, Clone, Default)]
pub struct WindowHead {
    pub in_window: usize,
    /// Newest project first (by its newest session, then token, descending).
    pub projects: Vec<ProjectInWindow>,
    /// The newest compactions (newest first, then by token).
    pub compacted: Vec<SessionRow>,
}

/// The meta key naming the rules the stored `shown` judgements were made by.
const SHOWN_RULES: &str = "shown_rules";

/// How the sessions not judged yet are judged.
pub enum Judge<'a> {
    /// Shown unless private, heartbeat-only or untrusted: the rules when no
    /// project, session or harness is excluded by name.
    ByFlags,
    /// Shown when the function says so.
    By(&'a dyn Fn(&SessionRow) -> bool),
}

impl Index {
    /// Judges every session not judged yet, or every session when the rules
    /// (named by `rules`, any string that changes with them) are not the ones
    /// the stored judgements were made by; only verdicts that change are
    /// written. Indexing and rendering call it first, so rows indexed after
    /// it are judged by the same rules as they are written. Returns how many
    /// verdicts it wrote.
    pub fn judge_sessions(&mut self, rules: &str, judge: Judge<'_>) -> Result<usize> {
        let again = self.meta(SHOWN_RULES)?.as_deref() != Some(rules);
        self.batch(|b| {
            if again {
                b.set_meta(SHOWN_RULES, rules)?;
            }
            let which = if again { "1" } else { "shown IS NULL" };
            let judge = match judge {
                Judge::ByFlags => {
                    // `Exclusions::excludes` without rules by name, in SQL.
                    let verdict = "NOT (private OR noise OR untrusted)";
                    if !again {
                        // Unjudged rows are in no day's total yet.
                        b.count_days(&format!("shown IS NULL AND {verdict}"), 1)?;
                    }
                    let sql = format!(
                        "UPDATE sessions SET shown = {verdict} WHERE ({which}) AND shown IS NOT {verdict}"
                    );
                    let changed = b.tx.execute(&sql, []).map_err(|e| b.err(e))?;
                    if again && changed > 0 {
                        b.recount_days()?;
                    }
                    return Ok(changed);
                }
                Judge::By(f) => f,
            };
            let sql = format!("SELECT {SESSION_COLUMNS}, shown FROM sessions WHERE {which}");
            // Only the rows whose verdict changes are kept, not every row read.
            let verdicts: Vec<Option<(SessionRow, Option<bool>, bool)>> =
                query(&b.tx, &sql, [], |r| {
                    let s = session_row(r)?;
                    let (shown, stored) = (judge(&s), r.get::<_, Option<bool>>(17)?);
                    Ok((stored != Some(shown)).then_some((s, stored, shown)))
                })
                .map_err(|e| b.err(e))?;
            let changed: Vec<_> = verdicts.into_iter().flatten().collect();
            for (s, stored, shown) in &changed {
                b.exec(
                    "UPDATE sessions SET shown = ?3 WHERE agent_id = ?1 AND token = ?2",
                    params![s.agent_id, s.token, shown],
                )?;
                let delta = i64::from(*shown) - i64::from(*stored == Some(true));
                if delta != 0 {
                    b.count_day(s, delta)?;
                }
            }
            Ok(changed.len())
        })
    }

    /// The head's facts for `agent`'s shown sessions with their time in
    /// [from, to]: at most `projects` projects and `compactions` compactions.
    pub fn window_head(
        &self,
        agent: &str,
        (from, to): (&str, &str),
        projects: usize,
        compactions: usize,
    ) -> Result<WindowHead> {
        let counts = self.window_counts(agent, (from, to))?;
        let mut head = WindowHead {
            in_window: counts.values().sum(),
            ..WindowHead::default()
        };
        let newest_sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND shown = 1 AND project = ?2
             AND membership_ts BETWEEN ?3 AND ?4 ORDER BY membership_ts DESC, token DESC LIMIT 1"
        );
        for (project, n) in counts {
            if project.is_empty() || n == 0 {
                continue;
            }
            let newest = self.rows(&newest_sql, params![agent, project, from, to], session_row)?;
            if let Some(newest) = newest.into_iter().next() {
                head.projects.push(ProjectInWindow {
                    project,
                    sessions: n,
                    newest,
                });
            }
        }
        head.projects.sort_by(|a, b| {
            (&b.newest.membership_ts, &b.newest.token)
                .cmp(&(&a.newest.membership_ts, &a.newest.token))
        });
        head.projects.truncate(projects);
        head.compacted = self.rows(
            &format!(
                // Walked newest compaction first, stopping at the limit: the
                // time range would otherwise have the planner read the window.
                "SELECT {SESSION_COLUMNS} FROM sessions INDEXED BY sessions_compaction
                 WHERE agent_id = ?1 AND shown = 1 AND compaction_at IS NOT NULL
                 AND membership_ts BETWEEN ?2 AND ?3 ORDER BY compaction_at DESC, token LIMIT ?4"
            ),
            params![
                agent,
                from,
                to,
                i64::try_from(compactions).unwrap_or(i64::MAX)
            ],
            session_row,
        )?;
        Ok(head)
    }

    /// Shown sessions per project ('' for none) with their time in [from, to]:
    /// the days strictly between the edges from `session_days`, the edge days
    /// (which the window cuts) row by row.
    fn window_counts(
        &self,
        agent: &str,
        (from, to): (&str, &str),
    ) -> Result<BTreeMap<String, usize>> {
        let (Some(first_day), Some(last_day)) = (from.get(..10), to.get(..10)) else {
            return Ok(BTreeMap::new());
        };
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut add = |rows: Vec<(String, i64)>| {
            for (project, n) in rows {
                *counts.entry(project).or_default() += usize::try_from(n).unwrap_or(0);
            }
        };
        let edge =
            "SELECT COALESCE(project, ''), COUNT(*) FROM sessions WHERE agent_id = ?1 AND shown = 1
                    AND membership_ts BETWEEN ?2 AND ?3 GROUP BY 1";
        if first_day >= last_day {
            add(self.rows(edge, params![agent, from, to], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?);
            return Ok(counts);
        }
        // "YYYY-MM-DDU" sorts after every time of that day ("…T…").
        let first_day_end = format!("{first_day}U");
        add(self.rows(edge, params![agent, from, first_day_end], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?);
        add(self.rows(edge, params![agent, last_day, to], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?);
        add(self.rows(
            "SELECT project, SUM(n) FROM session_days WHERE agent_id = ?1 AND day > ?2 AND day < ?3 GROUP BY project",
            params![agent, first_day, last_day],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?);
        Ok(counts)
    }
}
