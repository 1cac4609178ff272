//! What memsync knows about each agent program, one folder per harness:
//! its transcript reader, session folders, end markers, hook contract and
//! connect plan. The stages hold the machinery
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
pub mod hooks;
pub mod listing;
pub mod openclaw;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
mod read;

pub use hooks::HookEvent;
/// A mirror is OpenClaw's workspace: its rule says when memsync may write there.
pub use openclaw::workspace::{Readiness, readiness};
pub use read::{read, read_from};

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{Env, HarvestConfig};
use crate::harness::Harness;
use crate::transcript::{Foreign, Transcript};
use crate::wiring::{Check, Connecting, Doctoring, Places, Plan, SettingsJson};

/// What every harness's folder answers for its program. A new harness
/// implements this in its folder and is registered in [`program`].
pub trait Program: Sync {
    /// Its folder on this machine: the machine config's `harvest.*_dir`,
    /// else its own variable, else its default under the home folder.
    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf>;

    /// Its session files under `home`, in any order.
    fn session_files(&self, _home: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The memsync agent a session file belongs to, where the harness's
    /// layout says (OpenClaw's per-agent folders); else the configured one.
    fn agent_of(&self, _session_file: &Path) -> Option<String> {
        None
    }

    /// Its session databases under `home`, each with the memsync agent its
    /// sessions belong to.
    fn session_databases(&self, _home: &Path, _default_agent: &str) -> Vec<(PathBuf, String)> {
        Vec::new()
    }

    /// Whether the harness marked the session in `path` ended in the file
    /// itself, so it need not go quiet first.
    fn ended_in_file(&self, _path: &Path) -> bool {
        false
    }

    /// The hook event a payload comes from ("" when it names none).
    fn hook_event(&self, payload: &Value) -> String {
        hooks::named_event(payload).unwrap_or_default()
    }

    /// What memsync does at `event`; `None` when the harness's hooks have
    /// no such event (acknowledged, nothing done). Only a harness whose
    /// hooks memsync takes ([`Harness::has_hooks`]) answers.
    fn hook_role(&self, _event: &str, _payload: &Value) -> Option<HookEvent> {
        None
    }

    /// What memsync answers a start or prompt event with, as the harness reads it.
    fn context_reply(&self, event: &str, text: &str) -> Value {
        hooks::nested_reply(event, text)
    }

    /// The session's log when an end payload names no file: where the
    /// harness keeps session `session_id` under its folder `home`, or why
    /// that cannot be told.
    fn session_log(&self, _session_id: &str, _home: Option<&Path>) -> Result<PathBuf, String> {
        Err("payload has no transcript_path".into())
    }

    /// The memory the harness writes itself under its folder `home`, by
    /// path; `mirror` is the folder memsync's mirror renders into, if one is
    /// configured (OpenClaw's memory is its workspace's MEMORY.md).
    fn memory_files(&self, _home: &Path, _mirror: Option<&Path>) -> Vec<OwnMemory> {
        Vec::new()
    }

    /// Whether its memory file is also where memsync's mirror renders, so the
    /// managed block in it is memsync's and not imported.
    fn memory_holds_mirror(&self) -> bool {
        false
    }

    /// The project a folder of its memory is about.
    fn memory_project(&self, _project_dir: &Path) -> Option<String> {
        None
    }

    /// Where its memory file `file` goes back under `home`, for the
    /// project whose folder on this machine is `project` (when known).
    fn memory_place(&self, _home: &Path, _file: &str, _project: Option<&Path>) -> MemoryPlace {
        MemoryPlace::Nowhere
    }

    /// The project folders the harness knows on this machine (`user_home`
    /// is the person's home), where a project is looked for by its remote.
    fn known_projects(&self, _home: &Path, _user_home: Option<&Path>) -> Vec<PathBuf> {
        Vec::new()
    }

    /// What `connect` changes in its files (and `disconnect` takes out):
    /// its folder's `connect.rs`; by default, its `settings.json` harness's
    /// plan, if it is one.
    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        if let Some(h) = self.settings_json(c.places) {
            crate::wiring::settings_json(&h, c, plan);
        }
    }

    /// How long a capture at its end hook waits for the end mark in the
    /// session's file ([`Program::ended_in_file`]), for a program that runs
    /// that hook before it has written the session's last events.
    fn end_written_after_hook(&self) -> Option<std::time::Duration> {
        None
    }

    /// How it answers one prompt in its print mode, for a harness memsync
    /// may ask to write memory sentences with the person's own login.
    fn print_mode(&self) -> Option<PrintMode> {
        None
    }

    /// What `doctor` checks of its wiring (its folder's `doctor.rs`); by
    /// default, its `settings.json` harness's checks, if it is one.
    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        self.settings_json(d.places)
            .map_or_else(Vec::new, |h| crate::wiring::settings_json_checks(&h, d))
    }

    /// The hook events memsync's hook handles for it (none: no hooks).
    fn hook_events(&self) -> &'static [&'static str] {
        &[]
    }

    /// What a person typed, from a user message its gateway handed the agent
    /// (envelopes, notices and its own prompts taken out); `None` when only
    /// the harness spoke. For a harness whose log another folder reads.
    fn gateway_user_text(&self, text: &str) -> Option<String> {
        crate::transcript::clean::person(text)
    }

    /// Whether a user message is a chore the harness set its agent on
    /// schedule (a heartbeat, a cron reminder, a boot check).
    fn is_chore(&self, _text: &str) -> bool {
        false
    }

    /// How its JSONL session log is told from other files and read; asked
    /// in [`RECOGNITION_ORDER`].
    fn log_format(&self) -> Option<SessionLog> {
        None
    }

    /// The session a whole JSON document holds, when it is in one of its
    /// formats. Asked in [`RECOGNITION_ORDER`].
    fn read_document(&self, _doc: &Value, _keep: usize) -> Option<Transcript> {
        None
    }

    /// A file its program writes that is not a session (a saved chat, a
    /// prompt log), from the one JSON value it holds: what a refusal calls it.
    fn foreign_document(&self, _doc: &Value) -> Option<Foreign> {
        None
    }

    /// A conversation its program exported as text, told from the first
    /// non-empty line and the first lines: what a refusal calls it.
    fn foreign_export(&self, _first: &str, _head: &[&str]) -> Option<Foreign> {
        None
    }

    /// Its one `settings.json` of hooks and MCP servers, for a harness that
    /// keeps them so (Gemini CLI and its fork).
    fn settings_json(&self, _places: &Places) -> Option<SettingsJson> {
        None
    }
}

/// How a harness's JSONL session log is told from its first lines and read.
pub struct SessionLog {
    /// Whether JSON lines are its log, from the first line's object and the
    /// first lines parsed.
    pub is_log: fn(&Value, &[Value]) -> bool,
    /// Reads the log a line at a time, keeping at most `keep` bytes.
    pub read: fn(&mut dyn Iterator<Item = String>, usize) -> Transcript,
}

/// The formats memsync reads, for the message that refuses any other.
pub const KNOWN_FORMATS: &str = "Claude Code, Codex, OpenClaw, pi, Gemini CLI, qwen-code and GitHub Copilot CLI session JSONL, opencode's database (opencode.db) or its `opencode export`, Cline's <id>.messages.json, an older Gemini CLI's or qwen-code's one-document chat (session-*.json) or Copilot CLI's history-session-state/*.json, Aider's .aider.chat.history.md, {\"role\",\"content\"} JSONL, or plain text/markdown";

/// A harness's print mode: one prompt on stdin, one answer, with every flag
/// it offers to keep the call out of memory (no session saved, no hooks or
/// MCP servers loaded, no tools).
pub struct PrintMode {
    /// The program run unless `sentence.program` names one.
    pub program: &'static str,
    /// Its arguments; `out` is a file it may be told to write its last
    /// message to.
    pub arguments: fn(out: &Path) -> Vec<String>,
    /// The answer is the last message in `out`, not what it prints (which
    /// holds its progress too).
    pub answer_in_file: bool,
}

/// One file of the memory a harness writes itself.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnMemory {
    pub path: PathBuf,
    /// Its path inside the harness's memory folder (`/`-separated).
    pub file: String,
    /// The harness's folder for the project this memory is about, whose
    /// sessions name the project ([`Program::memory_project`]).
    pub project_dir: Option<PathBuf>,
}

/// Where an imported note goes back into a harness's own memory.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryPlace {
    /// This file.
    At(PathBuf),
    /// The harness keeps memory per project: the place follows once the
    /// project's folder on this machine is found.
    PerProject,
    /// The harness's memory is not written back.
    Nowhere,
}

/// A harness's folder: the machine config's setting, else its own
/// variable, else `default` under the home folder.
fn home_of(
    configured: Option<&PathBuf>,
    var: Option<&PathBuf>,
    env: &Env,
    default: &str,
) -> Option<PathBuf> {
    configured
        .or(var)
        .cloned()
        .or_else(|| env.home.as_ref().map(|h| h.join(default)))
}

/// The order formats are told apart in: a harness whose lines also look
/// like another's (qwen-code's envelope is Claude Code's) is asked first.
pub(crate) const RECOGNITION_ORDER: [Harness; 8] = [
    Harness::Codex,
    Harness::Pi,
    Harness::Cline,
    Harness::GeminiCli,
    Harness::CopilotCli,
    Harness::Opencode,
    Harness::QwenCode,
    Harness::ClaudeCode,
];

/// The folder that answers for `harness`.
pub fn program(harness: Harness) -> &'static dyn Program {
    match harness {
        Harness::ClaudeCode => &claude_code::ClaudeCode,
        Harness::Codex => &codex::Codex,
        Harness::OpenClaw => &openclaw::OpenClaw,
        Harness::Pi => &pi::Pi,
        Harness::GeminiCli => &gemini_cli::GeminiCli,
        Harness::QwenCode => &qwen_code::QwenCode,
        Harness::CopilotCli => &copilot_cli::CopilotCli,
        Harness::Opencode => &opencode::Opencode,
        Harness::Cline => &cline::Cline,
    }
}

impl Harness {
    /// The harness's folder on this machine: the config, its variable, its default.
    pub fn home(self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        program(self).home(cfg, env)
    }

    /// Whether the harness marked the session in `path` ended in the file
    /// itself (Copilot CLI's `session.shutdown`; Codex's end of a turn once
    /// no process holds the rollout open).
    pub fn ended_in_file(self, path: &Path) -> bool {
        program(self).ended_in_file(path)
    }
}

#[cfg(test)]
mod tests;
