//! `doctor` on GitHub Copilot CLI: its hooks in `settings.json`, the last
//! hook job, the MCP server in `mcp-config.json`, the instructions block.

use super::connect::EVENTS;
use crate::harness::Harness;
use crate::wiring::{Check, Doctoring, hook_checks, mcp_servers_check, read, state};

use super::INSTRUCTIONS;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let dir = d.places.dir(Harness::CopilotCli);
    let settings_json = dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let mut checks = hook_checks(&settings_json, &text, &EVENTS);
    checks.push(state((d.last_job)()));
    checks.push(mcp_servers_check(&dir.join("mcp-config.json")));
    checks.push(d.import_check(&dir.join(INSTRUCTIONS)));
    checks
}
