//! The shape of a plan (`Edit`, `Plan`) and the edits several harnesses
//! share: the instructions block naming MEMORY.md, an `mcpServers` entry in
//! a file of MCP servers, and the one `settings.json` holding hooks and the
//! MCP server that Gemini CLI and its fork qwen-code read.

use std::path::{Path, PathBuf};

use super::edit::{self, McpEntry as Entry};
use super::{Places, Record, grants};
use crate::config::MirrorConfig;
use crate::error::Result;
use crate::harness::Harness;

pub use super::edit::McpEntry;

/// A file's new text from its path (for errors) and current text.
pub type TextEdit = Box<dyn Fn(&Path, &str) -> Result<String>>;

/// An edit memsync makes to one file, and how to take it back out.
pub struct Edit {
    pub path: PathBuf,
    pub what: String,
    pub apply: TextEdit,
    pub undo: TextEdit,
    /// When the undo leaves this, a file memsync created is removed.
    pub empty: fn(&str) -> bool,
    /// Disconnect takes all of memsync out of the file (false for the machine
    /// config while another connected harness still needs its block).
    pub whole: bool,
    /// Mode of the file when memsync creates it (less the umask): 0600 for
    /// the files harnesses keep secrets in, as the harnesses themselves do.
    pub new_mode: u32,
}

/// The edits of one harness, and what the record should remember.
#[derive(Default)]
pub struct Plan {
    pub edits: Vec<Edit>,
    pub hook_command: Option<String>,
    pub mirror: Option<MirrorConfig>,
    pub notes: Vec<String>,
}

/// What a harness's plan is made for: connecting (or undoing, when
/// `connecting` is false) `target` to the workspace in `places`.
pub struct Connecting<'a> {
    pub target: Harness,
    pub places: &'a Places,
    pub record: &'a Record,
    pub connecting: bool,
    /// `--force`: replace an MCP entry named `memsync` that memsync did not write.
    pub force: bool,
}

impl Connecting<'_> {
    /// Whether `connect` may replace an MCP entry named `memsync` with other
    /// arguments: `--force`, or memsync wrote it (this harness is connected,
    /// to another workspace or from another binary).
    pub fn may_replace(&self) -> bool {
        self.force || self.record.harnesses.contains(self.target.as_str())
    }

    /// The hook command memsync writes, and every one it wrote before (only
    /// those are taken out again).
    pub fn hook_commands(&self) -> (String, Vec<String>) {
        let command = self.places.hook_command(self.target);
        let mut ours: Vec<String> = self.record.hooks.iter().cloned().collect();
        ours.push(command.clone());
        (command, ours)
    }

    /// The MCP server's program and arguments.
    pub fn mcp_command(&self) -> (String, Vec<String>) {
        let places = self.places;
        (places.exe.to_string_lossy().into_owned(), places.mcp_args())
    }
}

pub fn empty_text(text: &str) -> bool {
    text.trim().is_empty()
}

/// The instruction a harness gets in the file it reads at start-up: where
/// MEMORY.md is and which tools reach further.
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

/// The managed block in an instruction file a harness (`name`, in prose)
/// reads at start-up (AGENTS.md, GEMINI.md…), saying where MEMORY.md is.
pub fn memory_block(places: &Places, path: PathBuf, name: &str) -> Edit {
    let memory = places.memory_md(&places.agent);
    let what = format!("a block pointing {name} at {}", memory.display());
    md_block(path, what, memory_instruction(&memory))
}

/// The edit that keeps memsync's block holding `body` in a markdown file.
pub fn md_block(path: PathBuf, what: String, body: String) -> Edit {
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

/// `A, B, C and D`.
pub fn list_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `mcpServers.memsync` in a JSON file of the harness's own that holds only
/// MCP servers, in the entry shape it reads.
pub fn mcp_servers_edit(c: &Connecting, path: PathBuf, entry: Entry) -> Edit {
    let (exe, args) = c.mcp_command();
    let (our_args, replace) = (args.clone(), c.may_replace());
    Edit {
        path,
        what: "the `memsync` MCP server (mcpServers)".into(),
        apply: Box::new(move |p, t| {
            edit::set_mcp_servers_entry(p, t, (&exe, &args), replace, entry)
        }),
        undo: Box::new(move |p, t| edit::remove_mcp_servers_entry(p, t, &our_args)),
        empty: edit::is_empty_json,
        whole: true,
        // Servers' `env` and `headers` hold tokens.
        new_mode: 0o600,
    }
}

/// A harness that keeps hooks and MCP servers (entries without `type`: its
/// settings are checked against a schema) in one `settings.json`, and reads
/// a context file at start-up.
pub struct SettingsJson {
    /// Its name in prose.
    pub name: &'static str,
    pub dir: PathBuf,
    pub events: &'static [&'static str],
    /// In the harness's unit (milliseconds or seconds).
    pub timeout: u64,
    pub context_file: &'static str,
    /// Whether it reads Claude Code's `permissions.allow`, which then lists
    /// memsync's read-only tools (a print-mode run declines every call it
    /// cannot ask about).
    pub allow_rules: bool,
    pub note: &'static str,
}

/// The plan of a `SettingsJson` harness: its hooks, MCP server and grants
/// in `settings.json`, and the block in its context file.
pub fn settings_json(h: &SettingsJson, c: &Connecting, plan: &mut Plan) {
    let (command, ours) = c.hook_commands();
    let hook = command.clone();
    let (exe, args) = c.mcp_command();
    let (our_args, replace) = (args.clone(), c.may_replace());
    let (events, timeout, allow) = (h.events, h.timeout, h.allow_rules);
    let entry = Entry {
        harness: c.target,
        kind: None,
        lists_tools: false,
    };
    plan.edits.push(Edit {
        path: h.dir.join("settings.json"),
        what: format!(
            "{} hooks running `memsync capture --hook {}`, and the `memsync` MCP server (mcpServers){}",
            list_words(events),
            c.target,
            if allow {
                ", its read-only tools in permissions.allow"
            } else {
                ""
            }
        ),
        apply: Box::new(move |p, t| {
            let hooked = edit::add_hooks(p, t, events, (&hook, timeout))?;
            let served = edit::set_mcp_servers_entry(p, &hooked, (&exe, &args), replace, entry)?;
            match allow {
                true => grants::add_allow_rules(p, &served),
                false => Ok(served),
            }
        }),
        undo: Box::new(move |p, t| {
            let t = match allow {
                true => grants::remove_allow_rules(p, t)?,
                false => t.to_string(),
            };
            edit::remove_hooks(p, &edit::remove_mcp_servers_entry(p, &t, &our_args)?, &ours)
        }),
        empty: edit::is_empty_json,
        whole: true,
        // MCP servers' `env` tables and its auth settings hold tokens.
        new_mode: 0o600,
    });
    plan.edits
        .push(memory_block(c.places, h.dir.join(h.context_file), h.name));
    plan.hook_command = Some(command);
    plan.notes.push(h.note.into());
}
