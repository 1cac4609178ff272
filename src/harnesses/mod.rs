//! What memsync knows about each agent program, one folder per harness:
//! its transcript reader, and (as they move here) its session folders, end
//! markers, hook contract and connect plan. The stages hold the machinery
//! (the transcript model, the sanitizer, the harvest loop, the settings
//! editors) and reach a harness only through this registry; a folder never
//! imports another folder. [`crate::harness::Harness`] is the identity every
//! stage names a harness by.
//!
//! Owns: which folder answers for which harness, and telling a file's
//! format from its first lines ([`read_from`]). Must not: hold one
//! harness's knowledge outside its folder.

pub mod claude_code;
pub mod cline;
pub mod codex;
pub mod copilot_cli;
pub mod gemini_cli;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
mod read;

pub use read::{read, read_from};

use std::path::Path;

use crate::harness::Harness;

/// Whether the harness marked the session in `path` ended in the file
/// itself (Copilot CLI's `session.shutdown`; Codex's end of a turn once no
/// process holds the rollout open), so it need not go quiet first.
pub fn ended_in_file(harness: Harness, path: &Path) -> bool {
    match harness {
        Harness::CopilotCli => copilot_cli::reader::shut_down(path),
        Harness::Codex => codex::reader::turn_over(path),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
