//! A fake home directory for `connect`, `disconnect` and `doctor`: Claude
//! Code, Codex and OpenClaw folders and a workspace, in a temp dir.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::memsync_bin;

/// A home with Claude Code, Codex and OpenClaw folders, and a workspace.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        for d in [".claude", ".codex", ".openclaw/workspace", "ws"] {
            std::fs::create_dir_all(home.path(d)).unwrap();
        }
        std::fs::write(
            home.path("ws/memsync.yaml"),
            "daily_logs:\n  timezone: UTC\n",
        )
        .unwrap();
        home
    }

    /// A finished Codex session where Codex keeps them, for harvest.
    pub fn codex_session(&self) {
        let dir = self.path(".codex/sessions/2026/11/20");
        std::fs::create_dir_all(&dir).unwrap();
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/harness/codex.jsonl");
        std::fs::copy(
            fixture,
            dir.join("rollout-2026-11-20T10-00-00-0195f1c2-aaaa-7000-8000-000000000001.jsonl"),
        )
        .unwrap();
    }

    /// OpenClaw's workspace as OpenClaw leaves it after its first run.
    pub fn openclaw_set_up(&self) {
        self.write(
            ".openclaw/workspace/AGENTS.md",
            "# AGENTS.md - Your Workspace\n",
        );
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_default()
    }

    pub fn cmd(&self) -> assert_cmd::Command {
        self.cmd_in(&self.path("ws"))
    }

    /// Runs the capture jobs a harness's hook queued and waits (30 s at
    /// most) for MEMORY.md to hold `needle`; the hook's own worker may be
    /// the one that runs them.
    pub fn wait_for_ledger(&self, needle: &str) -> String {
        self.cmd().args(["capture", "jobs"]).assert().success();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let memory = self.read("ws/MEMORY.md");
            if memory.contains(needle) || std::time::Instant::now() > deadline {
                return memory;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    /// `cmd` on another workspace.
    pub fn cmd_in(&self, workspace: &std::path::Path) -> assert_cmd::Command {
        let mut cmd = self.cmd_nowhere();
        cmd.arg("--workspace").arg(workspace);
        cmd
    }

    /// memsync in this home with no workspace named anywhere (no flag, no variable).
    pub fn cmd_nowhere(&self) -> assert_cmd::Command {
        let mut cmd = memsync_bin();
        cmd.env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.path(".config"))
            .env("XDG_STATE_HOME", self.path(".local/state"))
            .env("XDG_DATA_HOME", self.path(".local/share"));
        for var in [
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "OPENCLAW_STATE_DIR",
            "MEMSYNC_WORKSPACE",
            "SIGNET_WORKSPACE",
            "SIGNET_PATH",
        ] {
            cmd.env_remove(var);
        }
        cmd
    }

    /// Runs memsync and returns its exit code and JSON report.
    pub fn run(&self, args: &[&str]) -> (i32, Value) {
        let out = self.cmd().arg("--json").args(args).output().unwrap();
        let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), json)
    }

    /// Every file of the home outside the workspace, with its bytes.
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        walkdir::WalkDir::new(self.dir.path())
            .into_iter()
            .filter_entry(|e| e.file_name() != "ws")
            .filter_map(Result::ok)
            .filter(|e| !e.file_type().is_dir())
            .map(|e| {
                let rel = e.path().strip_prefix(self.dir.path()).unwrap();
                // A FIFO or a link to nothing stands for itself (reading would hang or fail).
                let bytes = match e.file_type().is_file() {
                    true => std::fs::read(e.path()).unwrap(),
                    false => format!("{:?}", e.file_type()).into_bytes(),
                };
                (rel.display().to_string(), bytes)
            })
            .collect()
    }

    /// Every directory of the home outside the workspace.
    pub fn dirs(&self) -> Vec<String> {
        walkdir::WalkDir::new(self.dir.path())
            .into_iter()
            .filter_entry(|e| e.file_name() != "ws")
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_dir())
            .map(|e| e.path().display().to_string())
            .collect()
    }
}

/// `memsync watch` in `home`, with the environment the provider needs (as
/// a service unit's `Environment=` gives it); killed on drop.
pub struct Watch(std::process::Child);

impl Watch {
    pub fn start(home: &Home, env: &[(&str, String)]) -> Watch {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--workspace")
            .arg(home.path("ws"))
            .arg("watch")
            .env("HOME", home.dir.path())
            .env("XDG_CONFIG_HOME", home.path(".config"))
            .env("XDG_STATE_HOME", home.path(".local/state"))
            .env("XDG_DATA_HOME", home.path(".local/share"))
            .env_remove("MEMSYNC_CONFIG")
            .env_remove("MEMSYNC_WORKSPACE")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("memsync watch starts");
        let state = home.path("ws/.memsync/daemon.json");
        let pid = format!("\"pid\": {}", child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !std::fs::read_to_string(&state).is_ok_and(|s| s.contains(&pid)) {
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for the daemon's first reconcile"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        Watch(child)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
