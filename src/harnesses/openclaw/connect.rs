//! What `connect openclaw` changes: `mcp.servers.memsync` in `openclaw.json`
//! (once OpenClaw's setup wrote it), and a mirror of agent `main`'s
//! MEMORY.md and daily logs in OpenClaw's workspace when that is not the
//! memsync workspace; harvest brings its sessions.

use std::path::PathBuf;

use crate::config::MirrorConfig;
use crate::harness::Harness;
use crate::wiring::json5_mcp::OPENCLAW;
use crate::wiring::{Connecting, Edit, Places, Plan, edit};

/// The OpenClaw agent whose workspace is the default one.
const AGENT: &str = "main";

impl Places {
    /// A value of OpenClaw's `openclaw.json` (JSON5-ish: comments allowed).
    pub fn openclaw_setting(&self, pointer: &str) -> Option<serde_json::Value> {
        let dir = self.dir(Harness::OpenClaw);
        let text = std::fs::read_to_string(dir.join("openclaw.json")).ok()?;
        let value =
            jsonc_parser::parse_to_serde_value::<serde_json::Value>(&text, &Default::default())
                .ok()?;
        value.pointer(pointer).cloned()
    }

    /// OpenClaw's workspace: `agents.defaults.workspace` in `openclaw.json`,
    /// else `<state dir>/workspace`.
    pub fn openclaw_workspace(&self) -> PathBuf {
        let dir = self.dir(Harness::OpenClaw);
        let configured = self
            .openclaw_setting("/agents/defaults/workspace")
            .and_then(|w| w.as_str().map(String::from));
        match configured {
            Some(w) => match (w.strip_prefix("~/"), dir.parent()) {
                (Some(rest), Some(home)) if dir.ends_with(".openclaw") => home.join(rest),
                _ => PathBuf::from(w),
            },
            None => dir.join("workspace"),
        }
    }

    /// The mirror OpenClaw needs: its workspace, unless that is the memsync workspace.
    pub fn openclaw_mirror(&self) -> Option<MirrorConfig> {
        let dir = self.openclaw_workspace();
        let same = std::fs::canonicalize(&dir).is_ok_and(|w| w == self.workspace);
        (!same).then(|| MirrorConfig {
            agent: AGENT.into(),
            dir,
        })
    }
}

/// The mirror's readiness (whether OpenClaw set its workspace up) is said
/// by `connect`, which owns the projection.
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
