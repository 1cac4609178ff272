//! The systemd side of `service`: a template unit, `memsync@.service`, and
//! one instance per workspace named after its path (`systemd-escape --path`).
//!
//! Owns: rendering the template and the instance's systemctl steps. Must not:
//! run anything (`service::apply` does).

use std::path::Path;

use super::{Action, Manager, Places, Plan, Step};

const SYSTEMD_UNIT: &str = include_str!("../../systemd/memsync@.service");
const TEMPLATE_NAME: &str = "memsync@.service";
/// The single unit older memsyncs installed.
pub(super) const LEGACY_UNIT: &str = "memsync.service";

/// `systemd-escape --path`: the workspace as an instance name.
pub fn escape_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let parts: Vec<&[u8]> = bytes
        .split(|b| *b == b'/')
        .filter(|p| !p.is_empty() && *p != b".")
        .collect();
    if parts.is_empty() {
        return "-".into();
    }
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('-');
        }
        for (j, &b) in part.iter().enumerate() {
            let plain = b.is_ascii_alphanumeric() || b == b':' || b == b'_' || b == b'.';
            if plain && !(i == 0 && j == 0 && b == b'.') {
                out.push(b as char);
            } else {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out
}

pub(super) fn plan(action: Action, places: &Places, strict: bool) -> Plan {
    let exec = format!(
        "ExecStart={} --workspace %f watch",
        systemd_quote(&places.exe)
    );
    let contents = hardening(
        &SYSTEMD_UNIT.replace(
            "ExecStart=%h/.cargo/bin/memsync --workspace %f watch",
            &exec,
        ),
        strict,
    );
    let unit = format!("memsync@{}.service", escape_path(&places.workspace));
    let user_dir = places.config_home.join("systemd/user");
    let ctl = |args: &[&str]| -> Vec<String> {
        ["systemctl", "--user"]
            .iter()
            .chain(args)
            .map(|s| s.to_string())
            .collect()
    };
    let commands = match action {
        Action::Install => vec![
            Step::must(ctl(&["daemon-reload"])),
            Step::must(ctl(&["enable", &unit])),
            // A running instance restarts, so a new binary or unit takes effect.
            Step::must(ctl(&["restart", &unit])),
        ],
        Action::Uninstall => vec![
            Step::must(ctl(&["disable", "--now", &unit])),
            Step::must(ctl(&["daemon-reload"])),
        ],
        Action::Status => vec![Step::may(ctl(&["status", "--no-pager", &unit]))],
    };
    let wants = user_dir.join("default.target.wants");
    let others = other_instances(&wants, &unit);
    let legacy = Some(user_dir.join(LEGACY_UNIT)).filter(|p| {
        std::fs::read_to_string(p)
            .is_ok_and(|t| t.contains(&format!("--workspace {}", systemd_quote(&places.workspace))))
    });
    let mut commands = commands;
    if action == Action::Install && legacy.is_some() {
        // The old single unit ran this workspace: stop it before the instance starts.
        commands.insert(0, Step::may(ctl(&["disable", "--now", LEGACY_UNIT])));
    }
    Plan {
        manager: Manager::Systemd,
        file: user_dir.join(TEMPLATE_NAME),
        contents,
        marker: wants.join(&unit),
        unit,
        commands,
        remove_file: !others,
        legacy,
    }
}

/// Whether another workspace's instance is enabled (it needs the template).
fn other_instances(wants: &Path, unit: &str) -> bool {
    std::fs::read_dir(wants)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("memsync@") && name.ends_with(".service") && name != unit
        })
}

const STRICT_BEGIN: &str = "# __STRICT_BEGIN__\n";
const STRICT_END: &str = "# __STRICT_END__\n";

/// The unit with the strict hardening block kept (markers gone), or with
/// it swapped for a note saying why it is not there.
fn hardening(unit: &str, strict: bool) -> String {
    let (Some(b), Some(e)) = (unit.find(STRICT_BEGIN), unit.find(STRICT_END)) else {
        return unit.to_string();
    };
    let middle = if strict {
        unit[b + STRICT_BEGIN.len()..e].to_string()
    } else {
        "# No MemoryDenyWriteExecute or RestrictAddressFamilies: a sentence.command or\n\
         # summary.command is configured, and may talk TCP (ollama) or run a JIT (Node).\n"
            .to_string()
    };
    format!("{}{middle}{}", &unit[..b], &unit[e + STRICT_END.len()..])
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
