//! What `connect gemini-cli` changes: SessionEnd, PreCompress, SessionStart
//! and BeforeAgent hooks and the MCP server in `~/.gemini/settings.json`, a
//! block in `~/.gemini/GEMINI.md` (its global context file) saying where
//! MEMORY.md is, and a policy letting memsync's read-only tools run.

use std::path::Path;

use crate::harness::Harness;
use crate::wiring::{Connecting, Edit, Places, Plan, SettingsJson, settings_json};

use super::INSTRUCTIONS;

/// The events memsync's hook handles: the end of a session and the moment
/// before Gemini compresses the chat are captured (the second capture
/// continues the first); a session's start gets the `context` digest, and
/// each prompt's turn (`BeforeAgent`) the relevant sessions.
pub const EVENTS: [&str; 4] = ["SessionEnd", "PreCompress", "SessionStart", "BeforeAgent"];

pub fn settings(places: &Places) -> SettingsJson {
    SettingsJson {
        name: "Gemini CLI",
        dir: places.dir(Harness::GeminiCli),
        events: &EVENTS,
        // Gemini CLI counts milliseconds.
        timeout: 30_000,
        context_file: INSTRUCTIONS,
        allow_rules: false,
        note: "Gemini CLI runs hooks and MCP servers only in folders you trusted (it asks the first time, or `/permissions`); a policy of memsync's lets its read-only MCP tools run without asking (`gemini -p` too), while memory_store and memory_correct still ask; the hooks capture each session and bring this project's recent sessions at start and the relevant ones before each prompt",
    }
}

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let h = settings(c.places);
    settings_json(&h, c, plan);
    plan.edits.push(policy(&h.dir));
}

/// Gemini CLI's policy for memsync's tools: the read-only ones (their MCP
/// annotations say so) run without asking, so a `gemini -p` run offers and
/// calls them; the tools that write notes keep asking (and a `-p` run,
/// with no one to ask, leaves them out).
pub const POLICY: &str =
    "# Added by `memsync connect gemini-cli`; `memsync disconnect gemini-cli` removes it.
# memsync's read-only memory tools (memory_search, memory_get, memory_recent) run
# without asking, in `gemini -p` runs too; memory_store and memory_correct still ask.
[[rule]]
toolName = \"*\"
mcpName = \"memsync\"
toolAnnotations = { readOnlyHint = true }
decision = \"allow\"
priority = 100
";

/// `~/.gemini/policies/memsync.toml`, a file of memsync's own.
fn policy(dir: &Path) -> Edit {
    Edit {
        path: dir.join("policies/memsync.toml"),
        what: "a policy letting memsync's read-only MCP tools run without asking (`gemini -p` runs too)".into(),
        apply: Box::new(|_, _| Ok(POLICY.to_string())),
        undo: Box::new(|_, t| {
            Ok(match t == POLICY {
                true => String::new(),
                false => t.to_string(),
            })
        }),
        empty: |t| t.trim().is_empty(),
        whole: true,
        new_mode: 0o644,
    }
}
