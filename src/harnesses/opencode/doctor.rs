//! `doctor` on opencode: the MCP server in its global `opencode.json`, the
//! `AGENTS.md` block pointing at MEMORY.md, and the harvest of `opencode.db`.

use super::connect::OPENCODE;
use crate::wiring::{Check, Doctoring, broken, mcp_check, missing, read, state};

use super::INSTRUCTIONS;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let places = d.places;
    let config = places.opencode_json();
    let text = read(&config).unwrap_or_default();
    let mcp = match OPENCODE.get(&config, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", config.display())),
        Ok(Some(v)) => mcp_check(v["command"][0].as_str().unwrap_or_default()),
    };
    vec![
        mcp,
        d.import_check(&places.opencode_config().join(INSTRUCTIONS)),
        state((d.harvest)()),
    ]
}
