//! End to end with the real Codex (the pinned npm version) against the fake
//! model server on 127.0.0.1: `connect codex` wires it, a real `codex exec`
//! session (which starts memsync's MCP server) is harvested into the
//! workspace, `codex exec resume --last` is harvested as its continuation,
//! the model of a `codex exec` run loads memory_search through tool_search and
//! calls it without approval (connect approved it), `doctor` passes while connected, and `disconnect` gives
//! `config.toml` and `AGENTS.md` back byte for byte (issue 27's done-when).
//! The provider's token in the user's 0600 `config.toml` reaches no file
//! memsync writes.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::files_containing;
use common::harness::{FakeModel, first_summary, program};
use common::home::Home;

const AGENTS_MD: &str = "# Global instructions\n\nAlways write tests first.\n";

use common::codex::{TOKEN, codex_in, config_toml, tool_outputs};

#[test]
fn a_real_codex_session_is_harvested_and_disconnect_gives_every_file_back() {
    let Some(codex) = program("MEMSYNC_E2E_CODEX") else {
        return;
    };
    let model = FakeModel::start();
    let home = Home::new();
    let config = config_toml(model.port);
    home.write(".codex/config.toml", &config);
    std::fs::set_permissions(
        home.path(".codex/config.toml"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    home.write(".codex/AGENTS.md", AGENTS_MD);
    // The project sits in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    // The user's machine config harvests a session as soon as it ends;
    // connect must leave it as it is.
    let machine = "harvest:\n  idle_minutes: 0\n";
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(".config/memsync/config.yaml", machine);
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert!(
        home.read(".codex/config.toml")
            .contains("[mcp_servers.memsync]")
    );

    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let out = codex_in(&codex, &home, &project)
        // workspace-write: the model's apply_patch may write in the project.
        .args([
            "exec",
            "--skip-git-repo-check",
            "--sandbox",
            "workspace-write",
            "Add a hello function to hello.py",
        ])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (code, report) = home.run(&["harvest", "--harness", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert!(
        home.read("ws/MEMORY.md").contains("hello function"),
        "{report}\n{}",
        home.read("ws/MEMORY.md")
    );
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"codex\""), "{summary}");
    assert!(
        summary.contains("## Request\n\nAdd a hello function"),
        "{summary}"
    );
    // The model's apply_patch call really wrote the file, and the ledger says so.
    assert_eq!(
        std::fs::read_to_string(project.join("hello.py")).unwrap(),
        "def hello():\n    return \"hello\"\n"
    );
    assert!(summary.contains("## Files\n\n- `hello.py`"), "{summary}");

    // `codex exec resume --last` appends to the same rollout: harvest adds
    // the new turns as a continuation of the same session.
    let resumed = codex_in(&codex, &home, &project)
        .args([
            "exec",
            "--skip-git-repo-check",
            "resume",
            "--last",
            "Now add a docstring to the hello function",
        ])
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let (code, report) = home.run(&["harvest", "--harness", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["continued"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    assert_eq!(
        report["captured"].as_array().map(Vec::len),
        Some(0),
        "{report}"
    );
    let found = home.cmd().args(["search", "docstring"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&found.stdout).contains("1. "),
        "the resumed turn is not found"
    );

    // In `codex exec` (approval policy never), the model calls memory_search:
    // connect approved the read-only tools, and the hits reach its next request.
    let searched = codex_in(&codex, &home, &project)
        .args([
            "exec",
            "--skip-git-repo-check",
            "Search your memory for when did we add the hello function?",
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
            .any(|o| o.contains("hits") && o.contains("hello function")),
        "memory_search's hits never reached the model: {outputs:?}"
    );

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor while connected: {doctor}");

    let (code, report) = home.run(&["disconnect", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".codex/config.toml"), config);
    assert_eq!(home.read(".codex/AGENTS.md"), AGENTS_MD);
    assert_eq!(home.read(".config/memsync/config.yaml"), machine);
    let mode = std::fs::metadata(home.path(".codex/config.toml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    for dir in ["ws", ".local/state"] {
        let leaked = files_containing(&home.path(dir), TOKEN);
        assert!(leaked.is_empty(), "the token reached {leaked:?}");
    }
}

/// Issue 65: a `codex exec` session reached memory only after 30 idle
/// minutes. Its rollout ends with the turn's end and no process holds it
/// once Codex exits, so the daemon (harvest every 20 s, idle_minutes at its
/// default) has it in MEMORY.md within a minute, and a one-shot `harvest`
/// right after the run takes it at once.
#[test]
fn a_codex_exec_session_is_in_memory_within_a_minute_of_its_end() {
    let Some(codex) = program("MEMSYNC_E2E_CODEX") else {
        return;
    };
    let model = FakeModel::start();
    let home = Home::new();
    home.write(".codex/config.toml", &config_toml(model.port));
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    let run = |ask: &str| {
        let out = codex_in(&codex, &home, &project)
            .args(["exec", "--skip-git-repo-check", ask])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    run("Explain the first step of the release checklist");
    let (code, report) = home.run(&["harvest", "--harness", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map_or(0, Vec::len),
        1,
        "{report}"
    );
    assert_eq!(report["live"], 0, "{report}");

    let _watch = common::home::Watch::start(&home, &[]);
    run("Explain the second step of the release checklist");
    let ended = std::time::Instant::now();
    let deadline = ended + std::time::Duration::from_secs(60);
    while !home.read("ws/MEMORY.md").contains("second step") {
        assert!(
            std::time::Instant::now() < deadline,
            "not in MEMORY.md within 60 s of its end"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    eprintln!("in MEMORY.md {:?} after the session ended", ended.elapsed());
}
