//! `doctor`: per harness found on this machine, what is connected, whether it
//! works, and the command that fixes each gap.
//!
//! Owns: the checks. Must not: change anything.

use std::path::Path;

use serde::Serialize;

mod codex;
mod gemini;
mod opencode;
mod sentences;

use super::Harness;
use crate::config::Settings;
use crate::error::Result;
use crate::harnesses::program;
use crate::wiring::{Places, edit, shell_word};

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    /// Not set up: fine unless the harness is meant to be connected.
    Missing,
    /// Set up but not working: doctor exits 1.
    Broken,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub level: Level,
    pub what: String,
    /// The command that fixes it, when it is not ok.
    pub fix: Option<String>,
    /// A part `connect` sets up in the harness's own files (not a state check).
    #[serde(skip)]
    part: bool,
}

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

/// OpenClaw injects each workspace file up to `agents.defaults.bootstrapMaxChars`
/// characters; this is its default when unset.
const OPENCLAW_FILE_LIMIT: u64 = 12_000;

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
        let mut checks = match target {
            Harness::ClaudeCode => claude_code(settings, places),
            Harness::Codex => codex::checks(settings, places, daemon_running),
            Harness::OpenClaw => openclaw(settings, places, daemon_running),
            Harness::Opencode => opencode::checks(settings, places, daemon_running),
            Harness::CopilotCli => gemini::copilot(settings, places),
            Harness::Cline => gemini::cline(settings, places, daemon_running),
            Harness::Pi => vec![
                import_check(
                    &places.dir(Harness::Pi).join("AGENTS.md"),
                    &places.memory_md(&places.agent),
                ),
                state(harvest_check(settings, places, Harness::Pi, daemon_running)),
            ],
            Harness::GeminiCli | Harness::QwenCode => match program(target).settings_json(places) {
                Some(h) => gemini::checks(settings, places, target, &h, daemon_running),
                None => Vec::new(),
            },
        };
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

fn check(level: Level, what: impl Into<String>, fix: Option<String>) -> Check {
    Check {
        level,
        what: what.into(),
        fix,
        part: true,
    }
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

fn ok(what: impl Into<String>) -> Check {
    check(Level::Ok, what, None)
}

fn missing(what: impl Into<String>) -> Check {
    check(Level::Missing, what, None)
}

fn broken(what: impl Into<String>, fix: Option<String>) -> Check {
    check(Level::Broken, what, fix)
}

/// A check of how things run (the last job, harvest), not of a part connect writes.
fn state(c: Check) -> Check {
    Check { part: false, ..c }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The program a command line starts, if it is a path that exists.
fn program_exists(program: &str) -> bool {
    let program = program.trim_matches(['\'', '"']);
    let path = Path::new(program);
    if path.is_absolute() {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The program of a shell command line: a single-quoted word whole, else up to the first blank.
fn first_word(command: &str) -> &str {
    match command.strip_prefix('\'') {
        Some(rest) => rest.split('\'').next().unwrap_or_default(),
        None => command.split_whitespace().next().unwrap_or_default(),
    }
}

fn claude_code(settings: &Settings, places: &Places) -> Vec<Check> {
    let mut checks = Vec::new();
    let settings_json = places.dir(Harness::ClaudeCode).join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    checks.extend(hook_checks(
        &settings_json,
        &text,
        program(Harness::ClaudeCode).hook_events(),
    ));
    checks.push(match crate::wiring::grants::claude_allowed(&settings_json, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(allowed) => {
            let lacking: Vec<String> = crate::wiring::grants::claude_rules()
                .into_iter()
                .filter(|r| !allowed.contains(r))
                .collect();
            if lacking.is_empty() {
                ok("read-only MCP tools: allowed without a prompt".to_string())
            } else {
                missing(format!(
                    "read-only MCP tools: {} not in permissions.allow of {} (`claude -p` denies them)",
                    lacking.join(", "),
                    settings_json.display()
                ))
            }
        }
    });
    checks.push(state(last_job(settings)));
    let user_config = places.claude_json();
    let claude_json = read(&user_config).unwrap_or_default();
    checks.push(match edit::mcp_servers_entry(&user_config, &claude_json) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", user_config.display())),
        Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
    });
    let claude_md = places.dir(Harness::ClaudeCode).join("CLAUDE.md");
    checks.push(match read(&claude_md).as_deref().and_then(edit::md_block_body) {
        Some(_) => import_check(&claude_md, &places.memory_md(&places.agent)),
        // Not a part of connect: its absence says nothing about being connected.
        None => state(ok("MEMORY.md is not imported into CLAUDE.md: the SessionStart digest and the per-prompt recall bring memory (connect --import-memory-md imports it)".to_string())),
    });
    checks
}

/// Whether each of `events` runs memsync's hook, and its program exists.
fn hook_checks(settings_json: &Path, text: &str, events: &[&str]) -> Vec<Check> {
    events
        .iter()
        .map(
            |event| match edit::hook_commands(settings_json, text, event) {
                Err(e) => broken(crate::error::message(&e), None),
                Ok(commands) => match commands.iter().find(|c| edit::is_memsync_hook(c)) {
                    Some(c) if program_exists(first_word(c)) => ok(format!("{event} hook: {c}")),
                    Some(c) => broken(
                        format!("{event} hook runs a program that does not exist: {c}"),
                        None,
                    ),
                    None => missing(format!("{event} hook: not in {}", settings_json.display())),
                },
            },
        )
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

fn mcp_check(command: &str) -> Check {
    if program_exists(command) {
        ok(format!("MCP server: {command} mcp"))
    } else {
        broken(
            format!("MCP server points at {command}, which does not exist"),
            None,
        )
    }
}

/// CLAUDE.md / AGENTS.md: memsync's block is there and the file it names exists.
fn import_check(file: &Path, memory: &Path) -> Check {
    let text = read(file).unwrap_or_default();
    match edit::md_block_body(&text) {
        None => missing(format!("{}: no memsync block", file.display())),
        Some(body) if !body.contains(&*memory.to_string_lossy()) => broken(
            format!(
                "{}: memsync's block names another MEMORY.md than {}",
                file.display(),
                memory.display()
            ),
            None,
        ),
        Some(_) if memory.is_file() => ok(format!(
            "{} points the agent at {}",
            file.display(),
            memory.display()
        )),
        Some(_) => broken(
            format!("{} does not exist yet", memory.display()),
            Some("memsync sync".into()),
        ),
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

fn openclaw(settings: &Settings, places: &Places, daemon: bool) -> Vec<Check> {
    let mut checks = vec![state(harvest_check(
        settings,
        places,
        Harness::OpenClaw,
        daemon,
    ))];
    let config = places.dir(Harness::OpenClaw).join("openclaw.json");
    if let Some(text) = read(&config) {
        checks.push(
            match crate::wiring::json5_mcp::OPENCLAW.get(&config, &text) {
                Err(e) => broken(crate::error::message(&e), None),
                Ok(None) => missing(format!("MCP server: not in {}", config.display())),
                Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
            },
        );
        if let Ok(Some(entry)) = crate::wiring::json5_mcp::OPENCLAW.get(&config, &text) {
            checks.push(codex::openclaw_writes(&entry, places));
        }
    }
    let workspace = places.openclaw_workspace();
    let same = places.openclaw_mirror().is_none();
    let memory = if same {
        places.memory_md("default")
    } else {
        workspace.join("MEMORY.md")
    };
    let mirrored = same || settings.config.mirrors.iter().any(|m| m.dir == workspace);
    if !mirrored {
        checks.push(missing(format!(
            "no mirror renders MEMORY.md into {}",
            workspace.display()
        )));
        return checks;
    }
    if !same {
        use crate::project::mirror::{Readiness, readiness};
        match readiness(&workspace) {
            Readiness::Ready => {}
            Readiness::FirstRun => {
                checks.push(state(ok(format!(
                    "OpenClaw's first run is not over ({} is there): memsync writes MEMORY.md there once OpenClaw has removed it",
                    workspace.join("BOOTSTRAP.md").display()
                ))));
                return checks;
            }
            Readiness::NotSetUp => {
                checks.push(state(missing(format!(
                    "OpenClaw has not set up {} yet: memsync writes MEMORY.md there once it has",
                    workspace.display()
                ))));
                if let Some(c) = checks.last_mut() {
                    c.fix =
                        Some("start OpenClaw once; memsync writes there at its next sync".into());
                }
                return checks;
            }
        }
    }
    let (limit, from) = match places
        .openclaw_setting("/agents/defaults/bootstrapMaxChars")
        .and_then(|v| v.as_u64())
    {
        Some(n) => (n, "its agents.defaults.bootstrapMaxChars"),
        None => (OPENCLAW_FILE_LIMIT, "its default limit"),
    };
    checks.push(match read(&memory) {
        None => broken(
            format!("{} does not exist yet", memory.display()),
            Some("memsync sync".into()),
        ),
        Some(text) if text.chars().count() as u64 > limit => broken(
            format!(
                "{} has {} characters; OpenClaw reads the first {limit} ({from})",
                memory.display(),
                text.chars().count()
            ),
            Some("lower memory_md.budget_bytes".into()),
        ),
        Some(_) => ok(format!("OpenClaw reads {}", memory.display())),
    });
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_of_a_hook_command_keeps_a_quoted_path_whole() {
        assert_eq!(
            first_word("'/home/a b/memsync' --workspace x"),
            "/home/a b/memsync"
        );
        assert_eq!(first_word("/usr/bin/memsync capture"), "/usr/bin/memsync");
    }
}
