//! `doctor` for Gemini CLI and qwen-code: their hooks and MCP server in
//! `settings.json`, the last capture job, the context file's block pointing
//! at MEMORY.md, and for qwen-code the harvest of its `-p` sessions; and the
//! same for GitHub Copilot CLI, whose MCP server is in `mcp-config.json`;
//! and Cline's MCP server, rules file and harvest.
//!
//! Owns: those checks. Must not: change a file.

use super::{
    Check, broken, harvest_check, hook_checks, import_check, last_job, mcp_check, missing, read,
    state,
};
use crate::config::Settings;
use crate::harness::Harness;
use crate::harnesses::program;
use crate::wiring::{Places, SettingsJson, edit};

pub(super) fn checks(
    settings: &Settings,
    places: &Places,
    target: Harness,
    h: &SettingsJson,
    daemon: bool,
) -> Vec<Check> {
    let settings_json = h.dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let mut checks = hook_checks(&settings_json, &text, h.events);
    checks.push(state(last_job(settings)));
    // Both keep MCP servers in the same settings.json, under the same key as Claude Code.
    checks.push(json_mcp_check(&settings_json, &text));
    let context = h.dir.join(h.context_file);
    checks.push(import_check(&context, &places.memory_md(&places.agent)));
    // Harvest brings the sessions its hooks cannot (qwen-code's `-p` runs).
    if target.needs_harvest() {
        checks.push(state(harvest_check(settings, places, target, daemon)));
    }
    checks
}

pub(super) fn copilot(settings: &Settings, places: &Places) -> Vec<Check> {
    let dir = places.dir(Harness::CopilotCli);
    let settings_json = dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let events = program(Harness::CopilotCli).hook_events();
    let mut checks = hook_checks(&settings_json, &text, events);
    checks.push(state(last_job(settings)));
    let mcp_config = dir.join("mcp-config.json");
    checks.push(json_mcp_check(
        &mcp_config,
        &read(&mcp_config).unwrap_or_default(),
    ));
    let instructions = dir.join("copilot-instructions.md");
    checks.push(import_check(
        &instructions,
        &places.memory_md(&places.agent),
    ));
    checks
}

pub(super) fn cline(settings: &Settings, places: &Places, daemon: bool) -> Vec<Check> {
    let mcp_settings = places.cline_mcp_settings();
    vec![
        json_mcp_check(&mcp_settings, &read(&mcp_settings).unwrap_or_default()),
        import_check(&places.cline_rules_file(), &places.memory_md(&places.agent)),
        state(harvest_check(settings, places, Harness::Cline, daemon)),
    ]
}

/// `mcpServers.memsync` in a JSON file: there, and running a program that exists.
fn json_mcp_check(file: &std::path::Path, text: &str) -> Check {
    match edit::mcp_servers_entry(file, text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", file.display())),
        Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
    }
}
