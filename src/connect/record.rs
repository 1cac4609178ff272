//! The connection record: which harnesses `connect` wired up, and for each
//! file it changed, whether it created the file and what the file held
//! before, so `disconnect` can undo exactly what `connect` did.
//!
//! Owns: `$XDG_STATE_HOME/memsync/connect.json`. Must not: edit the files it describes.

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
    /// Every file memsync changed, by absolute path.
    pub files: BTreeMap<PathBuf, FileRecord>,
    /// The Claude Code hook commands memsync wrote (only these are taken out).
    pub hooks: BTreeSet<String>,
    /// The mirror of OpenClaw's workspace, when memsync renders one.
    pub mirror: Option<MirrorConfig>,
    /// Directories memsync created (for a file, or for this record): the last
    /// disconnect removes those left empty.
    pub dirs: BTreeSet<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    /// memsync created the file.
    pub created: bool,
    /// The text before memsync's first change (after the user's last edit), if the file existed.
    pub before: Option<String>,
    /// sha256 of the text memsync wrote last: equal to the file's means nobody edited it since.
    pub written: String,
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
        crate::files::write_atomic(path, text.as_bytes()).map_err(|e| Error::io(path, e))
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
    /// change keeps what was there; a later one keeps the user's edits since.
    pub fn wrote(&mut self, path: &Path, before: Option<&str>, after: &str) {
        let written = crate::contract::sha256_hex(after.as_bytes());
        let entry = self.files.get(path).cloned();
        let record = match entry {
            Some(old)
                if before.map(|b| crate::contract::sha256_hex(b.as_bytes()))
                    == Some(old.written.clone()) =>
            {
                FileRecord { written, ..old }
            }
            Some(old) => FileRecord {
                created: old.created && before.is_none(),
                before: before.map(String::from),
                written,
            },
            None => FileRecord {
                created: before.is_none(),
                before: before.map(String::from),
                written,
            },
        };
        self.files.insert(path.to_path_buf(), record);
    }

    /// The file as it was before memsync, when nobody changed it since memsync
    /// wrote it: `Some(None)` means memsync created it.
    pub fn untouched_original(&self, path: &Path, current: &str) -> Option<Option<String>> {
        let record = self.files.get(path)?;
        (record.written == crate::contract::sha256_hex(current.as_bytes()))
            .then(|| record.before.clone())
    }
}
