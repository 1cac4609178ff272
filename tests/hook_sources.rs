//! A hook reads only a session (issue 68): a hook payload is JSON that any
//! program on the machine can hand memsync, so the file it names is
//! captured only when it is a regular file that reads as that harness's own
//! session log. `/etc/passwd`, a FIFO, a device or another tool's log is
//! refused at once with the reason, never copied and never retried.

mod common;

use std::time::{Duration, Instant};

use common::home::Home;

fn hook(home: &Home, harness: &str, transcript: &str) {
    let payload = serde_json::json!({"hook_event_name": "SessionEnd", "session_id": "s-1",
        "transcript_path": transcript, "cwd": "/home/dev/shop"});
    home.cmd()
        .args(["capture", "--hook", harness])
        .write_stdin(payload.to_string())
        .assert()
        .success();
}

fn jobs(home: &Home) -> serde_json::Value {
    let (_, status) = home.run(&["status"]);
    status["jobs"].clone()
}

#[test]
fn a_hook_naming_a_file_that_is_no_session_log_is_refused_at_once_and_nothing_is_copied() {
    let home = Home::new();
    home.cmd().arg("init").assert().success();
    let fifo = home.path("pipe.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let notes = home.path("notes.md");
    std::fs::write(
        &notes,
        "# my notes\n\nthe wifi password is hunter2 and nothing else\n",
    )
    .unwrap();
    // A Claude Code session log, named by a Gemini CLI hook: not its own.
    let claude = home.path("claude.jsonl");
    std::fs::write(
        &claude,
        serde_json::json!({"type": "user", "uuid": "u", "sessionId": "c-1", "cwd": "/w",
            "timestamp": "2026-11-20T09:00:00.000Z",
            "message": {"role": "user", "content": "Add a hello function"}})
        .to_string()
            + "\n",
    )
    .unwrap();
    let cases = [
        ("claude-code", "/etc/passwd".to_string(), "plain text"),
        ("claude-code", "/dev/null".to_string(), "a device"),
        ("claude-code", fifo.display().to_string(), "a FIFO"),
        ("qwen-code", notes.display().to_string(), "plain text"),
        (
            "gemini-cli",
            claude.display().to_string(),
            "a claude-code session log",
        ),
    ];
    for (harness, path, _) in &cases {
        hook(&home, harness, path);
    }
    // Each is refused by the first worker that runs it (the hook's own, or
    // this one): none is retried, so all are settled within seconds.
    let started = Instant::now();
    home.cmd().args(["capture", "jobs"]).assert().success();
    while jobs(&home)["failed"] != cases.len() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "a refused file was waited on: {}",
            jobs(&home)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let jobs = jobs(&home);
    assert_eq!(jobs["failed"], cases.len(), "{jobs}");
    assert_eq!(jobs["pending"], 0, "{jobs}");
    let attention = jobs["attention"].to_string();
    for (harness, path, why) in &cases {
        assert!(attention.contains(why), "{harness} {path}: {attention}");
    }
    assert!(
        jobs["attention"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["attempts"] == 1),
        "a refusal was retried: {jobs}"
    );
    let memory = common::tree(&home.path("ws/memory"));
    assert!(
        memory.keys().all(|k| !k.ends_with("--transcript.md")),
        "something was copied: {:?}",
        memory.keys()
    );
    assert!(!home.read("ws/MEMORY.md").contains("root:"));
}

#[test]
fn a_hook_naming_its_own_harnesss_session_log_is_still_captured() {
    let home = Home::new();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let claude = home.path("claude.jsonl");
    let lines = [
        serde_json::json!({"type": "user", "uuid": "u", "sessionId": "c-1", "cwd": "/home/dev/shop",
            "timestamp": "2026-11-20T09:00:00.000Z",
            "message": {"role": "user", "content": "Add a hello function to hello.py"}}),
        serde_json::json!({"type": "assistant", "uuid": "a", "sessionId": "c-1",
            "timestamp": "2026-11-20T09:00:05.000Z", "message": {"id": "m", "role": "assistant",
            "content": [{"type": "text", "text": "Done: hello.py has it."}]}}),
    ];
    std::fs::write(&claude, lines.map(|l| l.to_string() + "\n").concat()).unwrap();
    hook(&home, "claude-code", &claude.display().to_string());
    // The hook's own worker may be the one that runs it.
    let deadline = Instant::now() + Duration::from_secs(20);
    while jobs(&home)["succeeded"] != 1 {
        assert!(Instant::now() < deadline, "{}", jobs(&home));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(home.read("ws/MEMORY.md").contains("hello function"));
}
