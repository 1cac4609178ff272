//! The ledger as data: the rows MEMORY.md shows for an agent's window, with
//! the same exclusions and the same line, for readers other than the file
//! (the MCP server's `memory_recent`).
//!
//! Owns: turning session rows into ledger rows. Must not: write anything.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Exclusions;
use super::memory_md::ledger_row;
use crate::config::Settings;
use crate::contract;
use crate::error::Result;
use crate::store::Index;

/// One row of the ledger.
#[derive(Debug, Clone, Serialize)]
pub struct LedgerRow {
    pub agent_id: String,
    pub time: String,
    /// The session key, else the session id (what MEMORY.md shows).
    pub session: String,
    pub token: String,
    pub project: Option<String>,
    pub sentence: String,
    /// The line exactly as MEMORY.md has it.
    pub line: String,
    /// Artifact paths by kind.
    pub paths: BTreeMap<&'static str, String>,
}

/// The rows of `agent`'s sessions in `[from, to]`, newest first, as MEMORY.md
/// would show them: private, test and heartbeat-only sessions left out.
pub fn ledger(
    index: &Index,
    settings: &Settings,
    agent: &str,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
) -> Result<Vec<LedgerRow>> {
    let exclusions = Exclusions::new(&settings.config)?;
    let rows = index
        .sessions_in_window(agent, &contract::format_ts(from), &contract::format_ts(to))?
        .into_iter()
        .filter(|s| !exclusions.excludes(s))
        .map(|s| {
            let paths = ["summary", "transcript", "compaction", "manifest"]
                .into_iter()
                .filter_map(|k| s.path_of(k).map(|p| (k, p.to_string())))
                .collect();
            LedgerRow {
                line: ledger_row(&s).trim_end().to_string(),
                agent_id: s.agent_id.clone(),
                time: s.membership_ts.clone(),
                session: s.identity().to_string(),
                token: s.token.clone(),
                project: s.project.clone(),
                sentence: s.sentence.clone(),
                paths,
            }
        })
        .collect();
    Ok(rows)
}
