//! `forget`: privacy removal of one session. The tombstone is written first
//! (so a crash at any later point still keeps the session out), then the
//! session's canonical files are deleted, its rows purged, and the projections
//! re-rendered by the same pipeline as `sync`.
//!
//! Owns: resolving what to forget and the order of removal. Must not: touch
//! another session's files or anything outside `memory/`.

mod note;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use note::{NoteForget, forget_note, is_note_target};

use crate::compose;
use crate::config::Settings;
use crate::contract;
use crate::error::{Error, Result};
use crate::pipeline::{self, SyncOptions};
use crate::store::Index;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForgetOutcome {
    Forgotten,
    /// The tombstone already existed; leftovers (if any) were removed again.
    AlreadyForgotten,
}

#[derive(Debug, Clone, Serialize)]
pub struct ForgetReport {
    pub outcome: ForgetOutcome,
    pub agent_id: String,
    pub token: String,
    pub tombstone: String,
    /// Canonical files this call deleted.
    pub removed: Vec<String>,
    /// Copies in the system trash (Obsidian's "move to system trash"):
    /// outside the workspace, so named with the command, never deleted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub in_system_trash: Vec<std::path::PathBuf>,
    pub projections_written: Vec<String>,
    pub jobs_removed: usize,
    /// In a git work tree: the history that still holds the session's text.
    pub git_history: Option<crate::git::SessionHistory>,
}

/// Forgets the session named by `target`: a token, a session id or a session key.
pub fn forget(
    settings: &Settings,
    now: DateTime<Utc>,
    target: &str,
    reason: &str,
    agent: Option<&str>,
) -> Result<ForgetReport> {
    if reason.trim().is_empty() {
        return Err(crate::error::UsageError::Missing {
            flag: "--reason",
            reason: "must say why (it is recorded in the tombstone)",
        }
        .into());
    }
    let mut index = Index::open(&settings.index_path())?;
    let (agent_id, token) = resolve(settings, &index, target, agent)?;
    let _lock = crate::capture::session_lock(settings, &agent_id, &token)?;
    let files = crate::capture::session_file_paths(&settings.root, &token)?;
    let trashed = trashed_copies(&settings.root, &token);
    let session_ids = crate::capture::session_ids(&settings.root, &token)?;
    let tombstone = contract::tombstone_path(&agent_id, &token);
    let tombstone_abs = settings.root.join(&tombstone);
    let outcome = if tombstone_abs.exists() {
        ForgetOutcome::AlreadyForgotten
    } else {
        let (_, text) = compose::tombstone(&agent_id, &token, now, reason.trim(), &files);
        crate::files::write_in_workspace(&settings.root, &tombstone, text.as_bytes())
            .map_err(|e| Error::io(&tombstone_abs, e))?;
        ForgetOutcome::Forgotten
    };
    crate::capture::failpoint("after-tombstone");
    let mut removed = Vec::new();
    // What Obsidian's "move to trash" put in the vault's `.trash/` holds the
    // same text: forgotten too.
    for rel in files.iter().chain(&trashed) {
        let abs = settings.root.join(rel);
        match std::fs::remove_file(&abs) {
            Ok(()) => removed.push(rel.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(abs, e)),
        }
    }
    crate::capture::failpoint("after-delete");
    let mut paths = files.clone();
    paths.push(tombstone.clone());
    let report = pipeline::sync_paths(&mut index, settings, now, SyncOptions::RENDER, &paths)?;
    index.purge_forgotten(&agent_id, &token)?;
    let mut jobs_removed = 0;
    if let Some(queue) = crate::jobs::JobQueue::open_existing(&settings.state_dir())? {
        for id in &session_ids {
            jobs_removed += queue.forget(&agent_id, id)?;
        }
    }
    let git_history = crate::git::session_history(&settings.root, &token);
    let in_system_trash = system_trash_copies(&crate::config::Env::from_process(), &token);
    Ok(ForgetReport {
        outcome,
        agent_id,
        token,
        tombstone,
        removed,
        in_system_trash,
        projections_written: report.projections_written,
        jobs_removed,
        git_history,
    })
}

/// What `forget` would do to a session, done nothing yet.
#[derive(Debug, Clone, Serialize)]
pub struct ForgetPlan {
    pub agent_id: String,
    pub token: String,
    /// Its canonical files, which would be removed.
    pub files: Vec<String>,
    /// The tombstone that would keep it out for good.
    pub tombstone: String,
    pub already_forgotten: bool,
}

/// The session `target` names and its files: what `forget` would remove.
pub fn plan(settings: &Settings, target: &str, agent: Option<&str>) -> Result<ForgetPlan> {
    let index = Index::open(&settings.index_path())?;
    let (agent_id, token) = resolve(settings, &index, target, agent)?;
    let mut files = crate::capture::session_file_paths(&settings.root, &token)?;
    files.extend(trashed_copies(&settings.root, &token));
    let tombstone = contract::tombstone_path(&agent_id, &token);
    let already_forgotten = settings.root.join(&tombstone).exists();
    Ok(ForgetPlan {
        agent_id,
        token,
        files,
        tombstone,
        already_forgotten,
    })
}

/// The session's files that Obsidian moved to the vault's trash
/// (`.trash/`, its "move to Obsidian trash" setting), workspace-relative:
/// regular `.md` files named for the session's token (Obsidian keeps a
/// file's name, adding ` 1` when the trash holds one already), at most
/// three folders deep; links are not followed.
fn trashed_copies(root: &std::path::Path, token: &str) -> Vec<String> {
    let mark = format!("--{token}--");
    let mut out = Vec::new();
    let mut dirs = vec![(root.join(".trash"), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(kind) = e.file_type() else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            if kind.is_dir() && depth < 3 {
                dirs.push((e.path(), depth + 1));
            } else if kind.is_file() && name.contains(&mark) && name.ends_with(".md") {
                out.extend(crate::scan::relative(root, &e.path()));
            }
        }
    }
    out.sort();
    out
}

/// The session's files in the system trash, where Obsidian's "move to
/// system trash" puts them: the freedesktop trash (`$XDG_DATA_HOME/Trash/files`,
/// else `~/.local/share/Trash/files`) and macOS's `~/.Trash`. Only read.
pub fn system_trash_copies(env: &crate::config::Env, token: &str) -> Vec<std::path::PathBuf> {
    let mark = format!("--{token}--");
    let data =
        (env.xdg_data_home.clone()).or_else(|| env.home.as_ref().map(|h| h.join(".local/share")));
    let dirs = [
        data.map(|d| d.join("Trash/files")),
        env.home.as_ref().map(|h| h.join(".Trash")),
    ];
    let mut out: Vec<std::path::PathBuf> = dirs
        .into_iter()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.contains(&mark) && name.contains(".md")
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The (agent, token) `target` names: a token as it is; else a session id or
/// key, looked up in the index and tried against both token rules on disk.
fn resolve(
    settings: &Settings,
    index: &Index,
    target: &str,
    agent: Option<&str>,
) -> Result<(String, String)> {
    let target = target.trim();
    if let Some(a) = agent
        && !contract::is_valid_agent_id(a)
    {
        return Err(Error::value(
            "--agent",
            a,
            "must match ^[a-z0-9][a-z0-9-]*$",
        ));
    }
    let mut found = index.find_sessions(target, agent)?;
    // Not indexed (a sync never ran): a token as it is, or the token of the
    // target taken as a session id or key (both token rules hash it alike).
    let agent_default = agent.unwrap_or("default");
    let token = if contract::is_token(target) {
        target.to_string()
    } else {
        contract::session_token(agent_default, target)
    };
    let on_disk = !crate::capture::session_file_paths(&settings.root, &token)?.is_empty()
        || settings
            .root
            .join(contract::tombstone_path(agent_default, &token))
            .exists()
        // Deleted by hand: its files are gone, the notice remembers it.
        || index.token_has_problem(&token, "artifact.deleted")?;
    if on_disk {
        found.push((agent_default.to_string(), token));
    }
    found.retain(|(fa, _)| agent.is_none_or(|a| a == fa));
    found.sort();
    found.dedup();
    one_session(target, agent, found)
}

/// The single session a lookup found, or why there is not exactly one.
pub fn one_session(
    target: &str,
    agent: Option<&str>,
    found: Vec<(String, String)>,
) -> Result<(String, String)> {
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::unknown_session(format!(
            "{target:?}{}: no token, session id or session key matches",
            agent
                .map(|a| format!(" for agent {a:?}"))
                .unwrap_or_default()
        ))),
        many => Err(crate::error::UsageError::AmbiguousSession {
            session: target.to_string(),
            candidates: many.iter().map(|(a, t)| format!("{a}/{t}")).collect(),
        }
        .into()),
    }
}
