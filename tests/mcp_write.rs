//! Issue 45, item 2: agents write memory through MCP. `memory_store` keeps a
//! fact as a new note that the next search finds; `memory_correct` writes a
//! note superseding it, after which search and `context` show only the new
//! one while the old file stays on disk and `memory_get` shows the chain.
//! Writes are sanitized, capped, budgeted per server, never over a file, and
//! `connect` grants neither tool.

mod common;

use common::mcp::{answer, call, connect, text};
use serde_json::json;

/// The paths of the notes `memory_search` answers for `query`.
async fn notes_found(
    client: &rmcp::service::RunningService<rmcp::service::RoleClient, ()>,
    query: &str,
) -> Vec<String> {
    let found = answer(&call(client, "memory_search", json!({ "query": query })).await);
    let notes = found["notes"].as_array().cloned().unwrap_or_default();
    notes
        .iter()
        .map(|n| n["note"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn a_stored_fact_is_found_and_a_correction_hides_the_old_note() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let stored = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "The signetai repo builds with npm.", "title": "Package manager", "project": "signetai" }),
        )
        .await,
    );
    let old = stored["note"].as_str().unwrap().to_string();
    assert!(
        old.starts_with("notes/") && old.ends_with("-package-manager.md"),
        "{stored}"
    );
    let on_disk = std::fs::read_to_string(root.join(&old)).unwrap();
    assert!(
        on_disk.contains("author: \"agent\"") && on_disk.contains("builds with npm"),
        "{on_disk}"
    );

    assert_eq!(
        notes_found(&client, "package manager builds").await,
        [old.as_str()]
    );

    let corrected = answer(
        &call(
            &client,
            "memory_correct",
            json!({ "note": old, "text": "The signetai repo builds with pnpm since March.", "reason": "it moved to pnpm workspaces", "title": "Package manager" }),
        )
        .await,
    );
    let new = corrected["note"].as_str().unwrap().to_string();
    assert_ne!(new, old, "a correction never overwrites");
    assert_eq!(corrected["supersedes"], old.as_str());
    assert!(root.join(&old).exists(), "the corrected note stays on disk");

    assert_eq!(
        notes_found(&client, "package manager builds").await,
        [new.as_str()]
    );
    let chain = answer(&call(&client, "memory_get", json!({ "path": old })).await);
    assert_eq!(chain["superseded_by"], new.as_str(), "{chain}");
    assert!(
        chain["superseded_by_text"]
            .as_str()
            .unwrap()
            .contains("pnpm"),
        "{chain}"
    );

    let again = call(
        &client,
        "memory_correct",
        json!({ "note": old, "text": "x y z", "reason": "r" }),
    )
    .await;
    assert_eq!(again.is_error, Some(true));
    assert!(
        text(&again).contains("already corrected by"),
        "{}",
        text(&again)
    );
    client.cancel().await.unwrap();

    // `open` shows the chain both ways.
    let shown = |path: &str| {
        let out = common::run_at(&root, common::mcp::NOW, &["open", path]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let older = shown(&old);
    assert!(older.contains(&format!("superseded by: {new}")), "{older}");
    assert!(older.contains("builds with npm"), "{older}");
    let newer = shown(&new);
    assert!(newer.contains(&format!("corrects: {old}")), "{newer}");

    let out = common::run_at(
        &root,
        common::mcp::NOW,
        &["context", "--cwd", "/home/ada/code/signetai"],
    );
    let digest = String::from_utf8_lossy(&out.stdout);
    assert!(
        digest.contains("pnpm since March") && !digest.contains("builds with npm"),
        "{digest}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_stored_note_is_sanitized_capped_and_budgeted() {
    let (_tmp, root) = common::demo_workspace();
    let client = connect(&root).await;
    let key = "sk-ant-api03-Q7x9Lm2Vb8Nc4Rt6Yh1Jk3Pw5Zs0Df2Gh4Jk6Lm8Nb";
    let stored = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": format!("The billing key is {key}.") }),
        )
        .await,
    );
    let on_disk = std::fs::read_to_string(root.join(stored["note"].as_str().unwrap())).unwrap();
    assert!(!on_disk.contains(key), "{on_disk}");
    assert_eq!(stored["redacted"], 1, "{stored}");

    let big = call(
        &client,
        "memory_store",
        json!({ "text": "x ".repeat(5000) }),
    )
    .await;
    assert_eq!(big.is_error, Some(true));
    assert!(text(&big).contains("at most 8192"), "{}", text(&big));
    let empty = call(&client, "memory_store", json!({ "text": "  " })).await;
    assert_eq!(empty.is_error, Some(true));

    // The same title twice: two files, the first untouched.
    let first = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "one", "title": "Same" }),
        )
        .await,
    );
    let second = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "two", "title": "Same" }),
        )
        .await,
    );
    assert_ne!(first["note"], second["note"]);
    let first_text = std::fs::read_to_string(root.join(first["note"].as_str().unwrap())).unwrap();
    assert!(first_text.ends_with("one\n"), "{first_text}");

    // 3 written so far; the budget allows 20 per server (session).
    for i in 3..memsync::mcp::write::MAX_WRITES {
        answer(
            &call(
                &client,
                "memory_store",
                json!({ "text": format!("fact {i}") }),
            )
            .await,
        );
    }
    let over = call(&client, "memory_store", json!({ "text": "one too many" })).await;
    assert_eq!(over.is_error, Some(true));
    assert!(
        text(&over).contains("the most one session may"),
        "{}",
        text(&over)
    );
    client.cancel().await.unwrap();
}

#[test]
fn connect_grants_only_the_read_only_tools() {
    let granted = memsync::wiring::grants::READ_ONLY_TOOLS;
    assert!(!granted.contains(&"memory_store") && !granted.contains(&"memory_correct"));
}

/// Issue 65: a note written through MCP got `project: null` though the
/// harness started the server in the project's folder; a correction is
/// about the corrected note's project.
#[tokio::test(flavor = "current_thread")]
async fn a_note_is_about_the_project_the_harness_runs_in_unless_the_agent_names_one() {
    let (_tmp, root) = common::demo_workspace();
    let project = tempfile::tempdir().unwrap();
    let client = common::mcp::connect_in(&root, project.path()).await;
    let stored = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "Deploys go through the release branch." }),
        )
        .await,
    );
    let note = std::fs::read_to_string(root.join(stored["note"].as_str().unwrap())).unwrap();
    let here = std::fs::canonicalize(project.path()).unwrap();
    assert!(
        note.contains(&format!("project: \"{}\"", here.display())),
        "{note}"
    );
    let named = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "The ferry is late.", "project": "harbour" }),
        )
        .await,
    );
    let note = std::fs::read_to_string(root.join(named["note"].as_str().unwrap())).unwrap();
    assert!(note.contains("project: \"harbour\""), "{note}");
    let corrected = answer(
        &call(
            &client,
            "memory_correct",
            json!({ "note": named["note"], "text": "The ferry is on time.", "reason": "new timetable" }),
        )
        .await,
    );
    let note = std::fs::read_to_string(root.join(corrected["note"].as_str().unwrap())).unwrap();
    assert!(note.contains("project: \"harbour\""), "{note}");
    // Started in the workspace itself, no project is guessed.
    let client = connect(&root).await;
    let plain = answer(
        &call(
            &client,
            "memory_store",
            json!({ "text": "A fact with no project." }),
        )
        .await,
    );
    let note = std::fs::read_to_string(root.join(plain["note"].as_str().unwrap())).unwrap();
    assert!(!note.contains("project: \""), "{note}");
}
