//! `memsync harvest` against fake harness homes in temp dirs, laid out as
//! each harness lays out its sessions, with the session fixtures of
//! `tests/fixtures/harness/` (cut from real sessions) and real processes.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::daemon::{Daemon, wait_for};
use common::memsync_bin;
use serde_json::Value;

/// The harvest clock: a day after the fixtures' sessions.
const NOW: &str = "2026-11-21T12:00:00Z";

/// Harness homes and a workspace, with a machine config that points at them.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(extra_config: &str) -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(home.ws()).unwrap();
        let d = home.dir.path().display();
        std::fs::write(
            home.config(),
            format!(
                "harvest:\n  claude_code_dir: {d}/claude\n  codex_home: {d}/codex\n  openclaw_dir: {d}/openclaw\n  pi_dir: {d}/pi\n{extra_config}"
            ),
        )
        .unwrap();
        std::fs::write(
            home.ws().join("memsync.yaml"),
            "daily_logs:\n  timezone: UTC\n",
        )
        .unwrap();
        home
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.yaml")
    }

    /// Writes a session file under a harness home, idle for two hours at NOW.
    fn place(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        set_mtime(&path, ago(2 * 3600));
        path
    }

    /// The four harnesses' fixture sessions, where each harness keeps them.
    fn place_all_four(&self) -> Vec<PathBuf> {
        vec![
            self.place(
                "claude/projects/-home-ana-shop/cc-5d3c.jsonl",
                &fixture("claude-code.jsonl"),
            ),
            self.place(
                "codex/sessions/2026/11/20/rollout-2026-11-20T10-00-00-0195f1c2.jsonl",
                &fixture("codex.jsonl"),
            ),
            self.place(
                "openclaw/agents/main/sessions/7b1e0000.jsonl",
                &fixture("openclaw.jsonl"),
            ),
            self.place(
                "pi/sessions/--Users-b-pi-mono--/p1.jsonl",
                &fixture("pi.jsonl"),
            ),
        ]
    }

    fn harvest(&self, args: &[&str]) -> (i32, Value) {
        let out = memsync_bin()
            .arg("--config")
            .arg(self.config())
            .arg("--workspace")
            .arg(self.ws())
            .args(["--now", NOW, "--json", "harvest"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        (out.status.code().unwrap_or(-1), report)
    }

    fn memory_md(&self, agent: Option<&str>) -> String {
        let rel = agent.map_or("MEMORY.md".to_string(), |a| format!("agents/{a}/MEMORY.md"));
        std::fs::read_to_string(self.ws().join(rel)).unwrap_or_default()
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/harness")
            .join(name),
    )
    .unwrap()
}

/// NOW minus `secs`, as a file time.
fn ago(secs: u64) -> SystemTime {
    let now = common::ts(NOW);
    SystemTime::UNIX_EPOCH + Duration::from_secs(now.timestamp() as u64 - secs)
}

fn set_mtime(path: &Path, at: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

fn count(report: &Value, list: &str) -> usize {
    report[list].as_array().map_or(0, Vec::len)
}

/// Every file under the workspace's memory/ folder, with its bytes.
fn artifacts(ws: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    common::tree(ws)
        .into_iter()
        .filter(|(p, _)| {
            p.starts_with("memory/") && p.contains("--") && !p.starts_with("memory/tombstones/")
        })
        .collect()
}

/// A Claude Code session of `turns` request/answer pairs.
fn claude_session(id: &str, turns: usize) -> String {
    (0..turns)
        .flat_map(|i| {
            let at = format!("2026-11-20T10:{:02}:00.000Z", i % 60);
            [
                format!(
                    r#"{{"type":"user","uuid":"u-{i}","sessionId":"{id}","cwd":"/home/ana/shop","timestamp":"{at}","message":{{"role":"user","content":"Step {i}: add a retry to the payment client in src/pay.rs"}}}}"#
                ),
                format!(
                    r#"{{"type":"assistant","uuid":"a-{i}","sessionId":"{id}","timestamp":"{at}","message":{{"id":"m-{i}","role":"assistant","content":[{{"type":"text","text":"Done with step {i}: src/pay.rs retries with backoff."}}]}}}}"#
                ),
            ]
        })
        .map(|l| l + "\n")
        .collect()
}

#[test]
fn idle_sessions_from_all_four_harnesses_are_captured_once_and_a_second_run_writes_nothing() {
    let home = Home::new("");
    home.place_all_four();
    let (code, report) = home.harvest(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(count(&report, "captured"), 4, "{report:#}");
    let memory = home.memory_md(None);
    for session in [
        "session=cc-5d3c ",
        "session=0195f1c2-aaaa-7000-8000-000000000001 ",
        "session=d703a1a9",
    ] {
        assert!(
            memory.contains(session),
            "{session} not in MEMORY.md:\n{memory}"
        );
    }
    // OpenClaw's agent `main` is memsync's agent `main`.
    assert!(
        home.memory_md(Some("main"))
            .contains("session=7b1e0000-feb4-4bdc-8855-4eb055bdff3b ")
    );
    let before = common::tree(&home.ws());
    let (code, again) = home.harvest(&[]);
    assert_eq!(code, 0);
    assert_eq!(again["unchanged"], 4, "{again:#}");
    assert_eq!(count(&again, "captured") + count(&again, "continued"), 0);
    let after = common::tree(&home.ws());
    assert_eq!(artifacts(&home.ws()).len(), artifacts_of(&before).len());
    assert_eq!(before, after, "a second run wrote something");
}

fn artifacts_of(tree: &std::collections::BTreeMap<String, Vec<u8>>) -> Vec<&String> {
    tree.keys()
        .filter(|p| p.starts_with("memory/") && p.contains("--"))
        .collect()
}

#[test]
fn a_live_session_is_left_until_it_has_been_idle() {
    let home = Home::new("");
    let path = home.place(
        "claude/projects/-home-ana-shop/live.jsonl",
        &claude_session("live-1", 3),
    );
    set_mtime(&path, ago(60));
    let (_, report) = home.harvest(&[]);
    assert_eq!(
        (report["live"].as_u64(), count(&report, "captured")),
        (Some(1), 0),
        "{report:#}"
    );
    assert!(!home.memory_md(None).contains("session=live-1 "));
    set_mtime(&path, ago(3600));
    let (_, report) = home.harvest(&[]);
    assert_eq!(count(&report, "captured"), 1, "{report:#}");
    assert!(home.memory_md(None).contains("session=live-1 "));
}

#[test]
fn a_heartbeat_only_session_is_skipped_and_kept_out_of_memory_md() {
    let home = Home::new("");
    let heartbeat = [
        r#"{"type":"session","version":3,"id":"hb000000-0000-4000-8000-000000000001","timestamp":"2026-11-20T08:00:00.000Z","cwd":"/home/hy/.openclaw/workspace"}"#,
        r#"{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-20T08:00:01.000Z","message":{"role":"user","content":"[OpenClaw heartbeat poll] Read HEARTBEAT.md if it exists and follow it."}}"#,
        r#"{"type":"message","id":"a0000002","parentId":"a0000001","timestamp":"2026-11-20T08:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]}}"#,
    ]
    .join("\n");
    home.place("openclaw/agents/main/sessions/hb000000.jsonl", &heartbeat);
    home.place_all_four();
    let (code, report) = home.harvest(&[]);
    assert_eq!(code, 0);
    let skipped = &report["skipped"][0];
    assert!(
        skipped["path"]
            .as_str()
            .unwrap()
            .ends_with("hb000000.jsonl"),
        "{report:#}"
    );
    assert!(
        skipped["reason"]
            .as_str()
            .unwrap()
            .contains("no request from a person")
    );
    assert!(!home.memory_md(Some("main")).contains("hb000000"));
    assert_eq!(count(&report, "captured"), 4);
    // Skipped once is remembered: the next run does not read it again.
    assert_eq!(home.harvest(&[]).1["unchanged"], 5);
}

#[test]
fn a_garbage_file_is_named_in_the_report_and_the_others_are_captured() {
    let home = Home::new("");
    let garbage = home.place(
        "codex/sessions/2026/11/20/rollout-2026-11-20T11-00-00-bad.jsonl",
        "\u{0}\u{1}garbage {{{\n",
    );
    home.place_all_four();
    let (code, report) = home.harvest(&[]);
    assert_eq!(code, 1, "a file that needs a look makes the run exit 1");
    assert_eq!(count(&report, "captured"), 4, "{report:#}");
    let failed = &report["failed"][0];
    assert_eq!(
        failed["path"].as_str(),
        Some(garbage.to_string_lossy().as_ref())
    );
    assert!(
        failed["reason"]
            .as_str()
            .unwrap()
            .contains("not a codex session file")
    );
    // Reported once; it waits for the file to change rather than failing every run.
    let (code, again) = home.harvest(&[]);
    assert_eq!(
        (code, count(&again, "failed"), again["unchanged"].as_u64()),
        (0, 0, Some(5))
    );
}

#[test]
fn a_grown_session_gains_its_new_turns_and_its_earlier_artifacts_stay_byte_identical() {
    let home = Home::new("");
    let path = home.place(
        "claude/projects/-home-ana-shop/grow.jsonl",
        &claude_session("grow-1", 2),
    );
    home.harvest(&[]);
    let first = artifacts(&home.ws());
    assert_eq!(first.len(), 3, "{:?}", first.keys());
    let grown = claude_session("grow-1", 4);
    std::fs::write(&path, &grown).unwrap();
    set_mtime(&path, ago(3600));
    let (_, report) = home.harvest(&[]);
    assert_eq!(count(&report, "continued"), 1, "{report:#}");
    let second = artifacts(&home.ws());
    for (p, bytes) in &first {
        if p.ends_with("--manifest.md") {
            continue; // the manifest points at the newest part
        }
        assert_eq!(second.get(p), Some(bytes), "{p} changed");
    }
    let new_parts: Vec<&String> = second.keys().filter(|p| !first.contains_key(*p)).collect();
    assert!(
        new_parts.iter().any(|p| p.ends_with("--transcript.md")),
        "{new_parts:?}"
    );
    let part = new_parts
        .iter()
        .find(|p| p.ends_with("--transcript.md"))
        .unwrap();
    let text = String::from_utf8_lossy(&second[*part]).into_owned();
    // The body, after the frontmatter (whose sentence speaks for the whole session).
    let body = text.splitn(3, "---\n").nth(2).unwrap_or_default();
    assert!(
        body.contains("Step 3") && !body.contains("Step 0:"),
        "only the new turns: {body}"
    );
}

#[test]
fn a_truncated_file_is_reported_and_not_captured_again() {
    let home = Home::new("");
    let path = home.place(
        "claude/projects/-home-ana-shop/cut.jsonl",
        &claude_session("cut-1", 4),
    );
    home.harvest(&[]);
    let before = artifacts(&home.ws());
    home.place(
        "claude/projects/-home-ana-shop/cut.jsonl",
        &claude_session("cut-1", 1),
    );
    let (code, report) = home.harvest(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        report["replaced"][0]["path"].as_str(),
        Some(path.to_string_lossy().as_ref())
    );
    assert_eq!(artifacts(&home.ws()), before, "nothing captured from it");
    assert_eq!(home.harvest(&[]).0, 0, "reported once");
}

#[test]
fn a_forgotten_session_is_never_harvested_again() {
    let home = Home::new("");
    let path = home.place(
        "claude/projects/-home-ana-shop/gone.jsonl",
        &claude_session("gone-1", 2),
    );
    home.harvest(&[]);
    memsync_bin()
        .arg("--workspace")
        .arg(home.ws())
        .args([
            "--now",
            NOW,
            "forget",
            "gone-1",
            "--reason",
            "pasted a secret",
        ])
        .assert()
        .success();
    // The harness keeps writing to the file; the session stays forgotten.
    std::fs::write(&path, claude_session("gone-1", 3)).unwrap();
    set_mtime(&path, ago(3600));
    let (_, report) = home.harvest(&[]);
    assert!(
        report["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("forgotten"),
        "{report:#}"
    );
    assert!(artifacts(&home.ws()).is_empty());
    assert!(!home.memory_md(None).contains("gone-1"));
}

#[test]
fn sub_agent_excluded_project_and_test_sessions_are_skipped_with_a_reason() {
    let home = Home::new("  exclude_projects: ['/home/ana/secret/**']\n");
    let sidechain = claude_session("side-1", 1)
        .replace(r#""type":"user","#, r#""type":"user","isSidechain":true,"#)
        .replace(
            r#""type":"assistant","#,
            r#""type":"assistant","isSidechain":true,"#,
        );
    home.place("claude/projects/-a/side-1.jsonl", &sidechain);
    home.place(
        "claude/projects/-b/secret.jsonl",
        &claude_session("secret-1", 1).replace("/home/ana/shop", "/home/ana/secret/vault"),
    );
    home.place(
        "claude/projects/-c/test-1.jsonl",
        &claude_session("test-1", 1),
    );
    let (_, report) = home.harvest(&[]);
    let reasons: Vec<&str> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 3, "{report:#}");
    assert!(
        reasons.iter().any(|r| r.contains("sub-agent")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("project is excluded")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("test session")),
        "{reasons:?}"
    );
    assert!(artifacts(&home.ws()).is_empty());
}

#[test]
fn a_dry_run_names_what_it_would_capture_and_writes_nothing() {
    let home = Home::new("");
    home.place_all_four();
    let before = common::tree(&home.ws());
    let (_, report) = home.harvest(&["--dry-run", "--harness", "codex"]);
    assert_eq!(count(&report, "would_capture"), 1, "{report:#}");
    assert_eq!(common::tree(&home.ws()), before);
}

/// Sessions a hook already captured (no harvest mark) are not promised as
/// captures by a dry run: the real run would write nothing for them.
#[test]
fn a_dry_run_does_not_promise_sessions_a_hook_already_captured() {
    let home = Home::new("");
    home.place_all_four();
    let (code, first) = home.harvest(&[]);
    assert_eq!(code, 0, "{first:#}");
    // The machine's harvest record is gone (a hook captured them, or a clone).
    std::fs::remove_file(home.ws().join(".memsync/jobs.db")).unwrap();
    let (_, report) = home.harvest(&["--dry-run"]);
    assert_eq!(count(&report, "would_capture"), 0, "{report:#}");
    assert_eq!(report["already_captured"], 4, "{report:#}");
}

#[test]
fn two_harvests_in_parallel_capture_each_session_once() {
    let home = Home::new("");
    for i in 0..24 {
        home.place(
            &format!("claude/projects/-p{}/par-{i:02}.jsonl", i % 3),
            &claude_session(&format!("par-{i:02}"), 2),
        );
    }
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--config")
            .arg(home.config())
            .arg("--workspace")
            .arg(home.ws())
            .args(["--now", NOW, "--json", "harvest"])
            .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let reports: Vec<Value> = [a, b]
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
        })
        .collect();
    let captured: usize = reports.iter().map(|r| count(r, "captured")).sum();
    let already: u64 = reports
        .iter()
        .map(|r| r["already_captured"].as_u64().unwrap())
        .sum();
    assert_eq!(captured, 24, "{reports:#?}");
    assert_eq!(already, 0, "no session was captured by both");
    let files = artifacts(&home.ws());
    assert_eq!(
        files.len(),
        24 * 3,
        "one transcript, summary and manifest each"
    );
    let memory = home.memory_md(None);
    for i in 0..24 {
        assert_eq!(memory.matches(&format!("session=par-{i:02} ")).count(), 1);
    }
}

#[test]
fn the_daemon_with_harvest_enabled_captures_a_new_idle_session_on_its_own() {
    let home = Home::new("  enabled: true\n  interval_seconds: 1\n");
    std::fs::write(
        home.ws().join("memsync.yaml"),
        "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\n",
    )
    .unwrap();
    let daemon = Daemon::start_with(&home.ws(), Some(&home.config()));
    // Idle by the real clock: written two hours ago.
    let path = home.place(
        "claude/projects/-home-ana-shop/bg.jsonl",
        &claude_session("bg-1", 2),
    );
    set_mtime(&path, SystemTime::now() - Duration::from_secs(7200));
    wait_for(&daemon.log, "the daemon's harvest", || {
        home.memory_md(None).contains("session=bg-1 ")
    });
    assert!(daemon.stop().success());
}

#[test]
fn a_file_over_the_size_limit_is_skipped_unread_and_the_others_are_captured() {
    let home = Home::new("");
    home.place_all_four();
    // 3 GB of holes: read whole, it took harvest to 6.4 GB and an abort.
    let huge = home.place(
        "claude/projects/-home-ana-shop/cc-huge.jsonl",
        "{\"type\":\"user\"}\n",
    );
    std::fs::File::options()
        .write(true)
        .open(&huge)
        .and_then(|f| f.set_len(3 << 30))
        .unwrap();
    set_mtime(&huge, ago(2 * 3600));
    let (code, report) = home.harvest(&[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(count(&report, "captured"), 4, "{report:#}");
    let skipped = &report["skipped"][0];
    assert_eq!(
        skipped["path"].as_str(),
        Some(huge.to_string_lossy().as_ref())
    );
    assert!(
        skipped["reason"]
            .as_str()
            .unwrap()
            .contains("over harvest.max_file_bytes"),
        "{skipped}"
    );
    // Remembered: the next run does not look at it again.
    let (_, again) = home.harvest(&[]);
    assert_eq!(
        (count(&again, "skipped"), again["unchanged"].as_u64()),
        (0, Some(5))
    );
}

#[test]
fn a_harvest_killed_at_any_point_loses_no_session_and_duplicates_none() {
    let home = Home::new("");
    let n = 150;
    for i in 0..n {
        let id = format!("k-{i:03}");
        home.place(
            &format!("claude/projects/-home-ana-shop/{id}.jsonl"),
            &claude_session(&id, 2),
        );
    }
    // kill -9 a first harvest at several points, then let one finish.
    for delay_ms in [40, 120, 250, 400] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--config")
            .arg(home.config())
            .arg("--workspace")
            .arg(home.ws())
            .args(["--now", NOW, "--quiet", "harvest"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
    }
    // A killed run's leases are taken over at once (its process is gone): a
    // harvest at the same moment, well inside the lease, finishes the rest.
    let later = "2026-11-21T13:00:00Z";
    let out = memsync_bin()
        .arg("--config")
        .arg(home.config())
        .arg("--workspace")
        .arg(home.ws())
        .args(["--now", NOW, "--json", "harvest"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(count(&report, "failed"), 0, "{report:#}");
    let summaries: Vec<String> = std::fs::read_dir(home.ws().join("memory"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("--summary.md"))
        .collect();
    assert_eq!(
        summaries.len(),
        n,
        "one summary per session, no more, no less"
    );
    let rows = home.memory_md(None).matches("session=k-").count();
    assert!(rows > 0, "the finishing harvest renders MEMORY.md");
    let status = memsync_bin()
        .arg("--workspace")
        .arg(home.ws())
        .args(["--now", later, "--json", "status"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    let indexed = status["agents"][0]["sessions"].as_u64().unwrap_or(0);
    assert_eq!(
        indexed, n as u64,
        "the harvest indexed every session: {status:#}"
    );
    let check = memsync_bin()
        .arg("--workspace")
        .arg(home.ws())
        .args(["--now", later, "check"])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn importing_old_sessions_says_they_are_older_than_the_window_and_status_says_why_rows_are_out() {
    let home = Home::new("");
    let old = home.place(
        "claude/projects/-home-ana-shop/old-1.jsonl",
        &claude_session("old-1", 2).replace("2026-11-20T", "2026-09-20T"),
    );
    set_mtime(&old, ago(60 * 86_400));
    let (code, report) = home.harvest(&["--since", "90d"]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(count(&report, "captured"), 1, "{report:#}");
    assert_eq!(report["older_than_window"], 1, "{report:#}");
    let out = memsync_bin()
        .arg("--config")
        .arg(home.config())
        .arg("--workspace")
        .arg(home.ws())
        .args(["--now", NOW, "status"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("MEMORY.md keeps 0 of 0 in-window sessions"),
        "{text}"
    );
}
