//! What `connect copilot-cli` changes: sessionEnd, sessionStart and
//! userPromptSubmitted hooks in `~/.copilot/settings.json` (listed flat,
//! run with bash), the MCP server in `~/.copilot/mcp-config.json`, a block
//! in `~/.copilot/copilot-instructions.md`.

use crate::harness::Harness;
use crate::wiring::{
    Connecting, Edit, McpEntry, Plan, edit, list_words, mcp_servers_edit, memory_block,
};

use super::INSTRUCTIONS;

/// The events memsync's hook handles: the end of a session is captured
/// (`copilot -p` ends one too), its start gets the `context` digest and
/// each prompt the relevant sessions. Its `preCompact` is not used: what
/// it sends was not seen from a real run.
pub const EVENTS: [&str; 3] = ["sessionEnd", "sessionStart", "userPromptSubmitted"];

/// Its MCP entries are `local` and list the tools offered to the model
/// (all: it asks before the ones that write, and runs the read-only ones
/// without asking).
const ENTRY: McpEntry = McpEntry {
    harness: Harness::CopilotCli,
    kind: Some("local"),
    lists_tools: true,
};

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let dir = c.places.dir(Harness::CopilotCli);
    let (command, ours) = c.hook_commands();
    let hook = command.clone();
    plan.edits.push(Edit {
        path: dir.join("settings.json"),
        what: format!(
            "{} hooks running `memsync capture --hook copilot-cli`",
            list_words(&EVENTS)
        ),
        apply: Box::new(move |p, t| edit::add_flat_hooks(p, t, &EVENTS, (&hook, 30))),
        undo: Box::new(move |p, t| edit::remove_hooks(p, t, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        new_mode: 0o600,
    });
    plan.edits
        .push(mcp_servers_edit(c, dir.join("mcp-config.json"), ENTRY));
    let instructions = dir.join(INSTRUCTIONS);
    plan.edits
        .push(memory_block(c.places, instructions, "Copilot CLI"));
    plan.hook_command = Some(command);
    plan.notes.push(
        "Copilot CLI runs memsync's read-only MCP tools without asking (they say they are read-only) and asks before memory_store and memory_correct; the hooks capture each session, `copilot -p` ones too, and bring this project's recent sessions at start and the relevant ones with each prompt".into(),
    );
}
