//! `doctor` for opencode: the MCP server in its global `opencode.json`, the
//! `AGENTS.md` block pointing at MEMORY.md, and the harvest of `opencode.db`.
//!
//! Owns: those checks. Must not: change a file.

use super::{Check, broken, harvest_check, import_check, mcp_check, missing, read, state};
use crate::config::Settings;
use crate::connect::Places;
use crate::wiring::json5_mcp::OPENCODE;

pub(super) fn checks(settings: &Settings, places: &Places, daemon: bool) -> Vec<Check> {
    let config = places.opencode_json();
    let text = read(&config).unwrap_or_default();
    let mcp = match OPENCODE.get(&config, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", config.display())),
        Ok(Some(v)) => mcp_check(v["command"][0].as_str().unwrap_or_default()),
    };
    let harness = crate::harness::Harness::Opencode;
    vec![
        mcp,
        import_check(
            &places.opencode_config().join("AGENTS.md"),
            &places.memory_md(&places.agent),
        ),
        state(harvest_check(settings, places, harness, daemon)),
    ]
}
