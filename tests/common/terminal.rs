//! A harness run the way a person runs it: in a real terminal, a detached
//! tmux session on a socket of its own (so it never touches the user's tmux),
//! typed into with `send-keys` and read with `capture-pane`.
//!
//! `.ci/e2e-install` names tmux in `MEMSYNC_E2E_TMUX`; without it the
//! interactive tests are skipped, except under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

pub struct Terminal {
    tmux: PathBuf,
    socket: String,
}

impl Terminal {
    /// Starts `program args` in `cwd`, 160×50, with exactly `env` added.
    pub fn start(
        tmux: &Path,
        cwd: &Path,
        program: &Path,
        args: &[&str],
        env: &[(&str, String)],
    ) -> Terminal {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let socket = format!("memsync-e2e-{}-{n}", std::process::id());
        let term = Terminal {
            tmux: tmux.to_path_buf(),
            socket,
        };
        let mut cmd = term.tmux();
        cmd.args(["new-session", "-d", "-x", "160", "-y", "50", "-c"])
            .arg(cwd);
        // tmux takes PATH from its client, the rest from -e: give both.
        for (k, v) in env {
            cmd.arg("-e").arg(format!("{k}={v}")).env(k, v);
        }
        cmd.arg("--").arg(program).args(args);
        let out = cmd.output().expect("tmux runs");
        assert!(out.status.success(), "tmux: {out:?}");
        // Keep the last screen after the program exits, for the failure message.
        let _ = term
            .tmux()
            .args(["set-option", "-g", "remain-on-exit", "on"])
            .output();
        term
    }

    fn tmux(&self) -> Command {
        let mut cmd = Command::new(&self.tmux);
        cmd.args(["-L", &self.socket, "-f", "/dev/null"]);
        cmd
    }

    /// What the terminal shows now.
    pub fn screen(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p"]).output();
        out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// Waits (up to `secs`) until `done` holds, with the screen for the message.
    pub fn wait_until(&self, secs: u64, what: &str, mut done: impl FnMut(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let screen = self.screen();
            if done(&screen) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited {secs} s for {what}; the terminal shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Waits (up to 30 s) until the screen stops changing for a second: the
    /// program is idle (a busy harness animates a spinner), so what is typed
    /// next is read as a new request, not queued behind the last one.
    pub fn settle(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = self.screen();
        loop {
            std::thread::sleep(Duration::from_millis(1000));
            let now = self.screen();
            if now == last || Instant::now() > deadline {
                return;
            }
            last = now;
        }
    }

    /// Types `line` as a person would, waits until it shows, then presses Enter.
    pub fn type_line(&self, line: &str) {
        self.type_text(line);
        // A slash command opens a menu first; give it a moment to settle.
        std::thread::sleep(Duration::from_millis(400));
        let typed = self.screen();
        self.keys(&["Enter"]);
        // A program still starting up can drop the key: when nothing on the
        // screen moved after a few seconds, press it again (an Enter on an
        // empty prompt does nothing).
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.screen() == typed {
            if Instant::now() > deadline {
                self.keys(&["Enter"]);
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Types `text` and waits until it shows; presses nothing after it.
    pub fn type_text(&self, text: &str) {
        self.keys(&["-l", text]);
        // The screen keeps no trailing blanks.
        let shown = text.trim_end();
        self.wait_until(20, &format!("{text:?} to show"), |s| s.contains(shown));
    }

    /// Presses keys by tmux name: `Tab`, `Enter`, `C-c`.
    pub fn press(&self, keys: &[&str]) {
        self.keys(keys);
    }

    fn keys(&self, keys: &[&str]) {
        let out = self.tmux().arg("send-keys").args(keys).output();
        assert!(out.is_ok_and(|o| o.status.success()), "tmux send-keys");
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

/// `name` found on PATH, or `None` (skipped) outside CI; under `CI=true`
/// (where `.ci/run` installs tmux and zsh) a missing program is a failure.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "{name} must be installed under CI (.ci/run installs it)"
        );
        eprintln!("skipped: {name} is not installed");
    }
    found
}
