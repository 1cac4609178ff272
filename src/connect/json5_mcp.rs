//! memsync's MCP server in OpenClaw's config: `mcp.servers.memsync` in
//! `openclaw.json`, which OpenClaw's embedded agent (`openclaw agent`)
//! exposes to the model in its coding and messaging tool profiles. The
//! tools' MCP annotations (read-only) are what OpenClaw's `auto` approval
//! reads, so no grant is written.
//!
//! The file is JSON with comments allowed (JSON5-ish); it is edited through
//! a concrete syntax tree, so comments, order and layout stay.
//!
//! Owns: that entry. Must not: write files (the caller does).

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};

use crate::error::{ConnectError, Result};

fn parse(path: &Path, text: &str) -> Result<CstRootNode> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    CstRootNode::parse(source, &ParseOptions::default()).map_err(|e| {
        ConnectError::Unreadable {
            path: path.to_path_buf(),
            reason: format!("not valid JSON5: {e}; left untouched"),
        }
        .into()
    })
}

/// The `mcp.servers.memsync` entry, if any.
pub fn openclaw_mcp(path: &Path, text: &str) -> Result<Option<serde_json::Value>> {
    let root = parse(path, text)?;
    Ok(root
        .object_value()
        .and_then(|o| o.object_value("mcp"))
        .and_then(|m| m.object_value("servers"))
        .and_then(|s| s.get("memsync"))
        .and_then(|p| p.to_serde_value()))
}

/// Sets `mcp.servers.memsync` to a stdio server running `exe args`; an entry
/// of that name with other arguments is the user's unless `replace`.
pub fn set_openclaw_mcp(
    path: &Path,
    text: &str,
    (exe, args): (&str, &[String]),
    replace: bool,
) -> Result<String> {
    let wanted = serde_json::json!({ "command": exe, "args": args });
    match openclaw_mcp(path, text)? {
        Some(e) if e == wanted => return Ok(text.to_string()),
        Some(e) if !replace && e["args"] != wanted["args"] => {
            return Err(ConnectError::Conflict {
                path: path.to_path_buf(),
                reason: "already has an MCP server named `memsync` that memsync did not write; left as it is (remove it, or run `memsync connect openclaw --force` to replace it)".into(),
            }
            .into());
        }
        _ => {}
    }
    let root = parse(path, text)?;
    let servers = root
        .object_value_or_set()
        .object_value_or_set("mcp")
        .object_value_or_set("servers");
    let value = CstInputValue::Object(vec![
        ("command".into(), exe.into()),
        (
            "args".into(),
            CstInputValue::Array(args.iter().map(|a| a.as_str().into()).collect()),
        ),
    ]);
    match servers.get("memsync") {
        Some(prop) => prop.set_value(value),
        None => {
            servers.append("memsync", value);
        }
    }
    Ok(root.to_string())
}

/// Takes `mcp.servers.memsync` out when it runs `args`, then `servers` and
/// `mcp` if that left them empty.
pub fn remove_openclaw_mcp(path: &Path, text: &str, args: &[String]) -> Result<String> {
    if openclaw_mcp(path, text)?.is_some_and(|e| e["args"] != serde_json::json!(args)) {
        return Ok(text.to_string());
    }
    let root = parse(path, text)?;
    let Some(mcp) = root.object_value().and_then(|o| o.object_value("mcp")) else {
        return Ok(text.to_string());
    };
    let Some(servers) = mcp.object_value("servers") else {
        return Ok(text.to_string());
    };
    let Some(prop) = servers.get("memsync") else {
        return Ok(text.to_string());
    };
    prop.remove();
    super::edit::remove_if_empty(&servers);
    super::edit::remove_if_empty(&mcp);
    Ok(root.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_is_added_beside_comments_and_taken_out_again() {
        let p = Path::new("openclaw.json");
        let text = "{\n  // mine\n  \"agents\": { \"defaults\": {} },\n}\n";
        let args = vec!["--workspace".to_string(), "/ws".into(), "mcp".into()];
        let added = set_openclaw_mcp(p, text, ("/bin/memsync", &args), false).unwrap();
        assert!(added.contains("// mine"), "{added}");
        assert_eq!(
            openclaw_mcp(p, &added).unwrap().unwrap()["command"],
            "/bin/memsync"
        );
        assert_eq!(
            set_openclaw_mcp(p, &added, ("/bin/memsync", &args), false).unwrap(),
            added
        );
        let removed = remove_openclaw_mcp(p, &added, &args).unwrap();
        assert!(openclaw_mcp(p, &removed).unwrap().is_none());
        assert!(!removed.contains("\"mcp\""), "{removed}");
        assert!(set_openclaw_mcp(p, &added, ("/bin/memsync", &["x".into()]), false).is_err());
    }
}
