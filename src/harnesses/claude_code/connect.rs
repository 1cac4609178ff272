//! What `connect claude-code` changes: the SessionEnd, PostCompact,
//! SessionStart and UserPromptSubmit hooks and the read-only MCP tools'
//! `permissions.allow` rules in `settings.json`, the MCP server in the user
//! config (`~/.claude.json`), and, only with `--import-memory-md`, a block
//! in `CLAUDE.md` importing MEMORY.md (`@path`).

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::harness::Harness;
use crate::wiring::{Connecting, Edit, McpEntry, Places, Plan, edit, empty_text, grants, md_block};

use super::INSTRUCTIONS;

/// The events memsync's hook handles: the end of a session and a compaction
/// are captured; a session's start gets the `context` digest, and each
/// prompt the earlier sessions relevant to it (`recall`).
pub const EVENTS: [&str; 4] = [
    "SessionEnd",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
];

/// Its MCP entries name their `type`.
const ENTRY: McpEntry = McpEntry {
    harness: Harness::ClaudeCode,
    kind: Some("stdio"),
    lists_tools: false,
};

impl Places {
    /// Claude Code's user config, where user-scope MCP servers live: inside
    /// `CLAUDE_CONFIG_DIR` when that is set, else in the home folder.
    pub fn claude_json(&self) -> PathBuf {
        match self
            .env
            .harness_homes
            .get(&crate::harness::Harness::ClaudeCode)
        {
            Some(d) => d.join(".claude.json"),
            None => self.home.join(".claude.json"),
        }
    }
}

/// `mcpServers.memsync` in a file Claude Code reads as strict JSON: one
/// with comments is refused rather than written in a form it cannot read.
pub fn set_mcp(
    path: &Path,
    text: &str,
    command: (&str, &[String]),
    replace: bool,
) -> Result<String> {
    edit::require_strict_json(path, text)?;
    edit::set_mcp_servers_entry(path, text, command, replace, ENTRY)
}

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    let dir = places.dir(Harness::ClaudeCode);
    let (command, ours) = c.hook_commands();
    let hook = command.clone();
    plan.edits.push(Edit {
        path: dir.join("settings.json"),
        what: "SessionEnd, PostCompact, SessionStart and UserPromptSubmit hooks running `memsync capture --hook claude-code`, and `permissions.allow` for memsync's read-only MCP tools"
            .into(),
        apply: Box::new(move |p, t| {
            edit::require_strict_json(p, t)?;
            grants::add_allow_rules(p, &edit::add_hooks(p, t, &EVENTS, (&hook, 30))?)
        }),
        undo: Box::new(move |p, t| edit::remove_hooks(p, &grants::remove_allow_rules(p, t)?, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        new_mode: 0o644,
    });
    let (exe, args) = c.mcp_command();
    let (ours, replace) = (args.clone(), c.may_replace());
    plan.edits.push(Edit {
        path: places.claude_json(),
        what: "the `memsync` MCP server (user scope)".into(),
        apply: Box::new(move |p, t| set_mcp(p, t, (&exe, &args), replace)),
        undo: Box::new(move |p, t| edit::remove_mcp_servers_entry(p, t, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        // Claude Code keeps OAuth tokens and API keys in it, and makes it 0600.
        new_mode: 0o600,
    });
    claude_md_import(places, &dir, plan);
    plan.hook_command = Some(command);
}

/// Decided: by default `CLAUDE.md` no longer imports MEMORY.md. Claude Code
/// presents an import there as the user's own instructions, overriding its
/// defaults, and it put every project's ledger (~5k tokens) into every
/// session; the SessionStart digest (this project first) and the per-prompt
/// recall bring what bears on the work, and the MCP tools the rest.
/// `--import-memory-md` keeps the import (where hooks are off); without it
/// an earlier connect's block comes out.
fn claude_md_import(places: &Places, dir: &Path, plan: &mut Plan) {
    let memory = places.memory_md(&places.agent);
    let path = dir.join(INSTRUCTIONS);
    if places.import_memory_md {
        let body = format!("@{}\n", memory.display());
        let what = format!("a block importing {}", memory.display());
        plan.edits.push(md_block(path, what, body));
        plan.notes.push(format!(
            "Claude Code reads {} at start-up (an @import in CLAUDE.md); a new session picks it up",
            memory.display()
        ));
        return;
    }
    if std::fs::read_to_string(&path).is_ok_and(|t| edit::md_block_body(&t).is_some()) {
        plan.edits.push(Edit {
            path,
            what: "without the block an earlier connect added (MEMORY.md is no longer imported)"
                .into(),
            apply: Box::new(|_, t| Ok(edit::remove_md_block(t))),
            undo: Box::new(|_, t| Ok(edit::remove_md_block(t))),
            empty: empty_text,
            whole: true,
            new_mode: 0o644,
        });
    }
    plan.notes.push(
        "Claude Code gets this project's recent sessions when a session starts and the earlier sessions relevant to each prompt (hooks), and the MCP tools for the rest; MEMORY.md is not imported into CLAUDE.md (--import-memory-md does)".into(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code does not read comments or trailing commas in its JSON.
    #[test]
    fn the_mcp_entry_is_refused_in_a_file_with_comments() {
        let args = ["mcp".to_string()];
        let text = "// c\n{ \"a\": 1, }\n";
        assert!(set_mcp(Path::new("settings.json"), text, ("m", &args), false).is_err());
        assert!(set_mcp(Path::new("settings.json"), "{}", ("m", &args), false).is_ok());
    }
}
