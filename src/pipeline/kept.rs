//! Rows kept for session files that are away but not deleted: a moved
//! `memory/` folder, and a file renamed or moved out of its name while its
//! copy is in the workspace. Deleting their rows would drop sessions from
//! MEMORY.md (and commit that) and lose a stale file's last good rows.
//!
//! Owns: deciding which deleted paths keep their rows. Must not: write rows
//! or files.

use std::collections::HashSet;

use super::memory_dir_present;
use crate::config::Settings;
use crate::contract;
use crate::error::Result;
use crate::store::Index;
use crate::validate::{self, Problem};

/// With `memory/` gone (moved or renamed in a file manager or Obsidian), its
/// files are not deleted sessions: their rows, tombstones included, stay
/// until it comes back, so MEMORY.md is not rendered (and committed) empty.
pub(super) fn keep_rows_of_a_missing_memory_dir(
    settings: &Settings,
    deleted: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) {
    if memory_dir_present(settings) {
        return;
    }
    let under = format!("{}/", contract::MEMORY_DIR);
    let before = deleted.len();
    deleted.retain(|p| !p.starts_with(&under));
    let kept = before - deleted.len();
    if kept > 0 {
        problems.push(Problem::error(
            contract::MEMORY_DIR,
            "memory.missing",
            format!(
                "the folder is gone (moved or renamed?); the {kept} session files indexed from it keep their rows, and MEMORY.md and the daily logs are not rendered without them. Fix: move it back to `{}/`; if it was meant, `memsync reindex` drops them",
                contract::MEMORY_DIR
            ),
        ));
    }
}

/// The files whose moved copies are in the workspace (`naming.moved`).
fn moved_artifacts(index: &Index) -> Result<HashSet<String>> {
    Ok(index
        .problems_with_rule("naming.moved")?
        .iter()
        .filter_map(|(_, reason)| Some(validate::moved_origin(reason)?.to_string()))
        .collect())
}

/// The origins of the moved copies among `paths`: a copy that goes
/// (deleted, or moved back) ends the keeping of its origin's rows, so the
/// origin is looked at too.
pub(super) fn origins_of_moved_copies(index: &Index, paths: &[String]) -> Result<Vec<String>> {
    let mut origins = Vec::new();
    for path in paths {
        for reason in index.problem_reasons_at(path, "naming.moved")? {
            origins.extend(validate::moved_origin(&reason).map(String::from));
        }
    }
    Ok(origins)
}

/// A session file renamed or moved away (Obsidian's rename to a title) is
/// not a deleted one while its copy is there: its rows stay, so the session
/// keeps its place, and a file whose last good rows were kept (a stale
/// summary) still has them when it is moved back.
pub(super) fn keep_rows_of_moved_artifacts(index: &Index, deleted: &mut Vec<String>) -> Result<()> {
    if deleted.is_empty() {
        return Ok(());
    }
    let origins = moved_artifacts(index)?;
    deleted.retain(|p| !origins.contains(p));
    Ok(())
}
