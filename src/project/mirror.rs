//! Mirrors: one agent's MEMORY.md and daily-log blocks copied into a folder
//! outside the workspace that another harness reads (OpenClaw's workspace).
//!
//! Owns: mapping a projection path to its mirror path, and splicing the
//! workspace file's managed block into the mirror file. Must not: change a
//! byte of a mirror file outside memsync's block, write inside the workspace,
//! or write into a folder its harness has not set up yet: OpenClaw takes a
//! MEMORY.md or a `memory/` folder as "set up already" and deletes
//! BOOTSTRAP.md, so its first-run ritual would never happen.

use std::path::{Path, PathBuf};

use super::RenderedFile;
use super::file::{block_range, splice_with, unsplice};
use crate::config::MirrorConfig;
use crate::files::{Replaced, WhileHeld};
use crate::harnesses::{Readiness, readiness};

/// Copies the block of every file this pass rendered for a mirrored agent.
/// A mirror that cannot be written is logged and retried on the next render
/// of that file; it never fails the render of the workspace itself.
/// Returns the mirror files left alone because a writer holds them open
/// (the render keeps them dirty, so a later pass writes them).
pub(super) fn mirror_rendered(
    root: &Path,
    mirrors: &[MirrorConfig],
    rendered: &[RenderedFile],
    while_held: WhileHeld<'_>,
) -> Vec<PathBuf> {
    let mut held = Vec::new();
    for m in mirrors {
        if same_dir(root, &m.dir) {
            tracing::warn!(dir = %m.dir.display(), "mirror is the workspace itself; skipped");
            continue;
        }
        let state = readiness(&m.dir);
        if state != Readiness::Ready {
            tracing::debug!(dir = %m.dir.display(), ?state, "mirror waits");
            continue;
        }
        for f in rendered.iter().filter(|f| f.agent_id == m.agent) {
            let Some(rel) = mirror_rel(&f.path, &m.agent) else {
                continue;
            };
            let target = m.dir.join(rel);
            match mirror_file(root, &f.path, &target, while_held) {
                Ok(Replaced::Held) => held.push(target),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(file = %target.display(), error = %e, "mirror not written")
                }
            }
        }
    }
    held
}

/// Mirrors MEMORY.md and the daily logs of `days` (today's and yesterday's,
/// which OpenClaw reads at start-up) into every ready mirror that lacks
/// memsync's block in them although this pass did not render them: a folder
/// that just became ready (OpenClaw's first run ended, or `connect` just
/// named it) gets the ledger and today's log without waiting for the next
/// session. One small read per file, mirror and pass.
pub(super) fn mirror_missing(
    root: &Path,
    mirrors: &[MirrorConfig],
    days: &[chrono::NaiveDate],
    while_held: WhileHeld<'_>,
) {
    for m in mirrors {
        if same_dir(root, &m.dir) || readiness(&m.dir) != Readiness::Ready {
            continue;
        }
        let sources = std::iter::once(super::memory_md_path(&m.agent))
            .chain(days.iter().map(|d| super::daily_log_path(&m.agent, *d)));
        for source in sources {
            let Some(rel) = mirror_rel(&source, &m.agent) else {
                continue;
            };
            let target = m.dir.join(rel);
            let has_block =
                crate::files::read_text_at(&target).is_ok_and(|text| block_range(&text).is_some());
            if !has_block
                && root.join(&source).is_file()
                && let Err(e) = mirror_file(root, &source, &target, while_held)
            {
                tracing::warn!(file = %target.display(), error = %e, "mirror not written");
            }
        }
    }
}

/// Where a projection of `agent` lives inside a mirror: the workspace path
/// without the agent's folder (the layout OpenClaw reads).
pub fn mirror_rel<'a>(path: &'a str, agent: &str) -> Option<&'a str> {
    if agent == "default" {
        return Some(path);
    }
    path.strip_prefix("agents/")?
        .strip_prefix(agent)?
        .strip_prefix('/')
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    canon(a) == canon(b)
}

/// Splices the block of `root/rel` into `target`; links point back into the
/// workspace, since the artifacts they name are not in the mirror.
fn mirror_file(
    root: &Path,
    rel: &str,
    target: &Path,
    while_held: WhileHeld<'_>,
) -> std::io::Result<Replaced> {
    let source = crate::files::read_text_at(root.join(rel))?;
    let Some((b, e)) = block_range(&source) else {
        return Ok(Replaced::Unchanged);
    };
    let prefix = format!("[[{}/", root.display());
    let block = source[b..e].replace("[[", &prefix);
    // OpenClaw's agents append to these files: splice into the text as it is
    // when written, and keep what they append meanwhile.
    crate::files::replace_preserving_appends(target, while_held, |existing| {
        (super::file::block_count(existing) <= 1)
            .then(|| splice_with(existing, &block, block_range(existing)))
    })
}

/// The files a mirror in `dir` can hold memsync's block in: MEMORY.md and
/// `memory/*.md`, sorted (those that exist or not; readers skip missing ones).
pub fn mirror_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = vec![dir.join("MEMORY.md")];
    match std::fs::read_dir(dir.join("memory")) {
        Ok(entries) => {
            for entry in entries {
                let path = entry?.path();
                if path.extension().is_some_and(|x| x == "md") {
                    files.push(path);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    files.sort();
    Ok(files)
}

/// What taking a mirror away does to each file that holds memsync's block:
/// the file's text without the block, or `None` when nothing else is left
/// (memsync created it, so it goes).
pub fn unmirror_plan(dir: &Path) -> std::io::Result<Vec<(PathBuf, String, Option<String>)>> {
    let files = mirror_files(dir)?;
    let mut plan = Vec::new();
    for path in files {
        let Ok(text) = crate::files::read_text_at(&path) else {
            continue;
        };
        if let Some(range) = block_range(&text) {
            let rest = unsplice(&text, range);
            let after = (!rest.trim().is_empty()).then_some(rest);
            plan.push((path, text, after));
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_waits_for_openclaws_first_run_to_finish() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("workspace");
        assert_eq!(readiness(&ws), Readiness::NotSetUp, "no folder yet");
        std::fs::create_dir(&ws).unwrap();
        assert_eq!(readiness(&ws), Readiness::NotSetUp, "an empty folder");
        std::fs::write(ws.join("AGENTS.md"), "# AGENTS\n").unwrap();
        std::fs::write(ws.join("BOOTSTRAP.md"), "# BOOTSTRAP\n").unwrap();
        assert_eq!(readiness(&ws), Readiness::FirstRun);
        std::fs::remove_file(ws.join("BOOTSTRAP.md")).unwrap();
        assert_eq!(readiness(&ws), Readiness::Ready);
    }

    #[test]
    fn mirror_paths_drop_the_agent_folder() {
        assert_eq!(mirror_rel("MEMORY.md", "default"), Some("MEMORY.md"));
        assert_eq!(
            mirror_rel("agents/main/memory/2026-11-01.md", "main"),
            Some("memory/2026-11-01.md")
        );
        assert_eq!(mirror_rel("agents/mainly/MEMORY.md", "main"), None);
    }
}
