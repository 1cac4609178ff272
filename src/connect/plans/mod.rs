//! What `connect` changes for each harness, and where those files live.
//!
//! - Claude Code: SessionEnd, PostCompact, SessionStart and UserPromptSubmit
//!   hooks and the read-only MCP tools' `permissions.allow` rules in
//!   `settings.json`, the MCP server in the user config (`~/.claude.json`),
//!   and, only with `--import-memory-md`, a block in `CLAUDE.md` importing
//!   MEMORY.md (`@path`).
//! - Codex: `[mcp_servers.memsync]` in `config.toml` with its read-only tools
//!   approved, a block in `AGENTS.md` saying where MEMORY.md is, and harvest
//!   (from connect's record).
//! - Gemini CLI: SessionEnd, PreCompress, SessionStart and BeforeAgent hooks
//!   and the MCP server in `~/.gemini/settings.json`, and a block in
//!   `~/.gemini/GEMINI.md` (its global context file) saying where MEMORY.md is.
//! - qwen-code: the same in `~/.qwen/settings.json` and `~/.qwen/QWEN.md`,
//!   with Claude Code's events (SessionEnd, PostCompact, SessionStart,
//!   UserPromptSubmit).
//! - opencode: `mcp.memsync` in its global `opencode.json`, a block in its
//!   global `AGENTS.md`, and harvest of `opencode.db` (its hooks are
//!   JavaScript plugins, not commands).
//! - GitHub Copilot CLI: sessionEnd, sessionStart and userPromptSubmitted
//!   hooks in `~/.copilot/settings.json`, the MCP server in
//!   `~/.copilot/mcp-config.json`, a block in `~/.copilot/copilot-instructions.md`.
//! - Cline: the MCP server in `~/.cline/data/settings/cline_mcp_settings.json`,
//!   a rules file in `~/Documents/Cline/Rules`, and harvest.
//! - OpenClaw: `mcp.servers.memsync` in `openclaw.json` (once OpenClaw's setup
//!   wrote it), harvest, and a mirror of agent `main`'s MEMORY.md and daily
//!   logs in OpenClaw's workspace when that is not the memsync workspace.
//!
//! Owns: the plan per harness. Must not: write anything.

use std::path::{Path, PathBuf};

use serde_yaml::Value;

use super::record::Record;
use super::{Edit, Harness, codex_mcp, edit, grants};
use crate::config::{Env, MirrorConfig, Settings};
use crate::error::{ConfigError, Error, Result};

mod json_configs;

pub(in crate::connect) use json_configs::{COPILOT_EVENTS, SettingsHarness};
use json_configs::{cline, copilot_cli, opencode, settings_harness};

/// Every path `connect` reads or writes, resolved once (tests point them at temp dirs).
#[derive(Debug, Clone)]
pub struct Places {
    /// The memsync binary the hooks and MCP entries run.
    pub exe: PathBuf,
    pub workspace: PathBuf,
    /// The memsync agent of Claude Code and Codex sessions (`harvest.agent`).
    pub agent: String,
    pub claude_dir: PathBuf,
    /// Claude Code's user config, where user-scope MCP servers live.
    pub claude_json: PathBuf,
    pub codex_home: PathBuf,
    /// pi's folder (`~/.pi/agent`): its sessions and its global AGENTS.md.
    pub pi_dir: PathBuf,
    pub openclaw_dir: PathBuf,
    pub gemini_dir: PathBuf,
    pub qwen_dir: PathBuf,
    /// opencode's config folder (`opencode.json`, `AGENTS.md`)…
    pub opencode_config: PathBuf,
    /// …and its data folder (`opencode.db`, which harvest reads).
    pub opencode_data: PathBuf,
    /// GitHub Copilot CLI's folder (`~/.copilot`).
    pub copilot_dir: PathBuf,
    /// Cline's folder (`~/.cline`), and the folder of the global rules it
    /// reads into every session (`~/Documents/Cline/Rules`).
    pub cline_dir: PathBuf,
    pub cline_rules: PathBuf,
    /// memsync's machine config (harvest and mirrors are machine settings).
    pub machine_config: PathBuf,
    /// The connection record.
    pub record: PathBuf,
    /// Whether `connect claude-code` imports the whole MEMORY.md into
    /// `CLAUDE.md` (`--import-memory-md`); off by default.
    pub import_memory_md: bool,
    /// Whether connect makes the harness write memory sentences
    /// (`--sentences`); off by default.
    pub sentences: bool,
    /// Whether the person grants the note-writing MCP tools without a
    /// prompt (`--memory-writes`); off by default.
    pub memory_writes: bool,
}

impl Places {
    pub fn resolve(settings: &Settings, env: &Env, config_flag: Option<&Path>) -> Result<Places> {
        let home = env.home.clone().ok_or(ConfigError::Environment {
            var: "HOME",
            needed_for: "the harnesses' files are found under it",
        })?;
        let exe = std::env::current_exe().map_err(|e| Error::io("<current executable>", e))?;
        let workspace =
            std::fs::canonicalize(&settings.root).map_err(|e| Error::io(&settings.root, e))?;
        let harvest = &settings.config.harvest;
        let dir = |h: Harness| h.home(harvest, env).unwrap_or_else(|| home.clone());
        let claude_dir = dir(Harness::ClaudeCode);
        // With CLAUDE_CONFIG_DIR, Claude Code keeps its user config inside that folder.
        let claude_json = match &env.claude_config_dir {
            Some(d) => d.join(".claude.json"),
            None => home.join(".claude.json"),
        };
        let machine_config = env
            .machine_config(config_flag)
            .map(|(p, _)| p)
            .unwrap_or_else(|| home.join(".config/memsync/config.yaml"));
        Ok(Places {
            exe,
            workspace,
            agent: harvest.agent.clone(),
            claude_dir,
            claude_json,
            codex_home: dir(Harness::Codex),
            pi_dir: dir(Harness::Pi),
            openclaw_dir: dir(Harness::OpenClaw),
            gemini_dir: dir(Harness::GeminiCli),
            qwen_dir: dir(Harness::QwenCode),
            opencode_config: env
                .xdg_config_home
                .clone()
                .unwrap_or_else(|| home.join(".config"))
                .join("opencode"),
            opencode_data: dir(Harness::Opencode),
            copilot_dir: dir(Harness::CopilotCli),
            cline_dir: dir(Harness::Cline),
            cline_rules: home.join("Documents/Cline/Rules"),
            machine_config,
            record: env
                .connect_record()
                .unwrap_or_else(|| home.join(".local/state/memsync/connect.json")),
            import_memory_md: false,
            sentences: false,
            memory_writes: false,
        })
    }

    /// The MEMORY.md of `agent`, absolute.
    pub fn memory_md(&self, agent: &str) -> PathBuf {
        self.workspace.join(crate::project::memory_md_path(agent))
    }

    /// The command a harness's hooks run (`capture --hook <harness>`).
    pub fn hook_command(&self, harness: Harness) -> String {
        let mut words = vec![
            shell_word(&self.exe.to_string_lossy()),
            "--workspace".into(),
            shell_word(&self.workspace.to_string_lossy()),
        ];
        if self.agent != "default" {
            words.push("--agent".into());
            words.push(shell_word(&self.agent));
        }
        words.extend(["capture", "--hook", harness.as_str()].map(String::from));
        words.join(" ")
    }

    /// The arguments of the MCP server entry.
    pub fn mcp_args(&self) -> Vec<String> {
        vec![
            "--workspace".into(),
            self.workspace.to_string_lossy().into_owned(),
            "mcp".into(),
        ]
    }

    /// OpenClaw's workspace: `agents.defaults.workspace` in `openclaw.json`,
    /// else `<state dir>/workspace`.
    pub fn openclaw_workspace(&self) -> PathBuf {
        let configured = self
            .openclaw_setting("/agents/defaults/workspace")
            .and_then(|w| w.as_str().map(String::from));
        match configured {
            Some(w) => match (w.strip_prefix("~/"), self.openclaw_dir.parent()) {
                (Some(rest), Some(home)) if self.openclaw_dir.ends_with(".openclaw") => {
                    home.join(rest)
                }
                _ => PathBuf::from(w),
            },
            None => self.openclaw_dir.join("workspace"),
        }
    }
}

impl Places {
    /// A value of OpenClaw's `openclaw.json` (JSON5-ish: comments allowed).
    pub fn openclaw_setting(&self, pointer: &str) -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(self.openclaw_dir.join("openclaw.json")).ok()?;
        let value =
            jsonc_parser::parse_to_serde_value::<serde_json::Value>(&text, &Default::default())
                .ok()?;
        value.pointer(pointer).cloned()
    }
}

/// A word the shell reads back as itself.
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The edits of one harness, and what the record should remember.
pub(super) struct Plan {
    pub edits: Vec<Edit>,
    pub hook_command: Option<String>,
    pub mirror: Option<MirrorConfig>,
    pub notes: Vec<String>,
}

pub(super) fn plan(
    target: Harness,
    places: &Places,
    record: &Record,
    connecting: bool,
    force: bool,
) -> Result<Plan> {
    let mut plan = Plan {
        edits: Vec::new(),
        hook_command: None,
        mirror: None,
        notes: Vec::new(),
    };
    match target {
        Harness::ClaudeCode => claude_code(places, record, force, &mut plan),
        Harness::Codex => codex(places, record, force, &mut plan),
        Harness::OpenClaw => openclaw(places, record, connecting, force, &mut plan),
        Harness::Opencode => opencode(places, record, force, &mut plan),
        Harness::CopilotCli => copilot_cli(places, record, force, &mut plan),
        Harness::Cline => cline(places, record, force, &mut plan),
        Harness::Pi => pi(places, &mut plan),
        Harness::GeminiCli | Harness::QwenCode => {
            if let Some(h) = places.settings_harness(target) {
                settings_harness(h, places, record, force, &mut plan);
            }
        }
    }
    if connecting && target.needs_harvest() {
        harvest_off_note(places, &mut plan);
    }
    legacy_machine_block(places, &mut plan);
    Ok(plan)
}

fn empty_text(text: &str) -> bool {
    text.trim().is_empty()
}

/// Whether `connect` may replace an MCP entry named `memsync` with other
/// arguments: `--force`, or memsync wrote it (this harness is connected, to
/// another workspace or from another binary).
fn may_replace(record: &Record, target: Harness, force: bool) -> bool {
    force || record.harnesses.contains(target.as_str())
}

/// The Claude Code events memsync's hook handles: the end of a session and a
/// compaction are captured; a session's start gets the `context` digest, and
/// each prompt the earlier sessions relevant to it (`recall`).
pub const CLAUDE_CODE_EVENTS: [&str; 4] = [
    "SessionEnd",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
];

fn claude_code(places: &Places, record: &Record, force: bool, plan: &mut Plan) {
    let command = places.hook_command(Harness::ClaudeCode);
    let mut ours: Vec<String> = record.hooks.iter().cloned().collect();
    ours.push(command.clone());
    let hook = command.clone();
    plan.edits.push(Edit {
        path: places.claude_dir.join("settings.json"),
        what: "SessionEnd, PostCompact, SessionStart and UserPromptSubmit hooks running `memsync capture --hook claude-code`, and `permissions.allow` for memsync's read-only MCP tools"
            .into(),
        apply: Box::new(move |p, t| {
            edit::require_strict_json(p, t)?;
            grants::add_claude_rules(p, &edit::add_hooks(p, t, &CLAUDE_CODE_EVENTS, (&hook, 30))?)
        }),
        undo: Box::new(move |p, t| edit::remove_hooks(p, &grants::remove_claude_rules(p, t)?, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        new_mode: 0o644,
    });
    let (exe, args) = (places.exe.to_string_lossy().into_owned(), places.mcp_args());
    let (ours, replace) = (
        args.clone(),
        may_replace(record, Harness::ClaudeCode, force),
    );
    plan.edits.push(Edit {
        path: places.claude_json.clone(),
        what: "the `memsync` MCP server (user scope)".into(),
        apply: Box::new(move |p, t| edit::set_claude_mcp(p, t, (&exe, &args), replace)),
        undo: Box::new(move |p, t| edit::remove_claude_mcp(p, t, &ours)),
        empty: edit::is_empty_json,
        whole: true,
        // Claude Code keeps OAuth tokens and API keys in it, and makes it 0600.
        new_mode: 0o600,
    });
    claude_md_import(places, plan);
    plan.hook_command = Some(command);
}

/// Decided: by default `CLAUDE.md` no longer imports MEMORY.md. Claude Code
/// presents an import there as the user's own instructions, overriding its
/// defaults, and it put every project's ledger (~5k tokens) into every
/// session; the SessionStart digest (this project first) and the per-prompt
/// recall bring what bears on the work, and the MCP tools the rest.
/// `--import-memory-md` keeps the import (where hooks are off); without it
/// an earlier connect's block comes out.
fn claude_md_import(places: &Places, plan: &mut Plan) {
    let memory = places.memory_md(&places.agent);
    let path = places.claude_dir.join("CLAUDE.md");
    if places.import_memory_md {
        let body = format!("@{}\n", memory.display());
        let what = format!("a block importing {}", memory.display());
        plan.edits.push(md_block(path, what, body));
        plan.notes.push(format!(
            "Claude Code reads {} at start-up (an @import in CLAUDE.md); a new session picks it up",
            memory.display()
        ));
        return;
    }
    if std::fs::read_to_string(&path).is_ok_and(|t| edit::md_block_body(&t).is_some()) {
        plan.edits.push(Edit {
            path,
            what: "without the block an earlier connect added (MEMORY.md is no longer imported)"
                .into(),
            apply: Box::new(|_, t| Ok(edit::remove_md_block(t))),
            undo: Box::new(|_, t| Ok(edit::remove_md_block(t))),
            empty: empty_text,
            whole: true,
            new_mode: 0o644,
        });
    }
    plan.notes.push(
        "Claude Code gets this project's recent sessions when a session starts and the earlier sessions relevant to each prompt (hooks), and the MCP tools for the rest; MEMORY.md is not imported into CLAUDE.md (--import-memory-md does)".into(),
    );
}

/// The instruction Codex and Gemini CLI get: where MEMORY.md is and which
/// tools reach further.
pub fn memory_instruction(memory: &Path) -> String {
    format!(
        "## Memory of earlier sessions (memsync)\n\n\
         `{}` is the ledger of your recent sessions on this machine, newest first: one line per \
         session saying what was asked and done, with links to its summary. Read it before work \
         that may continue an earlier session. To look further back, use the `memsync` MCP tools: \
         `memory_search` (full text), `memory_recent` (the ledger as data) and `memory_get` (one \
         session's summary or transcript).\n",
        memory.display()
    )
}

/// The managed block in an instruction file `harness` reads at start-up
/// (AGENTS.md, GEMINI.md…), saying where MEMORY.md is.
fn memory_block(places: &Places, path: PathBuf, harness: &str) -> Edit {
    let memory = places.memory_md(&places.agent);
    let what = format!("a block pointing {harness} at {}", memory.display());
    md_block(path, what, memory_instruction(&memory))
}

/// The edit that keeps memsync's block holding `body` in a markdown file.
fn md_block(path: PathBuf, what: String, body: String) -> Edit {
    Edit {
        path,
        what,
        apply: Box::new(move |_, t| Ok(edit::set_md_block(t, &body))),
        undo: Box::new(|_, t| Ok(edit::remove_md_block(t))),
        empty: empty_text,
        whole: true,
        new_mode: 0o644,
    }
}

/// pi reads `~/.pi/agent/AGENTS.md` into every session and has no MCP (its
/// choice) and no hook memsync could run (its extensions are TypeScript), so
/// connect gives it the block naming MEMORY.md and harvest takes its sessions.
fn pi(places: &Places, plan: &mut Plan) {
    plan.edits
        .push(memory_block(places, places.pi_dir.join("AGENTS.md"), "pi"));
    plan.notes.push(
        "pi has no MCP and runs no hook of memsync's: it reads MEMORY.md through the AGENTS.md block, and `memsync watch` harvests its finished sessions".into(),
    );
}

fn codex(places: &Places, record: &Record, force: bool, plan: &mut Plan) {
    let (exe, args) = (places.exe.to_string_lossy().into_owned(), places.mcp_args());
    let (ours, replace) = (args.clone(), may_replace(record, Harness::Codex, force));
    let grant = places.memory_writes;
    plan.edits.push(Edit {
        path: places.codex_home.join("config.toml"),
        what: match grant {
            true => "the memsync MCP server and its tools' approval modes (read-only tools: approve; memory_store, memory_correct: approve, as you granted) ([mcp_servers.memsync])",
            false => "the memsync MCP server and its tools' approval modes (read-only tools: approve; memory_store, memory_correct: prompt) ([mcp_servers.memsync])",
        }
        .into(),
        apply: Box::new(move |p, t| codex_mcp::set_codex_mcp(p, t, (&exe, &args), replace, grant)),
        undo: Box::new(move |p, t| codex_mcp::remove_codex_mcp(p, t, &ours)),
        empty: empty_text,
        whole: true,
        // MCP servers' `env` tables hold tokens.
        new_mode: 0o600,
    });
    plan.edits.push(memory_block(
        places,
        places.codex_home.join("AGENTS.md"),
        "Codex",
    ));
    plan.notes.push(
        "Codex runs only hooks you reviewed, so `memsync watch` harvests its finished sessions"
            .into(),
    );
}

/// The OpenClaw agent whose workspace is the default one.
const OPENCLAW_AGENT: &str = "main";

impl Places {
    /// The mirror OpenClaw needs: its workspace, unless that is the memsync workspace.
    pub fn openclaw_mirror(&self) -> Option<MirrorConfig> {
        let dir = self.openclaw_workspace();
        let same = std::fs::canonicalize(&dir).is_ok_and(|w| w == self.workspace);
        (!same).then(|| MirrorConfig {
            agent: OPENCLAW_AGENT.into(),
            dir,
        })
    }
}

fn openclaw(places: &Places, record: &Record, connecting: bool, force: bool, plan: &mut Plan) {
    openclaw_mcp(places, record, connecting, force, plan);
    let workspace = places.openclaw_workspace();
    let needed = places.openclaw_mirror();
    let same = needed.is_none();
    plan.mirror = if connecting {
        needed
    } else {
        record.mirror.clone()
    };
    plan.notes.push(if same {
        format!(
            "OpenClaw's workspace is this workspace: it reads MEMORY.md there; agent `{OPENCLAW_AGENT}`'s ledger is {}",
            places.memory_md(OPENCLAW_AGENT).display()
        )
    } else {
        format!(
            "OpenClaw reads {}/MEMORY.md and memory/YYYY-MM-DD.md: memsync renders agent `{OPENCLAW_AGENT}`'s block there on every sync",
            workspace.display()
        )
    });
    use crate::project::mirror::{Readiness, readiness};
    match readiness(&workspace) {
        _ if same || !connecting => {}
        Readiness::Ready => {}
        Readiness::FirstRun => plan.notes.push(format!(
            "OpenClaw's first run is not over ({} is there): memsync writes nothing into that folder until OpenClaw has removed it, so its first-run ritual still happens",
            workspace.join("BOOTSTRAP.md").display()
        )),
        Readiness::NotSetUp => plan.notes.push(format!(
            "OpenClaw has not set up {} yet: memsync writes nothing there until it has (start OpenClaw once), since a MEMORY.md there would make OpenClaw skip its first-run ritual",
            workspace.display()
        )),
    }
}

/// memsync's MCP server in `openclaw.json`, once OpenClaw has written that
/// file (its setup makes it; memsync never creates it, which would make
/// OpenClaw skip its own setup).
fn openclaw_mcp(places: &Places, record: &Record, connecting: bool, force: bool, plan: &mut Plan) {
    let path = places.openclaw_dir.join("openclaw.json");
    if !path.is_file() {
        if connecting {
            plan.notes.push(format!(
                "{} does not exist yet: run OpenClaw's setup, then `memsync connect openclaw` again to give it the memsync MCP server",
                path.display()
            ));
        }
        return;
    }
    // OpenClaw's agent runs an MCP tool without asking whatever its
    // annotations say, so its server leaves out the tools that write notes
    // unless the person grants them (`--memory-writes`).
    let plain = places.mcp_args();
    let mut args = plain.clone();
    if !places.memory_writes {
        args.push("--read-only".into());
    }
    let exe = places.exe.to_string_lossy().into_owned();
    let (ours, replace) = (args.clone(), may_replace(record, Harness::OpenClaw, force));
    let what = match places.memory_writes {
        true => "the `memsync` MCP server (mcp.servers.memsync), its note-writing tools granted",
        false => {
            "the `memsync` MCP server (mcp.servers.memsync), read-only: OpenClaw would run its note-writing tools without asking you"
        }
    };
    plan.edits.push(Edit {
        path,
        what: what.into(),
        apply: Box::new(move |p, t| super::json5_mcp::OPENCLAW.set(p, t, (&exe, &args), replace)),
        // Either entry is memsync's: with or without `--read-only`.
        undo: Box::new(move |p, t| {
            let without = super::json5_mcp::OPENCLAW.remove(p, t, &ours)?;
            match without == t {
                true => {
                    let mut other = plain.clone();
                    if !ours.iter().any(|a| a == "--read-only") {
                        other.push("--read-only".into());
                    }
                    super::json5_mcp::OPENCLAW.remove(p, t, &other)
                }
                false => Ok(without),
            }
        }),
        empty: edit::is_empty_json,
        whole: true,
        // OpenClaw keeps provider keys in it.
        new_mode: 0o600,
    });
}

/// The block older memsyncs wrote into their machine config, taken out
/// when it holds only what they wrote: harvest and the mirror come from
/// connect's record now, and the config file is the user's alone. One the
/// user added keys to stays, with a note.
fn legacy_machine_block(places: &Places, plan: &mut Plan) {
    let path = places.machine_config.clone();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    if !edit::has_legacy_yaml_block(&text) {
        return;
    }
    if edit::without_legacy_yaml_block(&text).is_none() {
        plan.notes.push(format!(
            "{}: the `# memsync connect` block an older memsync wrote holds keys you added, so it stays as it is; memsync no longer needs it (delete its two marker lines, and `harvest.enabled` if you want harvest off without Codex or OpenClaw)",
            path.display()
        ));
        return;
    }
    let take_out =
        |_: &Path, t: &str| Ok(edit::without_legacy_yaml_block(t).unwrap_or_else(|| t.to_string()));
    plan.edits.push(Edit {
        path,
        what: "the `# memsync connect` block an older memsync wrote (these settings live in connect's record now)".into(),
        apply: Box::new(take_out),
        undo: Box::new(take_out),
        empty: empty_text,
        whole: true,
        new_mode: 0o644,
    });
}

/// A note when the user's machine config turns harvest off: Codex and
/// OpenClaw sessions then never reach the workspace.
fn harvest_off_note(places: &Places, plan: &mut Plan) {
    let off = std::fs::read_to_string(&places.machine_config)
        .ok()
        .and_then(|t| serde_yaml::from_str::<Value>(&t).ok())
        .is_some_and(|v| {
            v.get("harvest")
                .and_then(|h| h.get("enabled"))
                .and_then(Value::as_bool)
                == Some(false)
        });
    if off {
        plan.notes.push(format!(
            "{} sets `harvest.enabled: false`, which wins over connect: this harness's sessions are not captured until you remove it",
            places.machine_config.display()
        ));
    }
}
