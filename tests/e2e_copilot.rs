//! End to end with the real GitHub Copilot CLI (the pinned npm version),
//! offline, against the fake model server's OpenAI-compatible API on
//! 127.0.0.1 (`COPILOT_OFFLINE` with a provider of its own, no GitHub
//! account): `connect copilot-cli` wires its hooks, MCP server and
//! instructions file; a real `copilot -p` session whose model writes
//! hello.py with Copilot's `create` tool is captured by the sessionEnd hook,
//! final reply included; the next session starts with memsync's digest and
//! the instructions block, and its model's call of memsync's read-only
//! `memory_search` runs without a grant; the person's own hook still runs;
//! `doctor` passes, and `disconnect` gives `settings.json` back byte for
//! byte. The API key reaches no file memsync writes.

mod common;

use std::path::Path;
use std::process::Command;

use common::files_containing;
use common::harness::{FakeModel, first_summary, program};
use common::home::Home;

const KEY: &str = "sk-fake-copilot-e2e-0123456789abcdefghij";

/// The person's own settings: a hook of theirs that memsync must leave running.
const SETTINGS: &str = "{\n  \"hooks\": {\n    \"sessionEnd\": [\n      { \"type\": \"command\", \"bash\": \"touch \\\"$HOME/their-hook-ran\\\"\" }\n    ]\n  }\n}\n";

fn copilot_in(copilot: &Path, home: &Home, project: &Path, model: &FakeModel) -> Command {
    let mut cmd = Command::new(copilot);
    cmd.current_dir(project)
        .env("HOME", home.dir.path())
        .env("COPILOT_OFFLINE", "true")
        .env(
            "COPILOT_PROVIDER_BASE_URL",
            format!("{}/v1", model.base_url()),
        )
        .env("COPILOT_PROVIDER_API_KEY", KEY)
        .env("COPILOT_MODEL", "fake-model")
        .env_remove("GH_TOKEN")
        .env_remove("GITHUB_TOKEN")
        .env_remove("COPILOT_GITHUB_TOKEN")
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG");
    cmd
}

fn run(mut cmd: Command) {
    let out = cmd.output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "copilot: {said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_real_copilot_cli_session_is_captured_by_its_hooks_and_its_mcp_and_instructions_reach_the_next()
{
    let Some(copilot) = program("MEMSYNC_E2E_COPILOT") else {
        return;
    };
    let model = FakeModel::start();
    let home = Home::new();
    std::fs::create_dir_all(home.path(".copilot")).unwrap();
    home.write(".copilot/settings.json", SETTINGS);
    // The project sits in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "copilot-cli"]);
    assert_eq!(code, 0, "{report}");
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();

    // Writing a file needs the person's approval, which `-p` cannot ask for.
    let mut first = copilot_in(&copilot, &home, &project, &model);
    first.args([
        "-p",
        "Add a hello function to hello.py",
        "--allow-all-tools",
    ]);
    run(first);
    assert_eq!(
        std::fs::read_to_string(project.join("hello.py")).unwrap(),
        "def hello():\n    return \"hello\"\n",
        "the model's create call wrote the file"
    );
    // The final reply is written after the sessionEnd hook has run.
    let memory = home.wait_for_ledger("outcome: Done");
    assert!(
        memory.contains("proj: Add a hello function to hello.py; changed hello.py; outcome: Done"),
        "{memory}"
    );
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"copilot-cli\""), "{summary}");
    assert!(
        home.path("their-hook-ran").exists(),
        "the person's own sessionEnd hook did not run"
    );

    // The next session, without --allow-all-tools: the digest, the
    // instructions block and a memory_search that runs without asking.
    let mut next = copilot_in(&copilot, &home, &project, &model);
    next.args(["-p", "Search your memory for hello"]);
    run(next);
    let requests = model.requests();
    for (needle, what) in [
        (
            "records of earlier agent sessions",
            "the sessionStart digest",
        ),
        (
            "Memory of earlier sessions (memsync)",
            "copilot-instructions.md's block",
        ),
        ("memsync-memory_search", "memsync's MCP tools"),
        (
            r#"\"sentence\":\"proj: Add a hello function"#,
            "memory_search's answer",
        ),
    ] {
        assert!(requests.contains(needle), "{what} did not reach the model");
    }

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "copilot-cli"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".copilot/settings.json"), SETTINGS);
    assert!(!home.path(".copilot/mcp-config.json").exists());
    assert!(!home.path(".copilot/copilot-instructions.md").exists());
    assert!(
        files_containing(&home.path("ws"), KEY).is_empty(),
        "the API key leaked"
    );
}
