//! `memsync capture`: the writer path, end to end through the binary, on real
//! temp-dir workspaces. Spec tests 4, 5, 7 and 8, idempotency, immutability,
//! the sentence command, concurrency and hook mode.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{files_containing, memsync_bin, tree};

const NOW: &str = "2026-11-21T10:00:00Z";
const LATER: &str = "2026-11-21T10:30:00Z";

/// A Claude Code transcript with a secret in it and a half-written last line.
fn claude_transcript(session: &str, word: &str) -> String {
    format!(
        r#"{{"type":"user","uuid":"u-1","sessionId":"{session}","cwd":"/home/ana/shop","timestamp":"2026-11-20T09:00:00.120Z","message":{{"role":"user","content":"Add a retry to the payment client in src/pay.rs ({word}); my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz"}}}}
{{"type":"assistant","uuid":"a-1","sessionId":"{session}","timestamp":"2026-11-20T09:00:04.900Z","message":{{"id":"msg_7","role":"assistant","content":[{{"type":"tool_use","id":"toolu_9","name":"Bash","input":{{"command":"cargo test -p pay"}}}}]}}}}
{{"type":"assistant","uuid":"a-2","sessionId":"{session}","timestamp":"2026-11-20T09:10:04.900Z","message":{{"id":"msg_8","role":"assistant","content":[{{"type":"text","text":"Added exponential backoff in src/pay.rs; tests pass."}}]}}}}
{{"type":"user","uuid":"u-3","sess
"#
    )
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    inputs: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let inputs = tmp.path().join("in");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&inputs).unwrap();
        Fixture {
            _tmp: tmp,
            root,
            inputs,
        }
    }

    fn input(&self, name: &str, text: &str) -> PathBuf {
        let p = self.inputs.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn cmd(&self, now: &str) -> assert_cmd::Command {
        let mut cmd = memsync_bin();
        cmd.arg("--workspace").arg(&self.root).args(["--now", now]);
        cmd
    }

    /// `capture session-end` of a Claude Code transcript.
    fn session_end(&self, now: &str, session: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
        let t = self.input(
            &format!("{session}.jsonl"),
            &claude_transcript(session, "plain"),
        );
        self.cmd(now)
            .args(["--json", "capture", "session-end", "--transcript"])
            .arg(t)
            .args(extra)
            .assert()
    }

    fn memory(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.join("memory"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    fn find(&self, kind: &str) -> String {
        let name = self
            .memory()
            .into_iter()
            .find(|n| n.ends_with(&format!("--{kind}.md")))
            .unwrap_or_else(|| panic!("no {kind} in {:?}", self.memory()));
        format!("memory/{name}")
    }

    fn check_is_clean(&self) {
        self.cmd(LATER)
            .arg("check")
            .assert()
            .success()
            .stdout(predicates::str::contains("0 errors, 0 warnings"));
    }
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

#[test]
fn session_end_writes_transcript_summary_and_manifest_then_projects() {
    let f = Fixture::new();
    let out = f
        .session_end(NOW, "s-1", &[])
        .success()
        .get_output()
        .stdout
        .clone();
    let report = json(&out);
    assert_eq!(report["outcome"], "written");
    assert_eq!(report["written"].as_array().unwrap().len(), 3);
    assert_eq!(
        report["skipped_lines"], 1,
        "the half-written line is skipped and counted"
    );
    let transcript = f.read(&f.find("transcript"));
    assert!(transcript.contains("sanitizer_version: \"sanitize_transcript_v7\""));
    assert!(transcript.contains("harness: \"claude-code\""));
    assert!(transcript.contains("project: \"/home/ana/shop\""));
    assert!(transcript.contains("## User\n\nAdd a retry"));
    let summary = f.read(&f.find("summary"));
    assert!(
        summary.contains("## Commands\n\n- `cargo test -p pay`"),
        "{summary}"
    );
    let manifest = f.read(&f.find("manifest"));
    assert!(manifest.contains("revision: 1\n"));
    assert!(manifest.contains("  - \"session-end:"));
    // The secret never reached a file, the index included.
    assert!(files_containing(&f.root, "sk-ant-api03").is_empty());
    let md = f.read("MEMORY.md");
    assert!(
        md.contains("| session=s-1 | project=/home/ana/shop |"),
        "{md}"
    );
    assert!(f.root.join("memory/2026-11-20.md").exists());
    f.check_is_clean();
}

#[test]
fn a_retried_capture_is_recognised_and_rewrites_nothing() {
    let f = Fixture::new();
    f.session_end(NOW, "s-1", &[]).success();
    let before = tree(&f.root);
    let out = f
        .session_end(LATER, "s-1", &[])
        .success()
        .get_output()
        .stdout
        .clone();
    let report = json(&out);
    assert_eq!(report["outcome"], "already-captured");
    assert_eq!(report["written"].as_array().unwrap().len(), 0);
    assert_eq!(report["files"].as_array().unwrap().len(), 3);
    assert_eq!(tree(&f.root), before);
}

#[test]
fn a_different_summary_for_a_captured_session_is_refused_and_the_transcript_kept() {
    let f = Fixture::new();
    let a = f.input("a.md", "Summary A of the retry work in src/pay.rs.");
    let b = f.input("b.md", "Summary B, different.");
    f.session_end(NOW, "s-1", &["--summary", a.to_str().unwrap()])
        .success();
    let before = tree(&f.root);
    f.session_end(
        LATER,
        "s-1",
        &[
            "--summary",
            b.to_str().unwrap(),
            "--idempotency-key",
            "other",
        ],
    )
    .code(1)
    .stderr(predicates::str::contains(
        "refused: the session already has a summary with different content",
    ));
    assert_eq!(tree(&f.root), before, "nothing written, nothing lost");
    // The same summary under another key is a no-op for the immutable files.
    f.session_end(
        LATER,
        "s-1",
        &[
            "--summary",
            a.to_str().unwrap(),
            "--idempotency-key",
            "other",
        ],
    )
    .success();
    assert_eq!(
        f.memory().len(),
        4,
        "still one transcript, summary, manifest (+ daily log)"
    );
}

#[test]
fn a_token_that_belongs_to_another_session_id_is_refused() {
    let f = Fixture::new();
    f.session_end(NOW, "s-1", &["--session-key", "agent:main"])
        .success();
    // Same key, so the same token, but another session id.
    f.session_end(LATER, "s-2", &["--session-key", "agent:main"])
        .code(1)
        .stderr(predicates::str::contains(
            "its token belongs to agent \"default\", session \"s-1\"",
        ));
}

#[test]
fn agent_ids_that_would_escape_the_workspace_are_usage_errors() {
    let f = Fixture::new();
    for agent in ["../evil", "Evil", "a/b", ""] {
        f.session_end(NOW, "s-1", &["--agent", agent])
            .code(2)
            .stderr(predicates::str::contains("must match ^[a-z0-9][a-z0-9-]*$"));
    }
    assert!(f.memory().is_empty());
}

#[test]
fn spec_5_a_late_compaction_changes_only_the_manifest() {
    let f = Fixture::new();
    f.session_end(NOW, "s-1", &[]).success();
    let (summary, transcript) = (f.find("summary"), f.find("transcript"));
    let before = (f.read(&summary), f.read(&transcript));
    let body = f.input(
        "c.md",
        "Compacted: retry added to src/pay.rs, integration tests still pending.",
    );
    let out = f
        .cmd(LATER)
        .args([
            "--json",
            "capture",
            "compaction",
            "--session-id",
            "s-1",
            "--body",
        ])
        .arg(&body)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json(&out)["outcome"], "written");
    assert_eq!(
        (f.read(&summary), f.read(&transcript)),
        before,
        "immutable artifacts untouched"
    );
    let compaction = f.find("compaction");
    assert!(
        !before.0.contains("compaction_path"),
        "never on immutable files"
    );
    let manifest = f.read(&f.find("manifest"));
    assert!(
        manifest.contains(&format!("compaction_path: \"{compaction}\"")),
        "{manifest}"
    );
    assert!(manifest.contains("revision: 2\n"));
    assert!(manifest.contains("updated_at: \"2026-11-21T10:30:00.000Z\""));
    assert!(
        f.read("MEMORY.md")
            .contains(&format!("[[{compaction}|compaction]]"))
    );
    f.check_is_clean();
    // A retry is recognised; a later, different compaction is a second
    // artifact that continues the first.
    f.cmd(LATER)
        .args(["capture", "compaction", "--session-id", "s-1", "--body"])
        .arg(&body)
        .assert()
        .success();
    let other = f.input(
        "d.md",
        "Another compaction of the retry work in src/pay.rs.",
    );
    let second = |body: &Path| {
        let mut cmd = f.cmd(LATER);
        cmd.args([
            "capture",
            "compaction",
            "--session-id",
            "s-1",
            "--idempotency-key",
            "k2",
            "--body",
        ])
        .arg(body);
        cmd.assert()
    };
    second(&other).success();
    let compactions: Vec<String> = f
        .memory()
        .into_iter()
        .filter(|n| n.ends_with("--compaction.md"))
        .collect();
    assert_eq!(compactions.len(), 2, "{compactions:?}");
    let newer = f.read(&format!("memory/{}", compactions[1]));
    assert!(newer.contains(&format!("continues: \"memory/{}\"", compactions[0])));
    let manifest = f.read(&f.find("manifest"));
    assert!(manifest.contains(&format!("compaction_path: \"memory/{}\"", compactions[1])));
    f.check_is_clean();
    // The key names the call: a rerun under it is recognised, whatever it sends.
    let before = tree(&f.root);
    let third = f.input("e.md", "A third, different text.");
    second(&third).success();
    assert_eq!(tree(&f.root), before, "a recognised retry writes nothing");
}

#[test]
fn a_compaction_for_an_unknown_session_is_a_clear_error() {
    let f = Fixture::new();
    let body = f.input("c.md", "Compacted.");
    f.cmd(NOW)
        .args(["capture", "compaction", "--session-id", "nobody", "--body"])
        .arg(body)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no session \"nobody\""))
        .stderr(predicates::str::contains("capture its session end first"));
}

/// Runs `capture session-end` then a compaction, stopping at `failpoint` if given.
fn capture_all(f: &Fixture, failpoint: Option<&str>) -> bool {
    capture_all_at(f, failpoint, (NOW, LATER))
}

/// `capture_all` with the two captures' clocks given.
fn capture_all_at(f: &Fixture, failpoint: Option<&str>, (now, later): (&str, &str)) -> bool {
    let t = f.input("t.jsonl", &claude_transcript("s-1", "plain"));
    let body = f.input(
        "c.md",
        "Compacted: retry added to src/pay.rs, integration tests still pending.",
    );
    let run = |cmd: &mut assert_cmd::Command| {
        if let Some(fp) = failpoint {
            cmd.env("MEMSYNC_FAILPOINT", fp);
        }
        let out = cmd.output().unwrap();
        match out.status.code() {
            Some(0) => true,
            Some(86) => false,
            other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
        }
    };
    run(f
        .cmd(now)
        .args(["capture", "session-end", "--transcript"])
        .arg(&t))
        && run(f
            .cmd(later)
            .args(["capture", "compaction", "--session-id", "s-1", "--body"])
            .arg(&body))
}

/// Every file but the index, and the index's content rows.
fn outcome(f: &Fixture) -> (std::collections::BTreeMap<String, Vec<u8>>, Vec<String>) {
    let mut settings =
        memsync::config::Settings::load(Some(&f.root), None, &Default::default()).unwrap();
    settings.config.daily_logs.timezone = "UTC".into();
    let ws = common::Workspace {
        dir: tempfile::tempdir().unwrap(),
        settings,
    };
    (tree(&f.root), ws.content_rows())
}

/// Every point a capture can be cut short at, in the order it reaches them.
const FAILPOINTS: [&str; 6] = [
    "after-transcript",
    "after-summary",
    "after-manifest",
    "after-memory-md",
    "after-index",
    "after-compaction",
];

#[test]
fn spec_8_every_partial_failure_recovers_to_the_uninterrupted_result() {
    let clean = Fixture::new();
    assert!(capture_all(&clean, None));
    let want = outcome(&clean);
    for failpoint in FAILPOINTS {
        // Rerunning the same captures converges.
        let f = Fixture::new();
        assert!(
            !capture_all(&f, Some(failpoint)),
            "{failpoint} was not reached"
        );
        assert!(capture_all(&f, None));
        assert_eq!(outcome(&f), want, "rerun after {failpoint}");
    }
    // Once the canonical files are written, a plain `sync` finishes the job.
    for failpoint in ["after-memory-md", "after-index"] {
        let f = Fixture::new();
        let t = f.input("t.jsonl", &claude_transcript("s-1", "plain"));
        f.cmd(NOW)
            .env("MEMSYNC_FAILPOINT", failpoint)
            .args(["capture", "session-end", "--transcript"])
            .arg(&t)
            .assert()
            .code(86);
        f.cmd(NOW).arg("sync").assert().success();
        let g = Fixture::new();
        g.session_end(NOW, "s-1", &[]).success();
        assert_eq!(tree(&f.root), tree(&g.root), "sync after {failpoint}");
    }
}

/// Spec crash-state test 8 as it happens: the rerun comes hours later (the
/// next hook, the next harvest), and still completes the same session.
#[test]
fn an_interrupted_capture_rerun_hours_later_completes_the_same_session() {
    // The compaction is captured at the rerun's own clock; the session-end
    // files keep the names the first run gave them.
    let session_end_files = |f: &Fixture| -> Vec<String> {
        f.memory()
            .into_iter()
            .filter(|n| n.contains("--") && !n.ends_with("--compaction.md"))
            .collect()
    };
    let clean = Fixture::new();
    assert!(capture_all(&clean, None));
    let names = session_end_files(&clean);
    for failpoint in FAILPOINTS {
        let f = Fixture::new();
        assert!(!capture_all(&f, Some(failpoint)), "{failpoint} not reached");
        assert!(capture_all_at(
            &f,
            None,
            ("2026-11-21T15:00:00Z", "2026-11-21T15:30:00Z")
        ));
        assert_eq!(
            session_end_files(&f),
            names,
            "after a late rerun past {failpoint}"
        );
        assert!(f.find("compaction").contains("--"));
        f.check_is_clean();
    }
}

/// A machine config that sets the sentence command.
fn with_sentence_command(f: &Fixture, command: &str, timeout: u64) -> PathBuf {
    f.input(
        "config.yaml",
        &format!("sentence:\n  command: {command:?}\n  timeout_seconds: {timeout}\n"),
    )
}

fn sentence_of(f: &Fixture, config: &Path) -> (String, String, Duration) {
    let t = f.input("t.jsonl", &claude_transcript("s-1", "plain"));
    let started = Instant::now();
    f.cmd(NOW)
        .arg("--config")
        .arg(config)
        .args(["capture", "session-end", "--transcript"])
        .arg(t)
        .assert()
        .success();
    let elapsed = started.elapsed();
    let summary = f.read(&f.find("summary"));
    let field = |k: &str| {
        summary
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k}: ")))
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_default()
    };
    (
        field("memory_sentence"),
        field("memory_sentence_quality"),
        elapsed,
    )
}

#[test]
fn the_sentence_command_is_used_when_its_sentence_passes_the_floor() {
    let f = Fixture::new();
    let good = "Added exponential backoff to the payment client in src/pay.rs and queued integration tests for the retry path.";
    let calls = f.inputs.join("calls");
    let command = format!(
        "cat >/dev/null; echo call >> {}; echo '{good}'",
        calls.display()
    );
    let (sentence, quality, _) = sentence_of(&f, &with_sentence_command(&f, &command, 10));
    assert_eq!((sentence.as_str(), quality.as_str()), (good, "ok"));
    assert_eq!(
        std::fs::read_to_string(&calls).unwrap(),
        "call\n",
        "one call per capture"
    );
    assert!(
        f.read(&f.find("transcript")).contains(good),
        "the transcript carries the same sentence"
    );
}

#[test]
fn a_low_signal_failing_or_hung_sentence_command_means_the_composed_fallback() {
    for (command, timeout) in [
        ("echo 'Worked on task.'", 10),
        ("exit 3", 10),
        ("sleep 30", 1),
        ("true", 10),
    ] {
        let f = Fixture::new();
        let (sentence, quality, elapsed) =
            sentence_of(&f, &with_sentence_command(&f, command, timeout));
        assert_eq!(quality, "fallback", "{command}");
        // The deterministic sentence from the session stands in for the command's.
        assert!(
            sentence.starts_with("shop: Add a retry to the payment client in src/pay.rs"),
            "{sentence}"
        );
        assert!(
            elapsed < Duration::from_secs(8),
            "{command} took {elapsed:?}"
        );
    }
}

#[test]
fn a_workspace_config_may_not_name_a_command() {
    let f = Fixture::new();
    std::fs::write(
        f.root.join("memsync.yaml"),
        "sentence:\n  command: \"touch /tmp/pwned\"\n",
    )
    .unwrap();
    f.session_end(NOW, "s-1", &[])
        .code(2)
        .stderr(predicates::str::contains(
            "`sentence.command` belongs in the machine config",
        ));
}

#[test]
fn the_summary_command_writes_the_summary_and_its_failure_falls_back() {
    let f = Fixture::new();
    let config = f.input("config.yaml", "summary:\n  command: \"grep -c User\"\n");
    let t = f.input("t.jsonl", &claude_transcript("s-1", "plain"));
    f.cmd(NOW)
        .arg("--config")
        .arg(&config)
        .args(["capture", "session-end", "--transcript"])
        .arg(&t)
        .assert()
        .success();
    assert!(
        f.read(&f.find("summary")).ends_with("---\n1\n"),
        "the command's stdout is the body"
    );

    let g = Fixture::new();
    let config = g.input("config.yaml", "summary:\n  command: \"exit 1\"\n");
    g.cmd(NOW)
        .arg("--config")
        .arg(&config)
        .args(["capture", "session-end", "--transcript"])
        .arg(&t)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "note: summary command: `exit 1` exited with",
        ));
    assert!(g.read(&g.find("summary")).contains("## Request"));
}

#[test]
fn codex_and_plain_transcripts_are_captured() {
    let f = Fixture::new();
    let codex = f.input(
        "rollout.jsonl",
        r#"{"timestamp":"2026-11-20T09:00:00.000Z","type":"session_meta","payload":{"id":"0195f1c2","timestamp":"2026-11-20T09:00:00.000Z","cwd":"/home/ana/shop"}}
{"timestamp":"2026-11-20T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Add a retry"}}
{"timestamp":"2026-11-20T09:00:09.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Added backoff in src/pay.rs."}}
"#,
    );
    f.cmd(NOW)
        .args(["capture", "session-end", "--transcript"])
        .arg(codex)
        .assert()
        .success();
    let t = f.read(&f.find("transcript"));
    assert!(
        t.contains("session_id: \"0195f1c2\"") && t.contains("harness: \"codex\""),
        "{t}"
    );

    let g = Fixture::new();
    let plain = g.input(
        "notes.md",
        "We fixed the retry in src/pay.rs.\r\n\r\nAll good.   \n",
    );
    g.cmd(NOW)
        .args([
            "capture",
            "session-end",
            "--session-id",
            "manual-1",
            "--transcript",
        ])
        .arg(plain)
        .assert()
        .success();
    let t = g.read(&g.find("transcript"));
    assert!(
        t.contains("harness: \"manual\"")
            && t.ends_with("---\nWe fixed the retry in src/pay.rs.\n\nAll good.\n"),
        "{t}"
    );
    // A transcript that names no session needs --session-id.
    g.cmd(NOW)
        .args(["capture", "session-end", "--transcript"])
        .arg(g.inputs.join("notes.md"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no --session-id given"));
}

#[test]
fn two_captures_of_one_session_at_once_end_with_one_consistent_set_of_files() {
    for _ in 0..3 {
        let f = Fixture::new();
        let t = f.input("t.jsonl", &claude_transcript("s-1", "plain"));
        let spawn = || {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("memsync"));
            cmd.env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
                .env_remove("MEMSYNC_FAILPOINT")
                .arg("--workspace")
                .arg(&f.root)
                .args([
                    "--now",
                    NOW,
                    "--json",
                    "capture",
                    "session-end",
                    "--transcript",
                ])
                .arg(&t)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        let mut outcomes: Vec<String> = outs
            .iter()
            .map(|o| {
                assert!(o.status.success());
                json(&o.stdout)["outcome"].as_str().unwrap().to_string()
            })
            .collect();
        outcomes.sort();
        assert_eq!(outcomes, ["already-captured", "written"]);
        assert_eq!(f.memory().len(), 4, "{:?}", f.memory());
        f.check_is_clean();
    }
}

/// Runs `capture --hook claude-code` with `payload` on a stdin that is never
/// closed; returns how long it took and what it printed on stdout.
fn hook(f: &Fixture, payload: &str) -> (Duration, Vec<u8>) {
    use std::io::Write;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("memsync"))
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env_remove("MEMSYNC_FAILPOINT")
        .arg("--workspace")
        .arg(&f.root)
        .args(["capture", "--hook", "claude-code"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.as_bytes()).unwrap();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(5);
    while child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "the hook did not return while stdin stayed open"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let elapsed = started.elapsed();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(stdin);
    (elapsed, out.stdout)
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn jobs(f: &Fixture) -> serde_json::Value {
    let out = f
        .cmd(LATER)
        .args(["--json", "status"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json(&out)["jobs"].clone()
}

#[test]
fn hook_mode_returns_at_once_and_a_detached_worker_captures_the_session() {
    let f = Fixture::new();
    let t = f.input("5d3c.jsonl", &claude_transcript("5d3c", "plain"));
    let payload = serde_json::json!({
        "session_id": "5d3c", "transcript_path": t, "cwd": "/home/ana/shop",
        "hook_event_name": "SessionEnd", "reason": "other"
    });
    let (elapsed, stdout) = hook(&f, &payload.to_string());
    assert!(
        elapsed < Duration::from_millis(1500),
        "SessionEnd's budget is 1.5 s; took {elapsed:?}"
    );
    assert!(stdout.is_empty(), "hook mode never writes to stdout");
    wait_until("the worker's capture", || {
        f.root.join("MEMORY.md").exists() && jobs(&f)["succeeded"] == 1
    });
    assert!(
        f.read(&f.find("transcript"))
            .contains("session_id: \"5d3c\"")
    );
    // A compaction that arrives before its session ends waits for it.
    let compact = serde_json::json!({"session_id": "late", "hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "Compacted the retry work in src/pay.rs."});
    hook(&f, &compact.to_string());
    wait_until("the compaction to wait", || jobs(&f)["waiting"] == 1);
    let t2 = f.input("late.jsonl", &claude_transcript("late", "plain"));
    let end = serde_json::json!({"session_id": "late", "transcript_path": t2, "hook_event_name": "SessionEnd"});
    hook(&f, &end.to_string());
    wait_until("both jobs", || jobs(&f)["succeeded"] == 3);
    assert!(f.memory().iter().any(|n| n.ends_with("--compaction.md")));
    f.check_is_clean();
}

#[test]
fn a_bad_hook_payload_exits_0_and_shows_as_a_failed_job() {
    let f = Fixture::new();
    let (_, stdout) = hook(&f, "{\"hook_event_name\": \"SessionEnd\"}");
    assert!(stdout.is_empty());
    let j = jobs(&f);
    assert_eq!(j["failed"], 1);
    assert!(
        j["attention"][0]["last_error"]
            .as_str()
            .unwrap()
            .contains("no session_id")
    );
    // Events memsync does not capture are acknowledged.
    hook(&f, "{\"hook_event_name\": \"Stop\", \"session_id\": \"x\"}");
    assert_eq!(jobs(&f)["failed"], 1);
}

#[test]
fn a_session_end_whose_transcript_was_never_written_is_skipped_not_failed() {
    // What `claude mcp list` and `claude mcp get` send: a SessionEnd for a
    // transcript Claude Code never writes.
    let f = Fixture::new();
    let never = f.root.join("never-written.jsonl");
    let payload = serde_json::json!({
        "session_id": "9f0e", "transcript_path": never, "cwd": "/home/ana/shop",
        "hook_event_name": "SessionEnd", "reason": "other"
    });
    hook(&f, &payload.to_string());
    wait_until("the worker", || jobs(&f)["skipped"] == 1);
    let j = jobs(&f);
    assert_eq!(j["failed"], 0, "{j}");
    assert!(j["attention"].as_array().unwrap().is_empty(), "{j}");
    assert!(!f.root.join("memory").exists() || f.memory().is_empty());
}

/// The real Claude Code 2.1.331's files (../shared/harness-samples), when present.
fn harness_sample(rel: &str) -> Option<PathBuf> {
    common::harness_sample(&format!("claude-code-2.1.331/{rel}"))
}

#[test]
fn each_compact_gives_one_compaction_artifact_and_no_analysis_from_hook_or_transcript() {
    // Two `/compact`s of one real session: the PostCompact payloads (the
    // second holds the model's raw `<analysis>…<summary>…`) and the transcript
    // Claude Code kept, which holds both again in its own wording.
    let Some(transcript) = harness_sample(
        "transcripts/home/-home-dev-code-proj2/66d2d98f-a87a-4edd-837a-0d27b86d835e.jsonl",
    ) else {
        return;
    };
    let f = Fixture::new();
    for payload in [
        "1795516257478583156-3448.json",
        "1795516293741269549-6230.json",
    ] {
        let path = harness_sample(&format!("hook-payloads/{payload}")).unwrap();
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(v["hook_event_name"], "PostCompact");
        v["transcript_path"] = transcript.to_string_lossy().into();
        hook(&f, &v.to_string());
    }
    wait_until("the compactions to wait", || jobs(&f)["waiting"] == 2);
    let end = serde_json::json!({
        "session_id": "66d2d98f-a87a-4edd-837a-0d27b86d835e",
        "transcript_path": transcript, "cwd": "/home/dev/code/proj2",
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"
    });
    hook(&f, &end.to_string());
    wait_until("all three jobs", || jobs(&f)["succeeded"] == 3);

    let compactions: Vec<String> = f
        .memory()
        .into_iter()
        .filter(|n| n.ends_with("--compaction.md"))
        .collect();
    assert_eq!(compactions.len(), 2, "one per /compact: {compactions:?}");
    let leaked = files_containing(&f.root, "analysis>");
    assert!(leaked.is_empty(), "the model's analysis reached {leaked:?}");
    let second = f.read(&format!("memory/{}", compactions[1]));
    assert!(
        second
            .contains("1. Primary Request and Intent: The user asked to add a hello world script"),
        "{second}"
    );
    assert!(
        !second.contains("This session is being continued"),
        "{second}"
    );
    let memory = f.read("MEMORY.md");
    assert!(
        memory.contains("Compacted context of proj2: The user asked to add a hello world script"),
        "{memory}"
    );
    f.check_is_clean();
}

#[test]
fn a_turn_that_announces_then_reports_has_the_report_as_its_outcome() {
    // Real Claude Code 2.1.331: "I'll create a hello world script.", a Write
    // call, then "I added hello.py, …".
    let Some(transcript) = harness_sample(
        "transcripts/home/-home-dev-code-proj0/dce1eb90-36d4-45da-a4c0-76b8d5ab0281.jsonl",
    ) else {
        return;
    };
    let f = Fixture::new();
    let path = transcript.to_string_lossy();
    f.cmd(LATER)
        .args(["capture", "session-end", "--transcript", &path])
        .assert()
        .success();
    let summary = f.read(&f.find("summary"));
    let outcome = summary.split("## Outcome\n\n").nth(1).unwrap_or_default();
    assert!(outcome.starts_with("I added hello.py"), "{summary}");
    assert!(!summary.contains("outcome: I'll"), "{summary}");
    assert!(summary.contains("; outcome: I added hello.py"), "{summary}");
}

#[test]
fn every_line_type_claude_code_2_1_331_writes_is_read_or_skipped_silently() {
    let Some(dir) = harness_sample("transcripts") else {
        return;
    };
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if !entry.file_type().is_file() {
            continue;
        }
        let f = Fixture::new();
        let path = entry.path().to_string_lossy();
        let out = f
            .cmd(LATER)
            .args(["--json", "capture", "session-end", "--transcript", &path])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["skipped_lines"], 0, "{path}: {report}");
    }
}

/// Issue 67: properties a person adds to a manifest (Obsidian's `tags`,
/// `aliases`, a property of their own, in any YAML shape) survive memsync's
/// next rewrite of it, with their values; memsync's own keys are rewritten.
#[test]
fn properties_a_person_adds_to_a_manifest_survive_its_next_rewrite() {
    let f = Fixture::new();
    f.session_end(NOW, "s-1", &[]).success();
    let manifest = f.find("manifest");
    let text = f.read(&manifest);
    let added = "tags:\n  - payments\n  - retry\naliases: [pay retry]\nreviewed: true\nrating: 4\nreview:\n  by: ana\n  on: 2026-11-21\n";
    let edited = text.replacen("\n---\n", &format!("\n{added}---\n"), 1);
    assert_ne!(edited, text, "the properties went into the frontmatter");
    std::fs::write(f.root.join(&manifest), &edited).unwrap();
    let body = f.input(
        "c.md",
        "Compacted: retry added to src/pay.rs, tests pending.",
    );
    f.cmd(LATER)
        .args(["capture", "compaction", "--session-id", "s-1", "--body"])
        .arg(&body)
        .assert()
        .success();
    let after = f.read(&manifest);
    assert_ne!(after, edited, "memsync rewrote the manifest");
    let front = after.split("---\n").nth(1).unwrap();
    let map: serde_yaml::Mapping = serde_yaml::from_str(front).unwrap();
    let want: serde_yaml::Mapping = serde_yaml::from_str(added).unwrap();
    for (key, value) in &want {
        assert_eq!(map.get(key), Some(value), "{key:?} in\n{after}");
    }
    assert_eq!(map.get("revision").and_then(|v| v.as_i64()), Some(2));
    assert!(
        map.get("compaction_path")
            .and_then(|v| v.as_str())
            .is_some()
    );
    let out = f.cmd(LATER).arg("check").output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("0 errors"), "{report}");
}
