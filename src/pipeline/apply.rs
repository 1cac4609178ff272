//! Applying what a sync read to the index: tombstones first, then deletions,
//! then the artifacts and problems of each file read.
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
        touched.insert(token.clone());
    }
    Ok(())
}

pub(super) fn apply_deletions(
    b: &Batch<'_>,
    deleted: &[String],
    touched: &mut BTreeSet<String>,
    report: &mut SyncReport,
) -> Result<()> {
    for path in deleted
        .iter()
        .filter(|p| scan::classify(p) == FileClass::Artifact)
    {
        if b.has_artifact(path)? {
            report.removed += 1;
        }
        b.delete_artifact(path)?;
        b.delete_file(path)?;
        b.clear_path_problems(path)?;
        if let Some(token) = file_token(path) {
            touched.insert(token);
        }
    }
    Ok(())
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
