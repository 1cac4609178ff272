//! A `memsync watch` subprocess for tests that need a running daemon.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running daemon; killed (SIGKILL) if a test ends without stopping it.
pub struct Daemon {
    child: Option<Child>,
    pub log: std::path::PathBuf,
    _log_dir: tempfile::TempDir,
}

impl Daemon {
    pub fn start(root: &Path) -> Daemon {
        Daemon::start_with(root, None)
    }

    /// A daemon that reads `config` as its machine config.
    pub fn start_with(root: &Path, machine_config: Option<&Path>) -> Daemon {
        // Fast batches and UTC days, from the workspace's own settings.
        let config = root.join("memsync.yaml");
        if !config.exists() {
            std::fs::write(
                &config,
                "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\ngit:\n  commit_quiet_ms: 1000\n",
            )
            .unwrap();
        }
        // The log lives outside the workspace: it is not the daemon's business.
        let log_dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memsync"));
        if let Some(file) = machine_config {
            cmd.arg("--config").arg(file);
        }
        let child = cmd
            .arg("--workspace")
            .arg(root)
            .arg("watch")
            .env("RUST_LOG", "memsync=debug")
            .env_remove("MEMSYNC_CONFIG")
            .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log_dir.path().join("daemon.log")).unwrap())
            .spawn()
            .expect("spawn memsync watch");
        let daemon = Daemon {
            child: Some(child),
            log: log_dir.path().join("daemon.log"),
            _log_dir: log_dir,
        };
        // This daemon's first reconcile: a state file left by an earlier one does not count.
        let pid = format!("\"pid\": {}", daemon.pid());
        wait_for(&daemon.log, "the daemon's first reconcile", || {
            std::fs::read_to_string(root.join(".memsync/daemon.json"))
                .is_ok_and(|s| s.contains(&pid) && s.contains("start-up"))
        });
        daemon
    }

    pub fn pid(&self) -> i32 {
        self.child.as_ref().map_or(0, |c| c.id() as i32)
    }

    /// SIGTERM, then the exit status.
    pub fn stop(mut self) -> std::process::ExitStatus {
        terminate(self.child.take().expect("running"))
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// SIGTERM, then the exit status, which must come within 5 s.
pub fn terminate(mut child: Child) -> std::process::ExitStatus {
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "daemon did not exit within 5 s of SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `done` for up to 15 s; on a timeout, shows the daemon's log.
pub fn wait_for(log: &Path, what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done() {
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            panic!("timed out waiting for {what}; daemon log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}
