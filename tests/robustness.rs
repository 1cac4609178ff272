//! The edges a user touches: every value typed at the CLI is parsed into a
//! clear error, never a panic or a hang; a closed stdout ends a command
//! quietly; a missing workspace is never created by a typo; oversized input is
//! refused at once; a hook with a broken config still records its job; and
//! `service status` says in its exit code when nothing runs.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::hostile_values::HOSTILE_VALUES;
use common::{Workspace, memsync_bin, now};
use memsync::compose::{Content, NewSession};

const NOW: &str = "2026-11-20T12:00:00Z";

/// A workspace with one session, synced.
fn workspace() -> Workspace {
    let ws = Workspace::new();
    let at = now() - chrono::Duration::hours(2);
    let content = |body: &str| Content {
        body: body.into(),
        sentence: Some("shop: fixed the retry loop in src/pay.rs; the flaky test passes.".into()),
        captured_at: at,
    };
    ws.add(&NewSession {
        agent_id: "default".into(),
        session_id: "s-1".into(),
        session_key: None,
        project: Some("/home/ana/shop".into()),
        harness: "claude-code".into(),
        started_at: Some(at),
        ended_at: Some(at),
        captured_at: at,
        summary: Some(content("## Summary\n\nRetry loop fixed.\n")),
        transcript: Some(content("user: fix the retry loop\nassistant: done\n")),
        compaction: None,
        private: false,
        sentence_version: "memory_sentence_v1".into(),
        sanitizer_version: "sanitize_transcript_v3".into(),
    });
    ws.sync();
    ws
}

#[test]
fn every_hostile_value_a_user_can_type_gets_a_clear_error_and_never_a_panic() {
    let ws = workspace();
    let root = ws.root().to_string_lossy().into_owned();
    let before = common::tree(ws.root());
    for case in HOSTILE_VALUES {
        let args: Vec<String> = case.args.iter().map(|a| a.replace("{ws}", &root)).collect();
        let mut cmd = memsync_bin();
        if !args.iter().any(|a| a == "--workspace") {
            cmd.args(["--workspace", &root]);
        }
        if !args.iter().any(|a| a == "--now") {
            cmd.args(["--now", NOW]);
        }
        let out = cmd
            .args(&args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("{} ({:?})", case.value, case.args);
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert_eq!(out.status.code(), Some(case.exit), "{what}: {stderr}");
        assert!(
            stderr.contains(case.says),
            "{what}: stderr lacks {:?}: {stderr}",
            case.says
        );
        assert!(
            !ws.root().join("no").exists() && !ws.root().join("gen").exists(),
            "{what}: created a directory"
        );
    }
    assert!(!ws.root().join("../no-such-ws-3f9c").exists());
    assert_eq!(
        common::tree(ws.root()),
        before,
        "a hostile value changed the workspace"
    );
}

#[test]
fn a_workspace_that_does_not_exist_is_exit_2_naming_it_and_init_is_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("agnets");
    for args in [&["sync"][..], &["status"], &["check"], &["search", "x"]] {
        memsync_bin()
            .arg("--workspace")
            .arg(&typo)
            .args(args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(typo.to_string_lossy().as_ref()))
            .stderr(predicates::str::contains("memsync init"));
        assert!(!typo.exists(), "{args:?} created the workspace");
    }
    memsync_bin()
        .args(["--now", NOW, "init"])
        .arg(&typo)
        .assert()
        .success()
        .stdout(predicates::str::contains("workspace ready"));
    assert!(typo.join("MEMORY.md").is_file() && typo.join("memory").is_dir());
    memsync_bin()
        .arg("--workspace")
        .arg(&typo)
        .arg("sync")
        .assert()
        .success();
    // Twice is harmless: init on a workspace only syncs it.
    memsync_bin()
        .args(["--now", NOW, "init"])
        .arg(&typo)
        .assert()
        .success();
}

/// Runs `memsync ARGS` with its stdout read for one line, then closed.
fn with_stdout_closed_early(args: &[&str], ws: &Workspace) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws.root())
        .args(args)
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    let mut stdout = child.stdout.take().unwrap();
    let _ = stdout.read(&mut first);
    drop(stdout);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    let ws = workspace();
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["search", "retry"],
        &["status", "--json"],
    ] {
        let out = with_stdout_closed_early(args, &ws);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            matches!(out.status.code(), Some(0) | Some(141)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_transcript_over_the_size_limit_is_refused_at_once_naming_the_limit() {
    let ws = workspace();
    std::fs::write(ws.path("memsync.yaml"), "scan:\n  max_file_bytes: 2000\n").unwrap();
    let t = ws.path("big.txt");
    std::fs::write(&t, "We fixed the retry loop in src/pay.rs.\n".repeat(2_000)).unwrap();
    let started = Instant::now();
    let out = memsync_bin()
        .arg("--workspace")
        .arg(ws.root())
        .args([
            "--now",
            NOW,
            "capture",
            "session-end",
            "--session-id",
            "big",
            "--transcript",
        ])
        .arg(&t)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("scan.max_file_bytes (2000)"), "{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "it must not spin"
    );
    assert!(
        !std::fs::read_dir(ws.path("memory"))
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains("big")),
        "nothing written"
    );
    // With room for a part of it, the transcript is clipped and the limit named.
    std::fs::write(ws.path("memsync.yaml"), "scan:\n  max_file_bytes: 40000\n").unwrap();
    ws.cli(&[
        "capture",
        "session-end",
        "--session-id",
        "big",
        "--transcript",
        &t.to_string_lossy(),
    ])
    .success()
    .stdout(predicates::str::contains("scan.max_file_bytes (40000)"));
}

#[test]
fn a_hook_with_a_broken_config_records_its_job_and_the_session_is_captured_once_it_is_fixed() {
    let ws = workspace();
    let transcript = ws.path("5d3c.jsonl");
    std::fs::write(
        &transcript,
        common::chats::claude_code_chat(
            "5d3c",
            "/home/ana/shop",
            "2026-11-20T10:00:00Z",
            &[(
                "Add a retry to the payment client in src/pay.rs",
                "Added exponential backoff in src/pay.rs; tests pass.",
            )],
        ),
    )
    .unwrap();
    std::fs::write(ws.path("memsync.yaml"), "memory_md: [unclosed\n").unwrap();
    let payload = serde_json::json!({
        "session_id": "5d3c", "transcript_path": transcript, "cwd": "/home/ana/shop",
        "hook_event_name": "SessionEnd", "reason": "exit"
    });
    memsync_bin()
        .arg("--workspace")
        .arg(ws.root())
        .args(["capture", "--hook", "claude-code"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout("")
        .stderr(predicates::str::contains("memsync.yaml"))
        .stderr(predicates::str::contains("queued capture job 1"));
    std::fs::remove_file(ws.path("memsync.yaml")).unwrap();
    ws.cli(&["capture", "jobs"]).success();
    let memory = ws.read("MEMORY.md");
    assert!(memory.contains("session=5d3c "), "{memory}");
}

#[test]
fn service_status_exits_non_zero_when_the_service_is_not_running() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let out = memsync_bin()
        .arg("--workspace")
        .arg(ws.root())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .args(["service", "status", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["installed"].as_bool(), report["running"].as_bool()),
        (Some(false), Some(false))
    );
    assert!(report["output"].as_str().unwrap().contains("not running"));
}

#[test]
fn arguments_that_are_not_utf8_are_usage_errors() {
    use std::os::unix::ffi::OsStrExt;
    let ws = workspace();
    let bad = std::ffi::OsStr::from_bytes(b"retry\xff");
    for args in [vec!["search".as_ref(), bad], vec!["open".as_ref(), bad]] {
        let out = memsync_bin()
            .arg("--workspace")
            .arg(ws.root())
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("invalid UTF-8"), "{args:?}: {stderr}");
    }
    // A path may be any bytes: a workspace whose name is not UTF-8 is simply not there.
    let out = memsync_bin()
        .arg("--workspace")
        .arg(ws.root().join(bad))
        .arg("status")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
}
