//! End to end with the real pi (`@mariozechner/pi-coding-agent`, the pinned
//! npm version) against the fake model server on 127.0.0.1 (issue 65):
//! `connect pi` gives it a block in its global AGENTS.md naming MEMORY.md
//! and turns harvest on; a real `pi -p` session is harvested into the
//! ledger; the next session's model is sent the block (pi read it); `doctor`
//! passes; `disconnect` gives AGENTS.md back byte for byte.

mod common;

use common::harness::{FakeModel, program};
use common::home::Home;

const AGENTS_MD: &str = "# My pi rules\n\nAnswer in one paragraph.\n";

fn pi_in(pi: &std::path::Path, home: &Home, project: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(pi);
    cmd.current_dir(project)
        .stdin(std::process::Stdio::null())
        .env("HOME", home.dir.path())
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["--provider", "fake", "--model", "fake-model"]);
    cmd
}

#[test]
fn a_real_pi_session_is_harvested_pi_reads_memory_md_and_disconnect_gives_agents_md_back() {
    let Some(pi) = program("MEMSYNC_E2E_PI") else {
        return;
    };
    let model = FakeModel::start();
    let home = Home::new();
    std::fs::create_dir_all(home.path(".pi/agent")).unwrap();
    home.write(
        ".pi/agent/models.json",
        &serde_json::json!({"providers": {"fake": {
            "baseUrl": format!("{}/v1", model.base_url()), "api": "openai-completions",
            "apiKey": "sk-fake", "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
            "models": [{"id": "fake-model"}]}}})
        .to_string(),
    );
    home.write(".pi/agent/AGENTS.md", AGENTS_MD);
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "pi"]);
    assert_eq!(code, 0, "{report}");
    let agents = home.read(".pi/agent/AGENTS.md");
    assert!(
        agents.starts_with(AGENTS_MD) && agents.contains("MEMORY.md"),
        "{agents}"
    );
    let (_, config) = home.run(&["config"]);
    assert!(
        config
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["key"] == "harvest.enabled" && k["value"] == "true"),
        "connect pi turns harvest on: {config}"
    );

    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let out = pi_in(&pi, &home, &project)
        .args(["-p", "Explain the retry logic in the wombat client"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, report) = home.run(&["harvest", "--harness", "pi", "--no-wait"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map_or(0, Vec::len),
        1,
        "{report}"
    );
    let memory = home.read("ws/MEMORY.md");
    assert!(
        memory.contains("retry logic in the wombat client"),
        "{memory}"
    );

    // The next session's system prompt carries the block: pi read it.
    let memory_md = home.path("ws/MEMORY.md").display().to_string();
    let out = pi_in(&pi, &home, &project)
        .args(["-p", "What did we do last time?"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        model.requests().contains(&memory_md),
        "pi's model was never told where MEMORY.md is"
    );

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["disconnect", "pi"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".pi/agent/AGENTS.md"), AGENTS_MD);
}
