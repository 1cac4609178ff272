//! The connection record: which harnesses `connect` wired up, and for each
//! file it changed, whether it created the file and checksums of what it
//! wrote and of what was there before. It holds no text of those files: a
//! harness file can hold API keys and tokens, and a copy of it would be one
//! more place for them. `disconnect` undoes by taking memsync's own parts
//! out, which also works after the harness rewrote the file.
//!
//! Owns: `$XDG_STATE_HOME/memsync/connect.json` (mode 0600). Must not: edit
//! the files it describes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::MirrorConfig;
use crate::error::{ConnectError, Error, Result};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Record {
    /// The harnesses connected on this machine.
    pub harnesses: BTreeSet<String>,
    /// The workspace each harness is connected to. Config loading reads it
    /// (with `mirror`): harvest is on for a workspace while a harvested harness
    /// is connected to it (`config::connected`).
    pub workspaces: BTreeMap<String, PathBuf>,
    /// Every file memsync changed, by absolute path.
    pub files: BTreeMap<PathBuf, FileRecord>,
    /// The hook commands memsync wrote in any harness's settings (only these
    /// are taken out).
    pub hooks: BTreeSet<String>,
    /// The mirror of OpenClaw's workspace, when memsync renders one.
    pub mirror: Option<MirrorConfig>,
    /// The harness whose print mode writes memory sentences
    /// (`connect <harness> --sentences`), while it stays connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentences: Option<SentencesRecord>,
    /// The harnesses whose agent may write notes without asking
    /// (`connect --memory-writes`): the person's grant.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub memory_writes: BTreeSet<String>,
    /// Directories memsync created (for a file, or for this record): the last
    /// disconnect removes those left empty.
    pub dirs: BTreeSet<PathBuf>,
}

/// Who writes the sentences, as `connect --sentences` found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentencesRecord {
    /// The provider, a harness's name (`claude-code`, `codex`, `gemini-cli`).
    pub provider: String,
    /// The harness's program as found on PATH at connect (the daemon's PATH
    /// may not have it).
    pub program: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// memsync created the file.
    pub created: bool,
    /// sha256 of the text before memsync's first change, if the file existed:
    /// `disconnect` says so when taking memsync's parts out of an untouched
    /// file does not give those bytes back.
    #[serde(default)]
    pub original: Option<String>,
    /// sha256 of the text memsync wrote last: equal to the file's means nobody edited it since.
    pub written: String,
    /// How to turn the text memsync wrote back into the original, while
    /// nobody edited it: the span memsync's edit covers, and the few bytes of
    /// layout (whitespace and brackets, never words) it replaced there.
    #[serde(default)]
    pub undo: Option<Patch>,
}

/// How to take memsync's edit back out of the text it wrote: byte spans of
/// that text and what replaces each (the layout memsync changed there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Patch(Vec<Hunk>);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    pub at: usize,
    pub len: usize,
    pub text: String,
}

impl Patch {
    /// The patch that turns `after` back into `original`, when every byte
    /// of the original that memsync's edit replaced is layout: whitespace
    /// and JSON/TOML punctuation. Anything else could be the user's (a key,
    /// a token) and is never copied: then there is no patch.
    pub fn between(original: &str, after: &str) -> Option<Patch> {
        let diff = similar::TextDiff::configure()
            .timeout(std::time::Duration::from_millis(500))
            .diff_chars(original, after);
        let (old_at, new_at) = (char_offsets(original), char_offsets(after));
        let mut hunks = Vec::new();
        for op in diff.ops() {
            if let similar::DiffOp::Equal { .. } = op {
                continue;
            }
            let (old, new) = (op.old_range(), op.new_range());
            let text = &original[old_at[old.start]..old_at[old.end]];
            if !text
                .chars()
                .all(|c| c.is_whitespace() || "[]{},:=".contains(c))
            {
                return None;
            }
            hunks.push(Hunk {
                at: new_at[new.start],
                len: new_at[new.end] - new_at[new.start],
                text: text.to_string(),
            });
        }
        Some(Patch(hunks))
    }

    /// `current` with every span replaced, if they all lie inside it.
    pub fn apply(&self, current: &str) -> Option<String> {
        let mut text = current.to_string();
        for h in self.0.iter().rev() {
            let end = h.at.checked_add(h.len)?;
            text.get(h.at..end)?;
            text.replace_range(h.at..end, &h.text);
        }
        Some(text)
    }
}

/// The byte offset of every char of `text`, and its length at the end.
fn char_offsets(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect()
}

impl Record {
    /// The record at `path`; none yet is an empty record, a broken one an error
    /// (it is never overwritten, since it is what makes the undo exact).
    pub fn load(path: &Path) -> Result<Record> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                ConnectError::Unreadable {
                    path: path.to_path_buf(),
                    reason: format!("not a connection record: {e}; left untouched"),
                }
                .into()
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Record::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Writes the record; once nothing is connected it goes, with the
    /// directories memsync made that are empty now.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        if self.harnesses.is_empty() && self.files.is_empty() {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(path, e)),
            }
            // Deepest first; a directory with anything in it stays.
            for dir in std::mem::take(&mut self.dirs).iter().rev() {
                let _ = std::fs::remove_dir(dir);
            }
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            self.make_dirs(dir)?;
        }
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        crate::files::write_atomic_mode(path, text.as_bytes(), 0o600)
            .map_err(|e| Error::io(path, e))
    }

    /// A record an older memsync wrote names no workspace per harness (its
    /// settings lived in the machine config, for every workspace): its
    /// harnesses belong to the workspace connect runs for now.
    pub fn adopt_unplaced(&mut self, workspace: &Path) {
        for h in &self.harnesses {
            self.workspaces
                .entry(h.clone())
                .or_insert_with(|| workspace.to_path_buf());
        }
    }

    /// Creates `dir` and the parents it lacks, remembering the ones it made.
    pub fn make_dirs(&mut self, dir: &Path) -> Result<()> {
        let missing: Vec<PathBuf> = dir
            .ancestors()
            .take_while(|d| !d.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        self.dirs.extend(missing);
        Ok(())
    }

    /// Notes that memsync changed `path` from `before` to `after`. The first
    /// change keeps the checksum of what was there; a later one keeps the
    /// user's edits since.
    pub fn wrote(&mut self, path: &Path, before: Option<&str>, after: &str) {
        let sha = |t: &str| crate::contract::sha256_hex(t.as_bytes());
        let written = sha(after);
        let old = self.files.get(path).cloned();
        let record = match (old, before) {
            // Untouched since memsync's last write: the original stays the undo's goal.
            (Some(old), Some(b)) if sha(b) == old.written => {
                let original = self.restored(path, b);
                FileRecord {
                    written,
                    undo: original.and_then(|o| Patch::between(&o, after)),
                    ..old
                }
            }
            (old, _) => FileRecord {
                created: old.is_none_or(|o| o.created) && before.is_none(),
                original: before.map(sha),
                undo: before.and_then(|b| Patch::between(b, after)),
                written,
            },
        };
        self.files.insert(path.to_path_buf(), record);
    }

    /// The file as it was before memsync, rebuilt from `current` when
    /// nobody edited it since memsync wrote it and the undo patch gives
    /// exactly the original's bytes back.
    pub fn restored(&self, path: &Path, current: &str) -> Option<String> {
        let r = self.files.get(path)?;
        if r.written != crate::contract::sha256_hex(current.as_bytes()) {
            return None;
        }
        let text = r.undo.as_ref()?.apply(current)?;
        self.is_original(path, &text).then_some(text)
    }

    /// Whether `current` is what memsync wrote last (nobody edited it since).
    pub fn untouched(&self, path: &Path, current: &str) -> bool {
        self.files
            .get(path)
            .is_some_and(|r| r.written == crate::contract::sha256_hex(current.as_bytes()))
    }

    /// Whether `text` is the file as it was before memsync's first change.
    pub fn is_original(&self, path: &Path, text: &str) -> bool {
        self.files.get(path).and_then(|r| r.original.as_deref())
            == Some(crate::contract::sha256_hex(text.as_bytes()).as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_undoes_an_insertion_and_never_holds_a_word() {
        let original = "{\n  \"primaryApiKey\": \"sk-secret\"\n}\n";
        let after = "{\n  \"primaryApiKey\": \"sk-secret\",\n  \"mcpServers\": {\n    \"memsync\": {}\n  }\n}\n";
        let patch = Patch::between(original, after).unwrap();
        assert_eq!(patch.apply(after).as_deref(), Some(original));
        let json = serde_json::to_string(&patch).unwrap();
        assert!(
            !json.contains("sk-secret") && !json.contains("primaryApiKey"),
            "{json}"
        );
    }

    #[test]
    fn an_edit_that_replaced_the_users_words_has_no_patch() {
        assert_eq!(Patch::between("model = \"o3\"\n", "model = \"o4\"\n"), None);
    }
}
