//! Applying what a sync read to the index: tombstones first, then deletions,
//! then the artifacts and problems of each file read, and every so many
//! files the sessions they touched (after which their bodies and the freed
//! memory go).
//!
//! Owns: the order of writes inside one batch. Must not: read files.

use super::*;

pub(super) fn apply_tombstones(
    b: &Batch<'_>,
    changes: &Changes<'_>,
    touched: &mut BTreeSet<String>,
    report: &mut SyncReport,
) -> Result<()> {
    for (f, outcome, verdict) in changes.tombstones {
        let (stat, sha) = match outcome {
            ReadOutcome::Same { stat, sha } | ReadOutcome::Text { stat, sha, .. } => {
                (*stat, Some(sha.as_str()))
            }
            ReadOutcome::Failed { problem } => {
                b.replace_problems(&f.path, Phase::File, None, std::slice::from_ref(problem))?;
                b.put_file(
                    &f.path,
                    "tombstone",
                    FileStat {
                        mtime_ns: -1,
                        ..f.stat
                    },
                    None,
                    None,
                )?;
                continue;
            }
        };
        match verdict {
            Some(Ok(t)) => {
                b.put_tombstone(t)?;
                b.replace_problems(&f.path, Phase::File, None, &[])?;
            }
            // An invalid tombstone keeps its last good row: removal is never undone by a typo.
            Some(Err(problems)) => b.replace_problems(&f.path, Phase::File, None, problems)?,
            None => {}
        }
        b.put_file(&f.path, "tombstone", stat, sha, None)?;
    }
    for path in changes.deleted_tombstones {
        b.delete_tombstone(path)?;
        b.delete_file(path)?;
        b.clear_path_problems(path)?;
    }
    for (agent, token) in changes
        .tombstoned_after
        .difference(changes.tombstoned_before)
    {
        for path in b.session_paths(agent, token)? {
            b.delete_artifact(&path)?;
            report.removed += 1;
        }
        // Forgotten now: a hand deletion of it is no longer news.
        b.clear_token_problems(token, DELETED_BY_HAND)?;
        touched.insert(token.clone());
    }
    Ok(())
}

/// The rule of the notice a session artifact deleted by hand leaves.
const DELETED_BY_HAND: &str = "artifact.deleted";

pub(super) fn apply_deletions(
    b: &Batch<'_>,
    changes: &Changes<'_>,
    touched: &mut BTreeSet<String>,
    report: &mut SyncReport,
) -> Result<()> {
    let forgotten: HashSet<&str> = changes
        .tombstoned_after
        .iter()
        .map(|(_, t)| t.as_str())
        .collect();
    let mut noticed: HashSet<String> = HashSet::new();
    let mut notices = Vec::new();
    for path in changes
        .deleted
        .iter()
        .filter(|p| scan::classify(p) == FileClass::Artifact)
    {
        let agent = b.artifact_agent(path)?;
        if agent.is_some() {
            report.removed += 1;
        }
        b.delete_artifact(path)?;
        b.delete_file(path)?;
        b.clear_path_problems(path)?;
        let Some(token) = file_token(path) else {
            continue;
        };
        // One notice a session: the path that tells the way back.
        if let Some(agent) = agent
            && !forgotten.contains(token.as_str())
            && noticed.insert(token.clone())
        {
            notices.push((path, agent, token.clone()));
        }
        touched.insert(token);
    }
    // Told once every deletion is applied: what the session still has left.
    for (path, agent, token) in notices {
        let left = b.session_paths(&agent, &token)?.len();
        let notice = deleted_by_hand(path, &agent, &token, left);
        b.insert_problems(Phase::File, Some(&token), &[notice])?;
    }
    Ok(())
}

/// The notice of a session file deleted without `forget`: it left the index,
/// search and MEMORY.md, and nothing keeps a clone, a pull or a re-capture
/// from bringing it back.
fn deleted_by_hand(path: &str, agent: &str, token: &str, left: usize) -> Problem {
    let what_left = match left {
        0 => "its session left search, MEMORY.md and the daily log".to_string(),
        n => format!(
            "its session's {n} other file(s) still hold it, so search, MEMORY.md and the daily log keep it"
        ),
    };
    Problem::warning(
        path,
        DELETED_BY_HAND,
        format!(
            "deleted by hand, not forgotten: {what_left}, and a pull or a clone can bring the file back. To remove the session for good: `memsync forget {token} --agent {agent} --reason …`; to undo: restore the file (Obsidian keeps it in .trash/; `git checkout -- '{path}'`)"
        ),
    )
}

pub(super) fn apply_read(
    b: &Batch<'_>,
    (f, outcome, verdict): &FileRead<'_>,
    tombstoned: &HashSet<(String, String)>,
    touched: &mut BTreeSet<String>,
    report: &mut SyncReport,
) -> Result<()> {
    let token = file_token(&f.path);
    match outcome {
        ReadOutcome::Same { stat, sha } => {
            b.put_file(&f.path, "artifact", *stat, Some(sha), token.as_deref())?;
            return Ok(());
        }
        ReadOutcome::Failed { problem } => {
            // Unreadable for now: keep the last good rows and read again next time.
            if b.mark_stale(&f.path)? {
                report.stale += 1;
            }
            b.replace_problems(
                &f.path,
                Phase::File,
                token.as_deref(),
                std::slice::from_ref(problem),
            )?;
            b.put_file(
                &f.path,
                "artifact",
                FileStat {
                    mtime_ns: -1,
                    ..f.stat
                },
                None,
                token.as_deref(),
            )?;
            return Ok(());
        }
        ReadOutcome::Text { stat, sha, .. } => {
            b.put_file(&f.path, "artifact", *stat, Some(sha), token.as_deref())?;
        }
    }
    let Some(verdict) = verdict else {
        return Ok(());
    };
    let mut problems = verdict.problems.clone();
    if let Some(token) = &token {
        touched.insert(token.clone());
    }
    let previous = b.has_artifact(&f.path)?;
    match &verdict.artifact {
        Some(a) if tombstoned.contains(&(a.agent_id.clone(), a.token.clone())) => {
            problems.push(Problem::error(
                    &f.path,
                    "tombstone.resurrected",
                    format!(
                        "session {} of agent {} was removed ({}); this file is not indexed and should be deleted",
                        a.token,
                        a.agent_id,
                        contract::tombstone_path(&a.agent_id, &a.token)
                    ),
                ));
            if previous {
                b.delete_artifact(&f.path)?;
                report.removed += 1;
            }
        }
        Some(a) => {
            b.put_artifact(a)?;
            report.indexed += 1;
        }
        None => {
            if b.mark_stale(&f.path)? {
                report.stale += 1;
            }
        }
    }
    b.replace_problems(&f.path, Phase::File, token.as_deref(), &problems)
}

/// How many files a batch reads between session refreshes: enough that a
/// session's files (written together, read in path order) rarely straddle two.
pub(super) const REFRESH_EVERY: usize = 1024;

/// Re-checks the link graph and re-derives the session rows of every touched
/// session, then drops the bodies the batch held for them.
pub(super) fn refresh_sessions(
    b: &Batch<'_>,
    touched: &BTreeSet<String>,
    config: &crate::config::Config,
    root: &Path,
    exclusions: &Exclusions,
) -> Result<()> {
    b.set_touched(touched)?;
    let (graphs, present) = b.touched_graph()?;
    let graph_problems: Vec<(String, Problem)> = graphs
        .iter()
        .flat_map(|(token, nodes)| {
            validate::check_graph(nodes, &|p: &str| present.contains(p))
                .into_iter()
                .map(move |p| (token.clone(), p))
        })
        .collect();
    b.replace_touched_graph_problems(&graph_problems)?;
    b.refresh_touched_sessions(&config.sentence, &|rel| load_body(root, rel), &|s| {
        exclusions.shows(s)
    })?;
    b.forget_bodies();
    Ok(())
}

/// Hands the pages freed since the last batch back to the system. glibc
/// keeps what the reading threads freed in their arenas, so a first build of
/// a big workspace grew by half again over what it held at any moment.
/// Big reads call it, and the daemon once a batch is done: what a full
/// scan of the tree freed would otherwise stay with it, growing with the
/// workspace.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages; it touches no live memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Asks the allocator to keep a long-running process's heap as small as
/// what it holds. glibc gives each thread that ever allocates an arena of
/// its own, which keeps its freed pages; and it raises its threshold for
/// mapping big blocks to the largest block freed so far, so a day's log or
/// a full scan's buffers, once freed, are carved from the heap from then
/// on and leave holes `malloc_trim` cannot return. One arena and a fixed
/// threshold keep what the daemon holds at rest to what it uses.
pub fn keep_heap_compact() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator settings, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 * 1024);
    }
}
