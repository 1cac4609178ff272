//! What `connect codex` changes: `[mcp_servers.memsync]` in `config.toml`
//! with its read-only tools approved, a block in `AGENTS.md` saying where
//! MEMORY.md is; harvest brings its sessions (from connect's record).

use super::mcp as codex_mcp;
use crate::harness::Harness;
use crate::wiring::{Connecting, Edit, Plan, empty_text, memory_block};

use super::INSTRUCTIONS;

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    let home = places.dir(Harness::Codex);
    let (exe, args) = c.mcp_command();
    let (ours, replace) = (args.clone(), c.may_replace());
    let grant = places.memory_writes;
    plan.edits.push(Edit {
        path: home.join("config.toml"),
        what: match grant {
            true => "the memsync MCP server and its tools' approval modes (read-only tools: approve; memory_store, memory_correct: approve, as you granted) ([mcp_servers.memsync])",
            false => "the memsync MCP server and its tools' approval modes (read-only tools: approve; memory_store, memory_correct: prompt) ([mcp_servers.memsync])",
        }
        .into(),
        apply: Box::new(move |p, t| codex_mcp::set_codex_mcp(p, t, (&exe, &args), replace, grant)),
        undo: Box::new(move |p, t| codex_mcp::remove_codex_mcp(p, t, &ours)),
        empty: empty_text,
        whole: true,
        // MCP servers' `env` tables hold tokens.
        new_mode: 0o600,
    });
    plan.edits
        .push(memory_block(places, home.join(INSTRUCTIONS), "Codex"));
    plan.notes.push(
        "Codex runs only hooks you reviewed, so `memsync watch` harvests its finished sessions"
            .into(),
    );
}
