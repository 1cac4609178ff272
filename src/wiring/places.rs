//! Every path `connect` and `doctor` read or write, resolved once: memsync's
//! own (the binary, the workspace, the record) and each harness's folder.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::Env;
use crate::harness::Harness;

#[derive(Debug, Clone)]
pub struct Places {
    /// The memsync binary the hooks and MCP entries run.
    pub exe: PathBuf,
    pub workspace: PathBuf,
    /// The memsync agent of the sessions the harnesses bring (`harvest.agent`).
    pub agent: String,
    /// The person's home folder.
    pub home: PathBuf,
    /// The environment, for the folders a harness reads from variables.
    pub env: Env,
    /// Each harness's own folder (where its sessions and settings are).
    pub dirs: BTreeMap<Harness, PathBuf>,
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
    /// `harness`'s own folder (the home folder when it has none of its own).
    pub fn dir(&self, harness: Harness) -> PathBuf {
        self.dirs
            .get(&harness)
            .cloned()
            .unwrap_or_else(|| self.home.clone())
    }

    /// The MEMORY.md of `agent`, absolute.
    pub fn memory_md(&self, agent: &str) -> PathBuf {
        self.workspace.join(crate::contract::memory_md_path(agent))
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

    /// Whether the person granted `target`'s agent the note-writing tools
    /// (`connect --memory-writes`), as the record says.
    pub fn writes_granted(&self, target: Harness) -> bool {
        super::Record::load(&self.record).is_ok_and(|r| r.memory_writes.contains(target.as_str()))
    }

    /// The arguments of the MCP server entry.
    pub fn mcp_args(&self) -> Vec<String> {
        vec![
            "--workspace".into(),
            self.workspace.to_string_lossy().into_owned(),
            "mcp".into(),
        ]
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
