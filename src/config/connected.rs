//! The settings `connect` owns: harvest while Codex, OpenClaw, qwen-code, opencode or Cline is connected
//! to this workspace, and OpenClaw's mirror. They come from connect's record
//! (`$XDG_STATE_HOME/memsync/connect.json`), never from a block written into
//! the config file the user edits: so no key the user wrote is ever rewritten,
//! and disconnecting the last harness that needs one takes it away. A key
//! the user set wins over them.
//!
//! Owns: reading those parts of the record. Must not: write anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_yaml::Value;

use super::{Config, MirrorConfig};

/// The parts of connect's record that are settings.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Connected {
    /// The workspace each connected harness was wired to.
    workspaces: BTreeMap<String, PathBuf>,
    mirror: Option<MirrorConfig>,
    sentences: Option<Sentences>,
}

/// `connect <harness> --sentences`: that harness writes the sentences.
#[derive(Debug, Default, Deserialize)]
struct Sentences {
    provider: String,
    program: Option<PathBuf>,
}

/// Adds what the record says to `config` for the workspace at `root`;
/// `merged` is the YAML the user wrote. Returns whether anything came from it.
/// A record that cannot be read adds nothing and stops nothing: it is
/// memsync's state, not the user's config (`doctor` and `connect` report it),
/// and a command run as another user may not even see it.
pub(super) fn apply(config: &mut Config, merged: &Value, root: &Path, record: &Path) -> bool {
    let connected = match std::fs::read_to_string(record) {
        Ok(text) => match serde_json::from_str::<Connected>(&text) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(file = %record.display(), error = %e, "connect's record is not readable; harvest and mirrors from connect are off");
                return false;
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(e) => {
            tracing::debug!(file = %record.display(), error = %e, "connect's record cannot be read");
            return false;
        }
    };
    let Ok(root) = std::fs::canonicalize(root) else {
        return false;
    };
    let here = |harness: &str| connected.workspaces.get(harness) == Some(&root);
    let mut used = false;
    let user_set_harvest = merged
        .get("harvest")
        .and_then(|h| h.get("enabled"))
        .is_some();
    // Connecting a harness whose sessions only harvest brings in turns harvest on.
    let harvested = crate::harness::Harness::ALL
        .into_iter()
        .filter(|h| h.needs_harvest());
    if !user_set_harvest && harvested.map(|h| h.as_str()).any(here) {
        config.harvest.enabled = true;
        used = true;
    }
    let user_set_sentences = merged.get("sentence").is_some_and(|s| {
        s.get("provider").is_some_and(|v| !v.is_null())
            || s.get("command").is_some_and(|v| !v.is_null())
    });
    if let Some(s) = connected.sentences.filter(|s| here(&s.provider))
        && !user_set_sentences
        && let Some(provider) = super::SentenceProvider::parse(&s.provider)
    {
        config.sentence.provider = Some(provider);
        if config.sentence.program.is_none() {
            config.sentence.program = s.program.map(|p| p.display().to_string());
        }
        used = true;
    }
    let mirrored = crate::harness::Harness::ALL
        .into_iter()
        .filter(|h| h.takes_mirror())
        .any(|h| here(h.as_str()));
    if let Some(m) = connected.mirror.filter(|_| mirrored) {
        if !config.mirrors.contains(&m) {
            config.mirrors.push(m);
        }
        used = true;
    }
    used
}
