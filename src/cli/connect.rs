//! How `connect`, `disconnect` and `doctor` read at a terminal.
//!
//! Owns: the text of those reports. Must not: decide anything (that is `connect`).

use std::fmt::Write;

use crate::connect::{Action, Doctor, Level, Report};

pub fn render_connect(report: &Report) -> String {
    let mut out = String::new();
    let verb = match (report.connect, report.dry_run) {
        (true, false) => "connected",
        (true, true) => "would connect",
        (false, false) => "disconnected",
        (false, true) => "would disconnect",
    };
    let _ = writeln!(out, "{verb} {}", report.harness.as_str());
    if report.changes.is_empty() {
        let _ = writeln!(
            out,
            "  nothing to change: every file is already as it should be"
        );
    }
    for c in &report.changes {
        let action = match c.action {
            Action::Create => "create",
            Action::Update => "update",
            Action::Remove => "remove",
        };
        let part = if report.connect { "" } else { "without " };
        let _ = writeln!(out, "  {action:<7}{}: {part}{}", c.path.display(), c.what);
    }
    for n in &report.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    out
}

pub fn render_doctor(d: &Doctor) -> String {
    let mut out = String::new();
    let daemon = if d.daemon_running {
        "memsync watch is running"
    } else {
        "memsync watch is not running (memsync service install)"
    };
    let _ = writeln!(out, "workspace {}: {daemon}", d.workspace.display());
    for c in &d.workspace_checks {
        write_check(&mut out, c);
    }
    if d.harnesses.is_empty() {
        let _ = writeln!(
            out,
            "no harness found on this machine (~/.claude, ~/.codex, ~/.openclaw)"
        );
    }
    for h in &d.harnesses {
        let state = if h.connected {
            "connected"
        } else {
            "not connected"
        };
        let _ = writeln!(
            out,
            "\n{} ({}): {state}",
            h.harness.as_str(),
            h.dir.display()
        );
        for c in &h.checks {
            write_check(&mut out, c);
        }
    }
    out
}

fn write_check(out: &mut String, c: &crate::connect::Check) {
    let level = match c.level {
        Level::Ok => "ok",
        Level::Missing => "missing",
        Level::Broken => "BROKEN",
    };
    let _ = writeln!(out, "  {level:<8}{}", c.what);
    if let Some(fix) = &c.fix {
        let _ = writeln!(out, "          fix: {fix}");
    }
}
