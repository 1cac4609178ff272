//! End to end with the real Claude Code (the pinned npm version) against a
//! fake model server on 127.0.0.1: `connect` wires it, a real `claude -p`
//! session ends and its SessionEnd hook captures it into the workspace,
//! `doctor` passes while connected, and `disconnect` gives every file back
//! (issue 27's done-when). The API key in `~/.claude.json` reaches no file
//! memsync writes.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::files_containing;
use common::harness::{FakeModel, first_summary, program};
use common::home::Home;
use serde_json::Value;

const KEY: &str = "sk-ant-api03-FAKEKEYFORE2ETESTS0123456789";
const SETTINGS: &str =
    "{\n  \"model\": \"opus\",\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] }\n}\n";

/// Claude Code run in `project` with the temporary home and the fake model.
fn claude_in(
    claude: &std::path::Path,
    home: &Home,
    model: &FakeModel,
    project: &std::path::Path,
) -> std::process::Command {
    let mut cmd = std::process::Command::new(claude);
    cmd.current_dir(project)
        .env("HOME", home.dir.path())
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env("XDG_STATE_HOME", home.path(".local/state"))
        .env("ANTHROPIC_BASE_URL", model.base_url())
        .env("ANTHROPIC_API_KEY", KEY)
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env_remove("CLAUDE_CONFIG_DIR");
    cmd
}

#[test]
fn a_real_claude_code_session_is_captured_and_disconnect_gives_every_file_back() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let home = Home::new();
    home.write(
        ".claude.json",
        &format!("{{\n  \"primaryApiKey\": \"{KEY}\",\n  \"hasCompletedOnboarding\": true\n}}\n"),
    );
    std::fs::set_permissions(
        home.path(".claude.json"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    home.write(".claude/settings.json", SETTINGS);
    // The project sits in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "claude-code"]);
    assert_eq!(code, 0, "{report}");

    let model = FakeModel::start();
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let out = claude_in(&claude, &home, &model, &project)
        .args(["-p", "Add a hello function to hello.py"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "{said}"
    );

    // The SessionEnd hook hands the session to memsync; its job finishes on its own.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !home.read("ws/MEMORY.md").contains("hello function") {
        assert!(
            Instant::now() < deadline,
            "the session never reached MEMORY.md"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"claude-code\""), "{summary}");
    assert!(
        summary.contains("## Request\n\nAdd a hello function"),
        "{summary}"
    );

    // The next session in the project starts with the project's digest:
    // SessionStart's additionalContext reaches the model.
    let next = claude_in(&claude, &home, &model, &project)
        .args(["-p", "What did we do last time?"])
        .output()
        .unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    let asked = model.requests();
    let digest_line = asked
        .lines()
        .find(|l| l.contains("What did we do last time?"))
        .unwrap_or_default();
    assert!(
        digest_line.contains("records of earlier agent sessions")
            && digest_line.contains("Add a hello function"),
        "the digest never reached the model"
    );

    // `claude mcp list` fires SessionEnd for a transcript it never writes:
    // a skipped job, never a failure that turns doctor red.
    let listed = claude_in(&claude, &home, &model, &project)
        .args(["mcp", "list"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(listing.contains("memsync"), "{listing}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, status) = home.run(&["status"]);
        let jobs = &status["jobs"];
        let settled = jobs["pending"] == 0 && jobs["running"] == 0;
        if settled && jobs["skipped"].as_i64() >= Some(1) {
            assert_eq!(jobs["failed"], 0, "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "jobs never settled: {status}");
        std::thread::sleep(Duration::from_millis(200));
    }

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor while connected: {doctor}");

    let claude_json = home.read(".claude.json");
    let (code, report) = home.run(&["disconnect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".claude/settings.json"), SETTINGS);
    assert!(!home.path(".claude/CLAUDE.md").exists());
    // Claude Code rewrote .claude.json while it ran: what it wrote stays, memsync's entry goes.
    let mut expected: Value = serde_json::from_str(&claude_json).unwrap();
    let servers = expected["mcpServers"].as_object_mut().unwrap();
    servers.remove("memsync");
    if servers.is_empty() {
        expected.as_object_mut().unwrap().remove("mcpServers");
    }
    let after: Value = serde_json::from_str(&home.read(".claude.json")).unwrap();
    assert_eq!(after, expected);
    assert_eq!(after["primaryApiKey"], KEY);
    let mode = std::fs::metadata(home.path(".claude.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    for dir in ["ws", ".local/state"] {
        let leaked = files_containing(&home.path(dir), KEY);
        assert!(leaked.is_empty(), "the key reached {leaked:?}");
    }
}
