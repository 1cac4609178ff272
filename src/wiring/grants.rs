//! What `connect` grants memsync's read-only MCP tools, in each harness's own
//! way, so an agent can call them in a run nobody watches (`claude -p`,
//! `codex exec`): without a grant Claude Code denies an unapproved MCP tool
//! and Codex fails it under `approval_policy = never`.
//!
//! - Claude Code: `permissions.allow` in `settings.json` gets
//!   `mcp__memsync__<tool>` for each read-only tool.
//! - Codex: `[mcp_servers.memsync.tools.<tool>]` gets `approval_mode = "approve"`.
//!
//! Only the tools that read (their MCP annotations say `readOnlyHint`); a
//! tool that writes is the person's to approve. Codex asks before a tool
//! only when its annotations say destructive or open-world, which a note's
//! write is not, so connect sets `approval_mode = "prompt"` on
//! `memory_store` and `memory_correct` (`codex exec` then refuses them); a
//! person who sets `"approve"` there has granted them, and connect keeps it.
//! `disconnect` takes out exactly these entries.
//!
//! Owns: the grant entries. Must not: write files (the caller does).

use std::path::Path;

use jsonc_parser::cst::CstInputValue;

use super::edit::{parse_json, parse_toml};
use crate::error::Result;

/// memsync's MCP tools that only read.
pub const READ_ONLY_TOOLS: [&str; 3] = ["memory_search", "memory_get", "memory_recent"];

/// Claude Code's permission rules for the read-only tools.
pub fn claude_rules() -> Vec<String> {
    READ_ONLY_TOOLS
        .iter()
        .map(|t| format!("mcp__memsync__{t}"))
        .collect()
}

/// The rules of `permissions.allow` in a Claude Code settings file.
pub fn claude_allowed(path: &Path, text: &str) -> Result<Vec<String>> {
    let root = parse_json(path, text)?;
    let allow = root
        .object_value()
        .and_then(|o| o.object_value("permissions"))
        .and_then(|p| p.get("allow"))
        .and_then(|a| a.to_serde_value());
    Ok(allow
        .iter()
        .flat_map(|v| v.as_array().into_iter().flatten())
        .filter_map(|v| v.as_str().map(String::from))
        .collect())
}

/// Adds the rules `permissions.allow` lacks; the rest stays as it is.
pub fn add_claude_rules(path: &Path, text: &str) -> Result<String> {
    let present = claude_allowed(path, text)?;
    let missing: Vec<String> = claude_rules()
        .into_iter()
        .filter(|r| !present.contains(r))
        .collect();
    if missing.is_empty() {
        return Ok(text.to_string());
    }
    let root = parse_json(path, text)?;
    let allow = root
        .object_value_or_set()
        .object_value_or_set("permissions")
        .array_value_or_set("allow");
    for rule in missing {
        allow.append(CstInputValue::String(rule));
    }
    Ok(root.to_string())
}

/// Takes memsync's rules out of `permissions.allow`, then the list and the
/// `permissions` object if that left them empty.
pub fn remove_claude_rules(path: &Path, text: &str) -> Result<String> {
    let ours = claude_rules();
    let root = parse_json(path, text)?;
    let Some(permissions) = root
        .object_value()
        .and_then(|o| o.object_value("permissions"))
    else {
        return Ok(text.to_string());
    };
    let Some(allow) = permissions.array_value("allow") else {
        return Ok(text.to_string());
    };
    for rule in allow.elements() {
        let value = rule.to_serde_value();
        if value
            .as_ref()
            .and_then(|v| v.as_str())
            .is_some_and(|r| ours.iter().any(|o| o == r))
        {
            rule.remove();
        }
    }
    if allow.elements().is_empty()
        && let Some(prop) = allow.parent().and_then(|p| p.as_object_prop())
    {
        prop.remove();
    }
    super::edit::remove_if_empty(&permissions);
    Ok(root.to_string())
}

/// memsync's MCP tools that write a note: the person approves each call.
pub const WRITE_TOOLS: [&str; 2] = ["memory_store", "memory_correct"];

/// The `tools` table of `[mcp_servers.memsync]`: the read-only tools
/// approved, the write tools asking the person, unless `granted` names the
/// approval mode the person already gave a write tool.
pub fn codex_tools(granted: &dyn Fn(&str) -> Option<String>) -> toml_edit::Table {
    let mut tools = toml_edit::Table::new();
    tools.set_implicit(true);
    let modes = READ_ONLY_TOOLS
        .into_iter()
        .map(|t| (t, "approve".to_string()))
        .chain(
            WRITE_TOOLS
                .into_iter()
                .map(|t| (t, granted(t).unwrap_or_else(|| "prompt".into()))),
        );
    for (tool, mode) in modes {
        let mut entry = toml_edit::Table::new();
        entry.insert("approval_mode", toml_edit::value(mode));
        tools.insert(tool, toml_edit::Item::Table(entry));
    }
    tools
}

/// The approval mode a Codex config gives memsync's `tool`, if any.
pub fn codex_approval(path: &Path, text: &str, tool: &str) -> Result<Option<String>> {
    let doc = parse_toml(path, text)?;
    Ok(doc
        .get("mcp_servers")
        .and_then(|t| t.get("memsync"))
        .and_then(|s| s.get("tools"))
        .and_then(|t| t.get(tool))
        .and_then(|t| t.get("approval_mode"))
        .and_then(|m| m.as_str())
        .map(String::from))
}

/// The write tools a Codex config lets run with no approval mode at all
/// (so Codex's own rule runs them unasked).
pub fn codex_ungated_writes(path: &Path, text: &str) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for tool in WRITE_TOOLS {
        if codex_approval(path, text, tool)?.is_none() {
            out.push(tool);
        }
    }
    Ok(out)
}

/// The read-only tools a Codex config does not approve.
pub fn codex_unapproved(path: &Path, text: &str) -> Result<Vec<&'static str>> {
    let doc = parse_toml(path, text)?;
    let server = doc.get("mcp_servers").and_then(|t| t.get("memsync"));
    let approved = |tool: &str| {
        server
            .and_then(|s| s.get("tools"))
            .and_then(|t| t.get(tool))
            .and_then(|t| t.get("approval_mode"))
            .and_then(|m| m.as_str())
            == Some("approve")
            || server
                .and_then(|s| s.get("default_tools_approval_mode"))
                .and_then(|m| m.as_str())
                == Some("approve")
    };
    Ok(READ_ONLY_TOOLS
        .into_iter()
        .filter(|t| !approved(t))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_rules_are_added_beside_the_users_and_taken_out_again() {
        let p = Path::new("settings.json");
        let text = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"]\n  }\n}\n";
        let added = add_claude_rules(p, text).unwrap();
        let allowed = claude_allowed(p, &added).unwrap();
        assert_eq!(allowed.len(), 4, "{added}");
        assert_eq!(add_claude_rules(p, &added).unwrap(), added, "idempotent");
        let removed = remove_claude_rules(p, &added).unwrap();
        assert_eq!(claude_allowed(p, &removed).unwrap(), ["Bash(ls:*)"]);
        let bare = add_claude_rules(p, "{}\n").unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&remove_claude_rules(p, &bare).unwrap())
                .unwrap(),
            serde_json::json!({})
        );
    }
}
