//! Notes (issue 45, item 1): markdown in the workspace that is not an
//! artifact, a tombstone or a projection is indexed apart from sessions,
//! found by `search` (text, JSON, MCP) and listed by `context`, with or
//! without frontmatter; a note named like an artifact stays `misnamed`.

mod common;

use common::Workspace;
use serde_json::Value;

fn notes_in(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .filter(|h| h["kind"] == "note")
        .map(|h| h["path"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn context(ws: &Workspace, cwd: &str) -> String {
    let out = ws.cli(&["context", "--cwd", cwd]).success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[test]
fn a_persons_note_without_frontmatter_is_found_by_search_and_listed_by_context() {
    let ws = Workspace::new();
    ws.write(
        "notes/staging.md",
        "# Staging\n\nThe staging database is read-only; deploys go through the release branch.\n",
    );
    let report = ws.sync();
    assert_eq!(report.notes_indexed, 1);
    let hits = ws.search_json(&["staging", "database"]);
    assert_eq!(notes_in(&hits), ["notes/staging.md"]);
    let note = hits.iter().find(|h| h["kind"] == "note").unwrap();
    assert_eq!(note["title"], "Staging");
    assert!(
        note["snippet"].as_str().unwrap().contains("«database»"),
        "{note}"
    );
    let text = ws.cli(&["search", "read-only"]).success();
    let text = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert!(text.contains("note  notes/staging.md"), "{text}");
    let digest = context(&ws, "/code/shop");
    assert!(
        digest.contains("- Staging: \"The staging database is read-only; deploys go through the release branch.\" (notes/staging.md)"),
        "{digest}"
    );
    // A second sync reads no note again.
    assert_eq!(ws.sync().notes_indexed, 0);
}

#[test]
fn an_edited_note_is_indexed_again_and_a_deleted_one_leaves_search() {
    let ws = Workspace::new();
    ws.write("notes/tools.md", "This repo uses npm.\n");
    ws.sync();
    assert_eq!(notes_in(&ws.search_json(&["npm"])), ["notes/tools.md"]);
    ws.write(
        "notes/tools.md",
        "This repo uses pnpm, not the other one.\n",
    );
    assert_eq!(ws.sync().notes_indexed, 1);
    assert!(notes_in(&ws.search_json(&["npm"])).is_empty());
    assert_eq!(notes_in(&ws.search_json(&["pnpm"])), ["notes/tools.md"]);
    ws.remove("notes/tools.md");
    assert_eq!(ws.sync().notes_removed, 1);
    assert!(notes_in(&ws.search_json(&["pnpm"])).is_empty());
}

#[test]
fn a_superseded_note_is_left_out_of_search_and_context() {
    let ws = Workspace::new();
    ws.write(
        "notes/port-old.md",
        "---\nsuperseded_by: \"[[notes/port-new]]\"\n---\nThe API listens on port 8080.\n",
    );
    ws.write(
        "notes/port-new.md",
        "The API listens on port 9090 since the proxy moved.\n",
    );
    ws.sync();
    assert_eq!(
        notes_in(&ws.search_json(&["api", "port"])),
        ["notes/port-new.md"]
    );
    let digest = context(&ws, "/code/shop");
    assert!(
        digest.contains("9090") && !digest.contains("8080"),
        "{digest}"
    );
}

#[test]
fn context_lists_this_projects_notes_and_global_ones_but_not_other_projects() {
    let ws = Workspace::new();
    ws.write(
        "notes/shop.md",
        "---\nproject: shop\n---\nShop builds with pnpm.\n",
    );
    ws.write(
        "notes/blog.md",
        "---\nproject: /code/blog\n---\nBlog builds with hugo.\n",
    );
    ws.write("notes/me.md", "The user wants answers in French.\n");
    ws.sync();
    let digest = context(&ws, "/code/shop");
    let shop = digest.find("pnpm").expect("this project's note");
    let global = digest.find("French").expect("a note about no project");
    assert!(shop < global, "{digest}");
    assert!(!digest.contains("hugo"), "{digest}");
    let hits = ws.search_json(&["builds", "--project", "shop"]);
    assert_eq!(notes_in(&hits), ["notes/shop.md"]);
}

#[test]
fn a_file_named_like_an_artifact_is_misnamed_not_a_note() {
    let ws = Workspace::new();
    ws.write(
        "memory/notes/2026-03-01-session-summary.md",
        "Summary of the quokka session.\n",
    );
    ws.sync();
    assert!(notes_in(&ws.search_json(&["quokka"])).is_empty());
    assert!(common::has_rule(
        &ws.problems_for("memory/notes/2026-03-01-session-summary.md"),
        "naming.misnamed",
        memsync::validate::Severity::Warning
    ));
}

#[test]
fn a_note_a_watcher_names_is_indexed_without_a_full_scan() {
    let ws = Workspace::new();
    ws.sync();
    ws.write(
        "ideas/retry.md",
        "Retry the upload with exponential backoff.\n",
    );
    let mut index = memsync::store::Index::open(&ws.settings.index_path()).unwrap();
    let report = memsync::pipeline::sync_paths(
        &mut index,
        &ws.settings,
        common::now(),
        memsync::pipeline::SyncOptions::RENDER,
        &["ideas/retry.md".to_string(), ".obsidian/x.md".to_string()],
    )
    .unwrap();
    assert_eq!(report.notes_indexed, 1);
    assert_eq!(notes_in(&ws.search_json(&["backoff"])), ["ideas/retry.md"]);
    ws.remove("ideas/retry.md");
    let report = memsync::pipeline::sync_paths(
        &mut index,
        &ws.settings,
        common::now(),
        memsync::pipeline::SyncOptions::RENDER,
        &["ideas/retry.md".to_string()],
    )
    .unwrap();
    assert_eq!(report.notes_removed, 1);
}

#[test]
fn a_credential_in_a_note_reaches_neither_search_nor_context() {
    let ws = Workspace::new();
    let key = "sk-ant-api03-Q7x9Lm2Vb8Nc4Rt6Yh1Jk3Pw5Zs0Df2Gh4Jk6Lm8Nb";
    ws.write(
        "notes/keys.md",
        &format!("The billing service key is {key} for now.\n"),
    );
    ws.sync();
    let hits = ws.search_json(&["billing", "service"]);
    let note = hits.iter().find(|h| h["kind"] == "note").expect("the note");
    assert!(!note.to_string().contains(key), "{note}");
    let digest = context(&ws, "/code/shop");
    assert!(
        digest.contains("billing service key") && !digest.contains(key),
        "{digest}"
    );
}

/// Issue 45, item 5: `forget` removes a note for good. The tombstone comes
/// first and travels with git; the note copied back (a pull from a clone
/// that still has it) is never indexed again. `status` counts notes by who
/// wrote them.
#[test]
fn a_forgotten_note_stays_out_when_it_comes_back_and_status_counts_notes_by_source() {
    let ws = Workspace::new();
    ws.write("notes/secret.md", "The staging password is in the vault.\n");
    ws.write(
        "notes/agent.md",
        "---\nauthor: agent\n---\nThe staging database is read-only.\n",
    );
    ws.sync();
    let status = ws.cli(&["--json", "status"]).success();
    let status: Value = serde_json::from_slice(&status.get_output().stdout).unwrap();
    let by: Vec<(String, i64)> = status["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["source"].as_str().unwrap().to_string(),
                n["notes"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by, [("agent".to_string(), 1), ("person".to_string(), 1)]);

    let dry = ws
        .cli(&[
            "forget",
            "notes/secret.md",
            "--reason",
            "a secret",
            "--dry-run",
        ])
        .success();
    let dry = String::from_utf8_lossy(&dry.get_output().stdout).into_owned();
    assert!(dry.contains("would forget note notes/secret.md"), "{dry}");
    assert!(
        ws.root().join("notes/secret.md").exists(),
        "a dry run changes nothing"
    );

    let out = ws
        .cli(&[
            "--json",
            "forget",
            "notes/secret.md",
            "--reason",
            "a secret",
            "--yes",
        ])
        .success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let tombstone = report["tombstone"].as_str().unwrap().to_string();
    assert!(tombstone.starts_with("notes/.forgotten/"), "{report}");
    assert!(!ws.root().join("notes/secret.md").exists());
    assert!(notes_in(&ws.search_json(&["vault"])).is_empty());
    let kept = std::fs::read_to_string(ws.root().join(&tombstone)).unwrap();
    assert!(
        kept.contains("path: notes/secret.md") && kept.contains("reason: a secret"),
        "{kept}"
    );

    // Back from a clone that still has it: on disk, never indexed.
    ws.write("notes/secret.md", "The staging password is in the vault.\n");
    ws.sync();
    assert!(notes_in(&ws.search_json(&["vault"])).is_empty());
    let status = ws.cli(&["status"]).success();
    let status = String::from_utf8_lossy(&status.get_output().stdout).into_owned();
    assert!(
        status.contains("notes       1 (1 by agent); 1 forgotten"),
        "{status}"
    );

    let unknown = ws
        .cli(&["forget", "notes/none.md", "--reason", "x", "--yes"])
        .failure();
    let err = String::from_utf8_lossy(&unknown.get_output().stderr).into_owned();
    assert!(err.contains("no note notes/none.md"), "{err}");
}

/// Issue 45, item 3: MEMORY.md (read at start by agents that never call
/// `context`) lists the newest current notes as links in its head, and not
/// one byte of the ledger changes; a corrected note leaves the list.
#[test]
fn memory_md_lists_current_notes_above_a_ledger_that_does_not_change() {
    let ws = Workspace::new();
    ws.add(&common::session(
        "default",
        "s1",
        common::now() - chrono::Duration::hours(2),
    ));
    ws.sync();
    let ledger = |text: &str| text[text.find("## Session Ledger").expect("a ledger")..].to_string();
    let before = ws.read("MEMORY.md");
    assert!(!before.contains("## Notes"), "{before}");

    ws.write(
        "notes/staging.md",
        "# Staging [DB] | prod\n\nThe staging database is read-only.\n",
    );
    ws.write(
        "notes/pnpm.md",
        "---\nproject: /code/shop\n---\nThis repo uses pnpm.\n",
    );
    ws.sync();
    let after = ws.read("MEMORY.md");
    assert!(after.contains("## Notes\n\n"), "{after}");
    assert!(
        after.contains("- [[notes/staging.md|Staging DB prod]]\n"),
        "{after}"
    );
    assert!(
        after.contains("- [[notes/pnpm.md|pnpm]] (shop)\n"),
        "{after}"
    );
    assert_eq!(
        ledger(&after),
        ledger(&before),
        "the ledger rows are byte for byte the same"
    );

    ws.write(
        "notes/pnpm-9.md",
        "---\nsupersedes: notes/pnpm.md\nproject: /code/shop\n---\nThis repo uses pnpm 9.\n",
    );
    ws.sync();
    let corrected = ws.read("MEMORY.md");
    assert!(!corrected.contains("[[notes/pnpm.md|"), "{corrected}");
    assert!(
        corrected.contains("[[notes/pnpm-9.md|pnpm-9]]"),
        "{corrected}"
    );
}

/// `search --include-superseded` shows the history a correction hides.
#[test]
fn a_corrected_note_is_found_again_with_include_superseded() {
    let ws = Workspace::new();
    ws.write("notes/pnpm.md", "This repo uses pnpm 8.\n");
    ws.write(
        "notes/pnpm-9.md",
        "---\nsupersedes: notes/pnpm.md\n---\nThis repo uses pnpm 9.\n",
    );
    ws.sync();
    assert_eq!(notes_in(&ws.search_json(&["pnpm"])), ["notes/pnpm-9.md"]);
    let mut all = notes_in(&ws.search_json(&["pnpm", "--include-superseded"]));
    all.sort();
    assert_eq!(all, ["notes/pnpm-9.md", "notes/pnpm.md"]);
}

/// Issue 68: a note that supersedes itself, or two that supersede each
/// other, hid themselves for good and blocked `memory_correct`. The loop is
/// reported and ignored: every note in it stays listed and searchable.
#[test]
fn a_supersession_loop_is_reported_and_hides_no_note() {
    let ws = Workspace::new();
    ws.write(
        "notes/self.md",
        "---\ntitle: Self\nsupersedes: notes/self.md\n---\nThe quokka lantern is lit at dusk.\n",
    );
    ws.write(
        "notes/a.md",
        "---\ntitle: A\nsupersedes: notes/b.md\n---\nThe quokka ferry leaves at noon.\n",
    );
    ws.write(
        "notes/b.md",
        "---\ntitle: B\nsupersedes: notes/a.md\n---\nThe quokka ferry leaves at one.\n",
    );
    ws.write("notes/old.md", "# Old\n\nThe quokka bridge is closed.\n");
    ws.write(
        "notes/new.md",
        "---\ntitle: New\nsupersedes: notes/old.md\n---\nThe quokka bridge is open again.\n",
    );
    ws.sync();
    let memory = std::fs::read_to_string(ws.path("MEMORY.md")).unwrap();
    for listed in ["notes/self.md", "notes/a.md", "notes/b.md", "notes/new.md"] {
        assert!(memory.contains(listed), "{listed} is hidden: {memory}");
    }
    assert!(
        !memory.contains("notes/old.md"),
        "a real correction still hides: {memory}"
    );
    let out = ws.cli(&["--json", "check"]).get_output().stdout.clone();
    let check = String::from_utf8_lossy(&out);
    assert_eq!(check.matches("note.supersedes-loop").count(), 3, "{check}");
    // Fixed, the warnings go.
    ws.write(
        "notes/self.md",
        "# Self\n\nThe quokka lantern is lit at dusk.\n",
    );
    ws.write("notes/b.md", "# B\n\nThe quokka ferry leaves at one.\n");
    ws.sync();
    let out = ws.cli(&["--json", "check"]).get_output().stdout.clone();
    assert!(!String::from_utf8_lossy(&out).contains("note.supersedes-loop"));
    let memory = std::fs::read_to_string(ws.path("MEMORY.md")).unwrap();
    assert!(
        !memory.contains("notes/b.md") && memory.contains("notes/a.md"),
        "{memory}"
    );
}
