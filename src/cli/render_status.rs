//! The text of `memsync status`.
//!
//! Owns: wording and layout of the status report. Must not: read the
//! workspace or the index.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::render::memory_md_account;
use super::status::{ProjectionStatus, Status};
use super::terminal::shown;

pub fn render_status(s: &Status) -> String {
    let mut out = String::new();
    let show = |p: &Option<PathBuf>| {
        p.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "none".into())
    };
    let _ = writeln!(out, "health      {}", s.health);
    let _ = writeln!(out, "workspace   {}", s.workspace.display());
    let _ = writeln!(
        out,
        "config      machine: {}; workspace: {}",
        show(&s.machine_config),
        show(&s.workspace_config)
    );
    let _ = writeln!(
        out,
        "index       {} ({})",
        s.index.display(),
        super::units::human_bytes(s.index_bytes)
    );
    let _ = writeln!(
        out,
        "last sync   {}",
        s.last_sync.as_deref().unwrap_or("never")
    );
    let _ = writeln!(out, "agents");
    if s.agents.is_empty() {
        let _ = writeln!(out, "  none indexed");
    }
    for a in &s.agents {
        let kinds: Vec<String> = a
            .artifacts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let _ = writeln!(
            out,
            "  {:<12} {} sessions ({} in window); {}; {} stale",
            a.agent_id,
            a.sessions,
            a.sessions_in_window,
            kinds.join(", "),
            a.stale
        );
        let _ = writeln!(out, "               {}", memory_md_account(&a.memory_md));
    }
    let _ = writeln!(out, "tombstones  {}", s.tombstones);
    if !s.notes.is_empty() || s.notes_forgotten > 0 {
        let by: Vec<String> = s
            .notes
            .iter()
            .map(|n| format!("{} by {}", n.notes, n.source))
            .collect();
        let total: i64 = s.notes.iter().map(|n| n.notes).sum();
        let forgotten = match s.notes_forgotten {
            0 => String::new(),
            n => format!("; {n} forgotten"),
        };
        let _ = writeln!(out, "notes       {total} ({}){forgotten}", by.join(", "));
    }
    let _ = writeln!(
        out,
        "problems    {} errors, {} warnings",
        s.errors, s.warnings
    );
    for r in &s.problems {
        let _ = writeln!(
            out,
            "  {:<7} {:<24} {:>4}  {}",
            r.severity.as_str(),
            r.rule,
            r.count,
            shown(&r.first_paths.join(", "))
        );
    }
    let _ = writeln!(out, "daemon      {}", daemon_line(&s.daemon));
    let r = &s.prompt_recall;
    if !r.enabled {
        let _ = writeln!(out, "recall      off at each prompt (search.prompt_recall)");
    } else if r.offered > 0 {
        let _ = writeln!(
            out,
            "recall      {} earlier session(s) offered with prompts in {} agent session(s)",
            r.offered, r.sessions
        );
    }
    sentence_lines(&mut out, &s.sentences);
    if let Some(j) = &s.jobs {
        let _ = writeln!(
            out,
            "jobs        {} pending, {} running, {} waiting, {} failed, {} done, {} skipped (no session in them)",
            j.pending, j.running, j.waiting, j.failed, j.succeeded, j.skipped
        );
        for job in &j.attention {
            // A job that failed and will be tried again says when, and why.
            let state = match &job.retry_at {
                Some(at) => format!("waits to retry at {at}"),
                None => job.state.clone(),
            };
            let _ = writeln!(
                out,
                "  #{} {} {} {} (attempts {}): {}",
                job.id,
                state,
                job.kind,
                shown(&job.session_id),
                job.attempts,
                shown(job.last_error.as_deref().unwrap_or(""))
            );
        }
    }
    if let Some(h) = &s.harvest {
        let _ = writeln!(
            out,
            "harvest     {} files: {} captured, {} skipped, {} failed, {} replaced",
            h.files, h.captured, h.skipped, h.failed, h.replaced
        );
        for w in &h.attention {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                w.state,
                w.path,
                w.reason.as_deref().unwrap_or("")
            );
        }
    }
    // MEMORY.md files one by one; daily logs counted, with only the stale ones named.
    for m in &s.union_merges {
        let _ = writeln!(
            out,
            "merge       {} {}: both sides' lines kept (union); check the order",
            m["at"].as_str().unwrap_or("?"),
            m["path"].as_str().unwrap_or("?")
        );
    }
    for a in &s.autostash {
        let what = match a.projections_only {
            true => "projection lines a pull could not put back; the next sync or the daemon merges them back".to_string(),
            false => format!(
                "your changes a pull could not put back ({}); see `git stash show -p {}`",
                a.paths.join(", "),
                a.name
            ),
        };
        let _ = writeln!(out, "git         {}: {what}", a.name);
    }
    let _ = writeln!(out, "projections");
    let (logs, memory): (Vec<&ProjectionStatus>, Vec<&ProjectionStatus>) = s
        .projections
        .iter()
        .partition(|p| !p.path.ends_with("MEMORY.md"));
    for p in memory.iter().chain(logs.iter().filter(|p| !p.fresh)) {
        let state = match (p.fresh, s.memory_missing) {
            _ if p.foreign => "another tool's: memsync renders nothing there",
            (true, _) => "fresh",
            (false, true) => "stale: not rendered while memory/ is missing",
            (false, false) => "stale: the next sync renders it",
        };
        let _ = writeln!(out, "  {:<40} {state}", shown(&p.path));
    }
    let fresh_logs = logs.iter().filter(|p| p.fresh).count();
    let _ = writeln!(out, "  {fresh_logs} of {} daily logs fresh", logs.len());
    out
}

fn daemon_line(d: &crate::watch::DaemonStatus) -> String {
    match (&d.state, d.running) {
        (Some(st), true) => {
            let mut line = format!(
                "running (pid {}, since {}, {})",
                st.pid, st.started_at, st.mode
            );
            if let Some(why) = &st.degraded {
                line.push_str(&format!("; degraded: {why}"));
            }
            if let (Some(at), Some(batch)) = (&st.last_batch_at, &st.last_batch) {
                line.push_str(&format!("; last batch {at}: {batch}"));
            }
            line
        }
        (_, true) => "running".into(),
        (Some(st), false) => format!(
            "not running (last ran as pid {}, started {})",
            st.pid, st.started_at
        ),
        (None, false) => "not running".into(),
    }
}

/// Who writes the sentences and, with a provider, its last week's calls.
fn sentence_lines(out: &mut String, s: &super::status::SentenceStatus) {
    let Some(provider) = &s.provider else {
        return;
    };
    let c = &s.last_7_days;
    let calls = c.ok + c.fallback;
    if calls == 0 {
        let _ = writeln!(out, "sentences   by {provider}; no call in the last 7 days");
        return;
    }
    let _ = writeln!(
        out,
        "sentences   by {provider}: {} ok, {} fallback in the last 7 days; {:.1} s and {} input tokens a call",
        c.ok,
        c.fallback,
        c.total_millis as f64 / 1000.0 / calls as f64,
        c.input_tokens / calls
    );
    for (reason, n) in &c.reasons {
        let _ = writeln!(out, "  {n} fallback: {}", shown(reason));
    }
}
