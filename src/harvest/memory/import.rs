//! Harness memory files into notes: new files become notes, changed files
//! rewrite their note (unless it was edited in the workspace), files gone
//! mark their note `source_deleted`. An unchanged file costs one `stat`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::sources::{self, MemoryFile};
use super::{ImportReport, MemoryEntry, display_path, read_place};
use crate::config::{Env, Settings};
use crate::contract;
use crate::error::{Error, Result};
use crate::harness::Harness;
use crate::note::imported::{self, Imported};
use crate::store::copies::{MemoryCopies, MemoryCopy};

/// Imports the memory of `harnesses` into the workspace; returns what it
/// did and the notes it wrote (for the caller to index). `excluded` says
/// whether a project is left out (`harvest.exclude_projects`).
pub fn import(
    settings: &Settings,
    env: &Env,
    now: DateTime<Utc>,
    harnesses: &[Harness],
    excluded: &dyn Fn(&str) -> bool,
    dry_run: bool,
) -> Result<(ImportReport, Vec<String>)> {
    let copies = MemoryCopies::open(&settings.state_dir())?;
    let mut run = Run {
        root: &settings.root,
        home: env.home.as_deref(),
        now,
        copies: &copies,
        known: copies.all()?,
        excluded,
        dry_run,
        projects: HashMap::new(),
        folders: HashMap::new(),
        report: ImportReport::default(),
        touched: Vec::new(),
    };
    for &harness in harnesses {
        let Some(home) = harness.home(&settings.config.harvest, env) else {
            continue;
        };
        let mirror = settings.config.mirrors.first().map(|m| m.dir.as_path());
        let files = sources::list(harness, &home, mirror);
        for f in &files {
            run.one(f)?;
        }
        if home.is_dir() {
            run.gone(harness, &files)?;
        }
    }
    Ok((run.report, run.touched))
}

struct Run<'a> {
    root: &'a Path,
    home: Option<&'a Path>,
    now: DateTime<Utc>,
    copies: &'a MemoryCopies,
    known: HashMap<String, MemoryCopy>,
    excluded: &'a dyn Fn(&str) -> bool,
    dry_run: bool,
    /// Claude Code's project folders resolved this run: (project, remote).
    projects: HashMap<PathBuf, (Option<String>, Option<String>)>,
    /// The note folder chosen for each of Claude Code's project folders this
    /// run: decided once per project, for its nested files too.
    folders: HashMap<PathBuf, String>,
    report: ImportReport,
    touched: Vec<String>,
}

impl Run<'_> {
    fn one(&mut self, f: &MemoryFile) -> Result<()> {
        let place = f.path.to_string_lossy().into_owned();
        let Some(stat) = crate::harvest::stat_of(&f.path) else {
            return Ok(());
        };
        let known = self.known.get(&place).cloned();
        if known
            .as_ref()
            .is_some_and(|k| k.size == stat.size && k.mtime_ns == stat.mtime_ns)
        {
            self.report.unchanged += 1;
            return Ok(());
        }
        let home = self.home;
        let entry = |note: &str, reason: Option<&str>| MemoryEntry {
            harness: f.harness,
            path: display_path(&f.path, home),
            note: note.to_string(),
            reason: reason.map(String::from),
        };
        let text = match self.text_of(f) {
            Ok(t) => t,
            Err(reason) => {
                self.report.skipped.push(entry("", Some(&reason)));
                return Ok(());
            }
        };
        let sha = contract::sha256_hex(text.as_bytes());
        let record = |note: &str, state: &str| MemoryCopy {
            place: place.clone(),
            harness: f.harness.as_str().into(),
            note: note.to_string(),
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            sha256: sha.clone(),
            state: state.into(),
        };
        // What memsync last imported from it or restored into it: not new.
        if let Some(k) = known.as_ref().filter(|k| k.sha256 == sha) {
            self.report.unchanged += 1;
            return self.save(&record(&k.note, &k.state));
        }
        if text.trim().is_empty() {
            self.report.unchanged += 1;
            return Ok(());
        }
        let (project, remote) = self.project_of(f);
        if project.as_deref().is_some_and(|p| (self.excluded)(p)) {
            let reason = "its project is excluded (harvest.exclude_projects)";
            self.report.skipped.push(entry("", Some(reason)));
            return self.save(&record("", "skipped"));
        }
        let note = match &known {
            Some(k) if !k.note.is_empty() => k.note.clone(),
            _ => self.note_path(f, project.as_deref(), remote.as_deref()),
        };
        if self.root.join(crate::note::tombstone_path(&note)).exists() {
            self.report
                .skipped
                .push(entry(&note, Some("forgotten (memsync forget)")));
            return self.save(&record(&note, "skipped"));
        }
        let meta = Imported {
            harness: f.harness.as_str().into(),
            project,
            project_remote: remote,
            source: display_path(&f.path, home),
            file: f.file.clone(),
            source_sha256: sha.clone(),
            imported: contract::format_ts(self.now),
            title: imported::title_of(&text),
            source_deleted: None,
        };
        let existing = read_place(&self.root.join(&note)).map_err(|e| Error::io(&note, e))?;
        let existing = existing.map(|b| String::from_utf8_lossy(&b).into_owned());
        match existing.as_deref().map(imported::parse) {
            None => {
                self.write(&note, &imported::compose(&meta, &text), true)?;
                self.report.imported.push(entry(&note, None));
            }
            Some(Some((_, body))) if body == text => {
                self.report.unchanged += 1;
            }
            Some(Some((old, body))) if !imported::edited(&old, body) => {
                self.write(&note, &imported::compose(&meta, &text), false)?;
                self.report.updated.push(entry(&note, None));
            }
            Some(_) => {
                let reason = "the note was edited in the workspace and the harness's file changed too; both kept as they are";
                self.report.conflicts.push(entry(&note, Some(reason)));
                return self.save(&record(&note, "conflict"));
            }
        }
        self.save(&record(&note, "imported"))
    }

    /// The text a memory file holds: OpenClaw's MEMORY.md without memsync's block.
    fn text_of(&self, f: &MemoryFile) -> std::result::Result<String, String> {
        let bytes = match read_place(&f.path) {
            Ok(Some(b)) => b,
            Ok(None) => return Err("gone while read".into()),
            Err(e) => return Err(e.to_string()),
        };
        if bytes.len() > crate::note::MAX_NOTE_BYTES {
            return Err(format!(
                "larger than {} KB; not imported",
                crate::note::MAX_NOTE_BYTES / 1024
            ));
        }
        let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
        Ok(
            match crate::harnesses::program(f.harness).memory_holds_mirror() {
                true => {
                    let (head, tail) = crate::project::file::outside_block(&text);
                    format!("{}{}", head.trim_end(), tail)
                }
                false => text,
            },
        )
    }

    fn project_of(&mut self, f: &MemoryFile) -> (Option<String>, Option<String>) {
        let Some(dir) = &f.project_dir else {
            return (None, None);
        };
        self.projects
            .entry(dir.clone())
            .or_insert_with(|| {
                let project = crate::harnesses::program(f.harness).memory_project(dir);
                let remote = project
                    .as_deref()
                    .and_then(|p| sources::remote_of(Path::new(p)));
                (project, remote)
            })
            .clone()
    }

    /// `notes/<harness>/[<project>/]<file>`; a folder another project's
    /// import holds already gets a suffix from this project's identity.
    fn note_path(&mut self, f: &MemoryFile, project: Option<&str>, remote: Option<&str>) -> String {
        let harness = f.harness.as_str();
        let Some(dir) = &f.project_dir else {
            return format!("notes/{harness}/{}", f.file);
        };
        if let Some(folder) = self.folders.get(dir) {
            return format!("{folder}/{}", f.file);
        }
        let name = project
            .and_then(|p| p.trim_end_matches('/').rsplit('/').next())
            .map(String::from)
            .unwrap_or_else(|| dir.file_name().unwrap_or_default().to_string_lossy().into());
        let name = safe_segment(&name);
        let plain = format!("notes/{harness}/{name}");
        let folder = match self.other_project_holds(&plain, project, remote) {
            false => plain,
            true => {
                let id = contract::sha256_hex(remote.or(project).unwrap_or_default().as_bytes());
                format!("notes/{harness}/{name}-{}", &id[..6])
            }
        };
        self.folders.insert(dir.clone(), folder.clone());
        format!("{folder}/{}", f.file)
    }

    /// Whether the note folder `folder` holds another project's imports: one
    /// whose remote differs from ours (the same project cloned elsewhere
    /// has the same remote, or none to tell).
    fn other_project_holds(
        &self,
        folder: &str,
        project: Option<&str>,
        remote: Option<&str>,
    ) -> bool {
        let dir = self.root.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return false;
        };
        entries.flatten().any(|e| {
            let Ok(text) = crate::files::read_text_at(e.path()) else {
                return false;
            };
            let Some((meta, _)) = imported::parse(&text) else {
                return false;
            };
            match (meta.project_remote.as_deref(), remote) {
                (Some(a), Some(b)) => a != b,
                _ => meta.project.as_deref() != project && meta.project_remote.is_some(),
            }
        })
    }

    /// Marks the notes of this harness's files that are gone.
    fn gone(&mut self, harness: Harness, present: &[MemoryFile]) -> Result<()> {
        let here: std::collections::HashSet<String> = present
            .iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        let gone: Vec<MemoryCopy> = self
            .known
            .values()
            .filter(|c| c.harness == harness.as_str() && !here.contains(&c.place))
            .filter(|c| !Path::new(&c.place).exists())
            .cloned()
            .collect();
        for c in gone {
            if !c.note.is_empty() && self.mark_deleted(&c.note)? {
                self.report.deleted_upstream.push(MemoryEntry {
                    harness,
                    path: display_path(Path::new(&c.place), self.home),
                    note: c.note.clone(),
                    reason: None,
                });
            }
            if !self.dry_run {
                self.copies.remove(&c.place)?;
            }
        }
        Ok(())
    }

    fn mark_deleted(&mut self, note: &str) -> Result<bool> {
        let Some(bytes) = read_place(&self.root.join(note)).map_err(|e| Error::io(note, e))? else {
            return Ok(false);
        };
        let text = String::from_utf8_lossy(&bytes);
        let Some((mut meta, body)) = imported::parse(&text) else {
            return Ok(false);
        };
        if meta.source_deleted.is_some() {
            return Ok(false);
        }
        meta.source_deleted = Some(contract::format_ts(self.now));
        let marked = imported::compose(&meta, body);
        self.write(note, &marked, false)?;
        Ok(true)
    }

    fn write(&mut self, note: &str, text: &str, new: bool) -> Result<()> {
        if self.dry_run {
            return Ok(());
        }
        let written = match new {
            true => crate::files::write_new_in_workspace(self.root, note, text.as_bytes()),
            false => crate::files::write_in_workspace(self.root, note, text.as_bytes()),
        };
        written.map_err(|e| Error::io(self.root.join(note), e))?;
        self.touched.push(note.to_string());
        Ok(())
    }

    fn save(&self, c: &MemoryCopy) -> Result<()> {
        match self.dry_run {
            true => Ok(()),
            false => self.copies.record(c),
        }
    }
}

/// A folder name from a project's last segment: no separators, not hidden.
fn safe_segment(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' => '-',
            c if c.is_control() => '-',
            c => c,
        })
        .collect();
    let s = s.trim_start_matches('.').trim();
    if s.is_empty() {
        "project".into()
    } else {
        s.into()
    }
}
