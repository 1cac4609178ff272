//! The real harness programs for the end-to-end suite, and the fake model
//! server they talk to on 127.0.0.1 (`tests/e2e/fake_model.py`).
//!
//! `.ci/e2e-install` installs the pinned programs from the npm registry and
//! names them in `MEMSYNC_E2E_CLAUDE`; without it a test says it is skipped,
//! except under `CI=true`, where a missing program is a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The harness binary named by `var`, or `None` (skipped) outside CI.
pub fn program(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var).map(PathBuf::from) {
        Some(p) if p.is_file() => Some(p),
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{var} must name the harness under CI: run .ci/e2e-install first")
        }
        _ => {
            eprintln!("skipped: {var} is not set (bash .ci/e2e-install sets it)");
            None
        }
    }
}

/// The fake model server, killed on drop.
pub struct FakeModel {
    child: Child,
    pub port: u16,
    /// Every request body it received, one JSON line each.
    log: tempfile::NamedTempFile,
}

impl FakeModel {
    pub fn start() -> FakeModel {
        FakeModel::start_with(&[])
    }

    /// The server with more of its variables set (`FAKE_MODEL_SENTENCES`:
    /// the answers it gives memsync's own calls, in turn).
    pub fn start_with(vars: &[(&str, PathBuf)]) -> FakeModel {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/fake_model.py");
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new("python3")
            .arg(script)
            .envs(vars.iter().map(|(k, v)| (*k, v.as_os_str())))
            .env("FAKE_MODEL_REQUESTS", log.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs the fake model server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server prints its port");
        FakeModel { child, port, log }
    }

    /// The bodies of the requests it received so far, as one text.
    pub fn requests(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of every `kind` artifact (`summary`, `compaction`…) in
/// `workspace/memory`, in name order (oldest capture first).
pub fn artifacts(workspace: &Path, kind: &str) -> Vec<String> {
    let suffix = format!("--{kind}.md");
    let mut names: Vec<PathBuf> = std::fs::read_dir(workspace.join("memory"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(&suffix))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// The text of the first session summary under `workspace/memory`.
pub fn first_summary(workspace: &Path) -> String {
    walkdir::WalkDir::new(workspace.join("memory"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("--summary.md"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a summary")
}
