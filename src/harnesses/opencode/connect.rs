//! What `connect opencode` changes: `mcp.memsync` in its global
//! `opencode.json`, a block in its global `AGENTS.md`; harvest reads
//! `opencode.db` (its hooks are JavaScript plugins, not commands).

use std::path::PathBuf;

use crate::wiring::json5_mcp::OPENCODE;
use crate::wiring::{Connecting, Edit, Places, Plan, edit, memory_block};

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
    let agents_md = places.opencode_config().join("AGENTS.md");
    plan.edits.push(memory_block(places, agents_md, "opencode"));
    plan.notes.push(
        "opencode's hooks are JavaScript plugins, not commands, so `memsync watch` harvests its finished sessions from opencode.db (read-only); it offers memsync's MCP tools to the model without asking".into(),
    );
}
