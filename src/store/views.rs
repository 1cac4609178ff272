//! The reads that projections, `status`, `open` and the daemon make of the
//! index, each returning typed rows.
//!
//! Owns: those statements. Must not: decide what a reader does with them.

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::sessions::{SESSION_COLUMNS, session_row};
use super::*;
use crate::contract;
use crate::scan;

/// The agents with sessions as the table `agent(id)` (and a NULL row), one
/// index seek each: DISTINCT would read every session's entry.
const AGENTS: &str = "WITH RECURSIVE agent(id) AS (
    SELECT MIN(agent_id) FROM sessions
    UNION ALL SELECT (SELECT MIN(agent_id) FROM sessions WHERE agent_id > agent.id)
    FROM agent WHERE agent.id IS NOT NULL)";

/// One agent's counts, for `status`.
pub struct AgentCounts {
    pub agent_id: String,
    pub sessions: i64,
    pub sessions_in_window: i64,
    pub artifacts: Vec<(String, i64)>,
    pub stale: i64,
}

/// How many problems one rule has, for `status`.
pub struct RuleCount {
    pub severity: Severity,
    pub rule: String,
    pub count: i64,
    pub first_paths: Vec<String>,
}

/// An artifact of one session, for `open`.
pub struct ArtifactListing {
    pub kind: String,
    pub path: String,
    pub stale: bool,
    pub sentence_quality: Option<String>,
    pub captured_at: String,
}

/// The tombstone of a forgotten session.
pub struct TombstoneRow {
    pub source_path: String,
    pub removed_at: String,
    pub reason: String,
}

impl Index {
    /// Every agent with artifacts, with its counts; `window` bounds the ledger window.
    pub fn agent_counts(&self, (from, to): (&str, &str)) -> Result<Vec<AgentCounts>> {
        let agents: Vec<String> = self.rows(
            "SELECT DISTINCT agent_id FROM artifacts ORDER BY agent_id",
            [],
            |r| r.get(0),
        )?;
        let one = |sql: &str, p: &[&dyn rusqlite::ToSql]| -> Result<i64> {
            Ok(self
                .rows(sql, p, |r| r.get::<_, i64>(0))?
                .first()
                .copied()
                .unwrap_or(0))
        };
        agents
            .into_iter()
            .map(|agent| {
                Ok(AgentCounts {
                    sessions: one(
                        "SELECT COUNT(DISTINCT token) FROM artifacts WHERE agent_id = ?1",
                        &[&agent],
                    )?,
                    sessions_in_window: one(
                        "SELECT COUNT(DISTINCT token) FROM artifacts WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3",
                        &[&agent, &from, &to],
                    )?,
                    artifacts: self.rows(
                        "SELECT source_kind, COUNT(*) FROM artifacts WHERE agent_id = ?1 GROUP BY source_kind ORDER BY source_kind",
                        [&agent],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )?,
                    stale: one(
                        "SELECT COUNT(*) FROM artifacts WHERE agent_id = ?1 AND stale = 1",
                        &[&agent],
                    )?,
                    agent_id: agent,
                })
            })
            .collect()
    }

    /// Sessions in the index, every agent's.
    pub fn session_count(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    pub fn tombstone_count(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM tombstones", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Sets several meta keys in one transaction.
    pub fn set_metas(&self, pairs: &[(String, String)]) -> Result<()> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for (k, v) in pairs {
            upsert_meta(&tx, k, v).map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Every meta key starting with `prefix`, with its value.
    pub fn meta_with_prefix(&self, prefix: &str) -> Result<Vec<(String, String)>> {
        let upper = format!("{prefix}\u{10FFFF}");
        self.rows(
            "SELECT key, value FROM meta WHERE key >= ?1 AND key < ?2",
            [prefix, upper.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// Whether the index holds any artifact row.
    pub fn has_artifacts(&self) -> Result<bool> {
        self.conn
            .query_row("SELECT EXISTS(SELECT 1 FROM artifacts)", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Whether a session (by token) holds a problem under `rule`.
    pub fn token_has_problem(&self, token: &str, rule: &str) -> Result<bool> {
        self.conn
            .prepare_cached("SELECT EXISTS(SELECT 1 FROM problems WHERE token = ?1 AND rule = ?2)")
            .and_then(|mut s| s.query_row([token, rule], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// The paths holding a problem under one of `rules`.
    pub fn problem_paths(&self, rules: &[&str]) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT path FROM problems WHERE rule = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for rule in rules {
            let paths = stmt
                .query_map([rule], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(|e| self.err(e))?;
            out.extend(paths);
        }
        Ok(out)
    }

    /// The reasons of the problems under `rule` stored for `path` (one
    /// index lookup: this runs for every path a watcher batch names).
    pub fn problem_reasons_at(&self, path: &str, rule: &str) -> Result<Vec<String>> {
        self.rows(
            "SELECT reason FROM problems WHERE path = ?1 AND rule = ?2",
            [path, rule],
            |r| r.get(0),
        )
    }

    /// The (path, reason) of every stored problem under `rule`.
    pub fn problems_with_rule(&self, rule: &str) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT path, reason FROM problems WHERE rule = ?1",
            [rule],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    /// Every stored problem, in report order.
    pub fn problems(&self) -> Result<Vec<Problem>> {
        let mut all = Vec::new();
        self.each_problem(None, |p| {
            all.push(p);
            Ok(())
        })?;
        Ok(all)
    }

    /// Stored problems in report order (path, then severity, rule, reason),
    /// at most `limit`, handed to `f` one at a time: a workspace with a
    /// million problems costs one row of memory, not a million.
    pub fn each_problem(
        &self,
        limit: Option<usize>,
        mut f: impl FnMut(Problem) -> Result<()>,
    ) -> Result<()> {
        let sql = "SELECT path, severity, rule, reason FROM problems ORDER BY path, severity DESC, rule, reason LIMIT ?1";
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([limit]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let problem = (|| {
                Ok(Problem {
                    path: r.get(0)?,
                    severity: Severity::parse(&r.get::<_, String>(1)?),
                    rule: r.get(2)?,
                    reason: r.get(3)?,
                })
            })()
            .map_err(|e: rusqlite::Error| self.err(e))?;
            f(problem)?;
        }
        Ok(())
    }

    /// Problems per (severity, rule) with the first `n` paths of each, worst
    /// severity first, then by rule.
    pub fn problems_by_rule(&self, n: usize) -> Result<Vec<RuleCount>> {
        let mut rules: Vec<RuleCount> = self.rows(
            "SELECT severity, rule, COUNT(*) FROM problems GROUP BY severity, rule",
            [],
            |r| {
                Ok(RuleCount {
                    severity: Severity::parse(&r.get::<_, String>(0)?),
                    rule: r.get(1)?,
                    count: r.get(2)?,
                    first_paths: Vec::new(),
                })
            },
        )?;
        rules.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.rule.cmp(&b.rule))
        });
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        for rule in &mut rules {
            rule.first_paths = self.rows(
                "SELECT path FROM problems WHERE severity = ?1 AND rule = ?2 ORDER BY path, reason LIMIT ?3",
                params![rule.severity.as_str(), rule.rule, n],
                |r| r.get(0),
            )?;
        }
        Ok(rules)
    }

    /// Whether any error's rule starts with `prefix` (`projection.`, say).
    pub fn has_error_of(&self, prefix: &str) -> Result<bool> {
        self.exists(
            "SELECT EXISTS(SELECT 1 FROM problems WHERE severity = 'error' AND substr(rule, 1, length(?1)) = ?1)",
            [prefix],
        )
    }

    /// (errors, warnings).
    pub fn problem_counts(&self) -> Result<(usize, usize)> {
        // Sums over one scan: a GROUP BY would sort every row first (17 MB
        // of sorter at 400,000 problems).
        let (errors, warnings): (i64, i64) = self
            .conn
            .query_row(
                "SELECT COALESCE(SUM(severity = 'error'), 0), COALESCE(SUM(severity <> 'error'), 0) FROM problems",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))?;
        let count = |n: i64| usize::try_from(n).unwrap_or(0);
        Ok((count(errors), count(warnings)))
    }

    /// The agents that have sessions.
    pub fn session_agents(&self) -> Result<Vec<String>> {
        self.rows(
            &format!("{AGENTS} SELECT id FROM agent WHERE id IS NOT NULL"),
            [],
            |r| r.get(0),
        )
    }

    /// Whether a session of `agent` has its time in [lo, hi) or its time plus
    /// `span` in that range: it entered or left the window then.
    pub fn session_crossed(
        &self,
        agent: &str,
        (lo, hi): (&str, &str),
        (lo_back, hi_back): (&str, &str),
    ) -> Result<bool> {
        self.conn
            .prepare_cached(
                // Two range seeks; as one OR the planner walks an agent's sessions.
                "SELECT EXISTS(SELECT 1 FROM sessions WHERE agent_id = ?1 AND membership_ts > ?2 AND membership_ts <= ?3)
                 OR EXISTS(SELECT 1 FROM sessions WHERE agent_id = ?1 AND membership_ts > ?4 AND membership_ts <= ?5)",
            )
            .and_then(|mut s| s.query_row(params![agent, lo_back, hi_back, lo, hi], |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    /// The artifacts of one session, manifest last.
    pub fn session_artifacts(&self, agent: &str, token: &str) -> Result<Vec<ArtifactListing>> {
        self.rows(
            "SELECT source_kind, source_path, stale, memory_sentence_quality, captured_at FROM artifacts
             WHERE agent_id = ?1 AND token = ?2 ORDER BY source_kind = 'manifest', captured_at, source_path",
            [agent, token],
            |r| {
                Ok(ArtifactListing {
                    kind: r.get(0)?,
                    path: r.get(1)?,
                    stale: r.get(2)?,
                    sentence_quality: r.get(3)?,
                    captured_at: r.get(4)?,
                })
            },
        )
    }

    /// The session row of one session, for `open`.
    pub fn session_row(&self, agent: &str, token: &str) -> Result<Option<SessionRow>> {
        Ok(self
            .rows(
                &format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND token = ?2"
                ),
                [agent, token],
                session_row,
            )?
            .into_iter()
            .next())
    }

    /// The session (agent, token) of the artifact row at `path`, if the index holds one.
    pub fn artifact_session(&self, path: &str) -> Result<Option<(String, String)>> {
        Ok(self
            .rows(
                "SELECT agent_id, token FROM artifacts WHERE source_path = ?1 AND token IS NOT NULL",
                [path],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
            .into_iter()
            .next())
    }

    pub fn tombstone_of(&self, agent: &str, token: &str) -> Result<Option<TombstoneRow>> {
        Ok(self.rows(
            "SELECT source_path, removed_at, reason FROM tombstones WHERE agent_id = ?1 AND token = ?2",
            [agent, token],
            |r| {
                Ok(TombstoneRow {
                    source_path: r.get(0)?,
                    removed_at: r.get(1)?,
                    reason: r.get(2)?,
                })
            },
        )?
        .into_iter()
        .next())
    }

    pub fn access_count(&self, agent: &str, token: &str) -> Result<i64> {
        Ok(self
            .rows(
                "SELECT access_count FROM telemetry_access WHERE agent_id = ?1 AND token = ?2",
                [agent, token],
                |r| r.get::<_, i64>(0),
            )?
            .into_iter()
            .next()
            .unwrap_or(0))
    }
}

impl Index {
    /// The next moment a session enters the ledger window (its time arrives) or
    /// leaves it (it becomes older than the window).
    pub fn next_window_change(
        &self,
        now: DateTime<Utc>,
        window: chrono::Duration,
    ) -> Result<Option<DateTime<Utc>>> {
        // A seek per agent: the daemon asks after every batch of events.
        let oldest = self.strings_with(
            &format!(
                "{AGENTS} SELECT MIN((SELECT MIN(membership_ts) FROM sessions
                 WHERE agent_id = agent.id AND membership_ts >= ?1)) FROM agent WHERE id IS NOT NULL"
            ),
            &contract::format_ts(now - window),
        )?;
        let upcoming = self.strings_with(
            &format!(
                "{AGENTS} SELECT MIN((SELECT MIN(membership_ts) FROM sessions
                 WHERE agent_id = agent.id AND membership_ts > ?1)) FROM agent WHERE id IS NOT NULL"
            ),
            &contract::format_ts(now),
        )?;
        let leaves = oldest
            .as_deref()
            .and_then(contract::parse_ts)
            .map(|t| t + window);
        let enters = upcoming.as_deref().and_then(contract::parse_ts);
        Ok(match (leaves, enters) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        })
    }

    /// True when a projection file is exactly as memsync last rendered it.
    pub fn projection_unchanged(&self, root: &Path, rel: &str) -> bool {
        let on_disk = std::fs::symlink_metadata(root.join(rel))
            .ok()
            .map(|m| scan::FileStat::of(&m));
        let rendered: Vec<(i64, i64)> = self
            .rows(
                "SELECT size, mtime_ns FROM projection_state WHERE path = ?1",
                [rel],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap_or_default();
        match (rendered.first(), on_disk) {
            (Some(&(size, mtime_ns)), Some(st)) => {
                size as u64 == st.size && mtime_ns == st.mtime_ns
            }
            _ => false,
        }
    }

    /// Whether the index knows files below this workspace-relative directory.
    pub fn has_files_under(&self, dir: &str) -> bool {
        let (lo, hi) = (format!("{dir}/"), format!("{dir}0"));
        self.exists(
            "SELECT EXISTS(SELECT 1 FROM files WHERE path >= ?1 AND path < ?2)",
            [lo, hi],
        )
        .unwrap_or(true)
    }

    fn strings_with(&self, sql: &str, arg: &str) -> Result<Option<String>> {
        let rows: Vec<Option<String>> = self.rows(sql, [arg], |r| r.get(0))?;
        Ok(rows.into_iter().next().flatten())
    }
}
