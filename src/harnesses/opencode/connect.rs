//! What `connect opencode` changes: `mcp.memsync` in its global
//! `opencode.json`, a block in its global `AGENTS.md`; harvest reads
//! `opencode.db` (its hooks are JavaScript plugins, not commands).

use std::path::PathBuf;

use serde_json::Value;

use crate::harness::Harness;
use crate::wiring::json5_mcp::Json5Mcp;
use crate::wiring::{Connecting, Edit, Places, Plan, edit, memory_block};

use super::INSTRUCTIONS;

impl Places {
    /// opencode's config folder (`$XDG_CONFIG_HOME/opencode`), beside its
    /// data folder (where `opencode.db` is, which harvest reads).
    pub fn opencode_config(&self) -> PathBuf {
        self.env
            .xdg_config_home
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
            .join("opencode")
    }

    /// opencode's global config: `opencode.json`, else an `opencode.jsonc`
    /// that is there (the order opencode's own `mcp add` picks).
    pub fn opencode_json(&self) -> PathBuf {
        let json = self.opencode_config().join("opencode.json");
        let jsonc = self.opencode_config().join("opencode.jsonc");
        if !json.exists() && jsonc.exists() {
            jsonc
        } else {
            json
        }
    }
}

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    let (exe, args) = c.mcp_command();
    let (ours, replace) = (args.clone(), c.may_replace());
    plan.edits.push(Edit {
        path: places.opencode_json(),
        what: "the `memsync` MCP server (mcp.memsync, a local command)".into(),
        apply: Box::new(move |p, t| OPENCODE.set(p, t, (&exe, &args), replace)),
        undo: Box::new(move |p, t| OPENCODE.remove(p, t, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        // Provider options there hold API keys.
        new_mode: 0o600,
    });
    let agents_md = places.opencode_config().join(INSTRUCTIONS);
    plan.edits.push(memory_block(places, agents_md, "opencode"));
    plan.notes.push(
        "opencode's hooks are JavaScript plugins, not commands, so `memsync watch` harvests its finished sessions from opencode.db (read-only); it offers memsync's MCP tools to the model without asking".into(),
    );
}

/// memsync's entry in `opencode.json`: `mcp.memsync` (`type: local`,
/// `command` as one array), the entry `opencode mcp add` writes.
pub const OPENCODE: Json5Mcp = Json5Mcp {
    harness: Harness::Opencode,
    parents: &["mcp"],
    entry: |exe, args| {
        let command: Vec<&str> = std::iter::once(exe)
            .chain(args.iter().map(String::as_str))
            .collect();
        vec![("type", "local".into()), ("command", command.into())]
    },
    args_of: |e| match e["command"].as_array() {
        Some(words) => Value::Array(words.iter().skip(1).cloned().collect()),
        None => Value::Null,
    },
};

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn opencodes_entry_is_the_one_its_mcp_add_writes() {
        let args = vec!["--workspace".to_string(), "/ws".into(), "mcp".into()];
        let added = OPENCODE
            .set(
                Path::new("opencode.json"),
                "",
                ("/bin/memsync", &args),
                false,
            )
            .unwrap();
        let v: Value = serde_json::from_str(&added).unwrap();
        assert_eq!(
            v["mcp"]["memsync"],
            serde_json::json!({"type": "local", "command": ["/bin/memsync", "--workspace", "/ws", "mcp"]})
        );
    }
}
