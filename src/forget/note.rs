//! `forget notes/x.md`: privacy removal of one note. As for a session, the
//! tombstone is written first (`notes/.forgotten/<digest>.md`, in git, so
//! every clone honours it), then the file is deleted and its rows dropped.
//! A tombstoned path is never indexed again, wherever the file reappears
//! from, and `harvest` never imports a harness file into it again. The
//! harness's own file (for an imported note) is not memsync's: the report
//! names it.
//!
//! Owns: the order of a note's removal. Must not: touch another file.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::ForgetOutcome;
use crate::config::Settings;
use crate::error::{Error, Result, UsageError};
use crate::pipeline::{self, SyncOptions};
use crate::store::Index;

/// Whether `target` names a note rather than a session.
pub fn is_note_target(target: &str) -> bool {
    let t = target.trim().trim_start_matches("./");
    t.ends_with(".md")
        && crate::note::is_note_path(t)
        && crate::scan::classify(t) == crate::scan::FileClass::Note
}

/// What `forget` would do (or did) to a note.
#[derive(Debug, Clone, Serialize)]
pub struct NoteForget {
    pub outcome: ForgetOutcome,
    pub path: String,
    pub tombstone: String,
    /// Whether the file was there (and is, or would be, deleted).
    pub removed: bool,
    /// The harness file an imported note was read from: still there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub harness_file: Option<String>,
    pub dry_run: bool,
}

/// Forgets the note at `target` (a workspace-relative path).
pub fn forget_note(
    settings: &Settings,
    now: DateTime<Utc>,
    target: &str,
    reason: &str,
    dry_run: bool,
) -> Result<NoteForget> {
    let path = target.trim().trim_start_matches("./").to_string();
    crate::files::check_real_dirs(&settings.root, &path).map_err(|e| Error::io(&path, e))?;
    let abs = settings.root.join(&path);
    let tombstone = crate::note::tombstone_path(&path);
    let already = settings.root.join(&tombstone).exists();
    let text = match crate::files::read_file_at(&abs) {
        Ok(b) => Some(String::from_utf8_lossy(&b).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(abs, e)),
    };
    if text.is_none() && !already {
        return Err(UsageError::UnknownNote { path }.into());
    }
    let harness_file = text
        .as_deref()
        .and_then(crate::note::imported::parse)
        .map(|(meta, _)| meta.source);
    let report = NoteForget {
        outcome: match already {
            true => ForgetOutcome::AlreadyForgotten,
            false => ForgetOutcome::Forgotten,
        },
        path: path.clone(),
        tombstone: tombstone.clone(),
        removed: text.is_some(),
        harness_file: harness_file.clone(),
        dry_run,
    };
    if dry_run {
        return Ok(report);
    }
    if !already {
        let body = tombstone_text(&path, now, reason.trim(), harness_file.as_deref());
        crate::files::write_in_workspace(&settings.root, &tombstone, body.as_bytes())
            .map_err(|e| Error::io(settings.root.join(&tombstone), e))?;
    }
    if text.is_some() {
        match std::fs::remove_file(&abs) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(abs, e)),
        }
    }
    let mut index = Index::open(&settings.index_path())?;
    pipeline::sync_paths(&mut index, settings, now, SyncOptions::RENDER, &[path])?;
    Ok(report)
}

fn tombstone_text(path: &str, now: DateTime<Utc>, reason: &str, source: Option<&str>) -> String {
    let mut keys = serde_yaml::Mapping::new();
    let mut put = |k: &str, v: &str| {
        keys.insert(k.into(), v.into());
    };
    put("kind", "note-tombstone");
    put("path", path);
    put("removed_at", &crate::contract::format_ts(now));
    put("reason", reason);
    if let Some(s) = source {
        put("harness_file", s);
    }
    let yaml = serde_yaml::to_string(&keys).unwrap_or_default();
    format!("---\n{yaml}---\n")
}
