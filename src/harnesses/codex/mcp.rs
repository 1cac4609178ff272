//! memsync's MCP server entry in Codex's `config.toml`:
//! `[mcp_servers.memsync]` with its per-tool approval modes, edited through
//! `toml_edit` so comments and the order of everything else survive.
//!
//! Owns: that table. Must not: write files (the caller does).

use std::path::Path;

use crate::error::Result;
use crate::wiring::edit::{foreign_entry, parse_toml, unreadable};
use crate::wiring::grants::READ_ONLY_TOOLS;

/// The `[mcp_servers.memsync]` table of a Codex config, as (command, args).
pub fn codex_mcp(path: &Path, text: &str) -> Result<Option<(String, Vec<String>)>> {
    let doc = parse_toml(path, text)?;
    let Some(server) = doc
        .get("mcp_servers")
        .and_then(|t| t.get("memsync"))
        .and_then(|s| s.as_table_like())
    else {
        return Ok(None);
    };
    let command = server
        .get("command")
        .and_then(|c| c.as_str())
        .unwrap_or_default()
        .to_string();
    let args = server
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    Ok(Some((command, args)))
}

/// Sets `[mcp_servers.memsync]`; comments and the order of everything else
/// survive. An entry of that name with other arguments is the user's (see
/// `edit::set_mcp_servers_entry`).
/// `grant_writes`: the person grants the note-writing tools
/// (`connect --memory-writes`); else they keep the mode they have, or ask.
pub fn set_codex_mcp(
    path: &Path,
    text: &str,
    (exe, args): (&str, &[String]),
    replace: bool,
    grant_writes: bool,
) -> Result<String> {
    let writes_as_asked = WRITE_TOOLS.iter().all(|t| {
        let mode = codex_approval(path, text, t).ok().flatten();
        match grant_writes {
            true => mode.as_deref() == Some("approve"),
            false => mode.is_some(),
        }
    });
    let granted = codex_unapproved(path, text)?.is_empty() && writes_as_asked;
    let person = |tool: &str| match grant_writes {
        true => Some("approve".to_string()),
        false => codex_approval(path, text, tool)
            .ok()
            .flatten()
            .filter(|m| m == "approve" || m == "prompt"),
    };
    let tools = codex_tools(&person);
    match codex_mcp(path, text)? {
        Some((c, a)) if c == exe && a == args && granted => return Ok(text.to_string()),
        Some((_, a)) if !replace && a != args => return Err(foreign_entry(path, "codex")),
        _ => {}
    }
    let mut doc = parse_toml(path, text)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| unreadable(path, "`mcp_servers` is not a table"))?;
    let mut server = toml_edit::Table::new();
    server.insert("command", toml_edit::value(exe));
    let mut list = toml_edit::Array::new();
    for a in args {
        list.push(a.as_str());
    }
    server.insert("args", toml_edit::value(list));
    server.insert("tools", toml_edit::Item::Table(tools));
    server.decor_mut().set_prefix(
        "\n# Added by `memsync connect codex`; `memsync disconnect codex` removes it.\n",
    );
    servers.insert("memsync", toml_edit::Item::Table(server));
    Ok(doc.to_string())
}

/// Takes `[mcp_servers.memsync]` out when it runs `args`, and `mcp_servers`
/// if that left it empty.
pub fn remove_codex_mcp(path: &Path, text: &str, args: &[String]) -> Result<String> {
    if codex_mcp(path, text)?.is_some_and(|(_, a)| a != args) {
        return Ok(text.to_string());
    }
    let mut doc = parse_toml(path, text)?;
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(|t| t.as_table_like_mut())
    else {
        return Ok(text.to_string());
    };
    if servers.remove("memsync").is_none() {
        return Ok(text.to_string());
    }
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    Ok(doc.to_string())
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
    fn broken_toml_is_refused() {
        assert!(set_codex_mcp(Path::new("c.toml"), "[a\nb = ", ("m", &[]), false, false).is_err());
    }

    #[test]
    fn codex_table_keeps_comments_and_goes_cleanly() {
        let text = "# my codex\nmodel = \"o3\" # fast\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let args = ["mcp".to_string()];
        let added = set_codex_mcp(
            Path::new("c.toml"),
            text,
            ("/bin/memsync", &args),
            false,
            false,
        )
        .unwrap();
        assert!(added.starts_with(text.trim_end()), "{added}");
        assert_eq!(
            codex_mcp(Path::new("c.toml"), &added).unwrap(),
            Some(("/bin/memsync".into(), vec!["mcp".into()]))
        );
        assert_eq!(
            remove_codex_mcp(Path::new("c.toml"), &added, &args).unwrap(),
            text
        );
    }
}
