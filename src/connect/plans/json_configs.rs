//! The harnesses whose config is JSON beside Claude Code's: Gemini CLI and
//! its fork qwen-code (hooks and the MCP server in `settings.json`, a block
//! in the context file they read) and opencode (the MCP server in
//! `opencode.json`, a block in its global `AGENTS.md`, harvest) and GitHub
//! Copilot CLI (hooks in `settings.json`, listed flat and run with bash, the
//! MCP server in `mcp-config.json`, a block in `copilot-instructions.md`) and
//! Cline (the MCP server in `cline_mcp_settings.json`, a global rules file,
//! harvest).
//!
//! Owns: their plans. Must not: write anything.

use std::path::PathBuf;

use super::{CLAUDE_CODE_EVENTS, Places, Plan, Record, may_replace, memory_block};
use crate::connect::{Edit, Harness, edit};
/// The Gemini CLI events memsync's hook handles: the end of a session and
/// the moment before Gemini compresses the chat are captured (the second
/// capture continues the first); a session's start gets the `context`
/// digest, and each prompt's turn (`BeforeAgent`) the relevant sessions.
pub const GEMINI_EVENTS: [&str; 4] = ["SessionEnd", "PreCompress", "SessionStart", "BeforeAgent"];

/// qwen-code, a Gemini CLI fork, names its events as Claude Code does and
/// sends the same payloads (PostCompact with the compaction's summary).
pub const QWEN_EVENTS: [&str; 4] = CLAUDE_CODE_EVENTS;

/// Gemini CLI and its fork qwen-code: hooks and the MCP server (entries
/// without `type`, its settings are checked against a schema) in one
/// `settings.json`, and a block in the context file it reads at start-up.
pub(in crate::connect) struct SettingsHarness {
    pub target: Harness,
    /// Its name in prose.
    pub name: &'static str,
    pub dir: PathBuf,
    pub events: &'static [&'static str],
    /// In the harness's unit: Gemini CLI counts milliseconds, qwen-code seconds.
    pub timeout: u64,
    pub context_file: &'static str,
    pub note: &'static str,
}

impl Places {
    pub(in crate::connect) fn settings_harness(&self, target: Harness) -> Option<SettingsHarness> {
        match target {
            Harness::GeminiCli => Some(SettingsHarness {
                target,
                name: "Gemini CLI",
                dir: self.gemini_dir.clone(),
                events: &GEMINI_EVENTS,
                timeout: 30_000,
                context_file: "GEMINI.md",
                note: "Gemini CLI runs hooks and MCP servers only in folders you trusted (it asks the first time, or `/permissions`); a policy of memsync's lets its read-only MCP tools run without asking (`gemini -p` too), while memory_store and memory_correct still ask; the hooks capture each session and bring this project's recent sessions at start and the relevant ones before each prompt",
            }),
            Harness::QwenCode => Some(SettingsHarness {
                target,
                name: "qwen-code",
                dir: self.qwen_dir.clone(),
                events: &QWEN_EVENTS,
                timeout: 30,
                context_file: "QWEN.md",
                note: "qwen-code runs memsync's read-only MCP tools without asking (permissions.allow), `qwen -p` too, and asks before memory_store and memory_correct; the hooks capture each interactive session and compaction and bring this project's recent sessions at start and the relevant ones before each prompt; `qwen -p` ends no session for a hook, so `memsync watch` harvests those",
            }),
            _ => None,
        }
    }
}

pub(super) fn settings_harness(
    h: SettingsHarness,
    places: &Places,
    record: &Record,
    force: bool,
    plan: &mut Plan,
) {
    let command = places.hook_command(h.target);
    let mut ours: Vec<String> = record.hooks.iter().cloned().collect();
    ours.push(command.clone());
    let hook = command.clone();
    let (exe, args) = (places.exe.to_string_lossy().into_owned(), places.mcp_args());
    let (our_args, replace) = (args.clone(), may_replace(record, h.target, force));
    let (events, timeout, harness) = (h.events, h.timeout, h.target);
    // qwen-code reads Claude Code's `permissions.allow`: without it a `qwen -p`
    // run lists memsync's tools and declines every call (no one to ask).
    let allow = h.target == Harness::QwenCode;
    plan.edits.push(Edit {
        path: h.dir.join("settings.json"),
        what: format!(
            "{} hooks running `memsync capture --hook {harness}`, and the `memsync` MCP server (mcpServers){}",
            list_words(events),
            if allow {
                ", its read-only tools in permissions.allow"
            } else {
                ""
            }
        ),
        apply: Box::new(move |p, t| {
            let hooked = edit::add_hooks(p, t, events, (&hook, timeout))?;
            let served = edit::set_json_mcp(p, &hooked, (&exe, &args), replace, harness)?;
            match allow {
                true => super::super::grants::add_claude_rules(p, &served),
                false => Ok(served),
            }
        }),
        undo: Box::new(move |p, t| {
            let t = match allow {
                true => super::super::grants::remove_claude_rules(p, t)?,
                false => t.to_string(),
            };
            edit::remove_hooks(p, &edit::remove_claude_mcp(p, &t, &our_args)?, &ours)
        }),
        empty: edit::is_empty_json,
        whole: true,
        // MCP servers' `env` tables and its auth settings hold tokens.
        new_mode: 0o600,
    });
    plan.edits
        .push(memory_block(places, h.dir.join(h.context_file), h.name));
    if h.target == Harness::GeminiCli {
        plan.edits.push(gemini_policy(&h.dir));
    }
    plan.hook_command = Some(command);
    plan.notes.push(h.note.into());
}

/// Gemini CLI's policy for memsync's tools: the read-only ones (their MCP
/// annotations say so) run without asking, so a `gemini -p` run offers and
/// calls them; the tools that write notes keep asking (and a `-p` run,
/// with no one to ask, leaves them out).
pub const GEMINI_POLICY: &str =
    "# Added by `memsync connect gemini-cli`; `memsync disconnect gemini-cli` removes it.
# memsync's read-only memory tools (memory_search, memory_get, memory_recent) run
# without asking, in `gemini -p` runs too; memory_store and memory_correct still ask.
[[rule]]
toolName = \"*\"
mcpName = \"memsync\"
toolAnnotations = { readOnlyHint = true }
decision = \"allow\"
priority = 100
";

/// `~/.gemini/policies/memsync.toml`, a file of memsync's own.
fn gemini_policy(dir: &std::path::Path) -> Edit {
    Edit {
        path: dir.join("policies/memsync.toml"),
        what: "a policy letting memsync's read-only MCP tools run without asking (`gemini -p` runs too)".into(),
        apply: Box::new(|_, _| Ok(GEMINI_POLICY.to_string())),
        undo: Box::new(|_, t| {
            Ok(match t == GEMINI_POLICY {
                true => String::new(),
                false => t.to_string(),
            })
        }),
        empty: |t| t.trim().is_empty(),
        whole: true,
        new_mode: 0o644,
    }
}

/// `A, B, C and D`.
fn list_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

impl Places {
    /// opencode's global config: `opencode.json`, else an `opencode.jsonc`
    /// that is there (the order opencode's own `mcp add` picks).
    pub fn opencode_json(&self) -> PathBuf {
        let json = self.opencode_config.join("opencode.json");
        let jsonc = self.opencode_config.join("opencode.jsonc");
        if !json.exists() && jsonc.exists() {
            jsonc
        } else {
            json
        }
    }
}

pub(super) fn opencode(places: &Places, record: &Record, force: bool, plan: &mut Plan) {
    use crate::connect::json5_mcp::OPENCODE;
    let (exe, args) = (places.exe.to_string_lossy().into_owned(), places.mcp_args());
    let (ours, replace) = (args.clone(), may_replace(record, Harness::Opencode, force));
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
    let agents_md = places.opencode_config.join("AGENTS.md");
    plan.edits.push(memory_block(places, agents_md, "opencode"));
    plan.notes.push(
        "opencode's hooks are JavaScript plugins, not commands, so `memsync watch` harvests its finished sessions from opencode.db (read-only); it offers memsync's MCP tools to the model without asking".into(),
    );
}

/// The Copilot CLI events memsync's hook handles: the end of a session is
/// captured (`copilot -p` ends one too), its start gets the `context` digest
/// and each prompt the relevant sessions. Its `preCompact` is not used: what
/// it sends was not seen from a real run.
pub const COPILOT_EVENTS: [&str; 3] = ["sessionEnd", "sessionStart", "userPromptSubmitted"];

pub(super) fn copilot_cli(places: &Places, record: &Record, force: bool, plan: &mut Plan) {
    let target = Harness::CopilotCli;
    let command = places.hook_command(target);
    let mut ours: Vec<String> = record.hooks.iter().cloned().collect();
    ours.push(command.clone());
    let hook = command.clone();
    plan.edits.push(Edit {
        path: places.copilot_dir.join("settings.json"),
        what: format!(
            "{} hooks running `memsync capture --hook copilot-cli`",
            list_words(&COPILOT_EVENTS)
        ),
        apply: Box::new(move |p, t| edit::add_flat_hooks(p, t, &COPILOT_EVENTS, (&hook, 30))),
        undo: Box::new(move |p, t| edit::remove_hooks(p, t, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        new_mode: 0o600,
    });
    let mcp_config = places.copilot_dir.join("mcp-config.json");
    plan.edits
        .push(mcp_servers_edit(places, record, force, target, mcp_config));
    let instructions = places.copilot_dir.join("copilot-instructions.md");
    plan.edits
        .push(memory_block(places, instructions, "Copilot CLI"));
    plan.hook_command = Some(command);
    plan.notes.push(
        "Copilot CLI runs memsync's read-only MCP tools without asking (they say they are read-only) and asks before memory_store and memory_correct; the hooks capture each session, `copilot -p` ones too, and bring this project's recent sessions at start and the relevant ones with each prompt".into(),
    );
}

impl Places {
    /// Cline's MCP servers.
    pub fn cline_mcp_settings(&self) -> PathBuf {
        self.cline_dir.join("data/settings/cline_mcp_settings.json")
    }

    /// The global rules file memsync keeps for Cline.
    pub fn cline_rules_file(&self) -> PathBuf {
        self.cline_rules.join("memsync.md")
    }
}

pub(super) fn cline(places: &Places, record: &Record, force: bool, plan: &mut Plan) {
    let mcp_settings = places.cline_mcp_settings();
    plan.edits.push(mcp_servers_edit(
        places,
        record,
        force,
        Harness::Cline,
        mcp_settings,
    ));
    plan.edits
        .push(memory_block(places, places.cline_rules_file(), "Cline"));
    plan.notes.push(
        "Cline's hooks are not used: a `cline` run fires only TaskStart (its output ignored) and TaskComplete (before the session's file is whole), so `memsync watch` harvests its finished sessions; Cline runs memsync's MCP tools without asking while auto-approve is on (its default)".into(),
    );
}

/// `mcpServers.memsync` in a JSON file of `target`'s own that holds only MCP
/// servers (Copilot CLI's `mcp-config.json`, Cline's
/// `cline_mcp_settings.json`), in the entry shape `target` reads.
fn mcp_servers_edit(
    places: &Places,
    record: &Record,
    force: bool,
    target: Harness,
    path: PathBuf,
) -> Edit {
    let (exe, args) = (places.exe.to_string_lossy().into_owned(), places.mcp_args());
    let (our_args, replace) = (args.clone(), may_replace(record, target, force));
    Edit {
        path,
        what: "the `memsync` MCP server (mcpServers)".into(),
        apply: Box::new(move |p, t| edit::set_json_mcp(p, t, (&exe, &args), replace, target)),
        undo: Box::new(move |p, t| edit::remove_claude_mcp(p, t, &our_args)),
        empty: edit::is_empty_json,
        whole: true,
        // Servers' `env` and `headers` hold tokens.
        new_mode: 0o600,
    }
}
