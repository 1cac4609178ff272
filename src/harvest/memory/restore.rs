//! Imported notes back into a harness's memory folder, on a machine that
//! lacks them: the note's harness bytes, unchanged, into the file the
//! harness reads for the same project (found by its path, or by its git
//! remote where the folder sits elsewhere). A file that exists is replaced
//! only when it holds what memsync last imported from it or wrote to it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::sources;
use super::{MemoryEntry, RestoreReport, display_path, read_place};
use crate::config::{Env, Settings};
use crate::contract;
use crate::error::{Error, Result};
use crate::harness::Harness;
use crate::harnesses::{MemoryPlace, program};
use crate::note::imported::{self, Imported};
use crate::store::copies::{MemoryCopies, MemoryCopy};

/// Writes `harness`'s imported notes into its folder on this machine.
/// `cwd` is where the person runs it: the project there counts first.
pub fn restore(
    settings: &Settings,
    env: &Env,
    harness: Harness,
    cwd: &Path,
    dry_run: bool,
) -> Result<RestoreReport> {
    let mut report = RestoreReport {
        dry_run,
        ..Default::default()
    };
    let Some(home) = harness.home(&settings.config.harvest, env) else {
        return Ok(report);
    };
    if !harness.keeps_own_memory() {
        return Ok(report);
    }
    let program = program(harness);
    let notes = imported_notes(&settings.root, harness);
    if notes.is_empty() {
        return Ok(report);
    }
    let copies = MemoryCopies::open(&settings.state_dir())?;
    let known = copies.all()?;
    let mut places = Places {
        cwd,
        known: program.known_projects(&home, env.home.as_deref()),
        found: HashMap::new(),
    };
    for (note, meta, body) in notes {
        let entry = |path: &Path, reason: Option<&str>| MemoryEntry {
            harness,
            path: display_path(path, env.home.as_deref()),
            note: note.clone(),
            reason: reason.map(String::from),
        };
        let place = match program.memory_place(&home, &meta.file, None) {
            MemoryPlace::PerProject => places
                .project_here(&meta)
                .map(|dir| program.memory_place(&home, &meta.file, Some(&dir))),
            place => Some(place),
        };
        let target = match place {
            Some(MemoryPlace::At(target)) => target,
            Some(MemoryPlace::Nowhere | MemoryPlace::PerProject) => continue,
            None => {
                let why = format!(
                    "no folder of project {} on this machine (by path or git remote)",
                    meta.project.as_deref().unwrap_or("?")
                );
                report
                    .no_project_here
                    .push(entry(Path::new(""), Some(&why)));
                continue;
            }
        };
        let place = target.to_string_lossy().into_owned();
        let current = read_place(&target).map_err(|e| Error::io(&target, e))?;
        let sha = contract::sha256_hex(body.as_bytes());
        match current {
            Some(bytes) if bytes == body.as_bytes() => report.unchanged += 1,
            Some(bytes)
                if known
                    .get(&place)
                    .is_none_or(|k| k.sha256 != contract::sha256_hex(&bytes)) =>
            {
                let why = "edited on this machine: kept; the workspace's text stays in the note";
                report.conflicts.push(entry(&target, Some(why)));
                continue;
            }
            _ => {
                if !dry_run {
                    write_place(&target, body.as_bytes())?;
                }
                report.written.push(entry(&target, None));
            }
        }
        if !dry_run && let Some(stat) = crate::harvest::stat_of(&target) {
            copies.record(&MemoryCopy {
                place,
                harness: harness.as_str().into(),
                note: note.clone(),
                size: stat.size,
                mtime_ns: stat.mtime_ns,
                sha256: sha,
                state: "restored".into(),
            })?;
        }
    }
    Ok(report)
}

fn write_place(target: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    crate::files::write_atomic(target, bytes).map_err(|e| Error::io(target, e))
}

/// The current imported notes of `harness` in the workspace, with the
/// harness's bytes: not deleted upstream, not forgotten, and naming a file
/// inside the memory folder (a note from git is not trusted to say where).
fn imported_notes(root: &Path, harness: Harness) -> Vec<(String, Imported, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.join("notes").join(harness.as_str())];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
                stack.push(path);
                continue;
            }
            let Some(rel) = crate::scan::relative(root, &path) else {
                continue;
            };
            if !kind.is_file() || !crate::note::is_note_path(&rel) {
                continue;
            }
            if root.join(crate::note::tombstone_path(&rel)).exists() {
                continue;
            }
            let Ok(text) = crate::files::read_text_at(&path) else {
                continue;
            };
            let Some((meta, body)) = imported::parse(&text) else {
                continue;
            };
            if meta.harness == harness.as_str()
                && meta.source_deleted.is_none()
                && safe_file(&meta.file)
            {
                let body = body.to_string();
                out.push((rel, meta, body));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A relative `/`-separated markdown path with no `..`, nothing hidden.
fn safe_file(file: &str) -> bool {
    file.ends_with(".md")
        && !file.starts_with('/')
        && file
            .split('/')
            .all(|s| !s.is_empty() && !s.starts_with('.') && !s.contains('\\'))
}

/// Finds where a project is on this machine.
struct Places<'a> {
    cwd: &'a Path,
    /// The project folders the harness knows on this machine.
    known: Vec<PathBuf>,
    found: HashMap<(Option<String>, Option<String>), Option<PathBuf>>,
}

impl Places<'_> {
    fn project_here(&mut self, meta: &Imported) -> Option<PathBuf> {
        let key = (meta.project.clone(), meta.project_remote.clone());
        if let Some(found) = self.found.get(&key) {
            return found.clone();
        }
        let found = self.find(meta);
        self.found.insert(key, found.clone());
        found
    }

    fn find(&self, meta: &Imported) -> Option<PathBuf> {
        let remote = meta.project_remote.as_deref();
        let same = |dir: &Path| -> bool {
            match remote {
                Some(r) => sources::remote_of(dir).is_none_or(|here| here == r),
                None => true,
            }
        };
        let by_remote =
            |dir: &Path| remote.is_some() && sources::remote_of(dir).as_deref() == remote;
        let here = crate::repo::work_trees(self.cwd).into_iter().next();
        if let Some(root) = &here {
            let named = meta.project.as_deref() == Some(&*root.to_string_lossy());
            if (named && same(root)) || by_remote(root) {
                return Some(root.clone());
            }
        }
        if let Some(p) = meta.project.as_deref().map(PathBuf::from)
            && p.is_dir()
            && same(&p)
        {
            return Some(p);
        }
        self.known.iter().find(|d| by_remote(d)).cloned()
    }
}
