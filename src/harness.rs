//! The agent programs memsync knows, under one identity: each harness's name
//! as the CLI, the configs and the artifacts spell it, the other names a
//! person may type for it, and what memsync does with it (hooks, harvest,
//! connect). Every stage that knows something of a harness (its reader, its
//! session folders, its connect plan, its doctor checks) finds it here by
//! this one type; adding a harness starts with a variant here.
//!
//! Owns: the names and the table of what each harness supports. Must not:
//! know a harness's files, payloads or settings (the stages do).

use serde::Serialize;

/// One agent program memsync reads, connects or takes hooks from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Harness {
    ClaudeCode,
    Codex,
    // Its own spelling, as `--harness openclaw` takes it (not "open-claw").
    #[serde(rename = "openclaw")]
    OpenClaw,
    Pi,
    GeminiCli,
    QwenCode,
    CopilotCli,
    Opencode,
    Cline,
}

impl Harness {
    /// Every harness, in the order harvest reads them.
    pub const ALL: [Harness; 9] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::OpenClaw,
        Harness::Pi,
        Harness::GeminiCli,
        Harness::QwenCode,
        Harness::CopilotCli,
        Harness::Opencode,
        Harness::Cline,
    ];

    /// The order `connect`, `disconnect` and `doctor` list them in.
    pub const CONNECT_ORDER: [Harness; 9] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::OpenClaw,
        Harness::GeminiCli,
        Harness::QwenCode,
        Harness::Opencode,
        Harness::CopilotCli,
        Harness::Cline,
        Harness::Pi,
    ];

    /// Its name (`claude-code`, `openclaw`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::OpenClaw => "openclaw",
            Harness::Pi => "pi",
            Harness::GeminiCli => "gemini-cli",
            Harness::QwenCode => "qwen-code",
            Harness::CopilotCli => "copilot-cli",
            Harness::Opencode => "opencode",
            Harness::Cline => "cline",
        }
    }

    /// The harness a name means: its own name only.
    pub fn parse(s: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == s)
    }

    /// The harness a name or a short name means (`claude`, `gemini`,
    /// `qwen`, `copilot`), as hook commands written by hand spell it.
    pub fn parse_alias(s: &str) -> Option<Harness> {
        Harness::parse(s).or(match s {
            "claude" => Some(Harness::ClaudeCode),
            "gemini" => Some(Harness::GeminiCli),
            "qwen" => Some(Harness::QwenCode),
            "copilot" => Some(Harness::CopilotCli),
            _ => None,
        })
    }

    /// The instruction file it reads into every session, where memsync's
    /// block naming MEMORY.md goes (Cline reads a folder of rules instead).
    pub const fn instructions_file(self) -> Option<&'static str> {
        match self {
            Harness::ClaudeCode => Some("CLAUDE.md"),
            Harness::GeminiCli => Some("GEMINI.md"),
            Harness::QwenCode => Some("QWEN.md"),
            Harness::CopilotCli => Some("copilot-instructions.md"),
            Harness::Codex | Harness::OpenClaw | Harness::Pi | Harness::Opencode => {
                Some("AGENTS.md")
            }
            Harness::Cline => None,
        }
    }

    /// The instruction file's name for text that names it, "" where the
    /// harness has none (a `const` each folder's connect and doctor share).
    pub const fn instructions_name(self) -> &'static str {
        match self.instructions_file() {
            Some(file) => file,
            None => "",
        }
    }

    /// Its folder's key in the `harvest` section of the config file.
    pub fn dir_key(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude_code_dir",
            Harness::Codex => "codex_home",
            Harness::OpenClaw => "openclaw_dir",
            Harness::Pi => "pi_dir",
            Harness::GeminiCli => "gemini_dir",
            Harness::QwenCode => "qwen_dir",
            Harness::CopilotCli => "copilot_dir",
            Harness::Opencode => "opencode_dir",
            Harness::Cline => "cline_dir",
        }
    }

    /// The variable that names its folder, for a harness that reads one.
    pub fn home_variable(self) -> Option<&'static str> {
        match self {
            Harness::ClaudeCode => Some("CLAUDE_CONFIG_DIR"),
            Harness::Codex => Some("CODEX_HOME"),
            Harness::OpenClaw => Some("OPENCLAW_STATE_DIR"),
            Harness::Pi => Some("PI_CODING_AGENT_DIR"),
            _ => None,
        }
    }

    /// Whether it may write memory sentences in its print mode, with the
    /// person's own login (its folder's `print_mode`).
    pub fn writes_sentences(self) -> bool {
        matches!(
            self,
            Harness::ClaudeCode | Harness::Codex | Harness::GeminiCli
        )
    }

    /// Whether `connect` renders a mirror of the workspace into its folder
    /// (OpenClaw's workspace), kept while it stays connected.
    pub fn takes_mirror(self) -> bool {
        self == Harness::OpenClaw
    }

    /// Whether `capture --hook` takes its hook payloads.
    pub fn has_hooks(self) -> bool {
        matches!(
            self,
            Harness::ClaudeCode | Harness::GeminiCli | Harness::QwenCode | Harness::CopilotCli
        )
    }

    /// Whether `connect` restores the memory of its own that harvest imports
    /// (Claude Code's per-project `memory/`, Codex's memories; OpenClaw's
    /// workspace gets the mirror instead).
    pub fn keeps_own_memory(self) -> bool {
        matches!(self, Harness::ClaudeCode | Harness::Codex)
    }

    /// Whether its sessions need the daemon's harvest once connected: Codex,
    /// OpenClaw, opencode and Cline have no hook command memsync runs
    /// (Cline's fire before its session is written whole), pi has no hooks
    /// at all, and qwen-code fires no end of session in a non-interactive
    /// run (`qwen -p`), only at an interactive exit, so its hooks capture
    /// those and harvest the rest.
    pub fn needs_harvest(self) -> bool {
        matches!(
            self,
            Harness::Codex
                | Harness::OpenClaw
                | Harness::QwenCode
                | Harness::Opencode
                | Harness::Cline
                | Harness::Pi
        )
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The names of `harnesses` as a sentence lists them: "a, b and c" (or
/// "a, b or c" with `conjunction` "or").
pub fn spoken_list(harnesses: impl IntoIterator<Item = Harness>, conjunction: &str) -> String {
    let names: Vec<&str> = harnesses.into_iter().map(Harness::as_str).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} {conjunction} {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Every harness's name, in [`Harness::ALL`]'s order.
pub const NAMES: [&str; 9] = [
    "claude-code",
    "codex",
    "openclaw",
    "pi",
    "gemini-cli",
    "qwen-code",
    "copilot-cli",
    "opencode",
    "cline",
];

/// Every harness's name, in [`Harness::CONNECT_ORDER`].
pub const CONNECT_NAMES: [&str; 9] = [
    "claude-code",
    "codex",
    "openclaw",
    "gemini-cli",
    "qwen-code",
    "opencode",
    "copilot-cli",
    "cline",
    "pi",
];

/// The names `capture session-end --harness` takes besides the harnesses':
/// Aider (read from its history file) and `manual`.
pub const CAPTURE_ONLY_NAMES: [&str; 2] = ["aider", "manual"];

/// The names of the harnesses whose hooks `capture --hook` takes.
pub const HOOK_NAMES: &str = "claude-code, gemini-cli, qwen-code, copilot-cli";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_list_agrees_with_the_table() {
        let names: Vec<&str> = Harness::ALL.iter().map(|h| h.as_str()).collect();
        assert_eq!(names, NAMES);
        let connect: Vec<&str> = Harness::CONNECT_ORDER.iter().map(|h| h.as_str()).collect();
        assert_eq!(connect, CONNECT_NAMES);
        let hooks: Vec<&str> = Harness::ALL
            .iter()
            .filter(|h| h.has_hooks())
            .map(|h| h.as_str())
            .collect();
        assert_eq!(hooks.join(", "), HOOK_NAMES);
        for h in Harness::ALL {
            assert_eq!(Harness::parse(h.as_str()), Some(h));
            assert_eq!(Harness::parse_alias(h.as_str()), Some(h));
            assert!(Harness::CONNECT_ORDER.contains(&h));
        }
        assert_eq!(Harness::parse_alias("claude"), Some(Harness::ClaudeCode));
        assert_eq!(Harness::parse("claude"), None);
    }
}
