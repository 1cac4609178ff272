//! memsync's own files are always valid (issue 68): whatever a session or
//! an agent sends, every field memsync writes into frontmatter is capped,
//! so no artifact or note it writes fails its own checks. A request holding
//! one unbroken 64 KB token (a base64 paste) gave a 47 KB memory_sentence in
//! three artifacts' frontmatter; a 100,000-character title gave a note
//! memsync could not read back.

mod common;

use common::home::Home;
use common::mcp::{call, connect, text};
use serde_json::json;

#[test]
fn a_session_whose_request_is_one_huge_token_gets_a_sentence_that_stays_a_line() {
    let home = Home::new();
    home.cmd().arg("init").assert().success();
    for (n, token) in [
        "QUJD".repeat(16_000),
        "{\"a\":[1,2,3],\"b\":{\"c\":\"d\"}}".repeat(3_000),
        "x".repeat(1_000_000),
    ]
    .iter()
    .enumerate()
    {
        let transcript = home.path(&format!("t{n}.jsonl"));
        let lines = [
            json!({"role": "user", "content": format!("Decode this for shop/api.rs: {token}")}),
            json!({"role": "assistant", "content": format!("It decodes to nothing useful: {token}")}),
        ];
        std::fs::write(&transcript, lines.map(|l| l.to_string() + "\n").concat()).unwrap();
        home.cmd()
            .args(["capture", "session-end", "--session-id"])
            .arg(format!("long-{n}"))
            .arg("--transcript")
            .arg(&transcript)
            .assert()
            .success();
    }
    let (code, check) = home.run(&["check"]);
    assert_eq!(code, 0, "memsync's own files fail its checks: {check}");
    for (path, bytes) in common::tree(&home.path("ws/memory")) {
        let text = String::from_utf8_lossy(&bytes);
        if let Some(line) = text.lines().find(|l| l.starts_with("memory_sentence: ")) {
            assert!(line.len() < 1_000, "{path}: {} bytes", line.len());
        }
    }
    let (_, status) = home.run(&["status"]);
    assert_eq!(status["errors"], 0, "{status}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_note_with_an_oversized_title_or_tags_is_refused_with_the_reason() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let cases = [
        json!({ "text": "a fact", "title": "t".repeat(100_000) }),
        json!({ "text": "a fact", "title": "two\nlines" }),
        json!({ "text": "a fact", "tags": ["x".repeat(10_000)] }),
        json!({ "text": "a fact", "tags": (0..100).map(|i| format!("t{i}")).collect::<Vec<_>>() }),
    ];
    for args in cases {
        let result = call(&client, "memory_store", args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{args}: {}", text(&result));
        assert!(text(&result).contains("at most"), "{}", text(&result));
    }
    let fine = call(
        &client,
        "memory_store",
        json!({ "text": "a fact", "title": "A fact", "tags": ["ok"] }),
    )
    .await;
    assert_ne!(fine.is_error, Some(true), "{}", text(&fine));
}

#[test]
fn a_note_over_the_size_limit_is_reported_not_indexed() {
    let home = Home::new();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nscan:\n  max_file_bytes: 1048576\n",
    );
    home.cmd().arg("init").assert().success();
    std::fs::create_dir_all(home.path("ws/notes")).unwrap();
    home.write("ws/notes/big.md", &"quokka lantern ".repeat(100_000));
    home.write("ws/notes/small.md", "# Small\n\nquokka lantern\n");
    let (code, check) = home.run(&["check"]);
    assert_eq!(code, 0, "{check}");
    assert!(check.to_string().contains("file.too-large"), "{check}");
    let (_, found) = home.run(&["search", "quokka"]);
    let notes = found.to_string();
    assert!(
        notes.contains("notes/small.md") && !notes.contains("notes/big.md"),
        "{notes}"
    );
}
