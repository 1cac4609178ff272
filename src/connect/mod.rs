//! `connect` and `disconnect`: wire a harness to its memory (hooks, the MCP
//! server, the instructions file that makes the agent read MEMORY.md, harvest)
//! and take all of it back out again.
//!
//! Owns: planning and applying those edits, atomic writes that keep each
//! file's mode, and the record that makes the undo exact. No copy of a
//! harness file is kept anywhere (they hold API keys and tokens): the undo
//! takes memsync's parts out. Must not: touch the workspace (the caller
//! syncs it afterwards), write through a dangling symlink, into a read-only
//! file or anything but a regular file, or replace an entry it did not write.

mod doctor;
mod plans;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::wiring::{Places, shell_word};
pub use doctor::{Check, Doctor, HarnessReport, Level, doctor};

use crate::wiring::Edit;
use crate::wiring::record::{self, Record};

use crate::harness::Harness;

use crate::error::{ConnectError, Error, Result};

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Update,
    Remove,
}

/// One file's change, planned or done.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub path: PathBuf,
    pub action: Action,
    /// What memsync adds or takes out, in words.
    pub what: String,
    /// Mode of a file memsync creates (less the umask); one that exists keeps its own.
    #[serde(skip)]
    new_mode: u32,
    #[serde(skip)]
    before: Option<String>,
    #[serde(skip)]
    after: Option<String>,
}

/// What `connect` or `disconnect` did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub harness: Harness,
    pub connect: bool,
    pub dry_run: bool,
    pub changes: Vec<Change>,
    /// Things the user should know: where MEMORY.md is, what to restart.
    pub notes: Vec<String>,
}

const MIRROR_BLOCK: &str = "memsync's ledger block (the mirror)";

impl Places {
    /// Every path `connect` reads or writes, resolved from the settings,
    /// the environment and `--config`.
    pub fn resolve(
        settings: &crate::config::Settings,
        env: &crate::config::Env,
        config_flag: Option<&Path>,
    ) -> Result<Places> {
        plans::resolve(settings, env, config_flag)
    }
}

/// Wires `target` to the workspace in `places`.
/// `force` replaces an MCP entry named `memsync` that memsync did not write.
pub fn connect(target: Harness, places: &Places, dry_run: bool, force: bool) -> Result<Report> {
    let sentences = places
        .sentences
        .then(|| sentences_for(target))
        .transpose()?;
    let mut record = Record::load(&places.record)?;
    record.adopt_unplaced(&places.workspace);
    let mut plan = plans::plan(target, places, &record, true, force)?;
    let mut changes = Vec::new();
    for edit in &plan.edits {
        let current = read_text(&edit.path)?;
        let after = (edit.apply)(&edit.path, current.as_deref().unwrap_or(""))?;
        if current.as_deref() != Some(after.as_str()) {
            changes.push(change(edit, current, Some(after)));
        }
    }
    check_writable(&changes)?;
    plan.notes.extend(old_backups(&changes));
    if !dry_run {
        apply(&changes, &mut record)?;
        if let Some(mirror) = &plan.mirror {
            // The daemon may create it; the disconnect takes it out again if empty.
            let notes = mirror.dir.join("memory");
            if !notes.exists() {
                record.dirs.insert(notes);
            }
        }
        record.harnesses.insert(target.as_str().into());
        record
            .workspaces
            .insert(target.as_str().into(), places.workspace.clone());
        record.hooks.extend(plan.hook_command.clone());
        if plan.mirror.is_some() {
            record.mirror = plan.mirror.clone();
        }
        if let Some(s) = &sentences {
            record.sentences = Some(s.clone());
        }
        match places.memory_writes {
            true => record.memory_writes.insert(target.as_str().into()),
            false => record.memory_writes.remove(target.as_str()),
        };
        record.save(&places.record)?;
    }
    if let Some(s) = &sentences {
        plan.notes.push(sentences_note(s));
    }
    Ok(Report {
        harness: target,
        connect: true,
        dry_run,
        changes,
        notes: plan.notes,
    })
}

/// The workspace `connect` wired the harnesses to (the first harness's in
/// connect's order), for commands run with no workspace named anywhere.
pub fn recorded_workspace(env: &crate::config::Env) -> Option<PathBuf> {
    let record = Record::load(&env.connect_record()?).ok()?;
    let ws = &record.workspaces;
    Harness::CONNECT_ORDER
        .into_iter()
        .find_map(|h| ws.get(h.as_str()))
        .or_else(|| ws.values().next())
        .cloned()
}

/// Takes out everything `connect target` added: a file memsync created and
/// nobody edited since goes, a file it changed and nobody edited since gets
/// its old bytes back, and otherwise only memsync's keys or block go.
pub fn disconnect(target: Harness, places: &Places, dry_run: bool) -> Result<Report> {
    let mut record = Record::load(&places.record)?;
    record.adopt_unplaced(&places.workspace);
    let plan = plans::plan(target, places, &record, false, false)?;
    // The plan's notes are for connecting; these say what disconnect could not do.
    let mut notes = Vec::new();
    let mut changes = Vec::new();
    for edit in &plan.edits {
        let Some(current) = read_text(&edit.path)? else {
            continue;
        };
        let after = undone(edit, &record, &current)?;
        if record.untouched(&edit.path, &current)
            && edit.whole
            && !after
                .as_deref()
                .is_none_or(|a| record.is_original(&edit.path, a))
        {
            notes.push(format!(
                "{}: memsync's part is taken out, but the file's layout is not byte for byte what it was before connect (memsync keeps no copy of it)",
                edit.path.display()
            ));
        }
        if after.as_deref() != Some(current.as_str()) {
            changes.push(change(edit, Some(current), after));
        }
    }
    if let Some(mirror) = &plan.mirror {
        for (path, before, after) in crate::project::mirror::unmirror_plan(&mirror.dir)
            .map_err(|e| Error::io(&mirror.dir, e))?
        {
            let what = MIRROR_BLOCK.to_string();
            changes.push(Change {
                action: if after.is_some() {
                    Action::Update
                } else {
                    Action::Remove
                },
                path,
                what,
                new_mode: 0o644,
                before: Some(before),
                after,
            });
        }
    }
    check_writable(&changes)?;
    if !dry_run {
        apply(&changes, &mut record)?;
        for edit in plan.edits.iter().filter(|e| e.whole) {
            record.files.remove(&edit.path);
        }
        for c in &changes {
            if plan.mirror.is_some() && c.what == MIRROR_BLOCK {
                record.files.remove(&c.path);
            }
        }
        if let Some(mirror) = &plan.mirror {
            let notes = mirror.dir.join("memory");
            if record.dirs.remove(&notes) {
                // Only if empty: OpenClaw's own notes may be in it by now.
                let _ = std::fs::remove_dir(&notes);
            }
        }
        record.harnesses.remove(target.as_str());
        record.workspaces.remove(target.as_str());
        record.memory_writes.remove(target.as_str());
        // The hook commands are forgotten once no harness with hooks is
        // connected: until then any of them may still be taken out.
        let hooks_left = record
            .harnesses
            .iter()
            .filter_map(|h| Harness::parse(h))
            .any(Harness::has_hooks);
        if !hooks_left {
            record.hooks.clear();
        }
        if plan.mirror.is_some() {
            record.mirror = None;
        }
        if record
            .sentences
            .as_ref()
            .is_some_and(|s| s.provider == target.as_str())
        {
            record.sentences = None;
            notes.push(format!(
                "{} no longer writes memory sentences; they are composed from each session again",
                target.as_str()
            ));
        }
        record.save(&places.record)?;
    }
    Ok(Report {
        harness: target,
        connect: false,
        dry_run,
        changes,
        notes,
    })
}

/// The text `edit` leaves after disconnect; `None` removes the file (one
/// memsync created that holds nothing else now).
fn undone(edit: &Edit, record: &Record, current: &str) -> Result<Option<String>> {
    if edit.whole && record.untouched(&edit.path, current) {
        let created = record.files.get(&edit.path).is_some_and(|f| f.created);
        if created {
            return Ok(None);
        }
        if let Some(original) = record.restored(&edit.path, current) {
            return Ok(Some(original));
        }
    }
    let after = (edit.undo)(&edit.path, current)?;
    let created = record.files.get(&edit.path).is_some_and(|f| f.created);
    Ok((!(edit.whole && created && (edit.empty)(&after))).then_some(after))
}

fn change(edit: &Edit, before: Option<String>, after: Option<String>) -> Change {
    let action = match (&before, &after) {
        (None, _) => Action::Create,
        (Some(_), None) => Action::Remove,
        (Some(_), Some(_)) => Action::Update,
    };
    Change {
        path: edit.path.clone(),
        action,
        what: edit.what.clone(),
        new_mode: edit.new_mode,
        before,
        after,
    }
}

/// Refuses, before anything is written, a change to a file this user
/// cannot write: a read-only file is the user's way of saying "not this one".
fn check_writable(changes: &[Change]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for c in changes {
        // The mode too, not only access(2): root may write anything.
        let read_only =
            std::fs::metadata(&c.path).is_ok_and(|m| m.permissions().mode() & 0o200 == 0);
        if c.before.is_some() && (read_only || !crate::files::writable(&c.path)) {
            return Err(ConnectError::Unreadable {
                path: c.path.clone(),
                reason: "read-only; left untouched (make it writable, or make the change by hand)"
                    .into(),
            }
            .into());
        }
    }
    Ok(())
}

/// Copies an older memsync left beside the files it changes (they can hold
/// API keys): made no more readable than the file itself, and named.
fn old_backups(changes: &[Change]) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut notes = Vec::new();
    for c in changes {
        let backup = backup_path(&c.path);
        let Ok(meta) = std::fs::metadata(&backup) else {
            continue;
        };
        let own = std::fs::metadata(&c.path).map_or(0o600, |m| m.permissions().mode() & 0o777);
        let mode = meta.permissions().mode() & 0o777;
        if mode & !own != 0 {
            let _ = std::fs::set_permissions(&backup, std::fs::Permissions::from_mode(mode & own));
        }
        notes.push(format!(
            "{} is a copy an older memsync made before its first change (it may hold your keys; now mode {:o}): memsync no longer needs it, delete it when you do not",
            backup.display(),
            mode & own
        ));
    }
    notes
}

/// Writes every change atomically (through a symlink to its target, so
/// dotfile managers keep their link), keeping the file's mode, and notes it
/// in the record.
fn apply(changes: &[Change], record: &mut Record) -> Result<()> {
    for c in changes {
        let target = std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone());
        match &c.after {
            Some(after) => {
                if let Some(dir) = target.parent() {
                    record.make_dirs(dir)?;
                }
                crate::files::write_atomic_mode(&target, after.as_bytes(), c.new_mode)
                    .map_err(|e| Error::io(&target, e))?;
                record.wrote(&c.path, c.before.as_deref(), after);
            }
            None => match std::fs::remove_file(&target) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&target, e)),
            },
        }
    }
    Ok(())
}

/// `settings.json` -> `settings.json.memsync-backup`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".memsync-backup");
    path.with_file_name(name)
}

/// The file's text; `None` when it does not exist. A file that is not UTF-8
/// is not memsync's to edit, nor is anything but a regular file (reading a
/// FIFO would hang), nor a symlink to nothing (writing would replace the link).
fn read_text(path: &Path) -> Result<Option<String>> {
    let refuse = |reason: String| -> Error {
        ConnectError::Unreadable {
            path: path.to_path_buf(),
            reason,
        }
        .into()
    };
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(refuse(
                "not a regular file (a directory, FIFO or device); left untouched".into(),
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && link => {
            let to = std::fs::read_link(path).unwrap_or_default();
            return Err(refuse(format!(
                "a symbolic link to {}, which does not exist; left untouched (create the target, or remove the link)",
                to.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    }
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| refuse("not UTF-8 text; left untouched".into())),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// What `connect target --sentences` records: the harness as the sentence
/// provider, with its program as found on PATH now.
fn sentences_for(target: Harness) -> Result<record::SentencesRecord> {
    let program = crate::capture::model::harness::default_program(target)
        .filter(|_| target.writes_sentences())
        .ok_or_else(|| {
            Error::Usage(crate::error::UsageError::Value {
                flag: "--sentences",
                value: target.as_str().to_string(),
                reason: format!(
                    "works with {} (their print modes); for another model set sentence.provider in the machine config (docs/CONFIGURATION.md)",
                    crate::harness::spoken_list(
                        Harness::ALL.into_iter().filter(|h| h.writes_sentences()),
                        "and"
                    )
                ),
            })
        })?;
    Ok(record::SentencesRecord {
        provider: target.as_str().to_string(),
        program: on_path(program),
    })
}

fn sentences_note(s: &record::SentencesRecord) -> String {
    let program = s.program.as_ref().map_or_else(
        || "(not found on PATH: set sentence.program)".to_string(),
        |p| p.display().to_string(),
    );
    format!(
        "memory sentences: each captured session's sentence is now written by {} ({program}) with your own login and model, at most sentence.per_minute calls a minute, the composed sentence as the fallback; `memsync status` counts them, `memsync disconnect {}` stops it",
        s.provider, s.provider
    )
}

/// `program` as the shell would find it on PATH.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}
