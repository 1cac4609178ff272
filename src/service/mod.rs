//! The `service` command: run `memsync watch` under the user's service manager,
//! a systemd user unit on Linux or a launchd LaunchAgent on macOS.
//!
//! Owns: rendering the unit (from `systemd/` and `launchd/` in the repository)
//! with the resolved binary and workspace, and installing or removing it:
//! one instance per workspace (a systemd template instance named after the
//! workspace path, a launchd label with a digest of it), so a second
//! workspace never replaces the first. Must not: touch the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::harness::Harness;

mod launchd;
mod systemd;

pub use systemd::escape_path as systemd_escape_path;

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
    /// This workspace's unit: `memsync@<escaped path>.service`, or the launchd label.
    pub unit: String,
    /// The file whose presence says this workspace's service is installed
    /// (systemd: the instance's link in `default.target.wants`).
    pub marker: PathBuf,
    pub commands: Vec<Step>,
    /// Uninstall removes `file` (false while other workspaces' instances use the template).
    pub remove_file: bool,
    /// An older memsync's single unit for this workspace, replaced by install.
    pub legacy: Option<PathBuf>,
}

/// One service-manager command.
#[derive(Debug, Clone)]
pub struct Step {
    pub argv: Vec<String>,
    /// Failing is expected at times (stopping what is not running): not an error.
    pub may_fail: bool,
}

impl Step {
    fn must(argv: Vec<String>) -> Step {
        Step {
            argv,
            may_fail: false,
        }
    }

    fn may(argv: Vec<String>) -> Step {
        Step {
            argv,
            may_fail: true,
        }
    }

    pub fn line(&self) -> String {
        self.argv.join(" ")
    }
}

/// Whether the service manager did everything asked.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub text: String,
    pub failed: bool,
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

/// `strict` keeps the hardening that blocks network sockets and JIT
/// compilers: only when no sentence or summary command is configured.
pub fn plan(action: Action, manager: Manager, places: &Places, strict: bool) -> Plan {
    match manager {
        Manager::Systemd => systemd::plan(action, places, strict),
        Manager::Launchd => launchd::plan(action, places),
    }
}

/// Whether the configured commands allow the strict unit: a sentence or
/// summary command may talk TCP (ollama) or run a JIT (Node CLIs).
pub fn strict_hardening(settings: &crate::config::Settings) -> bool {
    let c = &settings.config;
    c.sentence.command.is_none() && c.summary.command.is_none()
}

/// The other ways to keep `memsync watch` running where no service manager
/// answered (a container, WSL without systemd, an SSH box without a user bus).
/// `ws` is the workspace as a shell word.
pub fn without_a_manager(ws: &str) -> String {
    format!(
        "\nNo service manager answered. Other ways to keep memsync running:\n  \
         - systemd without a login session (SSH): `loginctl enable-linger $USER`, log in again, then `memsync service install`\n  \
         - in tmux: `tmux new -d -s memsync 'memsync --workspace {ws} watch 2>>~/memsync-watch.log'`\n  \
         - at login: `memsync --workspace {ws} watch 2>>~/memsync-watch.log &` in your shell profile (or `@reboot` in `crontab -e`)\n\
         Its log is that file; `memsync log` shows what it did, `memsync status` whether it runs.\n"
    )
}

/// The manager of this platform.
pub fn this_platform() -> Manager {
    if cfg!(target_os = "macos") {
        Manager::Launchd
    } else {
        Manager::Systemd
    }
}

/// Carries out a plan and describes what happened. The unit file is written
/// (or removed) even when the manager is missing or fails, so it can be run
/// by hand; `failed` says the manager did not do its part.
pub fn apply(action: Action, plan: &Plan) -> Result<Outcome> {
    let mut out = Outcome {
        text: String::new(),
        failed: false,
    };
    match action {
        Action::Install => {
            crate::files::write_atomic(&plan.file, plan.contents.as_bytes())
                .map_err(|e| Error::io(&plan.file, e))?;
            out.text
                .push_str(&format!("wrote {}\n", plan.file.display()));
            run_all(&plan.commands, &mut out);
            if let Some(legacy) = plan.legacy.as_ref().filter(|_| !out.failed) {
                remove(legacy, &mut out)?;
            }
        }
        Action::Uninstall => {
            run_all(&plan.commands[..1], &mut out);
            if plan.remove_file {
                remove(&plan.file, &mut out)?;
            } else {
                out.text.push_str(&format!(
                    "kept {}: other workspaces' instances use it\n",
                    plan.file.display()
                ));
            }
            run_all(&plan.commands[1..], &mut out);
        }
        Action::Status => {
            let installed = if plan.marker.exists() {
                "installed"
            } else {
                "not installed"
            };
            out.text
                .push_str(&format!("{} for this workspace: {installed}\n", plan.unit));
            run_all(&plan.commands, &mut out);
        }
    }
    Ok(out)
}

fn remove(file: &Path, out: &mut Outcome) -> Result<()> {
    match std::fs::remove_file(file) {
        Ok(()) => out.text.push_str(&format!("removed {}\n", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => out
            .text
            .push_str(&format!("{} was not installed\n", file.display())),
        Err(e) => return Err(Error::io(file, e)),
    }
    Ok(())
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
    let harvested = crate::harness::spoken_list(
        Harness::CONNECT_ORDER
            .into_iter()
            .filter(|h| h.needs_harvest()),
        "or",
    );
    Some(format!(
        "harvest is off: the daemon captures only what hooks and `memsync capture` hand it.\n\
         `memsync connect` for {harvested} turns it on for this workspace;\n\
         to have it capture finished sessions of every harness from their own folders, add to\n\
         {file}:\n  harvest:\n    enabled: true\n\
         then reload the service (a running daemon reloads on SIGHUP).\n"
    ))
}

/// What the daemon logs when the strict unit runs it but a sentence or
/// summary command is configured: the command may fail under it, and
/// capture would quietly fall back to the composed sentence.
pub fn hardening_warning(settings: &crate::config::Settings) -> Option<&'static str> {
    let strict = std::env::var("MEMSYNC_UNIT_HARDENING").is_ok_and(|v| v == "strict");
    (strict && !strict_hardening(settings)).then_some(
        "the service unit blocks network sockets and JIT compilers, which a sentence.command or summary.command may need: run `memsync service install` again to install the unit without them",
    )
}

/// Whether `memsync watch` runs for this workspace (it holds the daemon lock).
pub fn daemon_running(settings: &crate::config::Settings) -> bool {
    crate::lock::PidLock::is_held(&settings.state_dir(), crate::lock::DAEMON_LOCK)
}

/// Where a failed `service install` is remembered (in the workspace's
/// state folder), so no report tells the person to run it again right
/// after it failed.
const INSTALL_FAILED: &str = "service-install-failed";

/// Records how the last `service install` went; a success forgets a failure.
pub fn note_install(settings: &crate::config::Settings, failed: bool) -> Result<()> {
    let path = settings.state_dir().join(INSTALL_FAILED);
    if failed {
        let at = crate::contract::format_ts(chrono::Utc::now());
        std::fs::create_dir_all(settings.state_dir())
            .and_then(|()| crate::files::write_atomic(&path, format!("{at}\n").as_bytes()))
            .map_err(|e| Error::io(&path, e))
    } else {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path, e)),
            _ => Ok(()),
        }
    }
}

/// How to get `memsync watch` running for this workspace: install the
/// service, or, where an install already failed, the other ways.
pub fn start_advice(settings: &crate::config::Settings) -> String {
    let failed = settings.state_dir().join(INSTALL_FAILED);
    match crate::files::read_text_at(&failed) {
        Ok(at) => format!(
            "`memsync service install` failed here ({}: no service manager answered): keep `memsync watch` running in tmux or at login, as `memsync service install` printed",
            at.trim()
        ),
        Err(_) => "memsync service install, or run `memsync watch`".into(),
    }
}

/// The last line of `service status`: what runs, and what to do if nothing does.
pub fn verdict(settings: &crate::config::Settings, installed: bool, running: bool) -> String {
    match (installed, running) {
        (true, true) => "memsync watch is running for this workspace\n".into(),
        (true, false) => "not running: memsync watch holds no lock on this workspace; see the service manager's log\n".into(),
        (false, true) => "memsync watch runs, but not as an installed service (memsync service install)\n".into(),
        (false, false) => format!(
            "not running: the service is not installed ({})\n",
            start_advice(settings)
        ),
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
        out.push_str(&format!("would run: {}\n", c.line()));
    }
    out
}

fn run_all(steps: &[Step], out: &mut Outcome) {
    for step in steps {
        let Some((program, args)) = step.argv.split_first() else {
            continue;
        };
        match Command::new(program).args(args).output() {
            Ok(o) if o.status.success() => {
                out.text.push_str(&format!("ran: {}\n", step.line()));
                out.text.push_str(&String::from_utf8_lossy(&o.stdout));
            }
            Ok(o) if step.may_fail => out.text.push_str(&format!(
                "ran: {} ({})\n{}",
                step.line(),
                o.status,
                String::from_utf8_lossy(&o.stdout)
            )),
            Ok(o) => {
                out.failed = true;
                out.text.push_str(&format!(
                    "failed: {} ({}); run it by hand once the service manager is available\n{}",
                    step.line(),
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
            Err(e) => {
                out.failed = true;
                out.text.push_str(&format!(
                    "could not run {program} ({e}); run by hand: {}\n",
                    step.line()
                ));
            }
        }
    }
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
