//! What `connect openclaw` changes: `mcp.servers.memsync` in `openclaw.json`
//! (once OpenClaw's setup wrote it), and a mirror of agent `main`'s
//! MEMORY.md and daily logs in OpenClaw's workspace when that is not the
//! memsync workspace; harvest brings its sessions.

use super::workspace::{AGENT, Readiness, readiness};
use crate::harness::Harness;
use crate::wiring::json5_mcp::Json5Mcp;
use crate::wiring::{Connecting, Edit, Plan, edit};

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    mcp(c, plan);
    let workspace = places.openclaw_workspace();
    let needed = places.openclaw_mirror();
    let same = needed.is_none();
    plan.mirror = match c.connecting {
        true => needed,
        false => c.record.mirror.clone(),
    };
    plan.notes.push(if same {
        format!(
            "OpenClaw's workspace is this workspace: it reads MEMORY.md there; agent `{AGENT}`'s ledger is {}",
            places.memory_md(AGENT).display()
        )
    } else {
        format!(
            "OpenClaw reads {}/MEMORY.md and memory/YYYY-MM-DD.md: memsync renders agent `{AGENT}`'s block there on every sync",
            workspace.display()
        )
    });
    if c.connecting && !same {
        readiness_note(&workspace, plan);
    }
}

/// A note when OpenClaw's workspace is not ready for memsync's files.
fn readiness_note(workspace: &std::path::Path, plan: &mut Plan) {
    match readiness(workspace) {
        Readiness::Ready => {}
        Readiness::FirstRun => plan.notes.push(format!(
            "OpenClaw's first run is not over ({} is there): memsync writes nothing into that folder until OpenClaw has removed it, so its first-run ritual still happens",
            workspace.join("BOOTSTRAP.md").display()
        )),
        Readiness::NotSetUp => plan.notes.push(format!(
            "OpenClaw has not set up {} yet: memsync writes nothing there until it has (start OpenClaw once), since a MEMORY.md there would make OpenClaw skip its first-run ritual",
            workspace.display()
        )),
    }
}

/// memsync's MCP server in `openclaw.json`, once OpenClaw has written that
/// file (its setup makes it; memsync never creates it, which would make
/// OpenClaw skip its own setup).
fn mcp(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    let path = places.dir(Harness::OpenClaw).join("openclaw.json");
    if !path.is_file() {
        if c.connecting {
            plan.notes.push(format!(
                "{} does not exist yet: run OpenClaw's setup, then `memsync connect openclaw` again to give it the memsync MCP server",
                path.display()
            ));
        }
        return;
    }
    // OpenClaw's agent runs an MCP tool without asking whatever its
    // annotations say, so its server leaves out the tools that write notes
    // unless the person grants them (`--memory-writes`).
    let (exe, plain) = c.mcp_command();
    let mut args = plain.clone();
    if !places.memory_writes {
        args.push("--read-only".into());
    }
    let (ours, replace) = (args.clone(), c.may_replace());
    let what = match places.memory_writes {
        true => "the `memsync` MCP server (mcp.servers.memsync), its note-writing tools granted",
        false => {
            "the `memsync` MCP server (mcp.servers.memsync), read-only: OpenClaw would run its note-writing tools without asking you"
        }
    };
    plan.edits.push(Edit {
        path,
        what: what.into(),
        apply: Box::new(move |p, t| OPENCLAW.set(p, t, (&exe, &args), replace)),
        // Either entry is memsync's: with or without `--read-only`.
        undo: Box::new(move |p, t| {
            let without = OPENCLAW.remove(p, t, &ours)?;
            match without == t {
                true => {
                    let mut other = plain.clone();
                    if !ours.iter().any(|a| a == "--read-only") {
                        other.push("--read-only".into());
                    }
                    OPENCLAW.remove(p, t, &other)
                }
                false => Ok(without),
            }
        }),
        empty: edit::is_empty_json,
        whole: true,
        // OpenClaw keeps provider keys in it.
        new_mode: 0o600,
    });
}

/// memsync's entry in `openclaw.json`: `mcp.servers.memsync` (`command`,
/// `args`), which its embedded agent exposes to the model in its coding and
/// messaging tool profiles; the tools' read-only MCP annotations are what its
/// `auto` approval reads, so no grant is written.
pub const OPENCLAW: Json5Mcp = Json5Mcp {
    harness: Harness::OpenClaw,
    parents: &["mcp", "servers"],
    entry: |exe, args| vec![("command", exe.into()), ("args", args.into())],
    args_of: |e| e["args"].clone(),
};
