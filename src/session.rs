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
use crate::store::Index;
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
    let artifacts: Vec<ArtifactView> = index
        .session_artifacts(&agent_id, &token)?
        .into_iter()
        .map(|a| ArtifactView {
            kind: a.kind,
            wikilink: format!("[[{}]]", a.path),
            path: a.path,
            state: if a.stale { "stale".into() } else { "ok".into() },
            sentence_quality: a.sentence_quality,
            captured_at: a.captured_at,
        })
        .collect();
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
    let header = index.session_row(&agent_id, &token)?;
    let forgotten = index.tombstone_of(&agent_id, &token)?.map(|t| Forgotten {
        tombstone: t.source_path,
        removed_at: t.removed_at,
        reason: t.reason,
    });
    index.record_accesses(std::iter::once((&*agent_id, &*token)), now)?;
    let accesses = index.access_count(&agent_id, &token)?;
    Ok(SessionView {
        session_id: header.as_ref().map(|s| s.session_id.clone()),
        session_key: header.as_ref().and_then(|s| s.session_key.clone()),
        project: header.as_ref().and_then(|s| s.project.clone()),
        harness: header.as_ref().and_then(|s| s.harness.clone()),
        membership_ts: header.as_ref().map(|s| s.membership_ts.clone()),
        private: header.as_ref().is_some_and(|s| s.private),
        sentence: header.map(|s| s.sentence),
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
        return Err(crate::error::UsageError::NoArtifact {
            token: view.token.clone(),
            kind: kind.to_string(),
        }
        .into());
    };
    // Never through a symlink that replaced the indexed file.
    let abs = settings.root.join(&a.path);
    let (mut file, _) =
        crate::files::open_regular(&settings.root, &a.path).map_err(|e| Error::io(&abs, e))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text).map_err(|e| Error::io(&abs, e))?;
    let body = crate::parse::split_frontmatter(&text)
        .map(|(_, body)| body.to_string())
        .unwrap_or(text);
    Ok(body)
}
