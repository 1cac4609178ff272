//! Capture of each harness's session format, pinned by snapshots of what an
//! agent reads: the rendered transcript, the summary and the MEMORY.md row.
//! The fixtures in `tests/fixtures/harness/` are written for this project in
//! the real shapes (wrappers, slash commands, heartbeats, compactions, a
//! planted secret each); the real sessions are exercised by `tests/realdata.rs`.

mod common;

use std::path::{Path, PathBuf};

use common::{harness_fixture as fixture, memsync_bin, run_at};

const NOW: &str = "2026-11-21T00:00:00Z";

struct Captured {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
}

impl Captured {
    fn of(name: &str, extra: &[&str]) -> Captured {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let path = fixture(name);
        let path = path.to_string_lossy();
        let mut args = vec!["capture", "session-end", "--transcript", &path];
        args.extend(extra);
        let out = run_at(&ws, NOW, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Captured { _tmp: tmp, ws }
    }

    /// The texts of the canonical files of a kind, oldest first.
    fn all(&self, kind: &str) -> Vec<String> {
        common::harness::artifacts(&self.ws, kind)
    }

    fn body(&self, kind: &str) -> String {
        let text = self.all(kind).pop().unwrap_or_default();
        text.splitn(3, "---\n")
            .nth(2)
            .unwrap_or_default()
            .to_string()
    }

    fn ledger_rows(&self) -> String {
        let memory = std::fs::read_to_string(self.ws.join("MEMORY.md")).unwrap();
        memory
            .lines()
            .filter(|l| l.starts_with("- "))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        run_at(&self.ws, NOW, args)
    }
}

fn pin(harness: &str, file: &str, extra: &[&str]) -> Captured {
    let c = Captured::of(file, extra);
    insta::assert_snapshot!(format!("{harness}_transcript"), c.body("transcript"));
    insta::assert_snapshot!(format!("{harness}_summary"), c.body("summary"));
    insta::assert_snapshot!(format!("{harness}_memory_md_row"), c.ledger_rows());
    let all: String = c.all("transcript").concat() + &c.all("summary").concat();
    for secret in [
        "sk_live_cK8nkB6VRLetC6Psnc1OAPZn",
        "hunter2hunter2",
        "glpat-9CfNDxlexuamy4D9Ae2z",
        "BpyShg7Sdxukz6MQ59uNMxbrqUqIjjEB",
    ] {
        assert!(!all.contains(secret), "{secret} in the {harness} capture");
    }
    c
}

#[test]
fn claude_code_slash_commands_are_the_request_and_its_compaction_is_kept() {
    let c = pin("claude_code", "claude-code.jsonl", &[]);
    assert_eq!(c.all("compaction").len(), 1);
}

#[test]
fn codex_ide_preambles_give_way_to_the_request_and_patches_name_their_files() {
    let c = pin("codex", "codex.jsonl", &[]);
    // Its one `compacted` item has an empty message: the summary stayed with
    // the model, and the kept history replays turns the transcript holds.
    assert_eq!(c.all("compaction"), Vec::<String>::new());
    let transcript = c.body("transcript");
    assert!(
        transcript.contains("cut it to the two it needs"),
        "{transcript}"
    );
    assert!(!transcript.contains("permissions instructions"));
}

#[test]
fn openclaw_chat_envelopes_are_unwrapped_and_repeated_compactions_written_once() {
    let c = pin("openclaw", "openclaw.jsonl", &[]);
    assert_eq!(
        c.all("compaction").len(),
        1,
        "two identical compactions, one artifact"
    );
}

#[test]
fn pi_sessions_in_the_older_format_become_real_transcripts() {
    pin("pi", "pi.jsonl", &[]);
}

#[test]
fn aider_chat_history_becomes_turns_and_keeps_code_intact() {
    let c = pin(
        "aider",
        "aider.md",
        &["--project", "/home/x/health-analyzer"],
    );
    assert!(
        c.body("transcript")
            .contains("GITHUB_TOKEN = os.environ.get('GITHUB_TOKEN')")
    );
}

#[test]
fn a_file_no_reader_understands_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    for (name, text) in [
        ("odd.jsonl", "{\"weird\":1}\n{\"other\":2}\n"),
        ("empty.md", "  \n"),
    ] {
        let file = tmp.path().join(name);
        std::fs::write(&file, text).unwrap();
        memsync_bin()
            .arg("--workspace")
            .arg(&ws)
            .args([
                "capture",
                "session-end",
                "--session-id",
                "x",
                "--transcript",
            ])
            .arg(&file)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(name))
            .stderr(predicates::str::contains(
                "memsync reads Claude Code, Codex, OpenClaw",
            ));
    }
    assert!(!ws.join("memory").exists(), "nothing written");
}

#[test]
fn a_heartbeat_only_session_is_searchable_but_kept_out_of_memory_md() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("beat.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"session","version":3,"id":"beat-1","timestamp":"2026-11-20T11:00:00.000Z","cwd":"/home/d"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-20T11:00:01.000Z","message":{"role":"user","content":"[OpenClaw heartbeat poll]"}}"#,
            "\n",
            r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-11-20T11:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]}}"#,
            "\n",
            r##"{"type":"compaction","id":"a3","parentId":"a2","timestamp":"2026-11-20T11:10:00.000Z","summary":"Goal: watch the quarterly-backup cron job"}"##,
            "\n",
        ),
    )
    .unwrap();
    let tmp_ws = tempfile::tempdir().unwrap();
    let ws = tmp_ws.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let run = |args: &[&str]| run_at(&ws, NOW, args);
    let out = run(&[
        "capture",
        "session-end",
        "--transcript",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    assert!(!memory.contains("beat-1"), "{memory}");
    let hits = run(&["search", "quarterly"]);
    assert!(String::from_utf8_lossy(&hits.stdout).contains("beat-1"));
    assert!(run(&["check"]).status.success());
}

/// The `content_sha256` line a manifest must carry: its body's digest.
fn declared_checksum(text: &str) -> String {
    let body = text[4..].split_once("\n---\n").unwrap().1;
    format!(
        "content_sha256: \"{}\"",
        memsync::contract::body_sha256(body)
    )
}

#[test]
fn manifests_carry_their_checksum_and_still_validate_after_a_compaction_backfill() {
    let c = Captured::of("pi.jsonl", &[]);
    let manifest = c.all("manifest").pop().unwrap();
    assert!(
        manifest.contains(&declared_checksum(&manifest)),
        "{manifest}"
    );
    assert!(manifest.contains("hash_scope: \"body-normalized-v1\""));
    let body = c.ws.join("compact.md");
    std::fs::write(&body, "Ported the selector to theme tokens in pi-mono.").unwrap();
    let out = c.cli(&[
        "capture",
        "compaction",
        "--session-id",
        "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
        "--body",
        body.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = c.all("manifest").pop().unwrap();
    assert!(manifest.contains("revision: 2"));
    assert!(
        manifest.contains(&declared_checksum(&manifest)),
        "{manifest}"
    );
    assert!(
        manifest.contains("--compaction.md|compaction]]"),
        "{manifest}"
    );
    assert!(manifest.contains("hash_scope: \"body-normalized-v1\""));
    let check = c.cli(&["check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn a_signet_written_session_with_manifest_checksums_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/signet/memory");
    std::fs::create_dir_all(ws.join("memory")).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        std::fs::copy(e.path(), ws.join("memory").join(e.file_name())).unwrap();
    }
    let out = run_at(&ws, NOW, &["sync"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run_at(&ws, NOW, &["check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    assert!(
        memory.contains("Finalized DP-19 write-gate clamping"),
        "{memory}"
    );
}

/// A Claude Code session that opens with the summary of the one it
/// continues (the person typed nothing in it): the summary says what they
/// asked, so the session is no heartbeat. Its sentence names that request
/// and its work reaches MEMORY.md.
#[test]
fn a_session_that_continues_another_is_remembered_by_the_request_its_summary_reports() {
    let c = Captured::of("claude-code-continued.jsonl", &[]);
    let rows = c.ledger_rows();
    assert!(
        rows.contains("migrate the payment service from the Stripe Charges API to PaymentIntents"),
        "{rows}"
    );
    assert!(
        rows.contains("outcome: Refunds now go through PaymentIntents"),
        "{rows}"
    );
    let summary = c.body("summary");
    assert!(
        summary.contains("## Request\n\nmigrate the payment service"),
        "{summary}"
    );
    let manifest = c.all("manifest").pop().unwrap_or_default();
    assert!(
        manifest.contains("memory_md_refs:\n  - \"MEMORY.md\""),
        "{manifest}"
    );
}
