//! What `connect qwen-code` changes: as for Gemini CLI (it is a fork), in
//! `~/.qwen/settings.json` and `~/.qwen/QWEN.md`, with Claude Code's event
//! names and `permissions.allow`.

use crate::harness::Harness;
use crate::wiring::{Places, SettingsJson};

use super::INSTRUCTIONS;

/// qwen-code names its events as Claude Code does and sends the same
/// payloads (PostCompact with the compaction's summary).
pub const EVENTS: [&str; 4] = [
    "SessionEnd",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
];

pub fn settings(places: &Places) -> SettingsJson {
    SettingsJson {
        name: "qwen-code",
        dir: places.dir(Harness::QwenCode),
        events: &EVENTS,
        // qwen-code counts seconds.
        timeout: 30,
        context_file: INSTRUCTIONS,
        // Without it a `qwen -p` run lists memsync's tools and declines
        // every call (no one to ask).
        allow_rules: true,
        note: "qwen-code runs memsync's read-only MCP tools without asking (permissions.allow), `qwen -p` too, and asks before memory_store and memory_correct; the hooks capture each interactive session and compaction and bring this project's recent sessions at start and the relevant ones before each prompt; `qwen -p` ends no session for a hook, so `memsync watch` harvests those",
    }
}
