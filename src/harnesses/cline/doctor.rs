//! `doctor` on Cline: its MCP server, the rules file, and harvest.

use crate::wiring::{Check, Doctoring, mcp_servers_check, state};

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let places = d.places;
    vec![
        mcp_servers_check(&places.cline_mcp_settings()),
        d.import_check(&places.cline_rules_file()),
        state((d.harvest)()),
    ]
}
