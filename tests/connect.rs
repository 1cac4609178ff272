//! `connect`, `disconnect` and `doctor` against fake homes in temp dirs: the
//! merge into files people already have, idempotence, the exact undo, broken
//! files left alone, and a hook written by `connect` capturing a session.

mod common;

use std::path::Path;

use common::home::Home;
use serde_json::Value;

/// settings.json as a person keeps it: other hooks, unknown keys, their own layout.
const SETTINGS: &str = r#"{
    "model": "opus",
    "permissions": { "allow": ["Bash(git status)"] },
    "hooks": {
        "SessionEnd": [ { "hooks": [ { "type": "command", "command": "notify-send 'bye'" } ] } ],
        "Stop": [ { "matcher": "", "hooks": [ { "type": "command", "command": "say done" } ] } ]
    },
    "futureKey": { "nested": [1, 2, 3] }
}
"#;

const CONFIG_TOML: &str = r#"# My Codex setup.
model = "o3" # the fast one
approval_policy = "on-request"

# A server I use.
[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]
"#;

const AGENTS_MD: &str = "# House rules\n\nRun the tests before you say done.\n";

fn changes(report: &Value) -> usize {
    report["changes"].as_array().map_or(0, Vec::len)
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// Commands of every handler under `event`.
fn hooks(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(String::from))
        .collect()
}

#[test]
fn claude_code_connect_merges_into_settings_keeps_the_rest_and_a_second_run_changes_nothing() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    let (code, report) = home.run(&["connect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(changes(&report), 2, "{report}");

    let text = home.read(".claude/settings.json");
    // The person's own lines are still there, character for character (the
    // SessionEnd list, which memsync adds to, now has one group per line, and
    // the allow list gains the read-only MCP tools).
    for line in SETTINGS
        .lines()
        .filter(|l| !l.contains("\"SessionEnd\"") && !l.contains("\"permissions\""))
    {
        assert!(
            text.contains(line.trim_end_matches(',')),
            "lost {line:?} in\n{text}"
        );
    }
    let their_group = r#"{ "hooks": [ { "type": "command", "command": "notify-send 'bye'" } ] }"#;
    assert!(text.contains(their_group), "{text}");
    let settings = json_of(&text);
    assert_eq!(
        settings["permissions"]["allow"],
        serde_json::json!([
            "Bash(git status)",
            "mcp__memsync__memory_search",
            "mcp__memsync__memory_get",
            "mcp__memsync__memory_recent"
        ]),
        "the user's rule stays first; memsync's read-only tools are allowed"
    );
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["futureKey"]["nested"][2], 3);
    let ends = hooks(&settings, "SessionEnd");
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(ends[0].contains("notify-send"));
    assert!(ends[1].ends_with("capture --hook claude-code"), "{ends:?}");
    assert_eq!(hooks(&settings, "PostCompact").len(), 1);
    assert_eq!(hooks(&settings, "Stop"), ["say done"]);

    let claude_json = json_of(&home.read(".claude.json"));
    let server = &claude_json["mcpServers"]["memsync"];
    assert_eq!(server["args"][2], "mcp", "{claude_json}");
    assert!(Path::new(server["command"].as_str().unwrap()).is_file());
    assert!(
        !home.path(".claude/CLAUDE.md").exists(),
        "MEMORY.md is not imported by default"
    );
    let memory = std::fs::canonicalize(home.path("ws"))
        .unwrap()
        .join("MEMORY.md");
    assert!(memory.is_file(), "connect renders MEMORY.md");
    assert!(
        !home.path(".claude/settings.json.memsync-backup").exists(),
        "no copy of a harness file is kept"
    );

    let before = home.files();
    let (code, again) = home.run(&["connect", "claude-code"]);
    assert_eq!((code, changes(&again)), (0, 0), "{again}");
    assert_eq!(home.files(), before);
}

/// `--import-memory-md` keeps the old import; a later connect without it
/// takes the block out again, and the person's own lines stay.
#[test]
fn memory_md_is_imported_into_claude_md_only_when_asked() {
    let home = Home::new();
    home.write(".claude/CLAUDE.md", "Always answer in French.\n");
    let (code, report) = home.run(&["connect", "claude-code", "--import-memory-md"]);
    assert_eq!(code, 0, "{report}");
    let memory = std::fs::canonicalize(home.path("ws"))
        .unwrap()
        .join("MEMORY.md");
    let md = home.read(".claude/CLAUDE.md");
    assert!(md.contains(&format!("@{}\n", memory.display())), "{md}");
    assert!(md.contains("Always answer in French."), "{md}");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let (code, report) = home.run(&["connect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".claude/CLAUDE.md"), "Always answer in French.\n");
}

#[test]
fn disconnect_after_connecting_all_three_gives_every_file_back_byte_for_byte() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    home.write(".codex/config.toml", CONFIG_TOML);
    home.write(".codex/AGENTS.md", AGENTS_MD);
    home.write(
        ".openclaw/workspace/MEMORY.md",
        "# OpenClaw's own notes\n\n- likes tea\n",
    );
    let (files, dirs) = (home.files(), home.dirs());
    for h in ["claude-code", "codex", "openclaw"] {
        let (code, report) = home.run(&["connect", h]);
        assert_eq!(code, 0, "{report}");
    }
    assert_ne!(home.files(), files);
    for h in ["codex", "claude-code", "openclaw"] {
        let (code, report) = home.run(&["disconnect", h]);
        assert_eq!(code, 0, "{report}");
    }
    assert_eq!(
        home.files(),
        files,
        "backups, record and created files all gone"
    );
    assert_eq!(home.dirs(), dirs);
}

#[test]
fn disconnect_after_the_person_edited_takes_out_only_memsyncs_parts() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    home.run(&["connect", "claude-code", "--import-memory-md"]);
    let edited = home
        .read(".claude/settings.json")
        .replace("\"model\": \"opus\"", "\"model\": \"sonnet\"");
    home.write(".claude/settings.json", &edited);
    let claude_md = format!(
        "{}\nAlways answer in French.\n",
        home.read(".claude/CLAUDE.md")
    );
    home.write(".claude/CLAUDE.md", &claude_md);

    let (code, report) = home.run(&["disconnect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    let settings = json_of(&home.read(".claude/settings.json"));
    assert_eq!(settings["model"], "sonnet", "the person's edit stays");
    assert_eq!(hooks(&settings, "SessionEnd").len(), 1);
    assert!(hooks(&settings, "SessionEnd")[0].contains("notify-send"));
    assert!(settings["hooks"].get("PostCompact").is_none(), "{settings}");
    let md = home.read(".claude/CLAUDE.md");
    assert!(!md.contains("memsync"), "{md}");
    assert!(md.contains("Always answer in French."), "{md}");
    assert!(
        !home.path(".claude.json").exists(),
        "created and untouched: removed"
    );
}

#[test]
fn codex_connect_keeps_the_comments_of_config_toml_and_turns_on_harvest() {
    let home = Home::new();
    home.codex_session();
    home.write(".codex/config.toml", CONFIG_TOML);
    home.write(".codex/AGENTS.md", AGENTS_MD);
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    let toml = home.read(".codex/config.toml");
    assert!(toml.starts_with(CONFIG_TOML), "{toml}");
    assert!(toml.contains("[mcp_servers.memsync]"), "{toml}");
    let agents = home.read(".codex/AGENTS.md");
    assert!(agents.starts_with(AGENTS_MD), "{agents}");
    assert!(
        agents.contains("MEMORY.md") && agents.contains("memory_search"),
        "{agents}"
    );

    // Codex has no hook: with no daemon and no harvest run, its sessions never arrive.
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 1, "{doctor}");
    let harvest = codex_checks(&doctor)
        .into_iter()
        .find(|c| c["what"].as_str().unwrap().starts_with("harvest"))
        .unwrap();
    assert_eq!(harvest["level"], "broken", "{harvest}");
    assert!(
        harvest["fix"].as_str().unwrap().contains("service install"),
        "{harvest}"
    );

    home.cmd().arg("harvest").assert().success();
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    let checks = codex_checks(&doctor);
    assert!(checks.iter().all(|c| c["level"] == "ok"), "{checks:?}");
    assert!(
        checks
            .iter()
            .any(|c| c["what"].as_str().unwrap().contains("memsync harvest")),
        "{checks:?}"
    );
}

fn codex_checks(doctor: &Value) -> Vec<Value> {
    let codex = doctor["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == "codex")
        .unwrap();
    assert_eq!(codex["connected"], true);
    codex["checks"].as_array().unwrap().clone()
}

#[test]
fn broken_json_and_toml_are_reported_and_nothing_is_written() {
    let home = Home::new();
    home.write(".claude/settings.json", "{ \"model\": \"opus\", }\n");
    home.write(".codex/config.toml", "[mcp_servers\ncommand = \n");
    let before = home.files();
    for (h, file) in [("claude-code", "settings.json"), ("codex", "config.toml")] {
        let out = home.cmd().args(["connect", h]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{h}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(file) && err.contains("left untouched"),
            "{err}"
        );
    }
    assert_eq!(home.files(), before);
}

#[test]
fn a_dry_run_names_the_changes_and_writes_nothing() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    let before = home.files();
    let (code, report) = home.run(&["connect", "claude-code", "--dry-run"]);
    assert_eq!((code, changes(&report)), (0, 2), "{report}");
    assert_eq!(report["dry_run"], true);
    assert_eq!(home.files(), before);
}

#[test]
fn openclaw_reads_a_memory_md_rendered_into_its_own_workspace_beside_its_notes() {
    let home = Home::new();
    let notes = "# OpenClaw's own notes\n\n- likes tea\n";
    home.openclaw_set_up();
    home.write(".openclaw/workspace/MEMORY.md", notes);
    let (code, report) = home.run(&["connect", "openclaw"]);
    assert_eq!(code, 0, "{report}");
    let mirrored = home.read(".openclaw/workspace/MEMORY.md");
    assert!(mirrored.starts_with(notes), "{mirrored}");
    assert!(
        mirrored.contains("<!-- memsync:begin memory-md agent=main"),
        "{mirrored}"
    );
    assert!(
        !home.path(".config/memsync/config.yaml").exists(),
        "harvest and the mirror live in connect's record, not in the user's config"
    );

    // A session of OpenClaw's agent reaches OpenClaw's MEMORY.md with the next
    // sync, its links pointing back into the workspace.
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/harness/openclaw.jsonl");
    home.cmd()
        .args([
            "capture",
            "session-end",
            "--agent",
            "main",
            "--harness",
            "openclaw",
        ])
        .arg("--transcript")
        .arg(&fixture)
        .assert()
        .success();
    let mirrored = home.read(".openclaw/workspace/MEMORY.md");
    let ws = std::fs::canonicalize(home.path("ws")).unwrap();
    assert!(mirrored.starts_with(notes), "{mirrored}");
    assert!(
        mirrored.contains(&format!("[[{}/memory/", ws.display())),
        "{mirrored}"
    );
    let (code, _) = home.run(&["disconnect", "openclaw"]);
    assert_eq!(code, 0);
    assert_eq!(home.read(".openclaw/workspace/MEMORY.md"), notes);
}

#[test]
fn doctor_says_broken_when_the_mcp_entry_points_at_a_missing_binary() {
    let home = Home::new();
    home.run(&["connect", "claude-code"]);
    let text = home.read(".claude.json");
    let exe = json_of(&text)["mcpServers"]["memsync"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    home.write(".claude.json", &text.replace(&exe, "/nonexistent/memsync"));
    let out = home.cmd().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("BROKEN") && screen.contains("/nonexistent/memsync"),
        "{screen}"
    );
    assert!(
        screen.contains("fix: memsync --workspace ") && screen.contains(" connect claude-code"),
        "{screen}"
    );
}

#[test]
fn the_hook_connect_wrote_captures_a_session_from_a_real_session_end_payload() {
    let home = Home::new();
    home.run(&["connect", "claude-code"]);
    let settings = json_of(&home.read(".claude/settings.json"));
    let command = hooks(&settings, "SessionEnd").pop().unwrap();

    let project = home.path("shop");
    std::fs::create_dir_all(&project).unwrap();
    let transcript = home.path(".claude/projects/-shop/cc-5d3c.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/harness/claude-code.jsonl");
    std::fs::copy(fixture, &transcript).unwrap();
    // The payload Claude Code sends to a SessionEnd hook (HARNESS_FORMATS.md 1.2, 1.3).
    let payload = serde_json::json!({
        "session_id": "cc-5d3c",
        "transcript_path": transcript,
        "cwd": project,
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
        "permission_mode": "default"
    });
    let mut hook = std::process::Command::new("sh");
    hook.args(["-c", &command])
        .current_dir(&project)
        .env("HOME", home.path(""))
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("MEMSYNC_CONFIG")
        .stdin(std::process::Stdio::piped());
    let mut child = hook.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.to_string().as_bytes()).unwrap();
    }
    assert!(child.wait().unwrap().success());

    // The hook queued the job and started a worker; run the queue too, so the
    // test does not depend on the detached worker's timing.
    home.cmd().args(["capture", "jobs"]).assert().success();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let memory = home.path("ws/MEMORY.md");
    while !std::fs::read_to_string(&memory)
        .unwrap_or_default()
        .contains("cc-5d3c")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&memory).unwrap();
    assert!(text.contains("cc-5d3c"), "{text}");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "{doctor}");
    assert!(doctor.to_string().contains("last hook job"), "{doctor}");
}

/// A text with the home and the binary's path made stable.
fn redact(home: &Home, text: &str) -> String {
    let exe = assert_cmd::cargo::cargo_bin("memsync");
    let real_home = std::fs::canonicalize(home.dir.path()).unwrap();
    text.replace(exe.to_string_lossy().as_ref(), "[MEMSYNC]")
        .replace(real_home.to_string_lossy().as_ref(), "[HOME]")
        .replace(home.dir.path().to_string_lossy().as_ref(), "[HOME]")
}

#[test]
fn the_reports_and_the_files_connect_writes_read_as_pinned() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    home.write(".codex/config.toml", CONFIG_TOML);
    home.write(".codex/AGENTS.md", AGENTS_MD);
    let text = |args: &[&str]| {
        let out = home.cmd().args(args).output().unwrap();
        redact(&home, &String::from_utf8_lossy(&out.stdout))
    };
    insta::assert_snapshot!(
        "connect_claude_code_dry_run",
        text(&["connect", "claude-code", "--dry-run"])
    );
    insta::assert_snapshot!("connect_codex", text(&["connect", "codex"]));
    text(&["connect", "claude-code"]);
    for (name, rel) in [
        ("connected_settings_json", ".claude/settings.json"),
        ("connected_claude_json", ".claude.json"),
        ("connected_config_toml", ".codex/config.toml"),
        ("connected_agents_md", ".codex/AGENTS.md"),
    ] {
        insta::assert_snapshot!(name, redact(&home, &home.read(rel)));
    }
    insta::assert_snapshot!("doctor", text(&["doctor"]));
    insta::assert_snapshot!("disconnect_codex", text(&["disconnect", "codex"]));
}
