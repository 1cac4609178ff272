//! How `connect`, `disconnect` and `doctor` read at a terminal.
//!
//! Owns: the text of those reports. Must not: decide anything (that is `connect`).

use std::fmt::Write;

use crate::config::{Env, Settings};
use crate::connect::{Action, Doctor, Level, Places, Report};
use crate::harness::Harness;
use crate::harvest::memory::RestoreReport;

/// What `connect` did: the harness's files wired, and its own memory
/// written back from the workspace.
#[derive(Debug, serde::Serialize)]
pub struct Connected {
    #[serde(flatten)]
    pub report: Report,
    pub memory: RestoreReport,
}

/// Wires the harness; then, unless told not to, restores the memory other
/// machines imported for it (the project of the folder it runs in first).
pub fn connect(
    settings: &Settings,
    env: &Env,
    places: &Places,
    harness: Harness,
    dry_run: bool,
    force: bool,
    restore: bool,
) -> crate::error::Result<Connected> {
    let report = crate::connect::connect(harness, places, dry_run, force)?;
    let memory = match restore && harness.keeps_own_memory() {
        true => {
            let cwd = std::env::current_dir().unwrap_or_else(|_| settings.root.clone());
            crate::harvest::memory::restore(settings, env, harness, &cwd, dry_run)?
        }
        false => RestoreReport {
            dry_run,
            ..Default::default()
        },
    };
    Ok(Connected { report, memory })
}

/// Has the workspace's daemon reload its settings (harvest and the mirror
/// follow what is connected), and says what happened.
pub fn reload_daemon(settings: &Settings, needs_daemon: bool) -> Option<String> {
    if crate::lock::signal_daemon(&settings.state_dir(), libc::SIGHUP) {
        Some("the running `memsync watch` reloaded its settings".into())
    } else {
        needs_daemon.then(|| {
            format!(
                "no `memsync watch` runs for this workspace: harvest and the mirror work only while it runs ({})",
                crate::service::start_advice(settings)
            )
        })
    }
}

pub fn render_connected(done: &Connected) -> String {
    let mut out = render_connect(&done.report);
    out.push_str(&super::render_memory::render_restore(&done.memory));
    out
}

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

pub fn render_doctor(d: &Doctor, settings: &Settings) -> String {
    let mut out = String::new();
    let daemon = if d.daemon_running {
        "memsync watch is running".to_string()
    } else {
        format!(
            "memsync watch is not running ({})",
            crate::service::start_advice(settings)
        )
    };
    let _ = writeln!(out, "workspace {}: {daemon}", d.workspace.display());
    for c in &d.workspace_checks {
        write_check(&mut out, c);
    }
    if d.harnesses.is_empty() {
        let _ = writeln!(
            out,
            "no harness found on this machine (none of the folders of {})",
            crate::harness::spoken_list(crate::harness::Harness::CONNECT_ORDER, "or")
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
