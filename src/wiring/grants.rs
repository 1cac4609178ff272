//! What `connect` grants memsync's read-only MCP tools, in each harness's own
//! way, so an agent can call them in a run nobody watches (`claude -p`,
//! `codex exec`): without a grant Claude Code denies an unapproved MCP tool
//! and Codex fails it under `approval_policy = never`.
//!
//! - `permissions.allow` in a `settings.json` of Claude Code's form gets
//!   `mcp__memsync__<tool>` for each read-only tool (here).
//! - Codex: `[mcp_servers.memsync.tools.<tool>]` gets `approval_mode =
//!   "approve"` (its folder's `mcp.rs`).
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

use super::edit::parse_json;
use crate::error::Result;

/// memsync's MCP tools that only read.
pub const READ_ONLY_TOOLS: [&str; 3] = ["memory_search", "memory_get", "memory_recent"];

/// The `permissions.allow` rules for the read-only tools, as Claude Code's
/// `settings.json` (and the settings files that copy its form) take them.
pub fn allow_rules() -> Vec<String> {
    READ_ONLY_TOOLS
        .iter()
        .map(|t| format!("mcp__memsync__{t}"))
        .collect()
}

/// The rules of `permissions.allow` in such a settings file.
pub fn allowed_rules(path: &Path, text: &str) -> Result<Vec<String>> {
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
pub fn add_allow_rules(path: &Path, text: &str) -> Result<String> {
    let present = allowed_rules(path, text)?;
    let missing: Vec<String> = allow_rules()
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
pub fn remove_allow_rules(path: &Path, text: &str) -> Result<String> {
    let ours = allow_rules();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_rules_are_added_beside_the_users_and_taken_out_again() {
        let p = Path::new("settings.json");
        let text = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"]\n  }\n}\n";
        let added = add_allow_rules(p, text).unwrap();
        let allowed = allowed_rules(p, &added).unwrap();
        assert_eq!(allowed.len(), 4, "{added}");
        assert_eq!(add_allow_rules(p, &added).unwrap(), added, "idempotent");
        let removed = remove_allow_rules(p, &added).unwrap();
        assert_eq!(allowed_rules(p, &removed).unwrap(), ["Bash(ls:*)"]);
        let bare = add_allow_rules(p, "{}\n").unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&remove_allow_rules(p, &bare).unwrap())
                .unwrap(),
            serde_json::json!({})
        );
    }
}
