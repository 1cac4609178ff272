//! `memsync service`: the rendered units, and install/uninstall on a temp home.

use std::path::{Path, PathBuf};
use std::process::Command;

use memsync::service::{self, Action, Manager, Places};

fn places(tmp: &Path) -> Places {
    Places {
        exe: PathBuf::from("/opt/memsync bin/memsync"),
        workspace: tmp.join("ws"),
        home: tmp.join("home"),
        config_home: tmp.join("home/.config"),
        uid: 501,
    }
}

#[test]
fn the_systemd_unit_names_this_binary_and_workspace_and_passes_systemd_analyze() {
    let tmp = tempfile::tempdir().unwrap();
    let p = places(tmp.path());
    let plan = service::plan(Action::Install, Manager::Systemd, &p);
    assert_eq!(
        plan.file,
        tmp.path().join("home/.config/systemd/user/memsync.service")
    );
    let exec = format!(
        "ExecStart=\"/opt/memsync bin/memsync\" --workspace {} watch",
        tmp.path().join("ws").display()
    );
    assert!(plan.contents.contains(&exec), "{}", plan.contents);
    assert!(plan.contents.contains("Type=notify") && plan.contents.contains("Restart=on-failure"));
    assert_eq!(
        plan.commands.last().unwrap().join(" "),
        "systemctl --user enable --now memsync.service"
    );

    // systemd-analyze verify wants the binary to exist: point it at this one.
    let real = Places {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_memsync")),
        ..p
    };
    let unit = tmp.path().join("memsync.service");
    std::fs::write(
        &unit,
        service::plan(Action::Install, Manager::Systemd, &real).contents,
    )
    .unwrap();
    match Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "systemd-analyze verify: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => eprintln!("skipped: systemd-analyze is not installed"),
    }
}

#[test]
fn the_launchd_agent_has_every_placeholder_filled() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = service::plan(Action::Install, Manager::Launchd, &places(tmp.path()));
    assert_eq!(
        plan.file,
        tmp.path()
            .join("home/Library/LaunchAgents/dev.memsync.watch.plist")
    );
    for needed in [
        "<string>/opt/memsync bin/memsync</string>",
        "<key>KeepAlive</key>",
        "<string>Background</string>",
        "Library/Logs/memsync.log",
    ] {
        assert!(plan.contents.contains(needed), "{needed} missing");
    }
    assert!(!plan.contents.contains("__"), "a placeholder is left");
    assert_eq!(plan.commands[0][..3], ["launchctl", "bootstrap", "gui/501"]);
}

#[test]
fn install_writes_the_unit_even_without_a_service_manager_and_uninstall_removes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, ws, empty_path) = (
        tmp.path().join("home"),
        tmp.path().join("ws"),
        tmp.path().join("bin"),
    );
    for d in [&home, &ws, &empty_path] {
        std::fs::create_dir_all(d).unwrap();
    }
    let memsync = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--workspace")
            .arg(&ws)
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("PATH", &empty_path)
            .output()
            .unwrap()
    };
    let dry = memsync(&["service", "install", "--dry-run"]);
    let unit = home.join(".config/systemd/user/memsync.service");
    assert!(dry.status.success() && String::from_utf8_lossy(&dry.stdout).contains("would write"));
    assert!(!unit.exists(), "--dry-run changed nothing");

    let out = memsync(&["service", "install"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("could not run systemctl"), "{text}");
    assert!(std::fs::read_to_string(&unit).unwrap().contains(&format!(
        "--workspace {} watch",
        ws.canonicalize().unwrap().display()
    )));

    let out = memsync(&["service", "uninstall"]);
    assert!(out.status.success());
    assert!(!unit.exists());
}
