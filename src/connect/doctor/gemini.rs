//! `doctor` for Gemini CLI: its hooks and MCP server in `settings.json`, the
//! last capture job, and the GEMINI.md block pointing at MEMORY.md.
//!
//! Owns: those checks. Must not: change a file.

use super::{Check, broken, hook_checks, import_check, last_job, mcp_check, missing, read, state};
use crate::config::Settings;
use crate::connect::{Places, edit};

pub(super) fn checks(settings: &Settings, places: &Places) -> Vec<Check> {
    let settings_json = places.gemini_dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let mut checks = hook_checks(&settings_json, &text, &crate::connect::plans::GEMINI_EVENTS);
    checks.push(state(last_job(settings)));
    // Gemini CLI keeps MCP servers in the same settings.json, under the same key as Claude Code.
    checks.push(match edit::claude_mcp(&settings_json, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", settings_json.display())),
        Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
    });
    let gemini_md = places.gemini_dir.join("GEMINI.md");
    checks.push(import_check(&gemini_md, &places.memory_md(&places.agent)));
    checks
}
