//! End to end with the real Claude Code and the real Codex (the pinned npm
//! versions) against the fake model server on 127.0.0.1, both connected to
//! one workspace (issue 45): the model of a `claude -p` run saves a fact with
//! memsync's MCP tool `memory_store`, which only works once the person
//! approves it (connect grants the read-only tools alone), and the model of
//! a `codex exec` run finds that note through memsync's `memory_search`.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::claude::{claude_in, connected_home};
use common::codex::{codex_in, config_toml, tool_outputs};
use common::harness::{FakeModel, program};

const FACT: &str = "the staging database is read-only; deploy through the release branch";

/// The text of every tool result the model was sent (Anthropic).
fn tool_results(requests: &str) -> Vec<String> {
    let mut out: Vec<String> = requests
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["content"].as_array().cloned())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .collect();
    out.dedup();
    out
}

/// The notes in the workspace that hold `text`.
fn notes_holding(ws: &std::path::Path, text: &str) -> Vec<String> {
    walkdir::WalkDir::new(ws.join("notes"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .filter(|t| t.contains(text))
        .collect()
}

#[test]
fn a_note_claude_code_stores_through_mcp_once_approved_is_found_by_codex() {
    let (Some(claude), Some(codex)) = (program("MEMSYNC_E2E_CLAUDE"), program("MEMSYNC_E2E_CODEX"))
    else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    home.write(".codex/config.toml", &config_toml(model.port));
    std::fs::set_permissions(
        home.path(".codex/config.toml"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    let project = home.path("proj");
    let ask = format!("Save this in memory: {FACT}");

    // Not approved: `claude -p` refuses the tool on its own (no one to ask).
    let refused = claude_in(&claude, &home, &model, &project)
        .args(["-p", &ask])
        .output()
        .unwrap();
    assert!(
        refused.status.success(),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        notes_holding(&home.path("ws"), FACT).is_empty(),
        "written without approval"
    );
    // The model did call it; Claude Code said no.
    let denied = tool_results(&model.requests());
    assert!(
        denied
            .iter()
            .any(|r| r.contains("permissions to use mcp__memsync__memory_store")),
        "{denied:?}"
    );

    // The person approves memory_store for this run.
    let approved = claude_in(&claude, &home, &model, &project)
        .args(["-p", &ask, "--allowedTools", "mcp__memsync__memory_store"])
        .output()
        .unwrap();
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    let notes = notes_holding(&home.path("ws"), FACT);
    assert_eq!(
        notes.len(),
        1,
        "one note, written by the agent; the model saw: {:?}",
        tool_results(&model.requests())
    );
    assert!(notes[0].contains("author: \"agent\""), "{}", notes[0]);

    // Codex, in another session, finds it through memsync's MCP server.
    let searched = codex_in(&codex, &home, &project)
        .args([
            "exec",
            "--skip-git-repo-check",
            "Search your memory for staging database read-only",
        ])
        .output()
        .unwrap();
    assert!(
        searched.status.success(),
        "{}",
        String::from_utf8_lossy(&searched.stderr)
    );
    let outputs = tool_outputs(&model.requests());
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("notes/") && o.contains("read-only")),
        "the note never reached Codex's model: {outputs:?}"
    );
}

/// Issue 65: Codex asks before a tool only when its annotations say
/// destructive or open-world, so `codex exec "save this …"` wrote a note
/// unasked. Connected, the write tools ask the person (and `codex exec`,
/// with no one to ask, refuses them); granted with `--memory-writes`, the
/// note is written; `doctor` says which.
#[test]
fn codex_writes_a_note_only_once_the_person_granted_memory_writes() {
    let Some(codex) = program("MEMSYNC_E2E_CODEX") else {
        return;
    };
    let home = common::home::Home::new();
    let model = FakeModel::start();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    home.write(".codex/config.toml", &config_toml(model.port));
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    let (_, doctor) = home.run(&["doctor"]);
    assert!(
        doctor
            .to_string()
            .contains("memory_store and memory_correct ask you first"),
        "{doctor}"
    );
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let ask = format!("Save this in memory: {FACT}");
    let run = |home: &common::home::Home| {
        codex_in(&codex, home, &project)
            .args(["exec", "--skip-git-repo-check", &ask])
            .output()
            .unwrap()
    };

    run(&home);
    assert!(
        notes_holding(&home.path("ws"), FACT).is_empty(),
        "codex exec wrote a note nobody approved"
    );
    // The model did call it; Codex refused it for want of an approval.
    let outputs = tool_outputs(&model.requests());
    assert!(
        outputs.iter().any(|o| o.contains("approval")),
        "the model's memory_store call was not refused for approval: {outputs:?}"
    );

    let (code, report) = home.run(&["connect", "codex", "--memory-writes"]);
    assert_eq!(code, 0, "{report}");
    run(&home);
    let notes = notes_holding(&home.path("ws"), FACT);
    assert_eq!(notes.len(), 1, "granted, the note is written once");
    let (_, doctor) = home.run(&["doctor"]);
    assert!(doctor.to_string().contains("granted by you"), "{doctor}");
}
