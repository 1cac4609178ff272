//! `open`: everything about one session — its artifacts with their paths,
//! wikilinks and validation state, its problems, whether it was forgotten —
//! and the body of one of its artifacts.
//!
//! Owns: assembling the view of one session. Must not: change content rows
//! (it records an access in the telemetry, nothing else).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::Settings;
use crate::contract::ArtifactKind;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::validate::{Problem, Severity};

#[derive(Debug, Clone, Serialize)]
pub struct ArtifactView {
    pub kind: String,
    pub path: String,
    pub wikilink: String,
    /// `ok`, `stale` (invalid now; its last good rows are shown), or `invalid`.
    pub state: String,
    pub sentence_quality: Option<String>,
    pub captured_at: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Forgotten {
    pub tombstone: String,
    pub removed_at: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionView {
    pub agent_id: String,
    pub token: String,
    pub session_id: Option<String>,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: Option<String>,
    pub membership_ts: Option<String>,
    pub private: bool,
    pub sentence: Option<String>,
    pub artifacts: Vec<ArtifactView>,
    pub problems: Vec<Problem>,
    pub forgotten: Option<Forgotten>,
    pub accesses: i64,
}

/// Looks a session up by token, session id or session key and records an access.
pub fn open(
    index: &Index,
    target: &str,
    agent: Option<&str>,
    now: DateTime<Utc>,
) -> Result<SessionView> {
    let (agent_id, token) =
        crate::forget::one_session(target, agent, index.find_sessions(target.trim(), agent)?)?;
    let artifacts: Vec<ArtifactView> = index.rows(
        "SELECT source_kind, source_path, stale, memory_sentence_quality, captured_at FROM artifacts
         WHERE agent_id = ?1 AND token = ?2 ORDER BY source_kind = 'manifest', captured_at, source_path",
        [&agent_id, &token],
        |r| {
            let path: String = r.get(1)?;
            Ok(ArtifactView {
                kind: r.get(0)?,
                wikilink: format!("[[{path}]]"),
                path,
                state: if r.get::<_, bool>(2)? { "stale".into() } else { "ok".into() },
                sentence_quality: r.get(3)?,
                captured_at: r.get(4)?,
            })
        },
    )?;
    let paths: Vec<String> = artifacts.iter().map(|a| a.path.clone()).collect();
    let problems = index.session_problems(&token, &paths)?;
    let artifacts = artifacts
        .into_iter()
        .map(|mut a| {
            if problems
                .iter()
                .any(|p| p.path == a.path && p.severity == Severity::Error)
                && a.state == "ok"
            {
                a.state = "invalid".into();
            }
            a
        })
        .collect();
    let session = index.rows(
        "SELECT session_id, session_key, project, harness, membership_ts, private, sentence FROM sessions
         WHERE agent_id = ?1 AND token = ?2",
        [&agent_id, &token],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, bool>(5)?,
                r.get::<_, String>(6)?,
            ))
        },
    )?;
    let forgotten = index
        .rows(
            "SELECT source_path, removed_at, reason FROM tombstones WHERE agent_id = ?1 AND token = ?2",
            [&agent_id, &token],
            |r| Ok(Forgotten { tombstone: r.get(0)?, removed_at: r.get(1)?, reason: r.get(2)? }),
        )?
        .into_iter()
        .next();
    index.record_accesses(std::iter::once((&*agent_id, &*token)), now)?;
    let accesses = index
        .rows(
            "SELECT access_count FROM telemetry_access WHERE agent_id = ?1 AND token = ?2",
            [&agent_id, &token],
            |r| r.get::<_, i64>(0),
        )?
        .into_iter()
        .next()
        .unwrap_or(0);
    let s = session.into_iter().next();
    Ok(SessionView {
        session_id: s.as_ref().map(|s| s.0.clone()),
        session_key: s.as_ref().and_then(|s| s.1.clone()),
        project: s.as_ref().and_then(|s| s.2.clone()),
        harness: s.as_ref().and_then(|s| s.3.clone()),
        membership_ts: s.as_ref().map(|s| s.4.clone()),
        private: s.as_ref().is_some_and(|s| s.5),
        sentence: s.map(|s| s.6),
        agent_id,
        token,
        artifacts,
        problems,
        forgotten,
        accesses,
    })
}

/// The body of the session's newest artifact of `kind`, read from disk.
pub fn body(settings: &Settings, view: &SessionView, kind: ArtifactKind) -> Result<String> {
    let Some(a) = view
        .artifacts
        .iter()
        .rev()
        .find(|a| a.kind == kind.as_str())
    else {
        return Err(Error::Usage(format!(
            "session {} has no {kind}",
            view.token
        )));
    };
    let abs = settings.root.join(&a.path);
    let text = std::fs::read_to_string(&abs).map_err(|e| Error::io(&abs, e))?;
    let body = crate::parse::split_frontmatter(&text)
        .map(|(_, body)| body.to_string())
        .unwrap_or(text);
    Ok(body)
}
