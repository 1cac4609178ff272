//! What machines read: every `--json` report and every MCP tool answer holds
//! no character below U+0020 but the newline, even when a captured session
//! carries escape sequences and the old match markers (U+0001/U+0002); a
//! snippet marks its matches with « and »; MCP answers are compact. And a
//! search does not change its own next answer.

mod common;

use std::path::{Path, PathBuf};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

const NOW: &str = "2026-11-20T12:00:00Z";

/// The demo workspace, plus a session whose text holds control characters.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = common::demo_workspace();
    let transcript = tmp.path().join("noisy.txt");
    std::fs::write(
        &transcript,
        "user: find the \u{1}quokka\u{2} with \u{1b}[31mred\u{1b}[0m text\u{7} now\n\
         assistant: the quokka\tis in src/zoo.rs\n",
    )
    .unwrap();
    let out = common::run_at(
        &root,
        NOW,
        &[
            "capture",
            "session-end",
            "--session-id",
            "noisy-1",
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    (tmp, root)
}

/// Every string in `v` that holds a character below U+0020 other than `\n`.
fn control_characters(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.chars().any(|c| c < ' ' && c != '\n') => {
            out.push(format!("{at}: {s:?}"));
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                control_characters(item, &format!("{at}[{i}]"), out);
            }
        }
        Value::Object(fields) => {
            for (k, item) in fields {
                control_characters(item, &format!("{at}.{k}"), out);
            }
        }
        _ => {}
    }
}

fn json_of(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = common::run_at(root, NOW, &all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.bytes().all(|b| b >= b' ' || b == b'\n'),
        "{args:?}: a raw control byte"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

#[test]
fn no_json_report_of_any_command_holds_a_control_character() {
    let (_tmp, root) = workspace();
    let commands: &[&[&str]] = &[
        &["sync"],
        &["check"],
        &["status"],
        &["search", "quokka"],
        &["search", "quokk"],
        &["search", "write", "gate"],
        &["open", "noisy-1"],
        &["reindex"],
        &["harvest", "--dry-run"],
        &["doctor"],
    ];
    let mut found = Vec::new();
    for args in commands {
        control_characters(&json_of(&root, args), &args.join(" "), &mut found);
    }
    assert!(found.is_empty(), "{found:#?}");
    let hits = json_of(&root, &["search", "quokka"]);
    let snippet = hits[0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("«quokka»"), "{snippet}");
}

#[test]
fn the_same_search_twice_gives_the_same_order_and_scores() {
    let (_tmp, root) = workspace();
    let scores = |v: &Value| -> Vec<(String, String)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|h| (h["token"].to_string(), h["score"].to_string()))
            .collect()
    };
    let first = scores(&json_of(&root, &["search", "the"]));
    assert!(first.len() > 1, "{first:?}");
    for _ in 0..3 {
        assert_eq!(scores(&json_of(&root, &["search", "the"])), first);
    }
}

#[test]
fn a_typo_or_a_filter_that_finds_nothing_suggests_what_would() {
    let (_tmp, root) = workspace();
    let out = common::run_at(&root, NOW, &["search", "quokak"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no session matches") && text.contains("try: memsync search quokka"),
        "{text}"
    );
    let out = common::run_at(&root, NOW, &["search", "quokka", "--project", "nowhere"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("without the filters"), "{text}");
}

#[tokio::test(flavor = "current_thread")]
async fn every_mcp_tool_answers_compact_clean_json() {
    let (_tmp, root) = workspace();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memsync"));
    cmd.arg("--workspace")
        .arg(&root)
        .args(["--now", NOW, "mcp"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env_remove("MEMSYNC_CONFIG")
        .stderr(std::process::Stdio::null());
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let calls = [
        ("memory_search", json!({ "query": "quokka" })),
        ("memory_search", json!({ "query": "quokak" })),
        ("memory_get", json!({ "session": "noisy-1" })),
        ("memory_recent", json!({ "days": 30 })),
    ];
    let mut found = Vec::new();
    for (tool, args) in calls {
        let params = CallToolRequestParams::new(tool.to_string())
            .with_arguments(args.as_object().unwrap().clone());
        let result = client.call_tool(params).await.unwrap();
        assert_ne!(result.is_error, Some(true), "{tool}");
        let raw: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        assert!(!raw.contains('\n'), "{tool}: pretty-printed");
        let value: Value = serde_json::from_str(&raw).unwrap();
        control_characters(&value, tool, &mut found);
        if tool == "memory_search" && args["query"] == "quokka" {
            let hit = value["hits"][0].as_object().unwrap();
            let mut keys: Vec<&str> = hit.keys().map(String::as_str).collect();
            keys.sort();
            assert_eq!(
                keys,
                [
                    "agent",
                    "path",
                    "project",
                    "sentence",
                    "session_id",
                    "snippet",
                    "token",
                    "when"
                ]
            );
            assert!(hit["snippet"].as_str().unwrap().contains("«quokka»"));
        }
        if args["query"] == "quokak" {
            assert_eq!(value["suggestions"][0]["query"], "quokka", "{value}");
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    client.cancel().await.unwrap();
}
