//! What each MCP tool does, as plain functions over the index: arguments in
//! (already parsed), JSON out, or a message that says what to send instead.
//!
//! Owns: the tools' arguments, their checks and their answers. Must not: speak
//! the protocol (that is `mcp`) or write a canonical file.

use chrono::{DateTime, Duration, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::config::Settings;
use crate::contract::{self, ArtifactKind};
use crate::store::Index;

/// A tool's failure, told to the agent as a tool error (`isError`).
pub type ToolResult = std::result::Result<Value, String>;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to find (all must match), or an FTS5 query: "exact phrase", OR, NOT, prefix*.
    pub query: String,
    /// Only this agent's sessions (default: every agent).
    pub agent: Option<String>,
    /// A project path, its last segment (`shop`), or a glob (`*/shop*`).
    pub project: Option<String>,
    /// Only sessions since then: 7d, 24h, 2w, a date (2026-11-01) or an RFC 3339 time.
    pub since: Option<String>,
    /// Only matches in this artifact: summary, transcript or compaction.
    pub kind: Option<String>,
    /// How many sessions (1 to 100, default 10).
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// A session: its 16-character token, session id or session key (from memory_search or memory_recent).
    pub session: Option<String>,
    /// Or one artifact by its workspace-relative path (memory/...--summary.md).
    pub path: Option<String>,
    /// The agent, when several agents have a session of that id.
    pub agent: Option<String>,
    /// First line of the transcript (or of `path`) to return, from 1.
    pub start_line: Option<u32>,
    /// Last line to return (inclusive).
    pub end_line: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    /// The agent whose ledger to read (default: `default`).
    pub agent: Option<String>,
    /// How many days back (1 to 365, default: the MEMORY.md window).
    pub days: Option<u32>,
    /// Only this project: its path or its last segment.
    pub project: Option<String>,
}

pub fn search(
    index: &Index,
    settings: &Settings,
    args: SearchArgs,
    now: DateTime<Utc>,
) -> ToolResult {
    let kind = args
        .kind
        .as_deref()
        .map(|k| {
            ArtifactKind::parse(k)
                .filter(|k| *k != ArtifactKind::Manifest)
                .ok_or_else(|| format!("kind {k:?}: send summary, transcript or compaction"))
        })
        .transpose()?;
    let limit = args
        .limit
        .unwrap_or(settings.config.search.limit.min(100) as u32);
    if !(1..=100).contains(&limit) {
        return Err(format!("limit {limit}: send 1 to 100"));
    }
    let since = args
        .since
        .as_deref()
        .map(|s| crate::search::parse_since(s, now))
        .transpose()
        .map_err(|e| crate::error::message(&e))?;
    let q = crate::search::Query {
        text: args.query,
        agent: args.agent,
        project: args.project,
        kind,
        since,
        limit: limit as usize,
        include_private: false,
    };
    let hits = crate::search::search(index, &settings.config.search, &q, now)
        .map_err(|e| crate::error::message(&e))?;
    Ok(json!({ "hits": hits }))
}

pub fn get(index: &Index, settings: &Settings, args: GetArgs, now: DateTime<Utc>) -> ToolResult {
    let lines = (args.start_line, args.end_line);
    if let (Some(a), Some(b)) = lines
        && (a == 0 || b < a)
    {
        return Err(format!("lines {a}..{b}: send 1 <= start_line <= end_line"));
    }
    match (args.session, args.path) {
        (Some(session), None) => {
            get_session(index, settings, &session, args.agent.as_deref(), lines, now)
        }
        (None, Some(path)) => get_path(settings, &path, lines),
        _ => Err("send either `session` (a token, session id or key) or `path`, not both".into()),
    }
}

fn get_session(
    index: &Index,
    settings: &Settings,
    session: &str,
    agent: Option<&str>,
    lines: (Option<u32>, Option<u32>),
    now: DateTime<Utc>,
) -> ToolResult {
    let view = crate::session::open(index, session, agent, now).map_err(|e| {
        format!(
            "{}; search with memory_search or list with memory_recent to find a session",
            crate::error::message(&e)
        )
    })?;
    if view.forgotten.is_some() {
        return Err(format!(
            "session {session:?} was forgotten; nothing of it is kept"
        ));
    }
    let body = |kind| crate::session::body(settings, &view, kind).ok();
    let transcript = body(ArtifactKind::Transcript).map(|t| slice(&t, lines));
    Ok(json!({
        "session": view,
        "summary": body(ArtifactKind::Summary),
        "compaction": body(ArtifactKind::Compaction),
        "transcript": transcript,
        "manifest": body(ArtifactKind::Manifest),
    }))
}

/// One canonical artifact by path: refused outside `memory/` or when it is
/// not named as an artifact, so no other file of the workspace can be read.
fn get_path(settings: &Settings, path: &str, lines: (Option<u32>, Option<u32>)) -> ToolResult {
    let refuse = |why: &str| {
        Err(format!(
            "path {path:?}: {why}; send a path from memory_search or memory_get"
        ))
    };
    let Some(name) = path.strip_prefix(&format!("{}/", contract::MEMORY_DIR)) else {
        return refuse("not under memory/");
    };
    if name.contains('/') || name.contains("..") || contract::parse_canonical_name(name).is_none() {
        return refuse("not a canonical artifact (memory/{captured_at}--{token}--{kind}.md)");
    }
    crate::files::check_real_dirs(&settings.root, path).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(settings.root.join(path))
        .map_err(|e| format!("path {path:?}: {e}"))?;
    Ok(json!({ "path": path, "text": slice(&text, lines) }))
}

/// Lines `start..=end` (1-based) of `text`, or all of it.
fn slice(text: &str, (start, end): (Option<u32>, Option<u32>)) -> String {
    if start.is_none() && end.is_none() {
        return text.to_string();
    }
    let first = start.unwrap_or(1).max(1) as usize - 1;
    let count = end.map_or(usize::MAX, |e| (e as usize).saturating_sub(first));
    text.lines()
        .skip(first)
        .take(count)
        .map(|l| format!("{l}\n"))
        .collect()
}

pub fn recent(
    index: &Index,
    settings: &Settings,
    args: RecentArgs,
    now: DateTime<Utc>,
) -> ToolResult {
    let agent = args.agent.unwrap_or_else(|| "default".into());
    if !contract::is_valid_agent_id(&agent) {
        return Err(format!(
            "agent {agent:?}: send an agent id such as `default`"
        ));
    }
    let days = args.days.unwrap_or(settings.config.memory_md.window_days);
    if !(1..=365).contains(&days) {
        return Err(format!("days {days}: send 1 to 365"));
    }
    let from = now - Duration::days(i64::from(days));
    let rows = crate::project::ledger::ledger(index, settings, &agent, (from, now))
        .map_err(|e| crate::error::message(&e))?
        .into_iter()
        .filter(|r| {
            args.project.as_deref().is_none_or(|want| {
                r.project.as_deref().is_some_and(|p| {
                    p == want || p.trim_end_matches('/').rsplit('/').next() == Some(want)
                })
            })
        })
        .collect::<Vec<_>>();
    Ok(json!({ "agent": agent, "days": days, "rows": rows }))
}
