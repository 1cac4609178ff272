//! `doctor` on Codex: its MCP server, the read-only tools approved, the
//! write tools asking the person, AGENTS.md, and harvest.

use std::path::Path;

use super::mcp::{self as codex_mcp, WRITE_TOOLS, codex_approval, codex_unapproved};
use crate::harness::Harness;
use crate::wiring::{Check, Doctoring, broken, mcp_check, missing, ok, read, state};

use super::INSTRUCTIONS;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let home = d.places.dir(Harness::Codex);
    let config = home.join("config.toml");
    let text = read(&config).unwrap_or_default();
    let entry = codex_mcp::codex_mcp(&config, &text);
    let mut checks = vec![match &entry {
        Err(e) => broken(crate::error::message(e), None),
        Ok(None) => missing(format!("MCP server: not in {}", config.display())),
        Ok(Some((command, _))) => mcp_check(command),
    }];
    checks.push(match codex_unapproved(&config, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(lacking) if lacking.is_empty() => {
            ok("read-only MCP tools: approved (`codex exec` may call them)".to_string())
        }
        Ok(lacking) => missing(format!(
            "read-only MCP tools: {} not approved in {} (`codex exec` fails them)",
            lacking.join(", "),
            config.display()
        )),
    });
    if entry.ok().flatten().is_some() {
        checks.push(writes(&config, &text));
    }
    checks.push(d.import_check(&home.join(INSTRUCTIONS)));
    checks.push(state((d.harvest)()));
    checks
}

/// Whether `memory_store` and `memory_correct` ask the person in Codex.
fn writes(config: &Path, text: &str) -> Check {
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
