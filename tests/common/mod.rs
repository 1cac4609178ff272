//! Shared fixtures: a real temp-dir workspace, real SQLite, and helpers to write
//! canonical sessions the way a harness would.
#![allow(dead_code)]

pub mod captured;
pub mod chats;
pub mod claude;
pub mod codex;
pub mod daemon;
pub mod gitrepo;
pub mod hardening;
pub mod harness;
pub mod home;
pub mod hostile_values;
pub mod labels;
pub mod lines;
pub mod mcp;
pub mod rss;
#[cfg(target_os = "linux")]
pub mod stall;
pub mod terminal;

use std::path::{Path, PathBuf};
use std::time::{Duration as StdDuration, SystemTime};

use chrono::{DateTime, Duration, Utc};
use memsync::cli::commands::{self, CheckReport};
use memsync::compose::{Content, NewSession};
use memsync::config::{Env, Settings};
use memsync::pipeline::{self, SyncOptions, SyncReport};
use memsync::validate::{Problem, Severity};
use tempfile::TempDir;

/// The fixed clock most tests run at.
pub fn now() -> DateTime<Utc> {
    ts("2026-11-20T12:00:00Z")
}

pub fn ts(s: &str) -> DateTime<Utc> {
    memsync::contract::parse_ts(s).expect("test timestamp")
}

pub struct Workspace {
    pub dir: TempDir,
    pub settings: Settings,
}

impl Workspace {
    /// An empty workspace with daily logs in UTC and no machine config.
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut settings =
            Settings::load(Some(dir.path()), None, &Env::default()).expect("settings");
        settings.config.daily_logs.timezone = "UTC".into();
        // Tests pass the clock explicitly, like `--now`.
        settings.fixed_clock = true;
        Workspace { dir, settings }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes a file with an mtime in the past, as if it had been there a while
    /// (outside the stat cache's racy window).
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        age(&path);
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path(rel)).expect("remove");
    }

    /// Writes every file of a session; returns their paths.
    pub fn add(&self, s: &NewSession) -> Vec<String> {
        let files = s.files(&self.settings.config);
        for (rel, text) in &files {
            self.write(rel, text);
        }
        files.into_iter().map(|(p, _)| p).collect()
    }

    pub fn sync_at(&self, now: DateTime<Utc>) -> SyncReport {
        pipeline::sync(&self.settings, now, SyncOptions::RENDER).expect("sync")
    }

    pub fn sync(&self) -> SyncReport {
        self.sync_at(now())
    }

    pub fn check(&self) -> CheckReport {
        commands::check(&self.settings, now(), None).expect("check")
    }

    /// The problems `check` reports for one path.
    pub fn problems_for(&self, rel: &str) -> Vec<Problem> {
        self.check()
            .problems
            .into_iter()
            .filter(|p| p.path == rel)
            .collect()
    }

    /// Runs the binary on this workspace at the fixed clock.
    /// The hits of `memsync --json search ARGS`.
    pub fn search_json(&self, args: &[&str]) -> Vec<serde_json::Value> {
        let mut all = vec!["--json", "search"];
        all.extend_from_slice(args);
        let out = self.cli(&all).success().get_output().stdout.clone();
        serde_json::from_slice::<serde_json::Value>(&out)
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    pub fn cli(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        memsync_bin()
            .arg("--workspace")
            .arg(self.root())
            .args(["--now", "2026-11-20T12:00:00Z"])
            .args(args)
            .assert()
    }

    /// A fresh workspace holding a copy of `root`'s files but none of its
    /// derived state: syncing it gives the clean result for those files.
    pub fn copy_of(root: &Path) -> Workspace {
        let ws = Workspace::new();
        for (rel, bytes) in tree(root) {
            let path = ws.path(&rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, bytes).expect("copy");
        }
        ws
    }

    /// Files and index rows after a sync at `at`: what every recovery must equal.
    pub fn synced_state(
        &self,
        at: DateTime<Utc>,
    ) -> (std::collections::BTreeMap<String, Vec<u8>>, Vec<String>) {
        self.sync_at(at);
        (tree(self.root()), self.content_rows())
    }

    /// Deletes the index and its WAL files: the next sync rebuilds from markdown.
    pub fn delete_index(&self) {
        let index = self.settings.index_path();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
        }
    }

    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.settings.index_path()).expect("open index")
    }

    /// Content rows, in a stable order, without row ids: what re-index must reproduce.
    pub fn content_rows(&self) -> Vec<String> {
        let db = self.db();
        let mut out = Vec::new();
        for sql in [
            "SELECT a.source_path, a.source_sha256, a.source_kind, a.agent_id, a.token, a.session_id,
             a.session_key, a.project, a.membership_ts, a.memory_sentence, a.stale
             FROM artifacts a ORDER BY a.source_path",
            "SELECT s.agent_id, s.token, s.sentence, f.summary, f.transcript, f.compaction
             FROM sessions s JOIN session_fts f ON f.rowid = s.fts_id ORDER BY s.agent_id, s.token",
            "SELECT source_path, agent_id, token, removed_at, reason FROM tombstones ORDER BY source_path",
            // A hand deletion's notice is history, not something the files say.
            "SELECT path, severity, rule, reason FROM problems WHERE rule <> 'artifact.deleted' ORDER BY path, rule, reason",
        ] {
            let mut stmt = db.prepare(sql).expect("prepare");
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |r| {
                    let cols: Vec<String> = (0..n).map(|i| show(r.get_ref(i))).collect();
                    Ok(cols.join("|"))
                })
                .expect("query");
            out.extend(rows.map(|r| r.expect("row")));
        }
        out
    }
}

/// `chattr +i` for the life of the value: even root cannot write, rename
/// over or create in `path`.
pub struct Immutable(PathBuf);

impl Immutable {
    pub fn set(path: &Path) -> Immutable {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .status();
        assert!(
            ok.is_ok_and(|s| s.success()),
            "chattr +i {}",
            path.display()
        );
        Immutable(path.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

/// A column as readable text (so rows can be searched for a path).
fn show(value: rusqlite::Result<rusqlite::types::ValueRef<'_>>) -> String {
    use rusqlite::types::ValueRef;
    match value {
        Ok(ValueRef::Text(t)) => format!("{:?}", String::from_utf8_lossy(t)),
        Ok(ValueRef::Integer(i)) => i.to_string(),
        Ok(ValueRef::Real(f)) => f.to_string(),
        Ok(ValueRef::Null) => "NULL".into(),
        Ok(ValueRef::Blob(b)) => format!("blob:{}", b.len()),
        Err(e) => format!("error:{e}"),
    }
}

/// Sets a file's mtime to `at` (RFC 3339): where a test runs on a fixed
/// clock, a file's age must not depend on when the test runs.
pub fn set_mtime_at(path: &Path, at: &str) {
    let at = chrono::DateTime::parse_from_rfc3339(at).expect("an RFC 3339 time");
    let at = std::time::UNIX_EPOCH + StdDuration::from_millis(at.timestamp_millis() as u64);
    std::fs::File::options()
        .append(true)
        .open(path)
        .and_then(|f| f.set_modified(at))
        .expect("set mtime");
}

/// Sets a file's mtime ten seconds into the past.
pub fn age(path: &Path) {
    let f = std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open for mtime");
    f.set_modified(SystemTime::now() - StdDuration::from_secs(10))
        .expect("set mtime");
}

/// `hours` before the real clock: for tests against a running daemon.
pub fn recent(hours: i64) -> DateTime<Utc> {
    Utc::now() - Duration::hours(hours)
}

/// The root MEMORY.md, or "" before the first render.
pub fn memory_md(root: &Path) -> String {
    std::fs::read_to_string(root.join("MEMORY.md")).unwrap_or_default()
}

/// Writes one good session (ended 2026-11-19T10:00Z) and returns its paths.
pub fn good(ws: &Workspace, id: &str) -> Vec<String> {
    ws.add(&session("default", id, ts("2026-11-19T10:00:00Z")))
}

/// A session ended at `ended` with a good sentence naming the project.
pub fn session(agent: &str, id: &str, ended: DateTime<Utc>) -> NewSession {
    let sentence = format!(
        "Refactored the scan stage of memsync in src/scan.rs for session {id} and verified the stat cache on disk."
    );
    let content = |body: &str| Content {
        body: body.to_string(),
        sentence: Some(sentence.clone()),
        captured_at: ended,
    };
    NewSession {
        agent_id: agent.into(),
        session_id: id.into(),
        session_key: None,
        project: Some("/home/dev/code/memsync".into()),
        harness: "claude-code".into(),
        started_at: Some(ended - Duration::minutes(30)),
        ended_at: Some(ended),
        captured_at: ended,
        summary: Some(content(&format!("## Summary\n\nWork on session {id}.\n"))),
        transcript: Some(content(&format!(
            "user: hello from {id}\nassistant: done\n"
        ))),
        compaction: None,
        private: false,
        sentence_version: "memory_sentence_v1".into(),
        sanitizer_version: "sanitize_transcript_v1".into(),
    }
}

/// `session`, `days` before `now()`, with `sentence` as its memory and a
/// transcript of `body`.
pub fn told(id: &str, days: i64, sentence: &str, body: &str) -> NewSession {
    let mut s = session("default", id, now() - Duration::days(days));
    for c in [s.summary.as_mut(), s.transcript.as_mut()]
        .into_iter()
        .flatten()
    {
        c.sentence = Some(sentence.into());
    }
    if let Some(t) = s.transcript.as_mut() {
        t.body = body.into();
    }
    s
}

/// The path of a session's artifact of `kind`.
pub fn path_of(paths: &[String], kind: &str) -> String {
    paths
        .iter()
        .find(|p| p.ends_with(&format!("--{kind}.md")))
        .unwrap_or_else(|| panic!("no {kind} in {paths:?}"))
        .clone()
}

pub fn has_rule(problems: &[Problem], rule: &str, severity: Severity) -> bool {
    problems
        .iter()
        .any(|p| p.rule == rule && p.severity == severity)
}

/// The `memsync` binary with a clean environment: no machine config, UTC.
/// The bundled example workspace, written and synced at the fixed clock
/// ([`now`]), in a temp dir that lives as long as the guard.
pub fn demo_workspace() -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("demo");
    memsync_bin()
        .args(["--now", "2026-11-20T12:00:00Z", "-q", "demo"])
        .arg(&root)
        .assert()
        .success();
    (tmp, root)
}

pub fn memsync_bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("memsync").expect("binary");
    cmd.env_remove("MEMSYNC_CONFIG")
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("SIGNET_WORKSPACE")
        .env_remove("SIGNET_PATH")
        .env_remove("MEMSYNC_FAILPOINT")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC");
    cmd
}

/// Runs `memsync --workspace WS --now NOW ARGS…` to completion.
pub fn run_at(ws: &Path, now: &str, args: &[&str]) -> std::process::Output {
    memsync_bin()
        .arg("--workspace")
        .arg(ws)
        .args(["--now", now])
        .args(args)
        .output()
        .expect("memsync runs")
}

/// Every file under `root` but memsync's state dir, with its bytes.
pub fn tree(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".memsync")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).expect("under root");
            (
                rel.to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

/// Files under `dir` (any depth) whose bytes contain `needle`.
pub fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path())
                .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// Runs git in `dir`; its stdout, or a panic naming the command and its stderr.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A file the real harness programs wrote (`../shared/harness-samples/REL`),
/// or `None`, said to be skipped, where that folder is absent.
/// A fixture of this project's, under `tests/fixtures/harness/`.
pub fn harness_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/harness")
        .join(rel)
}

pub fn harness_sample(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/harness-samples")
        .join(rel);
    if !p.exists() {
        eprintln!("skipped: {} is absent", p.display());
        return None;
    }
    Some(p)
}
