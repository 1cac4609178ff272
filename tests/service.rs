//! `memsync service`: the rendered units (checked by `systemd-analyze verify`
//! where it exists), one instance per workspace, and install, re-install,
//! status and uninstall on a temp home. No user service manager runs in CI,
//! so `systemctl` there is a small script that does what `enable` and
//! `disable` do on disk (the link in `default.target.wants`) and logs its calls.

use std::os::unix::fs::PermissionsExt;
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

/// `systemd-analyze verify` of `contents` as the instance `unit`, if systemd-analyze exists.
fn verify(dir: &Path, contents: &str, unit: &str) {
    std::fs::write(dir.join("memsync@.service"), contents).unwrap();
    match Command::new("systemd-analyze")
        .arg("verify")
        .arg(dir.join(unit))
        .output()
    {
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            // It exits 0 on an unknown key, with a warning naming the file.
            assert!(
                out.status.success() && !stderr.contains("memsync@.service:"),
                "systemd-analyze verify: {stderr}"
            );
        }
        Err(_) => eprintln!("skipped: systemd-analyze is not installed"),
    }
}

#[test]
fn the_systemd_template_runs_one_instance_per_workspace_and_passes_systemd_analyze() {
    let tmp = tempfile::tempdir().unwrap();
    let p = places(tmp.path());
    let plan = service::plan(Action::Install, Manager::Systemd, &p, true);
    assert_eq!(
        plan.file,
        tmp.path()
            .join("home/.config/systemd/user/memsync@.service")
    );
    assert_eq!(
        plan.unit,
        format!(
            "memsync@{}.service",
            service::systemd_escape_path(&p.workspace)
        )
    );
    assert!(
        plan.contents
            .contains("ExecStart=\"/opt/memsync bin/memsync\" --workspace %f watch"),
        "{}",
        plan.contents
    );
    let steps: Vec<String> = plan.commands.iter().map(|c| c.line()).collect();
    assert_eq!(
        steps,
        [
            "systemctl --user daemon-reload".to_string(),
            format!("systemctl --user enable {}", plan.unit),
            format!("systemctl --user restart {}", plan.unit),
        ],
        "a re-install restarts the running instance"
    );
    assert!(!plan.contents.contains("__STRICT"), "markers are gone");

    // Strict without a sentence command; without the two blocks with one.
    let real = Places {
        exe: PathBuf::from(env!("CARGO_BIN_EXE_memsync")),
        ..p
    };
    let strict = service::plan(Action::Install, Manager::Systemd, &real, true);
    let relaxed = service::plan(Action::Install, Manager::Systemd, &real, false);
    for line in [
        "RestrictAddressFamilies=AF_UNIX",
        "MemoryDenyWriteExecute=yes",
    ] {
        assert!(strict.contents.contains(line), "{line}");
        assert!(!relaxed.contents.contains(line), "{line}");
    }
    let dir = tempfile::tempdir().unwrap();
    verify(dir.path(), &strict.contents, &strict.unit);
    verify(dir.path(), &relaxed.contents, &relaxed.unit);
}

#[test]
fn instance_names_are_what_systemd_escape_makes_of_the_path() {
    for path in [
        "/home/ada/.agents",
        "/home/a b/ws.d/-x",
        "/srv//mem/",
        "/home/ü/.hidden",
        "/",
    ] {
        let ours = service::systemd_escape_path(Path::new(path));
        match Command::new("systemd-escape")
            .args(["--path", path])
            .output()
        {
            Ok(out) => assert_eq!(ours, String::from_utf8_lossy(&out.stdout).trim(), "{path}"),
            Err(_) => eprintln!("skipped: systemd-escape is not installed"),
        }
    }
}

#[test]
fn each_workspace_has_its_own_launchd_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let a = service::plan(Action::Install, Manager::Launchd, &places(tmp.path()), true);
    let other = Places {
        workspace: tmp.path().join("other"),
        ..places(tmp.path())
    };
    let b = service::plan(Action::Install, Manager::Launchd, &other, true);
    assert_ne!(a.unit, b.unit);
    assert_ne!(a.file, b.file);
    assert!(a.unit.starts_with("dev.memsync.watch."), "{}", a.unit);
    assert_eq!(
        a.file,
        tmp.path()
            .join(format!("home/Library/LaunchAgents/{}.plist", a.unit))
    );
    for needed in [
        "<string>/opt/memsync bin/memsync</string>",
        &format!("<string>{}</string>", a.unit),
        "<key>KeepAlive</key>",
        &format!("Library/Logs/{}.log", a.unit),
    ] {
        assert!(a.contents.contains(needed), "{needed} missing");
    }
    assert!(!a.contents.contains("__"), "a placeholder is left");
    let steps: Vec<String> = a.commands.iter().map(|c| c.line()).collect();
    assert_eq!(steps[0], format!("launchctl bootout gui/501/{}", a.unit));
    assert!(
        steps[1].starts_with("launchctl bootstrap gui/501 "),
        "{steps:?}"
    );
}

/// A home, two workspaces, and a PATH holding `systemctl` (a script) or nothing.
struct Machine {
    tmp: tempfile::TempDir,
}

impl Machine {
    fn new(systemctl: Option<&str>) -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        for d in ["home", "a", "b", "bin"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        if let Some(body) = systemctl {
            let script = tmp.path().join("bin/systemctl");
            std::fs::write(&script, body).unwrap();
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Machine { tmp }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn memsync(&self, ws: &str, args: &[&str]) -> (i32, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--workspace")
            .arg(self.path(ws))
            .args(args)
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            // Only the fake: never the machine's own service manager.
            .env("PATH", self.path("bin"))
            .env("SYSTEMCTL_LOG", self.path("systemctl.log"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code().unwrap_or(-1), text)
    }

    fn template(&self) -> PathBuf {
        self.path("home/.config/systemd/user/memsync@.service")
    }
}

/// What `systemctl --user enable|disable` do on disk, and a log of every call.
const SYSTEMCTL: &str = r#"#!/bin/sh
PATH=/usr/bin:/bin
echo "$*" >> "$SYSTEMCTL_LOG"
wants="$XDG_CONFIG_HOME/systemd/user/default.target.wants"
case "$2" in
  enable) mkdir -p "$wants" && ln -sf ../memsync@.service "$wants/$3" ;;
  disable) rm -f "$wants/$4" ;;
esac
exit 0
"#;

#[test]
fn a_second_workspace_gets_its_own_instance_and_neither_uninstall_breaks_the_other() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let m = Machine::new(Some(SYSTEMCTL));
    assert_eq!(m.memsync("a", &["service", "install"]).0, 0);
    assert_eq!(m.memsync("b", &["service", "install"]).0, 0);
    for ws in ["a", "b"] {
        let (_, status) = m.memsync(ws, &["service", "status"]);
        assert!(
            status.contains("for this workspace: installed"),
            "{ws}: {status}"
        );
    }
    let (code, text) = m.memsync("a", &["service", "uninstall"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        m.template().exists(),
        "b's instance still needs the template"
    );
    assert!(
        m.memsync("a", &["service", "status"])
            .1
            .contains("not installed")
    );
    assert!(
        m.memsync("b", &["service", "status"])
            .1
            .contains("workspace: installed")
    );

    // A re-install restarts b's running instance.
    m.memsync("b", &["service", "install"]);
    let log = std::fs::read_to_string(m.path("systemctl.log")).unwrap();
    let b_unit = format!(
        "memsync@{}.service",
        service::systemd_escape_path(&m.path("b").canonicalize().unwrap())
    );
    assert_eq!(
        log.matches(&format!("--user restart {b_unit}")).count(),
        2,
        "{log}"
    );
    m.memsync("b", &["service", "uninstall"]);
    assert!(
        !m.template().exists(),
        "the last instance took the template with it"
    );
}

/// Without a user service manager (containers, WSL, SSH boxes) install says
/// so in its exit code, leaves the unit for later, and names the other ways.
#[test]
fn install_fails_with_exit_1_when_the_service_manager_fails_and_still_writes_the_unit() {
    if !cfg!(target_os = "linux") {
        return;
    }
    for systemctl in [
        None,
        Some("#!/bin/sh\necho 'Failed to connect to bus' >&2\nexit 1\n"),
    ] {
        let m = Machine::new(systemctl);
        let (code, dry) = m.memsync("a", &["service", "install", "--dry-run"]);
        assert_eq!(code, 0);
        assert!(dry.contains("would write") && !m.template().exists());

        let (code, text) = m.memsync("a", &["service", "install"]);
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains(if systemctl.is_none() {
                "could not run systemctl"
            } else {
                "failed: systemctl"
            }),
            "{text}"
        );
        assert!(
            std::fs::read_to_string(m.template())
                .unwrap()
                .contains("--workspace %f watch"),
            "the unit is there to start by hand"
        );
        // And the other ways to keep it running, with this workspace in them.
        let ws = m.path("a").display().to_string();
        for way in [
            "loginctl enable-linger",
            "tmux new -d -s memsync",
            "@reboot",
            "memsync log",
        ] {
            assert!(text.contains(way), "{way}: {text}");
        }
        assert!(
            text.contains(&format!("memsync --workspace {ws} watch")),
            "{text}"
        );
        // Issue 65: no report sends the person back to the install that just failed.
        for args in [&["service", "status"][..], &["doctor"][..]] {
            let (_, said) = m.memsync("a", args);
            assert!(
                said.contains("`memsync service install` failed here")
                    && said.contains("tmux or at login"),
                "{args:?}: {said}"
            );
        }
    }
    // A later install that works forgets the failure.
    let m = Machine::new(Some("#!/bin/sh\nexit 1\n"));
    assert_eq!(m.memsync("a", &["service", "install"]).0, 1);
    std::fs::write(m.path("bin/systemctl"), SYSTEMCTL).unwrap();
    assert_eq!(m.memsync("a", &["service", "install"]).0, 0);
    let (_, doctor) = m.memsync("a", &["doctor"]);
    assert!(
        doctor.contains("memsync service install, or run `memsync watch`"),
        "{doctor}"
    );
}
