//! `doctor` on Codex: its MCP server, the read-only tools approved, the
//! write tools asking the person, AGENTS.md, and harvest; and whether
//! OpenClaw's server leaves the write tools out (its agent asks no one).
//!
//! Owns: those checks' wording. Must not: edit Codex's files.

use std::path::Path;

use super::{Check, broken, harvest_check, import_check, mcp_check, missing, ok, read, state};
use crate::config::Settings;
use crate::harness::Harness;
use crate::wiring::{Places, codex_mcp};

/// Whether `memory_store` and `memory_correct` ask the person in Codex.
fn codex_writes(config: &Path, text: &str) -> Check {
    use crate::wiring::grants::{WRITE_TOOLS, codex_approval};
    let modes: Vec<Option<String>> = WRITE_TOOLS
        .iter()
        .map(|t| codex_approval(config, text, t).ok().flatten())
        .collect();
    if modes.iter().any(Option::is_none) {
        return broken(
            "memory writes: memory_store and memory_correct run without asking you (no approval_mode)",
            None,
        );
    }
    if modes.iter().all(|m| m.as_deref() == Some("prompt")) {
        ok(
            "memory writes: memory_store and memory_correct ask you first (`codex exec` refuses them)",
        )
    } else {
        ok("memory writes: granted by you (approval_mode = \"approve\" on a write tool)")
    }
}

pub(super) fn checks(settings: &Settings, places: &Places, daemon: bool) -> Vec<Check> {
    let config = places.dir(Harness::Codex).join("config.toml");
    let text = read(&config).unwrap_or_default();
    let mut checks = vec![match codex_mcp::codex_mcp(&config, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", config.display())),
        Ok(Some((command, _))) => mcp_check(&command),
    }];
    checks.push(
        match crate::wiring::grants::codex_unapproved(&config, &text) {
            Err(e) => broken(crate::error::message(&e), None),
            Ok(lacking) if lacking.is_empty() => {
                ok("read-only MCP tools: approved (`codex exec` may call them)".to_string())
            }
            Ok(lacking) => missing(format!(
                "read-only MCP tools: {} not approved in {} (`codex exec` fails them)",
                lacking.join(", "),
                config.display()
            )),
        },
    );
    if codex_mcp::codex_mcp(&config, &text)
        .ok()
        .flatten()
        .is_some()
    {
        checks.push(codex_writes(&config, &text));
    }
    checks.push(import_check(
        &places.dir(Harness::Codex).join("AGENTS.md"),
        &places.memory_md(&places.agent),
    ));
    checks.push(state(harvest_check(
        settings,
        places,
        Harness::Codex,
        daemon,
    )));
    checks
}

/// OpenClaw's agent runs MCP tools unasked: its server must leave the
/// note-writing tools out unless the person granted them.
pub(super) fn openclaw_writes(entry: &serde_json::Value, places: &Places) -> Check {
    let read_only = entry["args"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x == "--read-only"));
    if read_only {
        ok(
            "memory writes: left out of OpenClaw's server (its agent would run them without asking; `connect openclaw --memory-writes` grants them)",
        )
    } else if crate::connect::writes_granted(places, crate::harness::Harness::OpenClaw) {
        ok("memory writes: granted by you (`connect openclaw --memory-writes`)")
    } else {
        broken(
            "memory writes: OpenClaw's agent runs memory_store and memory_correct without asking you",
            Some("memsync connect openclaw (or --memory-writes to grant them)".into()),
        )
    }
}
