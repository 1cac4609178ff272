//! End to end with the real Gemini CLI (the pinned npm version) against the
//! fake model server on 127.0.0.1 (its Gemini API): `connect gemini-cli`
//! wires its hooks and MCP server, a real `gemini -p` session whose model
//! writes hello.py with `write_file` is captured by the SessionEnd hook, the
//! next session starts with memsync's digest and the earlier session is not
//! taken for its request, `doctor` passes, and `disconnect` gives
//! `settings.json` back byte for byte. The API key reaches no file memsync
//! writes.

mod common;

use std::path::Path;

use common::files_containing;
use common::harness::{FakeModel, first_summary, program};
use common::home::Home;

const KEY: &str = "AIzaFakeKeyForTheE2eSuite0123456789abc";
const SETTINGS: &str =
    "{\n  \"security\": { \"auth\": { \"selectedType\": \"gemini-api-key\" } }\n}\n";

fn gemini_in(
    gemini: &Path,
    home: &Home,
    project: &Path,
    model: &FakeModel,
) -> std::process::Command {
    let mut cmd = std::process::Command::new(gemini);
    cmd.current_dir(project)
        .env("PWD", project)
        .env("HOME", home.dir.path())
        .env("GEMINI_API_KEY", KEY)
        .env("GOOGLE_GEMINI_BASE_URL", model.base_url())
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG")
        // No update check, no telemetry: nothing leaves 127.0.0.1.
        .env("GEMINI_CLI_NO_RELAUNCH", "true")
        .env("NO_BROWSER", "true");
    cmd
}

/// A home with Gemini CLI set up, a workspace connected to it, and the
/// project folder trusted (Gemini CLI runs hooks and MCP servers only in a
/// folder the person trusts).
fn connected_home() -> (Home, std::path::PathBuf) {
    let home = Home::new();
    std::fs::create_dir_all(home.path(".gemini")).unwrap();
    home.write(".gemini/settings.json", SETTINGS);
    // The project sits in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "gemini-cli"]);
    assert_eq!(code, 0, "{report}");
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    // Gemini CLI runs hooks and MCP servers only in a folder the person trusts.
    home.write(
        ".gemini/trustedFolders.json",
        &serde_json::json!({ project.to_string_lossy(): "TRUST_FOLDER" }).to_string(),
    );
    (home, project)
}

#[test]
fn a_real_gemini_cli_session_is_captured_by_its_hooks_and_disconnect_gives_settings_back() {
    let Some(gemini) = program("MEMSYNC_E2E_GEMINI") else {
        return;
    };
    let model = FakeModel::start();
    let (home, project) = connected_home();

    let out = gemini_in(&gemini, &home, &project, &model)
        .args(["--yolo", "-p", "Add a hello function to hello.py"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(project.join("hello.py")).unwrap(),
        "def hello():\n    return \"hello\"\n",
        "the model's write_file call wrote the file"
    );
    let memory = home.wait_for_ledger("outcome: Done");
    assert!(
        memory.contains("proj: Add a hello function to hello.py; changed hello.py"),
        "{memory}"
    );
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"gemini-cli\""), "{summary}");

    // The next session: the SessionStart digest names the first, and the
    // digest Gemini CLI writes into the turn is not the new request. Its
    // first prompt (BeforeAgent, the digest in `<hook_context>` before it)
    // is about the first session, so that session comes again with it.
    let next = gemini_in(&gemini, &home, &project, &model)
        .args(["-p", "What did we change in hello.py last time?"])
        .output()
        .unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    // "changed hello.py" is memsync's words for the first session, in no reply or request of it.
    let requests = model.requests();
    assert!(
        requests.contains("records of earlier agent sessions")
            && requests.contains("changed hello.py"),
        "the start-up digest did not reach the model"
    );
    assert!(
        requests
            .lines()
            .filter(|l| l.contains("What did we change in hello.py last time?"))
            .any(
                |l| l.contains("earlier sessions that may bear on this prompt")
                    && l.contains("Add a hello function")
            ),
        "the first prompt got no offer"
    );
    let memory = home.wait_for_ledger("proj: What did we change in hello.py last time?");
    assert!(
        memory.contains("proj: What did we change in hello.py last time?"),
        "{memory}"
    );
    assert!(!memory.contains("hook_context"), "{memory}");

    // Issue 65: a `gemini -p` run offered memsync's MCP tools only with
    // --yolo; memsync's policy allows the read-only ones, and only those.
    let before = model.requests().lines().count();
    let searched = gemini_in(&gemini, &home, &project, &model)
        .args(["-p", "Search your memory for hello function"])
        .output()
        .unwrap();
    assert!(
        searched.status.success(),
        "{}",
        String::from_utf8_lossy(&searched.stderr)
    );
    let requests = model.requests();
    assert!(
        requests.contains("functionResponse") && requests.contains("\\\"hits\\\""),
        "memory_search's answer never reached Gemini CLI's model"
    );
    let offered: Vec<String> = requests
        .lines()
        .skip(before)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|r| r["tools"].as_array().cloned().unwrap_or_default())
        .flat_map(|t| {
            t["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|f| f["name"].as_str().map(String::from))
        .filter(|n| n.contains("memsync"))
        .collect();
    assert!(
        offered.iter().any(|n| n.ends_with("memory_search")),
        "{offered:?}"
    );
    assert!(
        !offered
            .iter()
            .any(|n| n.ends_with("memory_store") || n.ends_with("memory_correct")),
        "a write tool was offered to a run with no one to ask: {offered:?}"
    );

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "gemini-cli"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".gemini/settings.json"), SETTINGS);
    assert!(!home.path(".gemini/policies/memsync.toml").exists());
    assert!(
        files_containing(&home.path("ws"), KEY).is_empty(),
        "the API key leaked"
    );
}

/// Issue 65: Gemini CLI 0.61 sends PreCompress (`trigger: auto`) before
/// every model call; each was a capture, and from the third on they failed.
/// A session with four tool calls is one session with its outcome, and no
/// hook job fails.
#[test]
fn a_gemini_cli_session_with_four_tool_calls_is_one_session_and_no_job_fails() {
    let Some(gemini) = program("MEMSYNC_E2E_GEMINI") else {
        return;
    };
    let model = FakeModel::start();
    let (home, project) = connected_home();
    let out = gemini_in(&gemini, &home, &project, &model)
        .args([
            "--yolo",
            "-p",
            "Write four files for the parts of the parser",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for n in 1..=4 {
        assert!(project.join(format!("part{n}.py")).is_file(), "part{n}.py");
    }
    let memory = home.wait_for_ledger("outcome: Done");
    assert!(memory.contains("Write four files"), "{memory}");
    let summaries = common::harness::artifacts(&home.path("ws"), "summary");
    assert_eq!(summaries.len(), 1, "{summaries:#?}");
    assert!(summaries[0].contains("part4.py"), "{}", summaries[0]);
    let (_, status) = home.run(&["status"]);
    assert_eq!(status["jobs"]["failed"], 0, "{status}");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
}
