//! End to end with the real qwen-code, opencode and Cline (the pinned npm versions)
//! against the fake model server's OpenAI-compatible API on 127.0.0.1: a
//! real non-interactive session whose model writes hello.py with the
//! harness's own tool, then `memsync harvest` from the harness's folder
//! (opencode's: its SQLite database, read-only), and the ledger names the
//! request, the file and the outcome. qwen-code is connected first: `qwen -p`
//! fires no SessionEnd, so harvest captures it, and its SessionStart hook,
//! MCP server and QWEN.md reach the next session's model; `disconnect` gives
//! its settings back byte for byte. opencode is connected too: its MCP
//! server and AGENTS.md block reach the model, and `disconnect` gives
//! `opencode.json` back byte for byte. Cline is connected too (its hooks are
//! not used): its MCP tools and rules file reach the model, its session is
//! harvested from its folder, and `disconnect` takes both out. The API key
//! reaches no file memsync writes.

mod common;

use std::path::Path;
use std::process::Command;

use common::files_containing;
use common::harness::{FakeModel, first_summary, program};
use common::home::Home;

const KEY: &str = "sk-fake-e2e-0123456789abcdefghijklmnop";

/// A home whose workspace keeps temp-dir projects in its ledger, and whose
/// machine config harvests a session as soon as it ends.
fn home() -> Home {
    let home = Home::new();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(
        ".config/memsync/config.yaml",
        "harvest:\n  idle_minutes: 0\n",
    );
    home.cmd().arg("init").assert().success();
    home
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "{what}: {said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn harvested(home: &Home, harness: &str, project: &Path) -> String {
    assert_eq!(
        std::fs::read_to_string(project.join("hello.py")).unwrap(),
        "def hello():\n    return \"hello\"\n",
        "the model's write call wrote the file"
    );
    let (code, report) = home.run(&["harvest", "--harness", harness]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert!(
        files_containing(&home.path("ws"), KEY).is_empty(),
        "the API key leaked"
    );
    home.read("ws/MEMORY.md")
}

fn qwen_in(qwen: &Path, home: &Home, project: &Path, model: &FakeModel) -> Command {
    let mut cmd = Command::new(qwen);
    cmd.current_dir(project)
        .env("HOME", home.dir.path())
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", format!("{}/v1", model.base_url()))
        .env("OPENAI_MODEL", "fake-model")
        .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG");
    cmd
}

/// The person's settings as qwen-code leaves them (it adds `$version` to a file without it).
const QWEN_SETTINGS: &str =
    "{\n  \"security\": { \"auth\": { \"selectedType\": \"openai\" } },\n  \"$version\": 4\n}\n";

#[test]
fn a_real_qwen_code_session_is_harvested_and_its_hooks_mcp_and_qwen_md_reach_the_next() {
    let Some(qwen) = program("MEMSYNC_E2E_QWEN") else {
        return;
    };
    let model = FakeModel::start();
    let home = home();
    std::fs::create_dir_all(home.path(".qwen")).unwrap();
    home.write(".qwen/settings.json", QWEN_SETTINGS);
    let (code, report) = home.run(&["connect", "qwen-code"]);
    assert_eq!(code, 0, "{report}");
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let mut cmd = qwen_in(&qwen, &home, &project, &model);
    cmd.args(["--yolo", "-p", "Add a hello function to hello.py"]);
    run(cmd, "qwen");
    let memory = harvested(&home, "qwen-code", &project);
    assert!(
        memory.contains("proj: Add a hello function to hello.py; changed hello.py; outcome: Done"),
        "{memory}"
    );
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"qwen-code\""), "{summary}");

    // The next session: its SessionStart hook brings the first, QWEN.md
    // names MEMORY.md, and memsync's MCP tools are offered to the model.
    let next = qwen_in(&qwen, &home, &project, &model)
        .args(["-p", "What did we change last time?"])
        .output()
        .unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    let requests = model.requests();
    for (needle, what) in [
        ("changed hello.py", "the start-up digest"),
        ("Memory of earlier sessions (memsync)", "QWEN.md's block"),
        ("mcp__memsync__memory_search", "memsync's MCP tools"),
    ] {
        assert!(requests.contains(needle), "{what} did not reach the model");
    }
    // Issue 65: without --yolo, a `qwen -p` run declined every MCP call; the
    // read-only tools are allowed now, and their answer reaches the model.
    let searched = qwen_in(&qwen, &home, &project, &model)
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
        requests.contains("{\\\"hits\\\":[{") && requests.contains("hello.py"),
        "memory_search's answer never reached qwen-code's model"
    );
    let (code, report) = home.run(&["harvest", "--harness", "qwen-code"]);
    assert_eq!(code, 0, "{report}");
    let memory = home.read("ws/MEMORY.md");
    assert!(
        memory.contains("proj: What did we change last time?"),
        "{memory}"
    );
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "qwen-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".qwen/settings.json"), QWEN_SETTINGS);
    assert!(
        files_containing(&home.path("ws"), KEY).is_empty(),
        "the API key leaked"
    );
}

fn opencode_in(opencode: &Path, home: &Home, project: &Path) -> Command {
    let mut cmd = Command::new(opencode);
    // opencode takes its working directory from $PWD, which a child inherits.
    cmd.current_dir(project)
        .env("PWD", project)
        .env("HOME", home.dir.path())
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env("XDG_DATA_HOME", home.path(".local/share"))
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG");
    cmd
}

#[test]
fn a_real_opencode_session_is_harvested_read_only_and_its_mcp_and_agents_md_reach_the_model() {
    let Some(opencode) = program("MEMSYNC_E2E_OPENCODE") else {
        return;
    };
    let model = FakeModel::start();
    let home = home();
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(home.path(".config/opencode")).unwrap();
    // As opencode leaves it: it adds `$schema` to a config without one.
    let config = serde_json::json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": format!("{}/v1", model.base_url()), "apiKey": KEY},
            "models": {"fake-model": {"name": "fake-model"}},
        }},
        "model": "fake/fake-model",
        "autoupdate": false,
        "share": "disabled",
    });
    let config = serde_json::to_string_pretty(&config).unwrap() + "\n";
    home.write(".config/opencode/opencode.json", &config);
    let (code, report) = home.run(&["connect", "opencode"]);
    assert_eq!(code, 0, "{report}");
    let mut cmd = opencode_in(&opencode, &home, &project);
    cmd.args(["run", "Add a hello function to hello.py"]);
    run(cmd, "opencode");
    let requests = model.requests();
    for (needle, what) in [
        ("memsync_memory_search", "memsync's MCP tools"),
        ("Memory of earlier sessions (memsync)", "AGENTS.md's block"),
    ] {
        assert!(requests.contains(needle), "{what} did not reach the model");
    }
    let db = home.path(".local/share/opencode/opencode.db");
    let before = std::fs::read(&db).unwrap();
    let memory = harvested(&home, "opencode", &project);
    assert!(
        memory.contains("proj: Add a hello function to hello.py; changed hello.py; outcome: Done"),
        "{memory}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "opencode.db was written"
    );
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "opencode"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".config/opencode/opencode.json"), config);
    assert!(!home.path(".config/opencode/AGENTS.md").exists());
}

fn cline_in(cline: &Path, home: &Home, project: &Path) -> Command {
    let mut cmd = Command::new(cline);
    cmd.current_dir(project)
        .env("HOME", home.dir.path())
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG");
    cmd
}

/// Cline 3.0 starts a hub daemon beside a run (`cline --cline-hub-daemon
/// --cwd <project>`) that outlives it: stopped here, so no test leaves one.
fn stop_cline_hub(project: &Path) {
    let project = project.to_string_lossy();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains("--cline-hub-daemon") && cmdline.contains(&*project) {
            let _ = Command::new("kill").arg(entry.file_name()).status();
        }
    }
}

#[test]
fn a_real_cline_session_is_harvested_with_its_request_its_file_and_its_outcome() {
    let Some(cline) = program("MEMSYNC_E2E_CLINE") else {
        return;
    };
    let model = FakeModel::start();
    let home = home();
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    // Cline's own command for a provider: it keeps the key in providers.json.
    let mut auth = cline_in(&cline, &home, &project);
    auth.args([
        "auth",
        "-p",
        "openai-compatible",
        "-k",
        KEY,
        "-m",
        "fake-model",
        "-b",
    ])
    .arg(format!("{}/v1", model.base_url()));
    let out = auth.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, report) = home.run(&["connect", "cline"]);
    assert_eq!(code, 0, "{report}");
    let mut cmd = cline_in(&cline, &home, &project);
    cmd.arg("Add a hello function to hello.py");
    let ran = cmd.output();
    stop_cline_hub(&project);
    let out = ran.unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "cline: {said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let memory = harvested(&home, "cline", &project);
    assert!(
        memory.contains("proj: Add a hello function to hello.py; changed hello.py; outcome: Done"),
        "{memory}"
    );
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"cline\""), "{summary}");
    let requests = model.requests();
    for (needle, what) in [
        ("memsync__memory_search", "memsync's MCP tools"),
        (
            "Memory of earlier sessions (memsync)",
            "the rules file's block",
        ),
    ] {
        assert!(requests.contains(needle), "{what} did not reach the model");
    }
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "cline"]);
    assert_eq!(code, 0, "{report}");
    assert!(
        !home
            .path(".cline/data/settings/cline_mcp_settings.json")
            .exists()
    );
    assert!(!home.path("Documents/Cline/Rules/memsync.md").exists());
}
