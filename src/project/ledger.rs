//! The ledger as data: the rows MEMORY.md shows for an agent's window, with
//! the same exclusions and the same line, for readers other than the file
//! (the MCP server's `memory_recent`), and the account of what MEMORY.md
//! keeps (`status`).
//!
//! Owns: turning session rows into ledger rows. Must not: write anything.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::memory_md::ledger_row;
use super::{Exclusions, memory_md_path};
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

/// What became of an agent's in-window sessions in its MEMORY.md: how many
/// rows it holds, and why the rest are not there.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct LedgerAccount {
    pub in_window: usize,
    /// Rows MEMORY.md holds now.
    pub kept: usize,
    /// Would be rows, but the byte budget ran out first (the oldest go).
    pub over_budget: usize,
    pub private: usize,
    /// Heartbeat-only or empty: no request from a person.
    pub noise: usize,
    /// A request from someone other than the owner.
    pub untrusted: usize,
    /// `projection.exclude_projects`, `exclude_sessions` or `exclude_harnesses`.
    pub excluded_by_rule: usize,
    /// Rows on disk beyond what a render would keep now (their sessions left
    /// the window or the index since the file was written): the next sync
    /// drops them, so the file is not fresh.
    pub outdated: usize,
    /// The file holds another tool's ledger (Signet's) outside memsync's
    /// block: memsync renders nothing there, and drops nothing from it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub foreign: bool,
    /// Rows of that ledger showing sessions memsync keeps out of MEMORY.md
    /// (private, heartbeat-only, a participant's, excluded by a rule).
    #[serde(skip_serializing_if = "is_zero")]
    pub foreign_exposes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Accounts for `agent`'s in-window sessions against its MEMORY.md as it is on disk.
pub fn ledger_account(
    index: &Index,
    settings: &Settings,
    agent: &str,
    now: DateTime<Utc>,
) -> Result<LedgerAccount> {
    let exclusions = Exclusions::new(&settings.config)?;
    let from =
        contract::format_ts(now - Duration::days(settings.config.memory_md.window_days as i64));
    let to = contract::format_ts(now);
    let mut a = LedgerAccount::default();
    let mut eligible: usize = 0;
    let mut kept_out = std::collections::BTreeSet::new();
    index.each_session_in_window(agent, (&from, &to), |s| {
        a.in_window += 1;
        if s.private || s.noise || s.untrusted || exclusions.excludes(&s) {
            kept_out.insert(format!("session={}", s.session_id));
        }
        if s.private {
            a.private += 1;
        } else if s.noise {
            a.noise += 1;
        } else if s.untrusted {
            a.untrusted += 1;
        } else if exclusions.excludes(&s) {
            a.excluded_by_rule += 1;
        } else {
            eligible += 1;
        }
        true
    })?;
    let text =
        crate::files::read_text_at(settings.root.join(memory_md_path(agent))).unwrap_or_default();
    // Ledger rows, not the head's project lines or compaction rows.
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("- ") && l.contains(" | session=") && l.contains(" | project="))
        .collect();
    a.kept = rows.len();
    let (before, after) = super::file::outside_block(&text);
    a.foreign = [before, after]
        .iter()
        .any(|t| t.contains(super::memory_md::LEDGER_HEADING));
    if a.foreign {
        a.foreign_exposes = rows
            .iter()
            .filter(|r| r.split(" | ").any(|part| kept_out.contains(part.trim())))
            .count();
        return Ok(a);
    }
    a.over_budget = eligible.saturating_sub(a.kept);
    a.outdated = a.kept.saturating_sub(eligible);
    Ok(a)
}
