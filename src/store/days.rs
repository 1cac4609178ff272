//! `session_days`: the shown sessions per (agent, UTC day, project), kept in
//! step with `sessions` by the statements that change it (refresh and
//! judgement), a grouped statement per batch.
//!
//! Not triggers: a trigger on `sessions` makes every session insert run in a
//! statement savepoint, and FTS5 flushes its pending terms into a segment of
//! its own per savepoint, so search walked half again as many segments.
//!
//! Owns: the totals. Must not: decide who is shown (`sessions.shown` is).

use super::*;

/// The grouped shown sessions matching a `sessions` filter, as
/// `session_days` rows.
fn grouped(filter: &str) -> String {
    format!(
        "SELECT agent_id AS a, substr(membership_ts, 1, 10) AS d, COALESCE(project, '') AS p, COUNT(*) AS c FROM sessions
         WHERE {filter} GROUP BY 1, 2, 3"
    )
}

impl Batch<'_> {
    /// Adds `sign` (1 or -1) times the sessions matching `filter` to their
    /// days' totals; `filter` must select shown rows only.
    pub(super) fn count_days(&self, filter: &str, sign: i64) -> Result<()> {
        let sql = format!(
            "INSERT INTO session_days(agent_id, day, project, n)
             SELECT a, d, p, ?1 * c FROM ({}) WHERE 1
             ON CONFLICT DO UPDATE SET n = n + excluded.n",
            grouped(filter)
        );
        self.exec(&sql, [sign])
    }

    /// Adds `delta` to one session's day.
    pub(super) fn count_day(&self, s: &SessionRow, delta: i64) -> Result<()> {
        self.exec(
            "INSERT INTO session_days(agent_id, day, project, n) VALUES (?1, substr(?2, 1, 10), COALESCE(?3, ''), ?4)
             ON CONFLICT DO UPDATE SET n = n + excluded.n",
            rusqlite::params![s.agent_id, s.membership_ts, s.project, delta],
        )
    }

    /// Counts every day again from `sessions` (after every session was judged again).
    pub(super) fn recount_days(&self) -> Result<()> {
        self.exec("DELETE FROM session_days", [])?;
        self.exec(
            &format!("INSERT INTO session_days {}", grouped("shown = 1")),
            [],
        )
    }
}
