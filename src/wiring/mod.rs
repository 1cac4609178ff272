//! The edits that wire an agent program to memsync, in the program's own
//! files: its settings (JSON, JSONC, JSON5, TOML), the MCP entry, the hook
//! entries, the grants of memsync's tools, the block in the instructions
//! file it reads at start-up, and the record that makes each edit undoable.
//!
//! Owns: the file editors every harness shares, the shape of a plan
//! (`Edit`, `Plan`) and where a plan's files are (`Places`), and the checks
//! `doctor` builds from (`Check`). What one
//! harness changes is in its folder under `harnesses/`; `connect` applies
//! the plan. Must not: write anything (the record saves only when `connect`
//! asks), or name a harness: a harness is a value here.

mod check;
pub mod edit;
pub mod grants;
pub mod json5_mcp;
mod places;
mod plan;
pub mod record;

pub use check::{
    Check, Doctoring, Level, broken, hook_checks, import_check, mcp_check, mcp_servers_check,
    missing, ok, program_exists, read, settings_json_checks, state,
};
pub use places::{Places, shell_word};
pub use plan::{
    Connecting, Edit, McpEntry, Plan, SettingsJson, empty_text, list_words, mcp_servers_edit,
    md_block, memory_block, memory_instruction, settings_json,
};
pub use record::Record;
