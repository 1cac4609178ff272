//! What `connect cline` changes: the MCP server in
//! `~/.cline/data/settings/cline_mcp_settings.json`, a rules file in
//! `~/Documents/Cline/Rules`; harvest brings its sessions.

use std::path::PathBuf;

use crate::harness::Harness;
use crate::wiring::{Connecting, McpEntry, Places, Plan, mcp_servers_edit, memory_block};

const ENTRY: McpEntry = McpEntry {
    harness: Harness::Cline,
    kind: None,
    lists_tools: false,
};

impl Places {
    /// Cline's MCP servers.
    pub fn cline_mcp_settings(&self) -> PathBuf {
        self.dir(Harness::Cline)
            .join("data/settings/cline_mcp_settings.json")
    }

    /// The global rules file memsync keeps for Cline, in the folder of the
    /// rules it reads into every session.
    pub fn cline_rules_file(&self) -> PathBuf {
        self.home.join("Documents/Cline/Rules/memsync.md")
    }
}

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let places = c.places;
    plan.edits
        .push(mcp_servers_edit(c, places.cline_mcp_settings(), ENTRY));
    plan.edits
        .push(memory_block(places, places.cline_rules_file(), "Cline"));
    plan.notes.push(
        "Cline's hooks are not used: a `cline` run fires only TaskStart (its output ignored) and TaskComplete (before the session's file is whole), so `memsync watch` harvests its finished sessions; Cline runs memsync's MCP tools without asking while auto-approve is on (its default)".into(),
    );
}
