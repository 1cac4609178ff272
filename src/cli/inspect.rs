//! `memsync config` and `memsync log`: what is in force, and what the daemon
//! did, each as JSON and as text.
//!
//! Owns: those two reports. Must not: change anything.

use std::fmt::Write as _;

use super::args::Command;
use crate::config::{EffectiveKey, Settings};
use crate::error::Result;
use crate::watch::journal::{self, JournalEntry};

/// The report of `command` (`Config` or `Log`): JSON and text.
pub(super) fn run(command: &Command, settings: &Settings) -> Result<(serde_json::Value, String)> {
    match command {
        Command::Log { lines } => {
            let mut entries = journal::last(&settings.state_dir(), *lines);
            entries.extend(sentence_calls(settings, *lines)?);
            entries.sort_by(|a, b| a.at.cmp(&b.at));
            let skip = entries.len().saturating_sub(*lines);
            let entries: Vec<JournalEntry> = entries.into_iter().skip(skip).collect();
            Ok((super::terminal::json(&entries), render_log(&entries)))
        }
        _ => {
            let keys = crate::config::effective(settings)?;
            Ok((super::terminal::json(&keys), render_config(&keys)))
        }
    }
}

/// The newest model calls for sentences, as log entries: whoever ran the
/// capture (the daemon, a hook's worker, a one-shot command) made them.
fn sentence_calls(settings: &Settings, n: usize) -> Result<Vec<JournalEntry>> {
    let Some(ledger) =
        crate::store::model_calls::ModelCallLedger::open_existing(&settings.state_dir())?
    else {
        return Ok(Vec::new());
    };
    Ok(ledger
        .recent(n)?
        .into_iter()
        .map(|c| {
            let at = chrono::DateTime::from_timestamp_millis(c.at_ms).unwrap_or_default();
            let cost = format!(
                "{:.1} s, {} input tokens",
                c.millis as f64 / 1000.0,
                c.input_tokens
            );
            JournalEntry {
                at: crate::contract::format_ts(at),
                what: "sentence".into(),
                detail: match &c.reason {
                    Some(why) => format!("{} fell back ({cost}): {why}", c.provider),
                    None => format!("{} wrote the sentence ({cost})", c.provider),
                },
                paths: Vec::new(),
            }
        })
        .collect())
}

/// One key a line, its value and where it came from.
fn render_config(keys: &[EffectiveKey]) -> String {
    let width = keys.iter().map(|k| k.key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for k in keys {
        let _ = writeln!(out, "{:width$}  {}  ({})", k.key, k.value, k.from);
    }
    out
}

/// One entry a line, with the files it wrote or committed.
fn render_log(entries: &[JournalEntry]) -> String {
    if entries.is_empty() {
        return "the daemon has not changed anything yet (memsync watch, or memsync service install)\n"
            .to_string();
    }
    let mut out = String::new();
    for e in entries {
        let _ = write!(out, "{}  {:7}  {}", e.at, e.what, e.detail);
        if !e.paths.is_empty() {
            let _ = write!(out, ": {}", e.paths.join(", "));
        }
        out.push('\n');
    }
    out
}
