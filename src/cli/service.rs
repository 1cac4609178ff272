//! `memsync service`: install, uninstall and status of the unit that runs
//! `memsync watch`, and what to do where no service manager answers.
//!
//! Owns: that command's report and exit status. Must not: render units (that
//! is `crate::service`).

use serde_json::json;

use super::args::ServiceAction;
use crate::config::{Env, Settings};
use crate::error::{ExitStatus, Result};
use crate::service::{self, Action, Places};

/// Runs `action`: its JSON, its text and how the process exits (1 when the
/// unit is written but nothing runs, or a status finds it stopped).
pub(super) fn run(
    action: &ServiceAction,
    settings: &Settings,
    env: &Env,
) -> Result<(serde_json::Value, String, ExitStatus)> {
    let (action, dry_run) = match action {
        ServiceAction::Install { dry_run } => (Action::Install, *dry_run),
        ServiceAction::Uninstall { dry_run } => (Action::Uninstall, *dry_run),
        ServiceAction::Status => (Action::Status, false),
    };
    let places = Places::resolve(settings, env)?;
    let strict = service::strict_hardening(settings);
    let plan = service::plan(action, service::this_platform(), &places, strict);
    let (mut text, failed) = if dry_run {
        (service::describe(action, &plan), false)
    } else {
        let outcome = service::apply(action, &plan)?;
        if action == Action::Install {
            service::note_install(settings, outcome.failed)?;
        }
        (outcome.text, outcome.failed)
    };
    if action == Action::Install && failed {
        let ws = crate::connect::shell_word(&settings.root.display().to_string());
        text.push_str(&service::without_a_manager(&ws));
    }
    if action == Action::Install
        && let Some(note) = service::harvest_note(settings)
    {
        text.push_str(&note);
    }
    let exit = |ok: bool| match ok {
        true => ExitStatus::Ok,
        false => ExitStatus::Problems,
    };
    if action != Action::Status || dry_run {
        let value =
            json!({ "file": plan.file, "unit": plan.unit, "failed": failed, "output": text });
        return Ok((value, text, exit(!failed)));
    }
    let installed = plan.marker.exists();
    let running = service::daemon_running(settings);
    text.push_str(&service::verdict(settings, installed, running));
    let value = json!({ "file": plan.file, "unit": plan.unit, "installed": installed, "running": running, "output": text });
    Ok((value, text, exit(installed && running)))
}
