//! The text of what harvest imported from the harnesses' own memory and of
//! what `connect` restored into them.

use std::fmt::Write as _;

use super::terminal::shown;
use crate::harvest::memory::{ImportReport, MemoryEntry, RestoreReport};

/// Harvest's lines on memory files; nothing when there was nothing to do.
pub fn render_import(r: &ImportReport, dry_run: bool) -> String {
    let mut out = String::new();
    if r.is_empty() {
        return out;
    }
    let verb = if dry_run { "would import" } else { "imported" };
    let _ = writeln!(
        out,
        "  harness memory: {verb} {}, updated {}, unchanged {}, deleted upstream {}, conflicts {}",
        r.imported.len(),
        r.updated.len(),
        r.unchanged,
        r.deleted_upstream.len(),
        r.conflicts.len()
    );
    let lists = [
        (verb, &r.imported),
        ("updated", &r.updated),
        ("deleted upstream (note kept, marked)", &r.deleted_upstream),
        ("conflict", &r.conflicts),
        ("skipped", &r.skipped),
    ];
    entries(&mut out, &lists, Direction::Imported);
    out
}

/// Which way a memory file went: harness file -> note, or note -> harness file.
#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Imported,
    Restored,
}

/// `connect`'s lines on the memory it wrote back into the harness's folder.
pub fn render_restore(r: &RestoreReport) -> String {
    let mut out = String::new();
    let touched = r.written.len() + r.conflicts.len() + r.no_project_here.len();
    if touched == 0 && r.unchanged == 0 {
        return out;
    }
    let verb = if r.dry_run {
        "would restore"
    } else {
        "restored"
    };
    let _ = writeln!(
        out,
        "harness memory from the workspace: {verb} {}, already here {}, kept local edits {}, no project here {}",
        r.written.len(),
        r.unchanged,
        r.conflicts.len(),
        r.no_project_here.len()
    );
    let lists = [
        (verb, &r.written),
        ("kept local", &r.conflicts),
        ("not restored", &r.no_project_here),
    ];
    entries(&mut out, &lists, Direction::Restored);
    out
}

fn entries(out: &mut String, lists: &[(&str, &Vec<MemoryEntry>)], way: Direction) {
    for (label, list) in lists {
        for e in list.iter() {
            let place = if e.path.is_empty() {
                String::new()
            } else {
                format!("{} ", shown(&e.path))
            };
            let reason = e
                .reason
                .as_deref()
                .map(|s| format!(": {}", shown(s)))
                .unwrap_or_default();
            // The arrow points the way the bytes went.
            let line = match (e.note.is_empty(), way) {
                (true, _) => place,
                (false, Direction::Imported) => format!("{place}-> {}", shown(&e.note)),
                (false, Direction::Restored) if e.path.is_empty() => shown(&e.note).to_string(),
                (false, Direction::Restored) => {
                    format!("{} -> {}", shown(&e.note), shown(&e.path))
                }
            };
            let _ = writeln!(out, "    {label} {line}{reason}");
        }
    }
}
