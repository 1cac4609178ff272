//! The harness providers: Claude Code, Codex and Gemini CLI in their print
//! modes, with the person's own login and default model, and with every
//! flag each offers to keep the call out of memory: no session saved, no
//! hooks or MCP servers loaded, no tools. What a harness cannot switch off
//! (Gemini CLI saves every chat and runs its hooks) is caught by the
//! model-call folder, the environment marker and the prompt's marker.
//!
//! Owns: each harness's command line for one call. Must not: judge output.

use std::process::Command;
use std::time::Duration;

use super::process::{self, CommandFailure};
use crate::config::{SentenceConfig, SentenceProvider};

/// A server name no one gives an MCP server: allowing only it allows none.
const NO_SERVER: &str = "memsync-model-call-allows-none";

/// The program a harness provider runs unless `sentence.program` names one.
pub fn default_program(provider: SentenceProvider) -> Option<&'static str> {
    match provider {
        SentenceProvider::ClaudeCode => Some("claude"),
        SentenceProvider::Codex => Some("codex"),
        SentenceProvider::GeminiCli => Some("gemini"),
        _ => None,
    }
}

/// The arguments of one print-mode call; the prompt goes on stdin. `out`
/// is the file Codex writes its last message to.
pub fn arguments(
    provider: SentenceProvider,
    model: Option<&str>,
    out: &std::path::Path,
) -> Vec<String> {
    let mut args: Vec<String> = match provider {
        SentenceProvider::ClaudeCode => [
            "-p",
            "--output-format",
            "text",
            // Only the call folder's own settings: none of the person's hooks.
            "--setting-sources",
            "project,local",
            "--strict-mcp-config",
            "--no-session-persistence",
            "--disable-slash-commands",
            "--tools",
            "",
        ]
        .map(String::from)
        .to_vec(),
        SentenceProvider::Codex => vec![
            "exec".into(),
            "--ephemeral".into(),
            "--skip-git-repo-check".into(),
            "--sandbox".into(),
            "read-only".into(),
            "--color".into(),
            "never".into(),
            "-c".into(),
            "mcp_servers={}".into(),
            "-c".into(),
            "notify=[]".into(),
            "--output-last-message".into(),
            out.display().to_string(),
        ],
        // The prompt arrives on stdin; `-p` adds its words after it. Headless
        // Gemini CLI runs only in a trusted folder; trusted, it would start
        // every MCP server the person configured, so none is allowed.
        SentenceProvider::GeminiCli => [
            "--skip-trust",
            "--extensions",
            "none",
            "--allowed-mcp-server-names",
            NO_SERVER,
            "--approval-mode",
            "plan",
            "--output-format",
            "text",
            "-p",
            "Reply with the one sentence only.",
        ]
        .map(String::from)
        .to_vec(),
        _ => Vec::new(),
    };
    if let Some(m) = model {
        args.extend(["--model".to_string(), m.to_string()]);
    }
    args
}

/// Runs the harness in print mode with `prompt` and returns its answer.
pub fn complete(
    provider: SentenceProvider,
    cfg: &SentenceConfig,
    prompt: &str,
    timeout: Duration,
) -> Result<String, CommandFailure> {
    let program = cfg
        .program
        .as_deref()
        .or(default_program(provider))
        .unwrap_or_default();
    let out = tempfile::Builder::new()
        .prefix("last-message-")
        .tempfile_in(process::call_folder())
        .or_else(|_| tempfile::NamedTempFile::new())
        .map_err(|e| CommandFailure::Spawn(program.into(), e.to_string()))?;
    let mut cmd = Command::new(program);
    cmd.args(arguments(provider, cfg.model.as_deref(), out.path()));
    let printed = process::run(cmd, program, prompt, timeout);
    if provider != SentenceProvider::Codex {
        return printed;
    }
    // Codex prints its progress too; the file holds only the last message.
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
        let claude = arguments(SentenceProvider::ClaudeCode, None, out);
        for flag in [
            "--no-session-persistence",
            "--strict-mcp-config",
            "--setting-sources",
        ] {
            assert!(claude.iter().any(|a| a == flag), "{flag}");
        }
        let codex = arguments(SentenceProvider::Codex, Some("o4"), out);
        assert!(codex.iter().any(|a| a == "--ephemeral"));
        assert!(codex.ends_with(&["--model".into(), "o4".into()]));
        let gemini = arguments(SentenceProvider::GeminiCli, None, out);
        assert!(gemini.windows(2).any(|w| w == ["--extensions", "none"]));
    }
}
