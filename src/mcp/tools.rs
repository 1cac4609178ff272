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
    /// What to find, in your own words: a question or keywords in any language
    /// ("when did we fix the retry bug?"). Sessions holding any of the words
    /// match, best first; a time named ("in May", "last week") favours that
    /// time's sessions. FTS5 syntax ("exact phrase", OR, NOT, prefix*) also works.
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
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// A session: its 16-character token, session id or session key (from memory_search or memory_recent).
    pub session: Option<String>,
    /// Or one artifact by its workspace-relative path (memory/...--summary.md), or a note's path.
    pub path: Option<String>,
    /// The agent, when several agents have a session of that id.
    pub agent: Option<String>,
    /// First line of the transcript (or of `path`) to return, from 1.
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line to return (inclusive), from 1.
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecentArgs {
    /// The agent whose ledger to read (default: `default`).
    pub agent: Option<String>,
    /// How many days back (1 to 365, default: the MEMORY.md window).
    #[schemars(range(min = 1, max = 365))]
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
        include_superseded: false,
    };
    let found = crate::search::search(index, &settings.config.search, &q, now)
        .map_err(|e| crate::error::message(&e))?;
    // Only what an agent uses to pick a hit and open it; scores and
    // wikilinks are for people (`memsync search --json` keeps them).
    let note = found.note;
    let notes: Vec<Value> = found
        .notes
        .iter()
        .map(|n| {
            json!({
                "note": n.note.path,
                "title": n.note.title,
                "project": n.note.project,
                "updated": n.note.updated,
                "snippet": n.snippet,
            })
        })
        .collect();
    let hits: Vec<Value> = found
        .hits
        .into_iter()
        .map(|h| {
            let mut hit = json!({
                "token": h.token,
                "session_id": h.session_id,
                "agent": h.agent_id,
                "when": h.membership_ts,
                "project": h.project,
                "sentence": h.sentence,
                "snippet": h.snippet,
                "path": h.path,
            });
            if let Some(key) = h.session_key {
                hit["session_key"] = json!(key);
            }
            if h.untrusted {
                hit["untrusted"] = json!(true);
            }
            hit
        })
        .collect();
    let mut out = json!({ "hits": hits });
    if !notes.is_empty() {
        out["notes"] = json!(notes);
    }
    if hits_empty(&out) && notes.is_empty() {
        let tries = crate::search::suggest(index, &settings.config.search, &q, now)
            .map_err(|e| crate::error::message(&e))?;
        out["suggestions"] = json!(tries);
    } else if let Some(note) = note {
        out["note"] = json!(note);
    }
    Ok(out)
}

fn hits_empty(out: &Value) -> bool {
    out["hits"].as_array().is_none_or(Vec::is_empty)
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
        (None, Some(path)) => match index.note(&path).map_err(|e| crate::error::message(&e))? {
            Some((note, text)) => Ok(note_answer(index, note, &text)),
            None => get_path(index, settings, &path, lines),
        },
        _ => Err("send either `session` (a token, session id or key) or `path`, not both".into()),
    }
}

/// A note with its text (sanitized as search shows it) and the note that
/// corrected it, when one did: the agent reads the chain forward.
fn note_answer(index: &Index, note: crate::store::notes::NoteRow, text: &str) -> Value {
    let mut answer = json!(note);
    answer["text"] = json!(crate::capture::sanitize::sanitize(text).text);
    if let Some(newer) = note.superseded_by.as_deref()
        && let Ok(Some((_, newer_text))) = index.note(newer)
    {
        answer["superseded_by_text"] = json!(crate::capture::sanitize::sanitize(&newer_text).text);
    }
    answer
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
    // Each part within the reply budget; the transcript's lines by window.
    let body = |kind| crate::session::body(settings, &view, kind).ok();
    let part = |kind| body(kind).map(|t| window(t.as_bytes(), (None, None))["text"].clone());
    let transcript = body(ArtifactKind::Transcript).map(|t| window(t.as_bytes(), lines));
    Ok(json!({
        "session": view,
        "summary": part(ArtifactKind::Summary),
        "compaction": part(ArtifactKind::Compaction),
        "transcript": transcript.as_ref().map(|w| w["text"].clone()),
        "transcript_lines": transcript.map(|mut w| {
            w.as_object_mut().map(|o| o.remove("text"));
            w
        }),
        "manifest": part(ArtifactKind::Manifest),
    }))
}

/// One canonical artifact by path: refused outside `memory/`, when it is not
/// named as an artifact, when the index does not hold it (a file that
/// arrived unseen, one the scan refused), when its session was forgotten (a
/// stale clone brought it back), and when it is reached through a symbolic
/// link: no other file, inside the workspace or out, can be read this way.
fn get_path(
    index: &Index,
    settings: &Settings,
    path: &str,
    lines: (Option<u32>, Option<u32>),
) -> ToolResult {
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
    let fail = |e: crate::error::Error| crate::error::message(&e);
    let Some((agent, token)) = index.artifact_session(path).map_err(fail)? else {
        return refuse("not an artifact the index holds");
    };
    if index.tombstone_of(&agent, &token).map_err(fail)?.is_some() {
        return Err(format!(
            "path {path:?}: its session was forgotten; nothing of it is kept"
        ));
    }
    let (file, _) = crate::files::open_regular(&settings.root, path)
        .map_err(|e| format!("path {path:?}: {e}"))?;
    let mut reply = window(std::io::BufReader::new(file), lines);
    reply["path"] = json!(path);
    Ok(reply)
}

/// At most this much text in one reply; `next_start_line` reaches the rest.
pub const REPLY_BYTES: usize = 256 * 1024;

/// Lines `start..=end` (1-based) of `text`, or all of it, within
/// `REPLY_BYTES`: `{text, start_line, end_line, next_start_line}`. A line
/// longer than the budget is cut with a marker; the file is read a line at a
/// time, so a 100 MB file costs what one reply does.
fn window(text: impl std::io::BufRead, (start, end): (Option<u32>, Option<u32>)) -> Value {
    let first = start.unwrap_or(1).max(1) as usize;
    let last = end.map_or(usize::MAX, |e| e as usize);
    let mut out = String::new();
    let (mut n, mut shown, mut next) = (0, 0, None);
    for line in crate::transcript::LineReader::new(text, REPLY_BYTES) {
        n += 1;
        if n < first {
            continue;
        }
        if n > last {
            break;
        }
        if !out.is_empty() && out.len() + line.len() + 1 > REPLY_BYTES {
            next = Some(n);
            break;
        }
        out.push_str(&line);
        out.push('\n');
        shown = n;
    }
    json!({
        "text": out,
        "start_line": first,
        "end_line": shown,
        "next_start_line": next,
    })
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
