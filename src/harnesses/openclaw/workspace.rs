//! OpenClaw's workspace: where it is (`openclaw.json`), whether memsync
//! mirrors MEMORY.md into it, and whether OpenClaw has set it up.

use std::path::{Path, PathBuf};

use crate::config::MirrorConfig;
use crate::harness::Harness;
use crate::wiring::Places;

/// The OpenClaw agent whose workspace is the default one.
pub const AGENT: &str = "main";

impl Places {
    /// A value of OpenClaw's `openclaw.json` (JSON5-ish: comments allowed).
    pub fn openclaw_setting(&self, pointer: &str) -> Option<serde_json::Value> {
        let dir = self.dir(Harness::OpenClaw);
        let text = std::fs::read_to_string(dir.join("openclaw.json")).ok()?;
        let value =
            jsonc_parser::parse_to_serde_value::<serde_json::Value>(&text, &Default::default())
                .ok()?;
        value.pointer(pointer).cloned()
    }

    /// OpenClaw's workspace: `agents.defaults.workspace` in `openclaw.json`,
    /// else `<state dir>/workspace`.
    pub fn openclaw_workspace(&self) -> PathBuf {
        let dir = self.dir(Harness::OpenClaw);
        let configured = self
            .openclaw_setting("/agents/defaults/workspace")
            .and_then(|w| w.as_str().map(String::from));
        match configured {
            Some(w) => match (w.strip_prefix("~/"), dir.parent()) {
                (Some(rest), Some(home)) if dir.ends_with(".openclaw") => home.join(rest),
                _ => PathBuf::from(w),
            },
            None => dir.join("workspace"),
        }
    }

    /// The mirror OpenClaw needs: its workspace, unless that is the memsync workspace.
    pub fn openclaw_mirror(&self) -> Option<MirrorConfig> {
        let dir = self.openclaw_workspace();
        let same = std::fs::canonicalize(&dir).is_ok_and(|w| w == self.workspace);
        (!same).then(|| MirrorConfig {
            agent: AGENT.into(),
            dir,
        })
    }
}

/// Whether a mirror folder may be written now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// The folder does not exist, or holds nothing its harness wrote yet.
    NotSetUp,
    /// `BOOTSTRAP.md` is there: OpenClaw's first run has not finished.
    FirstRun,
}

/// OpenClaw's rule, kept from the other side: its first run is pending
/// while BOOTSTRAP.md exists, and a folder with no AGENTS.md, MEMORY.md or
/// `memory/` has not been set up (it would seed BOOTSTRAP.md there, unless
/// memsync's MEMORY.md were already in it).
pub fn readiness(dir: &Path) -> Readiness {
    if dir.join("BOOTSTRAP.md").exists() {
        return Readiness::FirstRun;
    }
    let set_up = ["AGENTS.md", "MEMORY.md", "memory"]
        .iter()
        .any(|name| dir.join(name).exists());
    if set_up {
        Readiness::Ready
    } else {
        Readiness::NotSetUp
    }
}
