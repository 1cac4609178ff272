//! The text reports of the CLI: what `sync`, `check`, `status`, `search`,
//! `open`, `capture`, `forget`, `git setup` and `demo` print without `--json`.
//!
//! Owns: wording and layout. Must not: read the workspace or the index (it
//! renders the reports it is given).

use std::fmt::Write as _;

use crate::config::Settings;
use crate::pipeline::SyncReport;
use crate::validate::Problem;

use super::terminal::shown;

/// The most problems `sync` lists before it says how many more there are.
pub const SYNC_PROBLEM_LINES: usize = 20;

pub fn render_sync(report: &SyncReport, problems: &[Problem]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "memsync sync: {}", report.workspace);
    match report.daemon_pid {
        Some(pid) => {
            let _ = writeln!(
                out,
                "  left to the daemon watching this workspace (pid {pid}; `sync --full` scans here): read {}; indexed {}, stale {}, removed {}",
                report.read, report.indexed, report.stale, report.removed
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  scanned {} canonical files ({} unchanged, {} read); indexed {}, stale {}, removed {}",
                report.scanned,
                report.unchanged,
                report.read,
                report.indexed,
                report.stale,
                report.removed
            );
        }
    }
    if report.notes_indexed + report.notes_removed > 0 {
        let _ = writeln!(
            out,
            "  notes: indexed {}, removed {}",
            report.notes_indexed, report.notes_removed
        );
    }
    if report.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: up to date");
    } else {
        let _ = writeln!(
            out,
            "  wrote {}",
            super::units::written_summary(&report.projections_written)
        );
    }
    if !report.projections_held.is_empty() {
        let _ = writeln!(
            out,
            "  left for the daemon or a later sync (another process holds them open for writing): {}",
            report.projections_held.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "  problems: {} errors, {} warnings",
        report.errors, report.warnings
    );
    for p in problems.iter().take(SYNC_PROBLEM_LINES) {
        let _ = writeln!(out, "    {}", problem_line(p));
    }
    let total = report.errors + report.warnings;
    if total > problems.len().min(SYNC_PROBLEM_LINES) {
        let _ = writeln!(
            out,
            "    … and {} more (memsync check lists them all)",
            total - problems.len().min(SYNC_PROBLEM_LINES)
        );
    }
    let _ = writeln!(out, "  took {} ms", report.duration_ms);
    out
}

pub fn problem_line(p: &Problem) -> String {
    format!(
        "{}: {}: {}: {}",
        shown(&p.path),
        p.severity.as_str(),
        p.rule,
        shown(&p.reason)
    )
}

pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub fn render_capture(r: &crate::capture::CaptureReport) -> String {
    let mut out = String::new();
    let outcome = match r.outcome {
        crate::capture::Outcome::Written => "written",
        crate::capture::Outcome::AlreadyCaptured => "already captured (a retry; nothing rewritten)",
    };
    let _ = writeln!(out, "memsync capture {}: {outcome}", r.kind);
    let _ = writeln!(
        out,
        "  session {} (agent {}, token {})",
        r.session_id, r.agent_id, r.token
    );
    for f in &r.written {
        let _ = writeln!(out, "  wrote {f}");
    }
    if let Some(q) = &r.sentence_quality {
        let _ = writeln!(out, "  memory sentence: {q}");
    }
    if !r.redactions.is_empty() {
        let kinds: Vec<String> = r
            .redactions
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(out, "  redacted: {}", kinds.join(", "));
    }
    if r.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "  skipped {} unreadable transcript lines",
            r.skipped_lines
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "  note: {n}");
    }
    if !r.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: {}", r.projections_written.join(", "));
    }
    if !r.projections_held.is_empty() {
        let _ = writeln!(
            out,
            "  left for the daemon or a later sync (another process holds them open for writing): {}",
            r.projections_held.join(", ")
        );
    }
    out
}

pub fn render_forget(r: &crate::forget::ForgetReport) -> String {
    let mut out = String::new();
    let outcome = match r.outcome {
        crate::forget::ForgetOutcome::Forgotten => "forgotten",
        crate::forget::ForgetOutcome::AlreadyForgotten => "already forgotten",
    };
    let _ = writeln!(
        out,
        "memsync forget: {outcome} (agent {}, token {})",
        r.agent_id, r.token
    );
    let _ = writeln!(out, "  tombstone {}", r.tombstone);
    for f in &r.removed {
        let _ = writeln!(out, "  deleted {f}");
    }
    for f in &r.in_system_trash {
        let path = crate::connect::shell_word(&f.to_string_lossy());
        let _ = writeln!(
            out,
            "  warning: the system trash still holds a copy, outside the workspace (memsync leaves it to you): rm {path}"
        );
    }
    if r.jobs_removed > 0 {
        let _ = writeln!(out, "  removed {} queued jobs", r.jobs_removed);
    }
    if !r.projections_written.is_empty() {
        let _ = writeln!(out, "  projections: {}", r.projections_written.join(", "));
    }
    if let Some(h) = &r.git_history {
        let _ = writeln!(
            out,
            "  warning: git history still holds this session's text ({} commits); the files are gone from the work tree only. To take it out of history:\n    {}",
            h.commits,
            shown(&h.recipe)
        );
    }
    out
}

pub fn render_worker(r: &crate::jobs::WorkerReport) -> String {
    format!(
        "capture jobs: {} succeeded, {} to retry, {} waiting for their session, {} skipped (no session in them), {} failed\n",
        r.succeeded, r.retried, r.waiting, r.skipped, r.failed
    )
}

/// "MEMORY.md keeps K of N in-window sessions; left out: …".
pub fn memory_md_account(a: &crate::project::LedgerAccount) -> String {
    if a.foreign {
        let mut line = format!(
            "MEMORY.md is another tool's (a ledger outside memsync's block, as Signet renders): {} rows, left as they are; memsync renders nothing there",
            a.kept
        );
        if a.foreign_exposes > 0 {
            line.push_str(&format!(
                "; {} of them show sessions memsync keeps out (private, heartbeat-only, a participant's or excluded)",
                a.foreign_exposes
            ));
        }
        return line;
    }
    let reasons: Vec<String> = [
        (a.over_budget, "over the byte budget (oldest first)"),
        (a.excluded_by_rule, "excluded by a projection rule"),
        (a.private, "private"),
        (a.noise, "heartbeat-only or empty"),
        (a.untrusted, "asked by a chat participant"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, why)| format!("{n} {why}"))
    .collect();
    let mut line = format!(
        "MEMORY.md keeps {} of {} in-window sessions",
        a.kept, a.in_window
    );
    if !reasons.is_empty() {
        line.push_str(&format!("; left out: {}", reasons.join(", ")));
    }
    if a.outdated > 0 {
        line.push_str(&format!(
            "; {} row(s) of sessions no longer in the window, which the next sync drops",
            a.outdated
        ));
    }
    line
}

pub fn render_forget_plan(p: &crate::forget::ForgetPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "forget session {} (agent {}){}:",
        p.token,
        p.agent_id,
        if p.already_forgotten {
            ", already forgotten"
        } else {
            ""
        }
    );
    for f in &p.files {
        let _ = writeln!(out, "  remove {}", shown(f));
    }
    if !p.already_forgotten {
        let _ = writeln!(
            out,
            "  write  {} (it keeps the session out for good)",
            shown(&p.tombstone)
        );
    }
    out
}

/// A workspace file as a path a terminal opens: absolute, and an OSC 8
/// hyperlink to it when `link` (a terminal that shows colour); terminals
/// without OSC 8 print the path alone.
pub(super) fn file_link(root: &std::path::Path, rel: &str, link: bool) -> String {
    let abs = root.join(rel);
    let shown_path = shown(&abs.to_string_lossy()).into_owned();
    if !link {
        return shown_path;
    }
    let url: String = abs
        .to_string_lossy()
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect();
    format!("\x1b]8;;file://{url}\x1b\\{shown_path}\x1b]8;;\x1b\\")
}

pub fn render_open(v: &crate::session::SessionView, root: &std::path::Path, link: bool) -> String {
    let mut out = String::new();
    let show = |o: &Option<String>| shown(o.as_deref().unwrap_or("none")).into_owned();
    let _ = writeln!(
        out,
        "session   {} (agent {}, token {})",
        show(&v.session_id),
        v.agent_id,
        v.token
    );
    if let Some(f) = &v.forgotten {
        let _ = writeln!(
            out,
            "FORGOTTEN {} — {} ({})",
            f.removed_at,
            shown(&f.reason),
            shown(&f.tombstone)
        );
    }
    let _ = writeln!(out, "key       {}", show(&v.session_key));
    let _ = writeln!(out, "project   {}", show(&v.project));
    let _ = writeln!(out, "harness   {}", show(&v.harness));
    let _ = writeln!(out, "time      {}", show(&v.membership_ts));
    if v.private {
        let _ = writeln!(out, "private   yes (never projected)");
    }
    let _ = writeln!(out, "sentence  {}", show(&v.sentence));
    let times = if v.accesses == 1 { "time" } else { "times" };
    let _ = writeln!(out, "opened    {} {times}", v.accesses);
    let _ = writeln!(out, "artifacts");
    for a in &v.artifacts {
        let _ = writeln!(
            out,
            "  {:<10} {:<7} {}",
            a.kind,
            a.state,
            file_link(root, &a.path, link)
        );
    }
    if !v.problems.is_empty() {
        let _ = writeln!(out, "problems");
        for p in &v.problems {
            let _ = writeln!(out, "  {}", problem_line(p));
        }
    }
    out
}

pub fn render_git_setup(r: &crate::git::SetupReport) -> String {
    let mut out = String::new();
    if r.changes.is_empty() {
        let _ = writeln!(out, "memsync git setup: already set up; nothing to change");
        return out;
    }
    let verb = if r.dry_run { "would change" } else { "changed" };
    let _ = writeln!(out, "memsync git setup {verb}:");
    for c in &r.changes {
        let _ = writeln!(out, "  {c}");
    }
    out
}

pub fn render_demo(settings: &Settings, report: &SyncReport, problems: &[Problem]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Wrote the example workspace to {}",
        settings.root.display()
    );
    let _ = writeln!(
        out,
        "(two agents, a compaction, a tombstone, a private and a test session, a curated"
    );
    let _ = writeln!(
        out,
        " MEMORY.md, a hand-written daily log and a few invalid files), then synced it:\n"
    );
    out.push_str(&render_sync(report, problems));
    let memory = settings.root.join("MEMORY.md");
    let _ = writeln!(out, "\nMEMORY.md for agent default: {}", memory.display());
    let _ = writeln!(
        out,
        "MEMORY.md for agent reviewer: {}",
        settings.root.join("agents/reviewer/MEMORY.md").display()
    );
    if let Ok(text) = crate::files::read_text_at(&memory) {
        let _ = writeln!(out, "\n----- {} -----\n{text}-----", memory.display());
    }
    let ws = settings.root.display();
    let _ = writeln!(
        out,
        "\nNext: memsync --workspace {ws} check   |   memsync --workspace {ws} status"
    );
    out
}

pub fn render_init(settings: &Settings, report: &SyncReport) -> String {
    // Absolute: the next command may run from another folder.
    let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
    let named = root.display().to_string();
    let flag = crate::connect::shell_word(&named);
    format!(
        "workspace ready: {named}\n  {} artifacts scanned; MEMORY.md rendered\n  next: memsync --workspace {flag} status (or export MEMSYNC_WORKSPACE={flag})\n",
        report.scanned,
    )
}

pub fn render_harvest(r: &crate::harvest::HarvestReport) -> String {
    let mut out = String::new();
    let verb = if r.dry_run {
        "would capture"
    } else {
        "captured"
    };
    let _ = writeln!(
        out,
        "memsync harvest: {} sessions in {} folders",
        crate::harvest::files_listed(r),
        r.places
            .iter()
            .filter(|p| p.files + p.database_sessions > 0)
            .count()
    );
    for p in &r.places {
        let databases = match p.database_sessions {
            0 => String::new(),
            n => format!(" + {n} in its database"),
        };
        let _ = writeln!(
            out,
            "  {:<12} {:>5} files{databases}  {}",
            p.harness.as_str(),
            p.files,
            p.home.as_deref().unwrap_or("(no folder: $HOME unset)")
        );
    }
    let new = if r.dry_run {
        r.would_capture.len()
    } else {
        r.captured.len()
    };
    let _ = writeln!(
        out,
        "  {verb} {new}, continued {}, already captured {}, unchanged {}, live {}, too old {}, busy {}",
        r.continued.len(),
        r.already_captured,
        r.unchanged,
        r.live,
        r.too_old,
        r.busy
    );
    if r.too_old > 0 {
        let _ = writeln!(
            out,
            "  too old: {} files last written before {} (harvest.max_age_days; `--since 2026-01-01` reaches further back)",
            r.too_old,
            r.since.get(..10).unwrap_or(&r.since)
        );
    }
    if r.older_than_window > 0 {
        let _ = writeln!(
            out,
            "  {} of them ended before MEMORY.md's window: in the workspace and search, not in MEMORY.md",
            r.older_than_window
        );
    }
    let lists = [
        (
            verb,
            if r.dry_run {
                &r.would_capture
            } else {
                &r.captured
            },
        ),
        ("continued", &r.continued),
        ("skipped", &r.skipped),
        ("failed", &r.failed),
        ("replaced", &r.replaced),
    ];
    for (label, entries) in lists {
        for e in entries {
            let session = e
                .session_id
                .as_deref()
                .map(|s| format!(" session={s}"))
                .unwrap_or_default();
            let reason = e
                .reason
                .as_deref()
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {label} {}{}{}",
                shown(&e.path),
                shown(&session),
                shown(&reason)
            );
        }
    }
    out.push_str(&super::render_memory::render_import(&r.memory, r.dry_run));
    out
}

/// What `generate` made.
pub fn render_generated(g: &crate::generate::Generated, dir: &std::path::Path) -> String {
    format!(
        "generated {} sessions, {} files, {} bytes in {}\n",
        g.sessions,
        g.files,
        g.bytes,
        dir.display()
    )
}

/// One note: where it is, what it is about, what corrected it, its text.
pub fn render_note(v: &super::commands::NoteView) -> String {
    let n = &v.note;
    let mut out = String::new();
    let _ = writeln!(out, "note {}", shown(&n.path));
    let _ = writeln!(out, "  title: {}", shown(&n.title));
    let _ = writeln!(
        out,
        "  project: {}",
        shown(n.project.as_deref().unwrap_or("none"))
    );
    let _ = writeln!(
        out,
        "  author: {}",
        shown(n.author.as_deref().unwrap_or("unknown"))
    );
    let _ = writeln!(out, "  updated: {}", n.updated);
    if let Some(older) = &n.supersedes {
        let _ = writeln!(out, "  corrects: {} (memsync open {0})", shown(older));
    }
    if let Some(newer) = &n.superseded_by {
        let _ = writeln!(out, "  superseded by: {} (memsync open {0})", shown(newer));
    }
    if let Some(when) = &n.source_deleted {
        let _ = writeln!(
            out,
            "  deleted by its harness: {when} (kept here; left out of context)"
        );
    }
    let _ = writeln!(out, "\n{}", v.text);
    out
}
