//! `memsync forget`: a session (by token, id or key) or a note (by path),
//! asked first on a terminal, shown with `--dry-run`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use super::render;
use super::terminal::{json, shown};
use crate::config::Settings;
use crate::error::ExitStatus;
use crate::error::Result;

/// How the person asked.
pub struct How {
    pub dry_run: bool,
    /// On a terminal without `--yes`: show the plan and ask first.
    pub ask: bool,
}

type Print<'a> = &'a dyn Fn(serde_json::Value, String) -> Result<()>;

pub fn run(
    settings: &Settings,
    now: DateTime<Utc>,
    target: &str,
    reason: &str,
    agent: Option<&str>,
    how: How,
    print: Print<'_>,
) -> Result<ExitStatus> {
    if crate::forget::is_note_target(target) {
        return note(settings, now, target, reason, how, print);
    }
    if how.dry_run || how.ask {
        let plan = crate::forget::plan(settings, target, agent)?;
        if how.dry_run {
            print(json(&plan), render::render_forget_plan(&plan))?;
            return Ok(ExitStatus::Ok);
        }
        if !super::commands::confirmed(&render::render_forget_plan(&plan))? {
            eprintln!("memsync forget: nothing changed");
            return Ok(ExitStatus::Ok);
        }
    }
    let report = crate::forget::forget(settings, now, target, reason, agent)?;
    print(json(&report), render::render_forget(&report))?;
    Ok(ExitStatus::Ok)
}

fn note(
    settings: &Settings,
    now: DateTime<Utc>,
    target: &str,
    reason: &str,
    how: How,
    print: Print<'_>,
) -> Result<ExitStatus> {
    if reason.trim().is_empty() && !how.dry_run {
        return Err(crate::error::UsageError::Missing {
            flag: "--reason",
            reason: "must say why (it is recorded in the tombstone)",
        }
        .into());
    }
    if how.dry_run || how.ask {
        let plan = crate::forget::forget_note(settings, now, target, reason, true)?;
        if how.dry_run {
            print(json(&plan), render_note_forget(&plan))?;
            return Ok(ExitStatus::Ok);
        }
        if !super::commands::confirmed(&render_note_forget(&plan))? {
            eprintln!("memsync forget: nothing changed");
            return Ok(ExitStatus::Ok);
        }
    }
    let done = crate::forget::forget_note(settings, now, target, reason, false)?;
    print(json(&done), render_note_forget(&done))?;
    Ok(ExitStatus::Ok)
}

fn render_note_forget(r: &crate::forget::NoteForget) -> String {
    let mut out = String::new();
    let (verb, remove, write) = match r.dry_run {
        true => ("would forget", "remove", "write"),
        false => ("forgot", "deleted", "tombstone"),
    };
    let already = match r.outcome {
        crate::forget::ForgetOutcome::AlreadyForgotten => " (already forgotten)",
        crate::forget::ForgetOutcome::Forgotten => "",
    };
    let _ = writeln!(
        out,
        "memsync forget: {verb} note {}{already}",
        shown(&r.path)
    );
    if r.removed {
        let _ = writeln!(out, "  {remove} {}", shown(&r.path));
    }
    let _ = writeln!(
        out,
        "  {write} {} (it keeps the note out for good, in every clone)",
        shown(&r.tombstone)
    );
    if let Some(h) = &r.harness_file {
        let _ = writeln!(
            out,
            "  note: the harness keeps its own copy at {}; memsync will not import it again (delete it there if it should go)",
            shown(h)
        );
    }
    out
}
