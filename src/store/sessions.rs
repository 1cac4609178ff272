//! Session rows as projections and search read them, assembled from the newest
//! artifact of each kind.

use std::collections::{BTreeMap, HashSet};

use rusqlite::params;

use super::*;

/// A session as projections see it: assembled from the newest artifact of each
/// kind. Identity, project and times come from the primary artifact (summary,
/// else transcript, else compaction, else manifest). The sentences are ready to
/// render: the frontmatter sentence (summary, else compaction, else transcript)
/// when it passes the floor, neutralised, else the deterministic fallback.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionRow {
    pub agent_id: String,
    pub token: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: Option<String>,
    pub membership_ts: String,
    pub private: bool,
    pub sentence: String,
    pub summary_path: Option<String>,
    pub transcript_path: Option<String>,
    pub compaction_path: Option<String>,
    pub manifest_path: Option<String>,
    pub compaction_at: Option<String>,
    pub compaction_sentence: Option<String>,
    /// No request from a person in it (heartbeats only): never projected.
    pub noise: bool,
    /// A request from someone other than the owner: never injected.
    pub untrusted: bool,
}

pub(super) const SESSION_COLUMNS: &str = "agent_id, token, session_id, session_key, project, harness, membership_ts, private,
    sentence, summary_path, transcript_path, compaction_path, manifest_path, compaction_at, compaction_sentence, noise, untrusted";

pub(super) fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    Ok(SessionRow {
        agent_id: r.get(0)?,
        token: r.get(1)?,
        session_id: r.get(2)?,
        session_key: r.get(3)?,
        project: r.get(4)?,
        harness: r.get(5)?,
        membership_ts: r.get(6)?,
        private: r.get(7)?,
        sentence: r.get(8)?,
        summary_path: r.get(9)?,
        transcript_path: r.get(10)?,
        compaction_path: r.get(11)?,
        manifest_path: r.get(12)?,
        compaction_at: r.get(13)?,
        compaction_sentence: r.get(14)?,
        noise: r.get(15)?,
        untrusted: r.get(16)?,
    })
}

impl Index {
    /// An agent's sessions whose membership time lies in [from, to], newest first
    /// (ties by token, descending: the order the index already has).
    pub fn sessions_in_window(&self, agent: &str, from: &str, to: &str) -> Result<Vec<SessionRow>> {
        self.rows(
            &format!(
                "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3
                 ORDER BY membership_ts DESC, token DESC"
            ),
            params![agent, from, to],
            session_row,
        )
    }

    /// `sessions_in_window`, one row at a time, until `visit` returns false:
    /// a renderer that needs a few rows and some counts holds no more.
    pub fn each_session_in_window(
        &self,
        agent: &str,
        (from, to): (&str, &str),
        mut visit: impl FnMut(SessionRow) -> bool,
    ) -> Result<()> {
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3
             ORDER BY membership_ts DESC, token DESC"
        );
        let mut walk = || -> rusqlite::Result<()> {
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let mut rows = stmt.query(params![agent, from, to])?;
            while let Some(row) = rows.next()? {
                if !visit(session_row(row)?) {
                    break;
                }
            }
            Ok(())
        };
        walk().map_err(|e| self.err(e))
    }

    /// An agent's sessions that ended, or were compacted, within [from, to].
    pub fn sessions_touching(&self, agent: &str, from: &str, to: &str) -> Result<Vec<SessionRow>> {
        self.rows(
            &format!(
                "SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND membership_ts BETWEEN ?2 AND ?3
                 UNION ALL SELECT {SESSION_COLUMNS} FROM sessions WHERE agent_id = ?1 AND compaction_at BETWEEN ?2 AND ?3
                 AND membership_ts NOT BETWEEN ?2 AND ?3"
            ),
            params![agent, from, to],
            session_row,
        )
    }
}

/// The link-graph nodes of the touched sessions by token, and the artifact files present for them.
pub type TouchedGraph = (BTreeMap<String, Vec<GraphNode>>, HashSet<String>);

/// A projection file as last rendered.
#[derive(Debug, Clone)]
pub struct ProjectionState {
    pub path: String,
    pub agent_id: String,
    /// `memory` for MEMORY.md, `day:YYYY-MM-DD` for a daily log.
    pub scope: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub rendered_now: String,
}

impl Index {
    /// Runs a query and maps each row.
    pub(super) fn rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        query(&self.conn, sql, params, f).map_err(|e| self.err(e))
    }

    pub(super) fn exists(&self, sql: &str, params: impl rusqlite::Params) -> Result<bool> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row(params, |r| r.get(0)))
            .map_err(|e| self.err(e))
    }

    pub fn projection_state(&self) -> Result<Vec<ProjectionState>> {
        self.projection_state_where("1", [])
    }

    /// The MEMORY.md files' state, and the state of `paths` (when rendered).
    pub fn projection_state_of(&self, paths: &[String]) -> Result<Vec<ProjectionState>> {
        let paths = serde_json::to_string(paths).unwrap_or_default();
        self.projection_state_where(
            "scope = 'memory' OR path IN (SELECT value FROM json_each(?1))",
            [paths],
        )
    }

    /// The newest time any projection was rendered as of.
    pub fn last_rendered_now(&self) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT MAX(rendered_now) FROM projection_state", [], |r| {
                r.get(0)
            })
            .map_err(|e| self.err(e))
    }

    fn projection_state_where(
        &self,
        filter: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<ProjectionState>> {
        self.rows(
            &format!(
                "SELECT path, agent_id, scope, size, mtime_ns, rendered_now FROM projection_state WHERE {filter} ORDER BY path"
            ),
            params,
            |r| {
                Ok(ProjectionState {
                    path: r.get(0)?,
                    agent_id: r.get(1)?,
                    scope: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    mtime_ns: r.get(4)?,
                    rendered_now: r.get(5)?,
                })
            },
        )
    }

    /// Projection inputs changed since the last render, as (agent_id,
    /// timestamp) marks, and the highest mark id among them.
    pub fn dirty_marks(&self) -> Result<(Vec<(String, String)>, i64)> {
        // Each distinct mark once (a cold build marks every session more than
        // once), in one statement so the ids read and the marks read agree.
        let rows: Vec<(String, String, i64)> = self.rows(
            "SELECT agent_id, ts, MAX(id) FROM projection_dirty GROUP BY agent_id, ts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let through = rows.iter().map(|r| r.2).max().unwrap_or(0);
        Ok((rows.into_iter().map(|(a, t, _)| (a, t)).collect(), through))
    }

    /// Every (agent_id, timestamp) a daily log could be keyed by.
    pub fn all_projection_times(&self) -> Result<Vec<(String, String)>> {
        self.rows(
            "SELECT agent_id, membership_ts FROM sessions
             UNION SELECT agent_id, compaction_at FROM sessions WHERE compaction_at IS NOT NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }
}

/// The columns of one artifact row that a session is assembled from.
pub(super) struct ArtifactSummary {
    pub(super) token: String,
    pub(super) agent_id: String,
    pub(super) kind: String,
    pub(super) path: String,
    pub(super) session_id: String,
    pub(super) session_key: Option<String>,
    pub(super) project: Option<String>,
    pub(super) harness: Option<String>,
    pub(super) captured_at: String,
    pub(super) membership_ts: String,
    pub(super) sentence: Option<String>,
    pub(super) private: bool,
    pub(super) noise: bool,
    pub(super) untrusted: bool,
    /// A person's aliases and tags on the artifact.
    pub(super) properties: Option<String>,
}

/// One agent's artifacts of a session (oldest first) as one `SessionRow`; the
/// newest artifact of each kind wins.
pub(super) fn assemble_session(
    rows: &[ArtifactSummary],
    floor: &SentenceConfig,
) -> Option<SessionRow> {
    let newest = |kind: &str| rows.iter().rev().find(|r| r.kind == kind);
    let (summary, transcript, compaction, manifest) = (
        newest("summary"),
        newest("transcript"),
        newest("compaction"),
        newest("manifest"),
    );
    let primary = summary.or(transcript).or(compaction).or(manifest)?;
    let mut kinds = Vec::new();
    for (kind, row) in [
        ("summary", summary),
        ("transcript", transcript),
        ("compaction", compaction),
    ] {
        if row.is_some() {
            kinds.push(kind);
        }
    }
    let identity = primary
        .session_key
        .as_deref()
        .filter(|k| !k.trim().is_empty())
        .unwrap_or(&primary.session_id);
    let fallback = || {
        sentence::fallback(&SessionFacts {
            harness: primary.harness.as_deref(),
            identity,
            project: primary.project.as_deref(),
            membership_ts: &primary.membership_ts,
            token: &primary.token,
            kinds: &kinds,
        })
    };
    let display = |candidate: Option<&str>| match candidate {
        Some(s) if sentence::check(s, primary.project.as_deref(), floor).is_none() => {
            sentence::neutralise(s)
        }
        _ => fallback(),
    };
    let chosen = [summary, compaction, transcript]
        .into_iter()
        .flatten()
        .find_map(|r| r.sentence.as_deref());
    Some(SessionRow {
        agent_id: primary.agent_id.clone(),
        token: primary.token.clone(),
        session_id: primary.session_id.clone(),
        session_key: primary.session_key.clone(),
        project: primary.project.clone(),
        harness: primary.harness.clone(),
        membership_ts: primary.membership_ts.clone(),
        private: rows.iter().any(|r| r.private),
        sentence: display(chosen),
        summary_path: summary.map(|r| r.path.clone()),
        transcript_path: transcript.map(|r| r.path.clone()),
        compaction_path: compaction.map(|r| r.path.clone()),
        manifest_path: manifest.map(|r| r.path.clone()),
        compaction_at: compaction.map(|r| r.captured_at.clone()),
        compaction_sentence: compaction.map(|r| display(r.sentence.as_deref())),
        noise: rows.iter().any(|r| r.noise),
        untrusted: rows.iter().any(|r| r.untrusted),
    })
}

/// The artifact paths of each kind that make up a session's search document.
pub(super) struct DocumentParts {
    pub(super) summary: Vec<String>,
    pub(super) transcript: Vec<String>,
    pub(super) compaction: Vec<String>,
    /// The aliases and tags a person gave any of its artifacts.
    pub(super) properties: Vec<String>,
}
