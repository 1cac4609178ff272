//! `memsync mcp` driven by a real MCP client (the official Rust SDK's, over
//! the binary's stdio) on the bundled example workspace: the five tools are
//! listed and answer, bad arguments are tool errors and the server carries
//! on, and a session forgotten while the server runs never comes back.

mod common;

use common::mcp::{NOW, answer, call, connect, text};
use rmcp::model::CallToolResult;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

/// The `default` agent's sessions about the write gate (the demo's
/// reviewer agent has a session of the same token).
async fn write_gate_hits(client: &RunningService<RoleClient, ()>) -> Value {
    answer(
        &call(
            client,
            "memory_search",
            json!({ "query": "write gate", "agent": "default" }),
        )
        .await,
    )
}

/// A tool error, with its message.
fn refusal(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{}", text(result));
    text(result)
}

/// Every harness can call the tools without asking: each says it is
/// read-only and idempotent and has a title, and its input schema is plain
/// JSON Schema whose ranges match what its descriptions say.
#[tokio::test(flavor = "current_thread")]
async fn the_tools_are_annotated_honestly_and_their_schemas_are_plain_json_schema() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let tools = client.list_all_tools().await.unwrap();
    for t in &tools {
        let a = t.annotations.as_ref().expect("annotations");
        // The two that write a note say so; none destroys anything.
        let reads = !matches!(&*t.name, "memory_store" | "memory_correct");
        assert_eq!(a.read_only_hint, Some(reads), "{}", t.name);
        assert_eq!(a.idempotent_hint, Some(reads), "{}", t.name);
        assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
        assert!(a.title.as_deref().is_some_and(|t| !t.is_empty()));
        let schema = serde_json::to_string(&t.input_schema).unwrap();
        assert!(!schema.contains("\"format\""), "{}: {schema}", t.name);
    }
    let search = tools.iter().find(|t| t.name == "memory_search").unwrap();
    let limit = &search.input_schema["properties"]["limit"];
    assert_eq!(limit["minimum"], 1, "{limit}");
    assert_eq!(limit["maximum"], 100, "{limit}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn an_mcp_client_lists_searches_opens_and_reads_the_ledger() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "memory_correct",
            "memory_get",
            "memory_recent",
            "memory_search",
            "memory_store"
        ]
    );
    for t in &tools {
        assert!(
            t.description.as_deref().is_some_and(|d| d.len() > 40),
            "{}",
            t.name
        );
        assert!(
            t.input_schema.get("properties").is_some(),
            "{} has an argument schema",
            t.name
        );
    }

    let found = answer(
        &call(
            &client,
            "memory_search",
            json!({ "query": "write gate", "agent": "default", "limit": 3 }),
        )
        .await,
    );
    let hit = &found["hits"][0];
    assert_eq!(hit["session_key"], "signetai-dp19", "{found:#}");
    assert!(
        hit["snippet"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("write")
    );
    let token = hit["token"].as_str().unwrap().to_string();

    let session = answer(&call(&client, "memory_get", json!({ "session": token })).await);
    assert_eq!(session["session"]["token"], token.as_str());
    assert!(
        session["summary"].as_str().unwrap().contains("DP-19"),
        "{session:#}"
    );
    let transcript = session["transcript"].as_str().unwrap();
    assert!(transcript.lines().count() > 3);
    let two = answer(
        &call(
            &client,
            "memory_get",
            json!({ "session": token, "start_line": 2, "end_line": 3 }),
        )
        .await,
    );
    assert_eq!(two["transcript"].as_str().unwrap().lines().count(), 2);
    let path = hit["path"].as_str().unwrap();
    let by_path = answer(&call(&client, "memory_get", json!({ "path": path })).await);
    assert!(by_path["text"].as_str().unwrap().starts_with("---\n"));

    let recent = answer(&call(&client, "memory_recent", json!({})).await);
    let rows = recent["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    let memory = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
    for row in rows {
        assert!(
            memory.contains(row["line"].as_str().unwrap()),
            "the same line as MEMORY.md: {row:#}"
        );
    }
    let times: Vec<&str> = rows.iter().map(|r| r["time"].as_str().unwrap()).collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {times:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn bad_arguments_are_tool_errors_that_say_what_to_send_and_the_server_carries_on() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let cases = [
        ("memory_search", json!({ "query": 5 }), "expected a string"),
        (
            "memory_search",
            json!({ "query": "x", "since": "7ö" }),
            "--since",
        ),
        (
            "memory_search",
            json!({ "query": "x", "kind": "manifest" }),
            "send summary, transcript or compaction",
        ),
        (
            "memory_search",
            json!({ "query": "x", "limit": 0 }),
            "send 1 to 100",
        ),
        (
            "memory_search",
            json!({ "query": "x", "colour": "red" }),
            "unknown field",
        ),
        ("memory_get", json!({}), "send either `session`"),
        (
            "memory_get",
            json!({ "session": "no-such-session" }),
            "no session",
        ),
        (
            "memory_get",
            json!({ "path": "../../etc/passwd" }),
            "not under memory/",
        ),
        (
            "memory_get",
            json!({ "path": "memory/../MEMORY.md" }),
            "not a canonical artifact",
        ),
        (
            "memory_get",
            json!({ "session": "x", "start_line": 5, "end_line": 2 }),
            "start_line <= end_line",
        ),
        ("memory_recent", json!({ "days": 0 }), "send 1 to 365"),
        (
            "memory_recent",
            json!({ "agent": "../x" }),
            "send an agent id",
        ),
    ];
    for (tool, args, says) in cases {
        let message = refusal(&call(&client, tool, args.clone()).await);
        assert!(message.contains(says), "{tool} {args}: {message}");
    }
    // Syntax FTS5 refuses is no error: it is answered as words, with a note.
    let words = answer(&call(&client, "memory_search", json!({ "query": "\"write gate" })).await);
    assert!(!words["hits"].as_array().unwrap().is_empty(), "{words:#}");
    // Still up and answering.
    answer(&call(&client, "memory_recent", json!({ "days": 7 })).await);
    client.cancel().await.unwrap();
}

/// Issue 45: a person's note (the demo's `memory/notes/dedup.md`, no
/// frontmatter key memsync needs) is in `memory_search`'s answer.
#[tokio::test(flavor = "current_thread")]
async fn memory_search_answers_the_notes_people_wrote() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let found = answer(&call(&client, "memory_search", json!({ "query": "dedup hash" })).await);
    let notes = found["notes"].as_array().expect("notes in the answer");
    assert_eq!(notes[0]["note"], "memory/notes/dedup.md", "{found:#}");
    assert!(
        notes[0]["snippet"].as_str().unwrap().contains("«hash»"),
        "{found:#}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_session_forgotten_while_the_server_runs_never_comes_back() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let found = write_gate_hits(&client).await;
    let token = found["hits"][0]["token"].as_str().unwrap().to_string();
    common::memsync_bin()
        .arg("--workspace")
        .arg(&root)
        .args([
            "--now",
            NOW,
            "-q",
            "forget",
            &token,
            "--reason",
            "pasted a secret",
        ])
        .assert()
        .success();
    let again = write_gate_hits(&client).await;
    assert!(
        again["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["token"] != token.as_str()),
        "{again:#}"
    );
    refusal(&call(&client, "memory_get", json!({ "session": token })).await);
    let recent = answer(&call(&client, "memory_recent", json!({})).await);
    assert!(!recent.to_string().contains(&token));
    client.cancel().await.unwrap();
}

/// A file outside the workspace that a committed symlink could point at.
const SECRET: &str = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key";

#[tokio::test(flavor = "current_thread")]
async fn memory_get_serves_only_indexed_artifacts_and_never_through_a_symlink() {
    let (tmp, root) = common::demo_workspace();
    let secret = tmp.path().join("id_rsa");
    std::fs::write(&secret, SECRET).unwrap();
    let client = connect(&root).await;
    let found = write_gate_hits(&client).await;
    let path = found["hits"][0]["path"].as_str().unwrap().to_string();
    let token = found["hits"][0]["token"].as_str().unwrap().to_string();
    // A name the index never saw, and an indexed file swapped for a link.
    let unseen = path.replace(&token, "zzzzzzzzzzzzzzzz");
    std::os::unix::fs::symlink(&secret, root.join(&unseen)).unwrap();
    let summary = found["hits"][0]["artifacts"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find_map(|p| p.as_str().filter(|p| p.ends_with("--summary.md")))
        })
        .unwrap_or(&path)
        .to_string();
    std::fs::remove_file(root.join(&summary)).unwrap();
    std::os::unix::fs::symlink(&secret, root.join(&summary)).unwrap();

    let says = refusal(&call(&client, "memory_get", json!({ "path": unseen })).await);
    assert!(says.contains("not an artifact the index holds"), "{says}");
    let says = refusal(&call(&client, "memory_get", json!({ "path": summary })).await);
    assert!(says.contains("symbolic link"), "{says}");
    let session = call(&client, "memory_get", json!({ "session": token })).await;
    assert!(!text(&session).contains("OPENSSH"), "{}", text(&session));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_forgotten_sessions_file_back_from_a_stale_clone_is_not_served_by_path() {
    let (_tmp, root) = common::demo_workspace();
    let memory = root.join("memory");
    let client = connect(&root).await;
    let found = write_gate_hits(&client).await;
    let token = found["hits"][0]["token"].as_str().unwrap().to_string();
    client.cancel().await.unwrap();
    let files: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&memory)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(&token))
        .map(|e| (e.path(), std::fs::read(e.path()).unwrap()))
        .collect();
    assert!(!files.is_empty());
    common::memsync_bin()
        .arg("--workspace")
        .arg(&root)
        .args(["--now", NOW, "-q", "forget", &token, "--reason", "secret"])
        .assert()
        .success();
    for (p, bytes) in &files {
        std::fs::write(p, bytes).unwrap();
    }
    let client = connect(&root).await;
    for (p, _) in &files {
        let rel = p.strip_prefix(&root).unwrap().to_str().unwrap();
        let says = refusal(&call(&client, "memory_get", json!({ "path": rel })).await);
        assert!(
            says.contains("forgotten") || says.contains("not an artifact the index holds"),
            "{rel}: {says}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_long_transcript_comes_in_windows_within_the_reply_budget() {
    let (_tmp, root) = common::demo_workspace();
    let config = memsync::config::Config::default();
    let mut s = common::session("default", "long-one", common::ts("2026-11-19T10:00:00Z"));
    let line = format!("assistant: {}\n", "step ".repeat(20));
    s.transcript.as_mut().unwrap().body = line.repeat(6_000);
    memsync::compose::write_files(&root, &s.files(&config)).unwrap();
    let client = connect(&root).await;
    let first = answer(&call(&client, "memory_get", json!({ "session": "long-one" })).await);
    let text_len = first["transcript"].as_str().unwrap().len();
    assert!(text_len <= memsync::mcp::tools::REPLY_BYTES, "{text_len}");
    let next = first["transcript_lines"]["next_start_line"]
        .as_u64()
        .unwrap();
    let shown = first["transcript_lines"]["end_line"].as_u64().unwrap();
    assert_eq!(next, shown + 1);
    let second = answer(
        &call(
            &client,
            "memory_get",
            json!({ "session": "long-one", "start_line": next }),
        )
        .await,
    );
    assert_eq!(second["transcript_lines"]["start_line"], next);
    assert!(
        second["transcript"]
            .as_str()
            .unwrap()
            .starts_with("assistant: step")
    );
    client.cancel().await.unwrap();
}

#[test]
fn every_line_that_is_not_a_message_gets_a_json_rpc_error_and_the_server_carries_on() {
    use std::io::{BufRead, Write};
    let (_tmp, root) = common::demo_workspace();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(&root)
        .args(["--now", NOW, "mcp"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env_remove("MEMSYNC_CONFIG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let huge = "x".repeat(17 * 1024 * 1024);
    for line in [
        init,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "not json at all",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list""#,
        r#"{"id":3,"method":"tools/list"}"#,
        huge.as_str(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
    ] {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    drop(stdin);
    let replies: Vec<Value> = std::io::BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    let errors: Vec<(Value, i64)> = replies
        .iter()
        .filter_map(|r| Some((r["id"].clone(), r["error"]["code"].as_i64()?)))
        .collect();
    assert_eq!(
        errors,
        [
            (Value::Null, -32700),
            (Value::Null, -32700),
            (json!(3), -32600),
            (Value::Null, -32600)
        ],
        "{replies:#?}"
    );
    assert!(
        replies
            .iter()
            .any(|r| r["id"] == 4 && r["result"]["tools"].is_array()),
        "{replies:#?}"
    );
}
