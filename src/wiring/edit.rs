//! Edits to the harnesses' own files, each keeping every byte it does not own:
//! JSON through a concrete syntax tree (`jsonc-parser`), TOML through
//! `toml_edit`, markdown and YAML through a marked block.
//!
//! Owns: adding and taking out memsync's hooks, MCP entries and blocks.
//! Must not: read or write files (the caller does, atomically, with backups).

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};

use crate::error::{ConnectError, Result};
use crate::harness::Harness;

mod hooks;

use crate::files::block::{block_range_with, splice_with, unsplice};
pub use hooks::{add_flat_hooks, add_hooks, hook_commands, is_memsync_hook, remove_hooks};

/// memsync's block in CLAUDE.md and AGENTS.md.
pub const MD_BEGIN: &str = "<!-- memsync:connect begin";
pub const MD_END: &str = "<!-- memsync:connect end -->";
/// The block older memsyncs wrote into their own machine config.
pub const YAML_BEGIN: &str = "# memsync connect: begin";
pub const YAML_END: &str = "# memsync connect: end";

/// `text` with memsync's markdown block holding `body` (added at the end when absent).
pub fn set_md_block(text: &str, body: &str) -> String {
    let block = format!(
        "{MD_BEGIN}: managed by `memsync connect`; `memsync disconnect` removes it -->\n{body}{MD_END}\n"
    );
    splice_with(text, &block, block_range_with(text, MD_BEGIN, MD_END))
}

/// `text` without memsync's markdown block.
pub fn remove_md_block(text: &str) -> String {
    match block_range_with(text, MD_BEGIN, MD_END) {
        Some(range) => unsplice(text, range),
        None => text.to_string(),
    }
}

/// The body of memsync's markdown block, if there is one.
pub fn md_block_body(text: &str) -> Option<&str> {
    let (b, e) = block_range_with(text, MD_BEGIN, MD_END)?;
    let block = &text[b..e];
    let start = block.find('\n')? + 1;
    let end = block.rfind(MD_END)?;
    block.get(start..end)
}

/// `text` without the block older memsyncs wrote into their machine config
/// (those settings come from connect's record now), when the block holds
/// only what memsync wrote: `harvest.enabled: true` and mirrors. `None` when
/// there is no such block, or someone added keys to it (then it stays).
pub fn without_legacy_yaml_block(text: &str) -> Option<String> {
    use serde_yaml::Value;
    let (b, e) = block_range_with(text, YAML_BEGIN, YAML_END)?;
    let body: Value = serde_yaml::from_str(&text[b..e]).ok()?;
    let mirror = |e: &Value| {
        e.as_mapping()
            .is_some_and(|m| m.len() == 2 && m.contains_key("agent") && m.contains_key("dir"))
    };
    let ours = |(k, v): (&Value, &Value)| match k.as_str() {
        Some("harvest") => v.as_mapping().is_some_and(|h| {
            h.len() == 1 && h.get("enabled").and_then(Value::as_bool) == Some(true)
        }),
        Some("mirrors") => v.as_sequence().is_some_and(|l| l.iter().all(mirror)),
        _ => false,
    };
    let only_ours = match &body {
        Value::Null => true,
        Value::Mapping(m) => m.iter().all(ours),
        _ => false,
    };
    only_ours.then(|| unsplice(text, (b, e)))
}

/// Whether memsync's old block is in `text` at all.
pub fn has_legacy_yaml_block(text: &str) -> bool {
    block_range_with(text, YAML_BEGIN, YAML_END).is_some()
}

/// A harness's JSON settings, comments and trailing commas allowed (Gemini
/// CLI, qwen-code and Copilot CLI read theirs so); they stay as they are.
pub(super) fn parse_json(path: &Path, text: &str) -> Result<CstRootNode> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    let root = CstRootNode::parse(source, &ParseOptions::default())
        .map_err(|e| unreadable(path, format!("not valid JSON: {e}")))?;
    if root.object_value().is_none() {
        return Err(unreadable(path, "not a JSON object at the top"));
    }
    Ok(root)
}

/// Claude Code reads its JSON files with a strict parser (no comments, no
/// trailing commas), so a file serde_json refuses is broken for Claude too:
/// reported, not edited.
pub fn require_strict_json(path: &Path, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Ok(());
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        Ok(_) => Err(unreadable(path, "not a JSON object at the top")),
        Err(e) => Err(unreadable(path, format!("not valid JSON: {e}"))),
    }
}

pub(crate) fn unreadable(path: &Path, reason: impl Into<String>) -> crate::error::Error {
    ConnectError::Unreadable {
        path: path.to_path_buf(),
        reason: format!("{}; left untouched", reason.into()),
    }
    .into()
}

pub(super) fn remove_if_empty(object: &CstObject) {
    if object.properties().is_empty()
        && let Some(prop) = object.parent().and_then(|p| p.as_object_prop())
    {
        prop.remove();
    }
}

/// The `mcpServers.memsync` entry of a JSON settings file, if any.
pub fn mcp_servers_entry(path: &Path, text: &str) -> Result<Option<serde_json::Value>> {
    let root = parse_json(path, text)?;
    Ok(root
        .object_value()
        .and_then(|o| o.object_value("mcpServers"))
        .and_then(|m| m.get("memsync"))
        .and_then(|p| p.to_serde_value()))
}

/// The shape of the `mcpServers.memsync` entry one harness reads.
#[derive(Debug, Clone, Copy)]
pub struct McpEntry {
    /// Whose file it is (named in a conflict's message).
    pub harness: Harness,
    /// The entry's `type`, for a harness that names it (`stdio`, `local`);
    /// none where settings are checked against a schema without it.
    pub kind: Option<&'static str>,
    /// Whether the entry lists the tools offered to the model (all of them).
    pub lists_tools: bool,
}

/// Sets `mcpServers.memsync` to a server running `exe args`, in the shape
/// `entry` says. An entry of that name memsync did not write (other
/// arguments, and `replace` not given) is the user's: a conflict, never
/// overwritten.
pub fn set_mcp_servers_entry(
    path: &Path,
    text: &str,
    (exe, args): (&str, &[String]),
    replace: bool,
    entry: McpEntry,
) -> Result<String> {
    let (typed, listed, harness) = (entry.kind, entry.lists_tools, entry.harness);
    let mut wanted = serde_json::json!({ "command": exe, "args": args, "env": {} });
    if let Some(kind) = typed {
        wanted["type"] = kind.into();
    }
    if listed {
        wanted["tools"] = serde_json::json!(["*"]);
    }
    match mcp_servers_entry(path, text)? {
        Some(e) if e == wanted => return Ok(text.to_string()),
        Some(e) if !replace && e["args"] != wanted["args"] => {
            return Err(foreign_entry(path, harness.as_str()));
        }
        _ => {}
    }
    let root = parse_json(path, text)?;
    let servers = root.object_value_or_set().object_value_or_set("mcpServers");
    let mut fields: Vec<(String, CstInputValue)> = Vec::new();
    if let Some(kind) = typed {
        fields.push(("type".into(), kind.into()));
    }
    fields.extend([
        ("command".into(), exe.into()),
        (
            "args".into(),
            CstInputValue::Array(args.iter().map(|a| a.as_str().into()).collect()),
        ),
        ("env".into(), CstInputValue::Object(Vec::new())),
    ]);
    if listed {
        fields.push(("tools".into(), CstInputValue::Array(vec!["*".into()])));
    }
    let value = CstInputValue::Object(fields);
    match servers.get("memsync") {
        Some(prop) => prop.set_value(value),
        None => {
            servers.append("memsync", value);
        }
    }
    Ok(root.to_string())
}

/// The conflict of an MCP entry named `memsync` that memsync did not write.
pub(crate) fn foreign_entry(path: &Path, harness: &str) -> crate::error::Error {
    ConnectError::Conflict {
        path: path.to_path_buf(),
        reason: format!(
            "already has an MCP server named `memsync` that memsync did not write; left as it is (remove it, or run `memsync connect {harness} --force` to replace it)"
        ),
    }
    .into()
}

/// Takes `mcpServers.memsync` out when it runs `args` (memsync's entry for
/// this workspace), and `mcpServers` if that left it empty. One with other
/// arguments is the user's and stays.
pub fn remove_mcp_servers_entry(path: &Path, text: &str, args: &[String]) -> Result<String> {
    if mcp_servers_entry(path, text)?.is_some_and(|e| e["args"] != serde_json::json!(args)) {
        return Ok(text.to_string());
    }
    let root = parse_json(path, text)?;
    let Some(servers) = root
        .object_value()
        .and_then(|o| o.object_value("mcpServers"))
    else {
        return Ok(text.to_string());
    };
    let Some(prop) = servers.get("memsync") else {
        return Ok(text.to_string());
    };
    prop.remove();
    remove_if_empty(&servers);
    Ok(root.to_string())
}

/// Whether a JSON text is nothing but an empty object (memsync's creation, undone).
pub fn is_empty_json(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()))
}

pub(crate) fn parse_toml(path: &Path, text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| unreadable(path, format!("not valid TOML: {}", e.to_string().trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "settings.json";

    #[test]
    fn hooks_are_added_beside_existing_ones_and_taken_out_again() {
        let text = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"SessionEnd\": [\n      { \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send bye\" } ] }\n    ]\n  }\n}\n";
        let added = add_hooks(
            Path::new(P),
            text,
            &["SessionEnd", "PostCompact"],
            ("memsync capture --hook claude-code", 30),
        )
        .unwrap();
        assert!(added.contains("notify-send bye"), "{added}");
        assert_eq!(
            hook_commands(Path::new(P), &added, "SessionEnd")
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            add_hooks(
                Path::new(P),
                &added,
                &["SessionEnd", "PostCompact"],
                ("memsync capture --hook claude-code", 30)
            )
            .unwrap(),
            added
        );
        let removed = remove_hooks(
            Path::new(P),
            &added,
            &["memsync capture --hook claude-code".into()],
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&removed).unwrap();
        let original: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(v, original, "{removed}");
    }

    #[test]
    fn a_memsync_hook_is_recognised_by_program_and_arguments() {
        assert!(is_memsync_hook("memsync capture --hook claude-code"));
        assert!(is_memsync_hook(
            "'/home/a b/.cargo/bin/memsync' --workspace /w capture --hook claude-code"
        ));
        assert!(!is_memsync_hook("memsync-fork capture --hook claude-code"));
        assert!(!is_memsync_hook("memsync status"));
    }

    #[test]
    fn broken_json_and_toml_are_refused() {
        assert!(add_hooks(Path::new(P), "{ \"hooks\": ", &["SessionEnd"], ("x", 30)).is_err());
        assert!(add_hooks(Path::new(P), "[1]", &["SessionEnd"], ("x", 30)).is_err());
    }

    /// Gemini CLI, qwen-code and Copilot CLI read comments and trailing
    /// commas in their settings; Claude Code does not, so its files are refused.
    #[test]
    fn comments_are_kept_where_the_harness_reads_them_and_refused_for_claude_code() {
        let text = "// c\n{ \"a\": 1, }\n";
        let added = add_flat_hooks(Path::new(P), text, &["sessionEnd"], ("x", 30)).unwrap();
        assert!(added.starts_with("// c\n"), "{added}");
        // Layout may differ; connect's record puts the person's bytes back.
        let removed = remove_hooks(Path::new(P), &added, &["x".into()]).unwrap();
        assert!(
            removed.starts_with("// c\n") && !removed.contains("hooks"),
            "{removed}"
        );
        assert!(require_strict_json(Path::new(P), text).is_err());
    }

    #[test]
    fn markdown_block_is_replaced_in_place_and_removed() {
        let text = "# Mine\n\nkeep me\n";
        let one = set_md_block(text, "@/w/MEMORY.md\n");
        assert_eq!(set_md_block(&one, "@/w/MEMORY.md\n"), one);
        assert_eq!(md_block_body(&one), Some("@/w/MEMORY.md\n"));
        assert_eq!(remove_md_block(&one), text);
    }
}
