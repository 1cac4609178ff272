//! What `doctor` says about one part of a harness's wiring (`Check`), the
//! checks every harness's folder builds its own from (a hook, an MCP entry,
//! the instructions block), and what the folder is told of the state it
//! cannot read itself (`Doctoring`: the last hook job, harvest).

use std::path::Path;

use serde::Serialize;

use super::{Places, SettingsJson, edit};
use crate::config::Settings;
use crate::harness::Harness;

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
    pub part: bool,
}

/// What a harness's folder needs to check its wiring: where things are, the
/// settings, and the checks of state it cannot read itself.
pub struct Doctoring<'a> {
    pub target: Harness,
    pub places: &'a Places,
    pub settings: &'a Settings,
    /// The last hook job (the job queue is the store's).
    pub last_job: &'a dyn Fn() -> Check,
    /// Harvest for this harness: on, finding its sessions, and running.
    pub harvest: &'a dyn Fn() -> Check,
}

impl Doctoring<'_> {
    /// The instructions block in `file`, naming this workspace's MEMORY.md.
    pub fn import_check(&self, file: &Path) -> Check {
        import_check(file, &self.places.memory_md(&self.places.agent))
    }
}

fn check(level: Level, what: impl Into<String>, fix: Option<String>) -> Check {
    Check {
        level,
        what: what.into(),
        fix,
        part: true,
    }
}

pub fn ok(what: impl Into<String>) -> Check {
    check(Level::Ok, what, None)
}

pub fn missing(what: impl Into<String>) -> Check {
    check(Level::Missing, what, None)
}

pub fn broken(what: impl Into<String>, fix: Option<String>) -> Check {
    check(Level::Broken, what, fix)
}

/// A check of how things run (the last job, harvest), not of a part connect writes.
pub fn state(c: Check) -> Check {
    Check { part: false, ..c }
}

pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The program a command line starts, if it is a path that exists.
pub fn program_exists(program: &str) -> bool {
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

/// Whether each of `events` runs memsync's hook, and its program exists.
pub fn hook_checks(settings_json: &Path, text: &str, events: &[&str]) -> Vec<Check> {
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

/// memsync's MCP entry runs `command`, which must exist.
pub fn mcp_check(command: &str) -> Check {
    if program_exists(command) {
        ok(format!("MCP server: {command} mcp"))
    } else {
        broken(
            format!("MCP server points at {command}, which does not exist"),
            None,
        )
    }
}

/// `mcpServers.memsync` in a JSON file: there, and running a program that exists.
pub fn mcp_servers_check(file: &Path) -> Check {
    let text = read(file).unwrap_or_default();
    match edit::mcp_servers_entry(file, &text) {
        Err(e) => broken(crate::error::message(&e), None),
        Ok(None) => missing(format!("MCP server: not in {}", file.display())),
        Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
    }
}

/// CLAUDE.md / AGENTS.md: memsync's block is there and the file it names exists.
pub fn import_check(file: &Path, memory: &Path) -> Check {
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

/// A `SettingsJson` harness's wiring: its hooks and MCP server in
/// `settings.json`, the last capture job, the context file's block, and
/// harvest where it brings the sessions its hooks cannot.
pub fn settings_json_checks(h: &SettingsJson, d: &Doctoring) -> Vec<Check> {
    let settings_json = h.dir.join("settings.json");
    let text = read(&settings_json).unwrap_or_default();
    let mut checks = hook_checks(&settings_json, &text, h.events);
    checks.push(state((d.last_job)()));
    checks.push(mcp_servers_check(&settings_json));
    checks.push(d.import_check(&h.dir.join(h.context_file)));
    if d.target.needs_harvest() {
        checks.push(state((d.harvest)()));
    }
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
