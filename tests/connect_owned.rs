//! What `connect` owns and what `doctor` says (issue 27, defects 6 to 8):
//! harvest and the OpenClaw mirror belong to the harnesses that need them
//! and never to the user's config file; the mirror waits for OpenClaw's
//! first run; doctor tells the truth about harvest, the demo, the recorded
//! workspace and OpenClaw's size limit.

mod common;

use common::home::Home;
use serde_json::Value;

/// The checks doctor made for `harness`.
fn checks(doctor: &Value, harness: &str) -> Vec<Value> {
    doctor["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == harness)
        .map(|h| h["checks"].as_array().unwrap().clone())
        .unwrap_or_default()
}

/// Doctor's harvest line for `harness`.
fn harvest_line(home: &Home, harness: &str) -> String {
    let (_, doctor) = home.run(&["doctor"]);
    checks(&doctor, harness)
        .iter()
        .map(|c| c["what"].as_str().unwrap().to_string())
        .find(|w| w.starts_with("harvest"))
        .unwrap_or_default()
}

const USER_CONFIG: &str = "# my machine settings\nharvest:\n  idle_minutes: 10\n";

#[test]
fn the_users_machine_config_is_never_rewritten_and_harvest_lasts_while_a_harness_needs_it() {
    let home = Home::new();
    home.openclaw_set_up();
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(".config/memsync/config.yaml", USER_CONFIG);
    assert!(harvest_line(&home, "codex").contains("not enabled"));

    for h in ["codex", "openclaw"] {
        let (code, report) = home.run(&["connect", h]);
        assert_eq!(code, 0, "{report}");
    }
    assert_eq!(home.read(".config/memsync/config.yaml"), USER_CONFIG);
    assert!(!harvest_line(&home, "codex").contains("not enabled"));

    // Edited between connect and disconnect: still the user's alone.
    let edited = format!("{USER_CONFIG}search:\n  limit: 5\n");
    home.write(".config/memsync/config.yaml", &edited);
    home.run(&["disconnect", "codex"]);
    assert!(
        !harvest_line(&home, "openclaw").contains("not enabled"),
        "OpenClaw still needs harvest"
    );
    home.run(&["disconnect", "openclaw"]);
    assert!(harvest_line(&home, "codex").contains("not enabled"));
    assert_eq!(home.read(".config/memsync/config.yaml"), edited);
    assert!(!home.path(".local/state/memsync/connect.json").exists());
}

#[test]
fn after_disconnect_no_command_brings_openclaws_memory_md_back() {
    let home = Home::new();
    home.openclaw_set_up();
    let (files, dirs) = (home.files(), home.dirs());
    home.run(&["connect", "openclaw"]);
    assert!(
        home.read(".openclaw/workspace/MEMORY.md")
            .contains("memsync:begin")
    );
    home.run(&["disconnect", "openclaw"]);
    for command in ["reindex", "sync"] {
        home.cmd().arg(command).assert().success();
        assert!(
            !home.path(".openclaw/workspace/MEMORY.md").exists(),
            "{command} re-created it"
        );
    }
    assert_eq!(home.files(), files);
    assert_eq!(home.dirs(), dirs);
}

#[test]
fn the_block_an_older_memsync_wrote_into_the_machine_config_goes_and_one_the_user_added_to_stays() {
    let old_block = "# memsync connect: begin (managed by `memsync connect`; `memsync disconnect` removes it)\nharvest:\n  enabled: true\n# memsync connect: end\n";
    let home = Home::new();
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(
        ".config/memsync/config.yaml",
        &format!("# mine\n{old_block}"),
    );
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".config/memsync/config.yaml"), "# mine\n");

    let home = Home::new();
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    let added = old_block.replace("  enabled: true\n", "  enabled: true\n  idle_minutes: 5\n");
    home.write(".config/memsync/config.yaml", &added);
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".config/memsync/config.yaml"), added);
    assert!(
        report["notes"].to_string().contains("keys you added"),
        "{report}"
    );
}

#[test]
fn the_mirror_waits_for_openclaws_first_run_and_disconnect_takes_out_what_it_made() {
    let home = Home::new();
    home.openclaw_set_up();
    home.write(
        ".openclaw/workspace/BOOTSTRAP.md",
        "# BOOTSTRAP.md - Hello, World\n",
    );
    let openclaw_dirs = || -> Vec<String> {
        home.dirs()
            .into_iter()
            .filter(|d| d.contains(".openclaw"))
            .collect()
    };
    let (files, dirs) = (home.files(), openclaw_dirs());
    let (code, report) = home.run(&["connect", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    assert!(
        report["notes"].to_string().contains("BOOTSTRAP.md"),
        "{report}"
    );
    assert_eq!(
        openclaw_dirs(),
        dirs,
        "no memory/ folder for OpenClaw to take as set up"
    );
    assert!(!home.path(".openclaw/workspace/MEMORY.md").exists());
    let (_, doctor) = home.run(&["doctor"]);
    assert!(
        checks(&doctor, "openclaw").iter().any(|c| c["what"]
            .as_str()
            .unwrap()
            .contains("first run is not over")),
        "{doctor}"
    );

    // OpenClaw's first run ends: the next sync writes the ledger there.
    std::fs::remove_file(home.path(".openclaw/workspace/BOOTSTRAP.md")).unwrap();
    home.cmd().arg("sync").assert().success();
    assert!(
        home.read(".openclaw/workspace/MEMORY.md")
            .contains("memsync:begin")
    );
    std::fs::create_dir_all(home.path(".openclaw/workspace/memory")).unwrap();

    home.run(&["disconnect", "openclaw"]);
    let mut expected = files;
    expected.remove(".openclaw/workspace/BOOTSTRAP.md");
    assert_eq!(home.files(), expected);
    assert_eq!(
        openclaw_dirs(),
        dirs,
        "the empty memory/ folder memsync could have made is gone"
    );
}

#[test]
fn doctor_with_no_workspace_named_checks_the_one_connect_wired() {
    let home = Home::new();
    home.run(&["connect", "claude-code"]);
    let out = home
        .cmd_nowhere()
        .args(["--json", "doctor"])
        .output()
        .unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(out.status.code(), Some(0), "{doctor}");
    let ws = std::fs::canonicalize(home.path("ws")).unwrap();
    assert_eq!(doctor["workspace"], ws.to_string_lossy().as_ref());
}

#[test]
fn doctor_never_suggests_wiring_a_harness_to_the_demo_or_to_another_workspace() {
    let home = Home::new();
    let demo = home.path("demo");
    common::memsync_bin()
        .arg("demo")
        .arg(&demo)
        .assert()
        .success();
    let run_in = |ws: &std::path::Path| {
        let out = home.cmd_in(ws).args(["--json", "doctor"]).output().unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let fixes: Vec<String> = checks(&run_in(&demo), "claude-code")
        .iter()
        .filter_map(|c| c["fix"].as_str().map(String::from))
        .collect();
    assert!(!fixes.is_empty());
    for fix in &fixes {
        assert!(
            fix.contains("demo workspace") && !fix.contains(&*demo.to_string_lossy()),
            "{fix}"
        );
    }

    // Connected to `ws`, checked from another workspace: no fix re-points it.
    home.run(&["connect", "claude-code"]);
    let claude = checks(&run_in(&demo), "claude-code");
    assert_eq!(claude.len(), 1, "{claude:?}");
    assert!(
        claude[0]["what"]
            .as_str()
            .unwrap()
            .contains("another workspace")
    );
    assert!(claude[0]["fix"].is_null());
}

#[test]
fn doctor_names_an_openclaw_session_database_it_cannot_read_as_broken() {
    let home = Home::new();
    home.openclaw_set_up();
    home.run(&["connect", "openclaw"]);
    let db = home.path(".openclaw/agents/main/agent");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::write(db.join("openclaw-agent.sqlite"), b"SQLite format 3\0").unwrap();
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 1, "{doctor}");
    let line = harvest_line(&home, "openclaw");
    assert!(
        line.contains("openclaw-agent.sqlite") && line.contains("not a database"),
        "{line}"
    );
}

#[test]
fn doctor_counts_the_sessions_of_openclaws_database_once_harvest_has_run() {
    let Some(sample) = common::harness_sample("openclaw-2026.9.6/openclaw-agent.sqlite") else {
        return;
    };
    let home = Home::new();
    home.openclaw_set_up();
    home.run(&["connect", "openclaw"]);
    let db = home.path(".openclaw/agents/main/agent");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::copy(sample, db.join("openclaw-agent.sqlite")).unwrap();
    home.run(&["harvest"]);
    let line = harvest_line(&home, "openclaw");
    assert!(line.contains("1 openclaw sessions"), "{line}");
}

#[test]
fn doctor_measures_openclaws_memory_md_against_openclaws_configured_limit() {
    let home = Home::new();
    home.openclaw_set_up();
    home.write(
        ".openclaw/openclaw.json",
        "{\n  // a small budget\n  \"agents\": { \"defaults\": { \"bootstrapMaxChars\": 100 } }\n}\n",
    );
    home.run(&["connect", "openclaw"]);
    let (_, doctor) = home.run(&["doctor"]);
    let size = checks(&doctor, "openclaw")
        .into_iter()
        .find(|c| c["what"].as_str().unwrap().contains("characters"))
        .unwrap_or_else(|| panic!("{doctor}"));
    assert_eq!(size["level"], "broken");
    assert!(
        size["what"]
            .as_str()
            .unwrap()
            .contains("first 100 (its agents.defaults.bootstrapMaxChars)"),
        "{size}"
    );
}

#[test]
fn a_broken_connect_record_stops_no_command_but_doctor_names_it() {
    let home = Home::new();
    std::fs::create_dir_all(home.path(".local/state/memsync")).unwrap();
    home.write(".local/state/memsync/connect.json", "{ not json");
    home.cmd().arg("sync").assert().success();
    let out = home.cmd().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("connect.json") && err.contains("left untouched"),
        "{err}"
    );
}

/// OpenClaw's first run ends after the session of the day was captured: the
/// next sync renders nothing new, and the mirror still gets today's log
/// (which OpenClaw reads at start-up) as well as the ledger.
#[test]
fn the_end_of_openclaws_first_run_brings_todays_daily_log_as_well_as_the_ledger() {
    let home = Home::new();
    home.openclaw_set_up();
    home.write(
        ".openclaw/workspace/BOOTSTRAP.md",
        "# BOOTSTRAP.md - Hello, World\n",
    );
    let now = "2026-11-20T12:00:00Z";
    let (code, report) = home.run(&["--now", now, "connect", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/harness/codex.jsonl");
    home.cmd()
        .args(["--now", now, "capture", "session-end", "--harness", "codex"])
        .args(["--agent", "main", "--transcript"])
        .arg(fixture)
        .assert()
        .success();
    let day = "memory/2026-11-20.md";
    let logged = home.read(&format!("ws/agents/main/{day}"));
    assert!(logged.contains("memsync:begin"), "{logged}");
    assert!(!home.path(&format!(".openclaw/workspace/{day}")).exists());

    std::fs::remove_file(home.path(".openclaw/workspace/BOOTSTRAP.md")).unwrap();
    home.cmd().args(["--now", now, "sync"]).assert().success();
    let mirrored = home.read(&format!(".openclaw/workspace/{day}"));
    assert!(mirrored.contains("memsync:begin"), "{mirrored}");
    assert!(
        home.read(".openclaw/workspace/MEMORY.md")
            .contains("memsync:begin")
    );
}
