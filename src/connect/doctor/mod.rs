//! `doctor`: per harness found on this machine, what is connected, whether it
//! works, and the command that fixes each gap.
//!
//! Owns: the checks. Must not: change anything.

use std::path::Path;

use serde::Serialize;

mod sentences;

use super::Harness;
use crate::config::Settings;
use crate::error::Result;
use crate::harnesses::program;
pub use crate::wiring::{Check, Level};
use crate::wiring::{Doctoring, Places, broken, missing, ok, shell_word, state};

#[derive(Debug, Clone, Serialize)]
pub struct HarnessReport {
    pub harness: Harness,
    pub dir: std::path::PathBuf,
    /// Some part of memsync is wired into it.
    pub connected: bool,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    pub workspace: std::path::PathBuf,
    pub daemon_running: bool,
    /// The workspace's own state: what git pulls left in stash entries.
    pub workspace_checks: Vec<Check>,
    pub harnesses: Vec<HarnessReport>,
}

impl Doctor {
    /// Something connected does not work.
    pub fn broken(&self) -> bool {
        self.harnesses
            .iter()
            .flat_map(|h| &h.checks)
            .chain(&self.workspace_checks)
            .any(|c| c.level == Level::Broken)
    }
}

pub fn doctor(settings: &Settings, places: &Places) -> Result<Doctor> {
    let record = crate::wiring::Record::load(&places.record)?;
    let demo = crate::example::is_demo(&settings.root);
    let daemon_running = crate::service::daemon_running(settings);
    let mut harnesses = Vec::new();
    for target in Harness::CONNECT_ORDER {
        let dir = places.dir(target);
        if !dir.is_dir() {
            continue;
        }
        let elsewhere = record
            .workspaces
            .get(target.as_str())
            .filter(|w| **w != places.workspace);
        if let Some(w) = elsewhere {
            // Its checks would measure it against the wrong workspace.
            harnesses.push(HarnessReport {
                harness: target,
                dir: dir.clone(),
                connected: true,
                checks: vec![state(ok(format!(
                    "connected to another workspace, {}: `memsync --workspace {} doctor` checks it",
                    w.display(),
                    shell_word(&w.to_string_lossy())
                )))],
            });
            continue;
        }
        let last_job = || last_job(settings);
        let harvest = || harvest_check(settings, places, target, daemon_running);
        let mut checks = program(target).doctor(&Doctoring {
            target,
            places,
            settings,
            last_job: &last_job,
            harvest: &harvest,
        });
        let connected = record.harnesses.contains(target.as_str())
            || checks.iter().any(|c| c.part && c.level != Level::Missing);
        checks.push(state(ok(imported_memory(&settings.root, target))));
        let fix = connect_fix(target, &places.workspace, demo);
        for c in &mut checks {
            // A gap in a harness that is partly connected is broken; in one
            // never connected it is only not set up.
            match c.level {
                Level::Missing if connected => c.level = Level::Broken,
                Level::Broken if !connected && !c.part => c.level = Level::Missing,
                _ => {}
            }
            if c.level != Level::Ok && c.fix.is_none() {
                c.fix = Some(fix.clone());
            }
        }
        harnesses.push(HarnessReport {
            harness: target,
            dir: dir.clone(),
            connected,
            checks,
        });
    }
    Ok(Doctor {
        workspace: places.workspace.clone(),
        daemon_running,
        workspace_checks: git_stashes(&settings.root)
            .into_iter()
            .chain(sentences::checks(settings))
            .collect(),
        harnesses,
    })
}

/// How many notes the workspace holds from this harness's own memory.
fn imported_memory(root: &Path, target: Harness) -> String {
    let dir = root.join("notes").join(target.as_str());
    let n = walk_markdown(&dir);
    match n {
        0 => "its own memory: no note imported yet (`memsync harvest` imports it)".into(),
        n => format!(
            "its own memory: {n} notes imported in notes/{}/ (`connect` writes them back on a machine that lacks them)",
            target.as_str()
        ),
    }
}

fn walk_markdown(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => walk_markdown(&e.path()),
            Ok(t) if t.is_file() && e.file_name().to_string_lossy().ends_with(".md") => 1,
            _ => 0,
        })
        .sum()
}

/// The command that connects `target` to this workspace, naming it (so it
/// holds whatever the environment says); never one that wires a harness to
/// the demo.
fn connect_fix(target: Harness, workspace: &Path, demo: bool) -> String {
    if demo {
        return format!(
            "this is the demo workspace; connect your own: memsync init DIR && memsync --workspace DIR connect {}",
            target.as_str()
        );
    }
    format!(
        "memsync --workspace {} connect {}",
        shell_word(&workspace.to_string_lossy()),
        target.as_str()
    )
}

/// Autostash entries holding only projections (lines an agent reads, hidden
/// in git's stash) and a stuck `MERGE_AUTOSTASH` (every later pull fails);
/// an entry of the person's own files is git's business, not memsync's.
fn git_stashes(root: &Path) -> Vec<Check> {
    let left = match crate::git::left_stashes(root) {
        Ok(left) => left,
        Err(e) => return vec![state(broken(format!("cannot list git's stash: {e}"), None))],
    };
    left.into_iter()
        .filter(|s| s.projections_only || s.name == "MERGE_AUTOSTASH")
        .map(|s| {
            let fix = match s.projections_only {
                true => "memsync sync (merges the lines back and drops the entry)".to_string(),
                false => "git stash store -m autostash $(git rev-parse MERGE_AUTOSTASH) && git update-ref -d MERGE_AUTOSTASH".to_string(),
            };
            state(broken(
                format!("git {}: a pull left {} in it", s.name, s.paths.join(", ")),
                Some(fix),
            ))
        })
        .collect()
}

/// Start and prompt hooks answer at once and queue nothing, so only a
/// session's end shows here (qwen-code's doctor said "no hook has fired
/// yet" after two hooks had answered).
const NO_JOB_YET: &str = "no session has ended through a hook yet (start and prompt hooks answer at once and queue no job)";

fn last_job(settings: &Settings) -> Check {
    match crate::store::jobs::JobQueue::open_existing(&settings.state_dir()) {
        Ok(Some(q)) => match (q.failed_since_success(), q.last()) {
            (Ok(failed), _) if failed.len() > 1 => broken(
                format!(
                    "{} hook jobs failed since the last one that succeeded; the newest ({} of {}): {}",
                    failed.len(),
                    failed[0].kind,
                    failed[0].session_id,
                    failed[0].last_error.clone().unwrap_or_default()
                ),
                Some("memsync status; memsync capture jobs".into()),
            ),
            (Err(e), _) => broken(crate::error::message(&e), None),
            (_, last) => last_job_check(last),
        },
        Ok(None) => ok(NO_JOB_YET),
        Err(e) => broken(crate::error::message(&e), None),
    }
}

fn last_job_check(last: Result<Option<crate::store::jobs::JobRow>>) -> Check {
    match last {
        Ok(Some(job)) if job.state == "failed" => broken(
            format!(
                "last hook job ({} of {}, {}): failed: {}",
                job.kind,
                job.session_id,
                job.updated_at,
                job.last_error.unwrap_or_default()
            ),
            Some("memsync status; memsync capture jobs".into()),
        ),
        Ok(Some(job)) => ok(format!(
            "last hook job: {} of {} {} at {}",
            job.kind, job.session_id, job.state, job.updated_at
        )),
        Ok(None) => ok(NO_JOB_YET),
        Err(e) => broken(crate::error::message(&e), None),
    }
}

/// Harvest is how Codex, OpenClaw, opencode, Cline and `qwen -p` sessions arrive: it must be on, find
/// sessions it can read, and run (the daemon, or a person running it).
fn harvest_check(settings: &Settings, places: &Places, harness: Harness, daemon: bool) -> Check {
    let h = &settings.config.harvest;
    let name = harness.as_str();
    if !h.enabled {
        return missing(format!(
            "harvest: not enabled, so no {name} session reaches the workspace (`memsync connect {name}` turns it on)"
        ));
    }
    if !h.harnesses.iter().any(|x| x == name) {
        return broken(
            format!("harvest.harnesses leaves out {name}"),
            Some(format!("add {name} to harvest.harnesses")),
        );
    }
    let home = &places.dir(harness);
    let sessions = match crate::harvest::sessions_found(harness, home, &h.agent) {
        Ok(0) => return no_sessions(harness, home),
        Ok(n) => n,
        Err(reason) => {
            return broken(
                format!("harvest: no {name} session can be read: {reason}"),
                Some(format!(
                    "check that {name} still runs, then `memsync harvest --harness {name}`"
                )),
            );
        }
    };
    if daemon {
        return ok(format!(
            "harvest: the daemon captures finished {name} sessions every {} s ({sessions} sessions found)",
            h.interval_seconds
        ));
    }
    let last = crate::store::harvest::Watermarks::open_existing(&settings.state_dir())
        .ok()
        .flatten()
        .and_then(|w| w.last_run("manual").ok().flatten());
    match last {
        Some(at) => ok(format!(
            "harvest: no daemon runs; {sessions} {name} sessions, brought in only when you run `memsync harvest` (last at {at})"
        )),
        None => broken(
            format!(
                "harvest: no daemon runs and `memsync harvest` never ran, so no {name} session reaches the workspace"
            ),
            Some(crate::service::start_advice(settings)),
        ),
    }
}

/// Harvest finds no session of `harness` under `home`: a problem, since
/// nothing of that harness reaches the workspace.
fn no_sessions(harness: Harness, home: &Path) -> Check {
    broken(
        format!(
            "harvest: 0 readable {} sessions under {}: nothing to capture yet, or it keeps them where memsync does not look",
            harness.as_str(),
            home.display()
        ),
        Some(format!(
            "run {} once, then `memsync harvest`",
            harness.as_str()
        )),
    )
}
