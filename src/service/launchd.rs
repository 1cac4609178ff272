//! The launchd side of `service`: one LaunchAgent per workspace, its label
//! ending in a digest of the workspace path.
//!
//! Owns: rendering the plist and the launchctl steps. Must not: run anything.

use super::{Action, Manager, Places, Plan, Step};

const LAUNCHD_PLIST: &str = include_str!("../../launchd/dev.memsync.watch.plist");
const LAUNCHD_LABEL: &str = "dev.memsync.watch";

/// This workspace's label: a digest of its path keeps workspaces apart.
pub fn label(workspace: &std::path::Path) -> String {
    let digest = crate::contract::sha256_hex(workspace.as_os_str().as_encoded_bytes());
    format!("{LAUNCHD_LABEL}.{}", &digest[..12])
}

pub(super) fn plan(action: Action, places: &Places) -> Plan {
    let label = label(&places.workspace);
    let contents = LAUNCHD_PLIST
        .replace("__LABEL__", &label)
        .replace("__MEMSYNC__", &xml_escape(&places.exe.to_string_lossy()))
        .replace(
            "__WORKSPACE__",
            &xml_escape(&places.workspace.to_string_lossy()),
        )
        .replace("__HOME__", &xml_escape(&places.home.to_string_lossy()));
    let file = places
        .home
        .join("Library/LaunchAgents")
        .join(format!("{label}.plist"));
    let domain = format!("gui/{}", places.uid);
    let target = format!("{domain}/{label}");
    let ctl = |args: &[&str]| -> Vec<String> {
        std::iter::once("launchctl")
            .chain(args.iter().copied())
            .map(String::from)
            .collect()
    };
    let commands = match action {
        // Out first (it fails when not loaded), so a re-install runs the new one.
        Action::Install => vec![
            Step::may(ctl(&["bootout", &target])),
            Step::must(ctl(&["bootstrap", &domain, &file.to_string_lossy()])),
        ],
        Action::Uninstall => vec![Step::may(ctl(&["bootout", &target]))],
        Action::Status => vec![Step::may(ctl(&["print", &target]))],
    };
    Plan {
        manager: Manager::Launchd,
        marker: file.clone(),
        file,
        contents,
        unit: label,
        commands,
        remove_file: true,
        legacy: None,
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
