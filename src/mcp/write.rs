//! The two tools that write: `memory_store` (keep a fact as a note) and
//! `memory_correct` (a new note that supersedes an older one). Neither is
//! read-only, and `connect` grants neither: the person approves each use.
//!
//! Owns: their arguments, the per-server write budget and their answers.
//! Must not: write anything but through `remember`.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::tools::ToolResult;
use crate::config::Settings;
use crate::remember::{self, Remember};
use crate::store::Index;

/// The most notes one server (one agent session) writes.
pub const MAX_WRITES: usize = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreArgs {
    /// The fact to keep, in a few sentences ("This repo uses pnpm, not npm."). At most 8 KB.
    pub text: String,
    /// A short title (default: the text's first words).
    pub title: Option<String>,
    /// The project it is about: its path or folder name (default: none, a fact about everything).
    pub project: Option<String>,
    /// Words to group notes by.
    pub tags: Option<Vec<String>>,
    /// The session writing it, if you know its id.
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrectArgs {
    /// The note to correct: its path, as memory_search returned it under `notes`.
    pub note: String,
    /// The corrected fact, whole (it replaces the old note in search and context).
    pub text: String,
    /// Why the old note was wrong or is out of date.
    pub reason: String,
    /// A short title (default: the text's first words).
    pub title: Option<String>,
    /// The project it is about (default: none).
    pub project: Option<String>,
    pub session_id: Option<String>,
}

pub fn store(
    index: &mut Index,
    settings: &Settings,
    a: StoreArgs,
    now: DateTime<Utc>,
) -> ToolResult {
    write(
        index,
        settings,
        Remember {
            text: a.text,
            title: a.title,
            project: a.project,
            tags: a.tags.unwrap_or_default(),
            harness: Some("mcp".into()),
            session_id: a.session_id,
            ..Default::default()
        },
        now,
    )
}

pub fn correct(
    index: &mut Index,
    settings: &Settings,
    a: CorrectArgs,
    now: DateTime<Utc>,
) -> ToolResult {
    if a.reason.trim().is_empty() {
        return Err("reason is empty: say why the old note is wrong".into());
    }
    write(
        index,
        settings,
        Remember {
            text: a.text,
            title: a.title,
            project: a.project,
            harness: Some("mcp".into()),
            session_id: a.session_id,
            supersedes: Some(a.note),
            reason: Some(a.reason),
            ..Default::default()
        },
        now,
    )
}

fn write(index: &mut Index, settings: &Settings, r: Remember, now: DateTime<Utc>) -> ToolResult {
    let written =
        remember::remember(index, settings, r, now).map_err(|e| crate::error::message(&e))?;
    Ok(json!(written))
}
