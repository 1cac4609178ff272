//! End to end with the real OpenClaw (the pinned npm version, on Node 24)
//! against the fake model server's OpenAI-compatible endpoint on 127.0.0.1:
//! `openclaw setup` with a custom provider, a real `openclaw agent --local`
//! turn (which OpenClaw 2026.9 keeps in its SQLite database, not in JSONL),
//! then `connect openclaw`, `harvest`, the ledger sentence, search, the
//! mirror into OpenClaw's workspace, a turn whose model finds memsync's
//! memory_search through OpenClaw's Tool Search and calls it, `doctor`, and
//! `disconnect`.

mod common;

use common::harness::{FakeModel, program};
use common::home::Home;

/// Runs the real `openclaw` in the temp home, with no key of the user's.
fn openclaw(home: &Home, openclaw: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(openclaw)
        .args(args)
        .current_dir(home.path("."))
        .stdin(std::process::Stdio::null())
        .env("HOME", home.dir.path())
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env("XDG_STATE_HOME", home.path(".local/state"))
        .env("DISABLE_TELEMETRY", "1")
        .env("OPENCLAW_DISABLE_UPDATE_CHECK", "1")
        .env_remove("OPENCLAW_STATE_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}

fn said(out: &std::process::Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A temp home where the real OpenClaw was set up against the fake model
/// and memsync connected to it (harvest at its defaults).
fn connected_home(bin: &std::path::Path, model: &FakeModel) -> Home {
    let home = Home::new();
    let base = format!("{}/v1", model.base_url());
    let setup = openclaw(
        &home,
        bin,
        &[
            "setup",
            "--non-interactive",
            "--accept-risk",
            "--mode",
            "local",
            "--auth-choice",
            "custom-api-key",
            "--custom-base-url",
            &base,
            "--custom-model-id",
            "fake-model",
            "--custom-api-key",
            "sk-fake",
            "--custom-compatibility",
            "openai",
            "--skip-health",
        ],
    );
    assert!(setup.status.success(), "{}", said(&setup));
    // The workspace is in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    home
}

#[test]
fn a_real_openclaw_turn_in_its_database_is_harvested_and_mirrored_into_its_workspace() {
    let Some(bin) = program("MEMSYNC_E2E_OPENCLAW") else {
        return;
    };
    let model = FakeModel::start();
    let home = connected_home(&bin, &model);

    let turn = openclaw(
        &home,
        &bin,
        &[
            "agent",
            "--local",
            "-m",
            "Add a hello function that greets the wombat team with its quarterly numbers",
        ],
    );
    assert!(
        turn.status.success() && said(&turn).contains("hello function"),
        "{}",
        said(&turn)
    );
    assert!(
        home.path(".openclaw/agents/main/agent/openclaw-agent.sqlite")
            .exists(),
        "OpenClaw keeps its sessions somewhere else now: {}",
        said(&turn)
    );

    // The model's `write` tool call really wrote the file in OpenClaw's workspace.
    assert_eq!(
        home.read(".openclaw/workspace/hello.py"),
        "def hello():\n    return \"hello\"\n"
    );

    let (code, report) = home.run(&["harvest", "--harness", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    let memory = home.read("ws/agents/main/MEMORY.md");
    let row = memory
        .lines()
        .find(|l| l.contains("quarterly numbers"))
        .unwrap_or_else(|| panic!("no ledger row names the request: {memory}"));
    assert!(row.contains("hello function"), "the outcome: {row}");
    assert!(row.contains("changed hello.py"), "the file it wrote: {row}");
    let found = home.cmd().args(["search", "hello.py"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&found.stdout).contains("quarterly"),
        "search misses a word only the model said"
    );

    // OpenClaw removes BOOTSTRAP.md when its first-run ritual is over; until
    // then the mirror waits. Then a sync delivers MEMORY.md into its workspace.
    let _ = std::fs::remove_file(home.path(".openclaw/workspace/BOOTSTRAP.md"));
    home.cmd().arg("sync").assert().success();
    let mirrored = home.read(".openclaw/workspace/MEMORY.md");
    assert!(mirrored.contains("quarterly numbers"), "{mirrored}");

    // connect gave OpenClaw the memsync MCP server: in a one-shot local turn
    // the model calls memory_search, and its hits reach the next request.
    let asked = openclaw(
        &home,
        &bin,
        &[
            "agent",
            "--local",
            "-m",
            "Search your memory for the wombat quarterly numbers",
        ],
    );
    assert!(asked.status.success(), "{}", said(&asked));
    let results: Vec<String> = model
        .requests()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.contains("hits") && r.contains("quarterly")),
        "memory_search's hits never reached the model: {results:?}"
    );

    // Issue 65: OpenClaw's agent runs MCP tools without asking, so its server
    // has no tool that writes a note until the person grants them.
    let fact = "the wombat numbers are due on the third of each month";
    let save = format!("Save this in memory: {fact}");
    let notes = |home: &Home| {
        walkdir::WalkDir::new(home.path("ws/notes"))
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(fact)))
            .count()
    };
    let unasked = openclaw(&home, &bin, &["agent", "--local", "-m", &save]);
    assert!(unasked.status.success(), "{}", said(&unasked));
    assert_eq!(notes(&home), 0, "OpenClaw wrote a note nobody granted");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor while connected: {doctor}");
    assert!(
        doctor.to_string().contains("left out of OpenClaw's server"),
        "{doctor}"
    );
    let (code, report) = home.run(&["connect", "openclaw", "--memory-writes"]);
    assert_eq!(code, 0, "{report}");
    let granted = openclaw(&home, &bin, &["agent", "--local", "-m", &save]);
    assert!(granted.status.success(), "{}", said(&granted));
    assert_eq!(notes(&home), 1, "granted, the note is written");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor while connected: {doctor}");
    assert!(doctor.to_string().contains("granted by you"), "{doctor}");

    let connected = |doctor: &serde_json::Value| {
        doctor["harnesses"]
            .as_array()
            .and_then(|all| all.iter().find(|h| h["harness"] == "openclaw"))
            .map(|h| h["connected"].clone())
    };
    assert_eq!(
        connected(&doctor),
        Some(serde_json::Value::Bool(true)),
        "{doctor}"
    );
    let (code, report) = home.run(&["disconnect", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    assert!(
        !home.read(".openclaw/openclaw.json").contains("memsync"),
        "disconnect takes the MCP server out"
    );
    let (_, doctor) = home.run(&["doctor"]);
    assert_eq!(
        connected(&doctor),
        Some(serde_json::Value::Bool(false)),
        "{doctor}"
    );
}

/// Issue 65: OpenClaw sessions reached memory only after 30 idle minutes.
/// OpenClaw ends each agent run with a `session.ended` runtime event, so the
/// daemon (harvest every 20 s, idle_minutes at its default) has the run in
/// MEMORY.md within a minute of its end.
#[test]
fn an_openclaw_run_is_in_memory_within_a_minute_of_its_end() {
    let Some(bin) = program("MEMSYNC_E2E_OPENCLAW") else {
        return;
    };
    let model = FakeModel::start();
    let home = connected_home(&bin, &model);
    let _watch = common::home::Watch::start(&home, &[]);
    let turn = openclaw(
        &home,
        &bin,
        &[
            "agent",
            "--local",
            "-m",
            "Explain the second step of the release checklist",
        ],
    );
    assert!(turn.status.success(), "{}", said(&turn));
    let ended = std::time::Instant::now();
    let deadline = ended + std::time::Duration::from_secs(60);
    while !home
        .read("ws/agents/main/MEMORY.md")
        .contains("second step")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "not in MEMORY.md within 60 s of its end"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    eprintln!("in MEMORY.md {:?} after the run ended", ended.elapsed());
}
