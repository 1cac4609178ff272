//! The harness providers: a harness in its print mode, with the person's
//! own login and default model, and with every flag it offers to keep the
//! call out of memory (its folder's `print_mode`). What a harness cannot
//! switch off (one saves every chat and runs its hooks) is caught by the
//! model-call folder, the environment marker and the prompt's marker.
//!
//! Owns: running one call. Must not: judge output.

use std::process::Command;
use std::time::Duration;

use super::process::{self, CommandFailure};
use crate::config::SentenceConfig;
use crate::harness::Harness;
use crate::harnesses::{PrintMode, program};

/// The print mode of `harness`, if it has one.
fn print_mode(harness: Harness) -> Option<PrintMode> {
    program(harness).print_mode()
}

/// The program a harness provider runs unless `sentence.program` names one.
pub fn default_program(harness: Harness) -> Option<&'static str> {
    print_mode(harness).map(|p| p.program)
}

/// The arguments of one print-mode call; the prompt goes on stdin. `out`
/// is the file a harness may write its last message to.
pub fn arguments(harness: Harness, model: Option<&str>, out: &std::path::Path) -> Vec<String> {
    let mut args = print_mode(harness).map_or_else(Vec::new, |p| (p.arguments)(out));
    if let Some(m) = model {
        args.extend(["--model".to_string(), m.to_string()]);
    }
    args
}

/// Runs the harness in print mode with `prompt` and returns its answer.
pub fn complete(
    harness: Harness,
    cfg: &SentenceConfig,
    prompt: &str,
    timeout: Duration,
) -> Result<String, CommandFailure> {
    let program = cfg
        .program
        .as_deref()
        .or(default_program(harness))
        .unwrap_or_default();
    let out = tempfile::Builder::new()
        .prefix("last-message-")
        .tempfile_in(process::call_folder())
        .or_else(|_| tempfile::NamedTempFile::new())
        .map_err(|e| CommandFailure::Spawn(program.into(), e.to_string()))?;
    let mut cmd = Command::new(program);
    cmd.args(arguments(harness, cfg.model.as_deref(), out.path()));
    let printed = process::run(cmd, program, prompt, timeout);
    if !print_mode(harness).is_some_and(|p| p.answer_in_file) {
        return printed;
    }
    // It prints its progress too; the file holds only the last message.
    printed?;
    let last = std::fs::read_to_string(out.path()).unwrap_or_default();
    match last.trim() {
        "" => Err(CommandFailure::Empty(program.into())),
        text => Ok(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_harness_call_keeps_no_session_and_loads_no_hooks_or_servers() {
        let out = std::path::Path::new("/tmp/x");
        let claude = arguments(Harness::ClaudeCode, None, out);
        for flag in [
            "--no-session-persistence",
            "--strict-mcp-config",
            "--setting-sources",
        ] {
            assert!(claude.iter().any(|a| a == flag), "{flag}");
        }
        let codex = arguments(Harness::Codex, Some("o4"), out);
        assert!(codex.iter().any(|a| a == "--ephemeral"));
        assert!(codex.ends_with(&["--model".into(), "o4".into()]));
        let gemini = arguments(Harness::GeminiCli, None, out);
        assert!(gemini.windows(2).any(|w| w == ["--extensions", "none"]));
    }
}
