//! The `service` command: run `memsync watch` under the user's service manager,
//! a systemd user unit on Linux or a launchd LaunchAgent on macOS.
//!
//! Owns: rendering the unit (from `systemd/` and `launchd/` in the repository)
//! with the resolved binary and workspace, and installing or removing it.
//! Must not: touch the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

const SYSTEMD_UNIT: &str = include_str!("../systemd/memsync.service");
const LAUNCHD_PLIST: &str = include_str!("../launchd/dev.memsync.watch.plist");
const UNIT_NAME: &str = "memsync.service";
const LAUNCHD_LABEL: &str = "dev.memsync.watch";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Install,
    Uninstall,
    Status,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    Systemd,
    Launchd,
}

/// What a service action will do: the file it writes or removes, and the
/// manager commands it runs.
#[derive(Debug, Clone)]
pub struct Plan {
    pub manager: Manager,
    pub file: PathBuf,
    pub contents: String,
    pub commands: Vec<Vec<String>>,
}

/// Where things are, resolved by the caller (tests point them at temp dirs).
#[derive(Debug, Clone)]
pub struct Places {
    pub exe: PathBuf,
    pub workspace: PathBuf,
    pub home: PathBuf,
    pub config_home: PathBuf,
    pub uid: u32,
}

pub fn plan(action: Action, manager: Manager, places: &Places) -> Plan {
    match manager {
        Manager::Systemd => systemd_plan(action, places),
        Manager::Launchd => launchd_plan(action, places),
    }
}

/// The manager of this platform.
pub fn this_platform() -> Manager {
    if cfg!(target_os = "macos") {
        Manager::Launchd
    } else {
        Manager::Systemd
    }
}

fn systemd_plan(action: Action, places: &Places) -> Plan {
    let exec = format!(
        "ExecStart={} --workspace {} watch",
        systemd_quote(&places.exe),
        systemd_quote(&places.workspace)
    );
    let contents = SYSTEMD_UNIT.replace(
        "ExecStart=%h/.cargo/bin/memsync --workspace %h/.agents watch",
        &exec,
    );
    let ctl = |args: &[&str]| -> Vec<String> {
        ["systemctl", "--user"]
            .iter()
            .chain(args)
            .map(|s| s.to_string())
            .collect()
    };
    let commands = match action {
        Action::Install => vec![
            ctl(&["daemon-reload"]),
            ctl(&["enable", "--now", UNIT_NAME]),
        ],
        Action::Uninstall => vec![
            ctl(&["disable", "--now", UNIT_NAME]),
            ctl(&["daemon-reload"]),
        ],
        Action::Status => vec![ctl(&["status", "--no-pager", UNIT_NAME])],
    };
    Plan {
        manager: Manager::Systemd,
        file: places.config_home.join("systemd/user").join(UNIT_NAME),
        contents,
        commands,
    }
}

fn launchd_plan(action: Action, places: &Places) -> Plan {
    let contents = LAUNCHD_PLIST
        .replace("__MEMSYNC__", &xml_escape(&places.exe.to_string_lossy()))
        .replace(
            "__WORKSPACE__",
            &xml_escape(&places.workspace.to_string_lossy()),
        )
        .replace("__HOME__", &xml_escape(&places.home.to_string_lossy()));
    let file = places
        .home
        .join("Library/LaunchAgents")
        .join(format!("{LAUNCHD_LABEL}.plist"));
    let domain = format!("gui/{}", places.uid);
    let commands = match action {
        Action::Install => vec![vec![
            "launchctl".into(),
            "bootstrap".into(),
            domain,
            file.display().to_string(),
        ]],
        Action::Uninstall => vec![vec![
            "launchctl".into(),
            "bootout".into(),
            format!("{domain}/{LAUNCHD_LABEL}"),
        ]],
        Action::Status => vec![vec![
            "launchctl".into(),
            "print".into(),
            format!("{domain}/{LAUNCHD_LABEL}"),
        ]],
    };
    Plan {
        manager: Manager::Launchd,
        file,
        contents,
        commands,
    }
}

/// Carries out a plan and describes what happened. Manager commands that are
/// missing or fail are reported with the command to run by hand; the unit
/// file is written (or removed) either way.
pub fn apply(action: Action, plan: &Plan) -> Result<String> {
    let mut out = String::new();
    match action {
        Action::Install => {
            crate::files::write_atomic(&plan.file, plan.contents.as_bytes())
                .map_err(|e| Error::io(&plan.file, e))?;
            out.push_str(&format!("wrote {}\n", plan.file.display()));
            run_all(&plan.commands, &mut out);
        }
        Action::Uninstall => {
            run_all(&plan.commands[..1], &mut out);
            match std::fs::remove_file(&plan.file) {
                Ok(()) => out.push_str(&format!("removed {}\n", plan.file.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    out.push_str(&format!("{} was not installed\n", plan.file.display()))
                }
                Err(e) => return Err(Error::io(&plan.file, e)),
            }
            run_all(&plan.commands[1..], &mut out);
        }
        Action::Status => {
            let installed = if plan.file.exists() {
                "installed"
            } else {
                "not installed"
            };
            out.push_str(&format!("{}: {installed}\n", plan.file.display()));
            run_all(&plan.commands, &mut out);
        }
    }
    Ok(out)
}

/// What `service install` adds when the daemon will not harvest: how to
/// turn it on (sessions without a hook are otherwise never captured).
pub fn harvest_note(settings: &crate::config::Settings) -> Option<String> {
    if settings.config.harvest.enabled {
        return None;
    }
    let file = settings.sources.machine.as_ref().map_or_else(
        || "~/.config/memsync/config.yaml".to_string(),
        |p| p.display().to_string(),
    );
    Some(format!(
        "harvest is off: the daemon captures only what hooks and `memsync capture` hand it.\n\
         To have it capture finished Codex, OpenClaw, pi and Claude Code sessions from their own\n\
         folders, add to {file}:\n  harvest:\n    enabled: true\n\
         then restart the service (memsync service install).\n"
    ))
}

/// Whether `memsync watch` runs for this workspace (it holds the daemon lock).
pub fn daemon_running(settings: &crate::config::Settings) -> bool {
    crate::lock::PidLock::is_held(&settings.state_dir(), crate::lock::DAEMON_LOCK)
}

/// The last line of `service status`: what runs, and what to do if nothing does.
pub fn verdict(installed: bool, running: bool) -> String {
    match (installed, running) {
        (true, true) => "memsync watch is running for this workspace\n".into(),
        (true, false) => "not running: memsync watch holds no lock on this workspace; see the service manager's log\n".into(),
        (false, true) => "memsync watch runs, but not as an installed service (memsync service install)\n".into(),
        (false, false) => "not running: the service is not installed (memsync service install)\n".into(),
    }
}

/// What `--dry-run` prints: the file and the commands, changing nothing.
pub fn describe(action: Action, plan: &Plan) -> String {
    let mut out = match action {
        Action::Install => format!(
            "would write {}:\n\n{}\n",
            plan.file.display(),
            plan.contents
        ),
        Action::Uninstall => format!("would remove {}\n", plan.file.display()),
        Action::Status => format!("would inspect {}\n", plan.file.display()),
    };
    for c in &plan.commands {
        out.push_str(&format!("would run: {}\n", c.join(" ")));
    }
    out
}

fn run_all(commands: &[Vec<String>], out: &mut String) {
    for c in commands {
        let Some((program, args)) = c.split_first() else {
            continue;
        };
        match Command::new(program).args(args).output() {
            Ok(o) if o.status.success() => {
                out.push_str(&format!("ran: {}\n", c.join(" ")));
                out.push_str(&String::from_utf8_lossy(&o.stdout));
            }
            Ok(o) => out.push_str(&format!(
                "failed: {} ({}); run it by hand once the service manager is available\n{}",
                c.join(" "),
                o.status,
                String::from_utf8_lossy(&o.stderr)
            )),
            Err(e) => out.push_str(&format!(
                "could not run {program} ({e}); run by hand: {}\n",
                c.join(" ")
            )),
        }
    }
}

/// systemd's quoting for a path in ExecStart.
fn systemd_quote(p: &Path) -> String {
    let s = p.to_string_lossy();
    if s.chars()
        .any(|c| c.is_whitespace() || c == '"' || c == '\\')
    {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        s.replace('%', "%%")
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Places {
    /// This binary, the settings' workspace (which must exist), and the user's home.
    pub fn resolve(settings: &crate::config::Settings, env: &crate::config::Env) -> Result<Places> {
        let exe = std::env::current_exe().map_err(|e| Error::io("<current executable>", e))?;
        let workspace =
            std::fs::canonicalize(&settings.root).map_err(|e| Error::io(&settings.root, e))?;
        let home = env
            .home
            .clone()
            .ok_or(crate::error::ConfigError::Environment {
                var: "HOME",
                needed_for: "the service file is placed under it",
            })?;
        let config_home = env
            .xdg_config_home
            .clone()
            .unwrap_or_else(|| home.join(".config"));
        // SAFETY: getuid has no preconditions and cannot fail.
        let uid = unsafe { libc::getuid() };
        Ok(Places {
            exe,
            workspace,
            home,
            config_home,
            uid,
        })
    }
}
