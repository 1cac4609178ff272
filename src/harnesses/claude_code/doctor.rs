//! `doctor` on Claude Code: its hooks and the read-only tools' grants in
//! `settings.json`, the last hook job, the MCP server in its user config,
//! and an import of MEMORY.md in `CLAUDE.md` when one is there.

use super::connect::EVENTS;
use crate::harness::Harness;
use crate::wiring::grants::{allow_rules, allowed_rules};
use crate::wiring::{
    Check, Doctoring, broken, edit, hook_checks, mcp_servers_check, missing, ok, read, state,
};

use super::INSTRUCTIONS;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let places = d.places;
    let dir = places.dir(Harness::ClaudeCode);
    let settings_json = dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let mut checks = hook_checks(&settings_json, &text, &EVENTS);
    checks.push(match allowed_rules(&settings_json, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(allowed) => {
            let lacking: Vec<String> = allow_rules()
                .into_iter()
                .filter(|r| !allowed.contains(r))
                .collect();
            if lacking.is_empty() {
                ok("read-only MCP tools: allowed without a prompt".to_string())
            } else {
                missing(format!(
                    "read-only MCP tools: {} not in permissions.allow of {} (`claude -p` denies them)",
                    lacking.join(", "),
                    settings_json.display()
                ))
            }
        }
    });
    checks.push(state((d.last_job)()));
    checks.push(mcp_servers_check(&places.claude_json()));
    let claude_md = dir.join(INSTRUCTIONS);
    checks.push(match read(&claude_md).as_deref().and_then(edit::md_block_body) {
        Some(_) => d.import_check(&claude_md),
        // Not a part of connect: its absence says nothing about being connected.
        None => state(ok("MEMORY.md is not imported into CLAUDE.md: the SessionStart digest and the per-prompt recall bring memory (connect --import-memory-md imports it)".to_string())),
    });
    checks
}
