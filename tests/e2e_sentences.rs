//! End to end: the real Claude Code, Codex and Gemini CLI (the pinned npm
//! versions) as sentence providers, each wired by `connect <harness>
//! --sentences`, against the fake model server on 127.0.0.1, with the
//! daemon running and harvest on (issue 62's done-when). Ten ordinary
//! sessions in a row give exactly ten captures and ten sentence calls, each
//! sentence stored with quality `ok` and version `memory_sentence_v2`; none
//! of memsync's own calls is captured by a hook or by harvest, and no call
//! chain goes on after the last session.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::claude::{claude_env, claude_in, connected_home};
use common::codex::{codex_in, config_toml};
use common::harness::{FakeModel, artifacts, program};
use common::home::{Home, Watch};

const SESSIONS: usize = 10;
const MARKER: &str = "memsync-model-call: memory_sentence_v2";

fn wait(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// PATH with the harness program's folder first, as the person's shell has it.
fn path_with(program: &Path) -> String {
    format!(
        "{}:{}",
        program.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The machine config the tests run with: harvest on, a limit above the
/// ten sessions of one minute.
fn machine_config(home: &Home, harvest: &str) {
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(
        ".config/memsync/config.yaml",
        &format!("harvest:\n  enabled: true\n{harvest}sentence:\n  per_minute: 30\n"),
    );
}

fn connect_sentences(home: &Home, harness: &str, program: &Path) {
    let out = home
        .cmd()
        .args(["--json", "connect", harness, "--sentences"])
        .env("PATH", path_with(program))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, config) = home.run(&["config"]);
    assert!(
        config.to_string().contains(harness),
        "sentence.provider is not {harness}: {config}"
    );
}

/// Waits for `n` summaries, then a little longer, and checks that there are
/// exactly `n`, each with a model sentence, and `n` sentence calls.
fn exactly_one_capture_and_call_a_session(home: &Home, model: &FakeModel, n: usize) {
    let ws = home.path("ws");
    wait("every session's capture", Duration::from_secs(180), || {
        artifacts(&ws, "summary").len() >= n
    });
    // A call chain would go on capturing: give it the time to show.
    std::thread::sleep(Duration::from_secs(8));
    let summaries = artifacts(&ws, "summary");
    assert_eq!(summaries.len(), n, "captures: {summaries:#?}");
    for s in &summaries {
        assert!(
            s.contains("memory_sentence_quality: \"ok\"")
                && s.contains("memory_sentence_version: \"memory_sentence_v2\""),
            "{s}"
        );
        assert!(!s.contains(MARKER), "memsync's own call was captured: {s}");
    }
    let calls = model.requests().matches(MARKER).count();
    assert_eq!(calls, n, "sentence calls");
    let memory = home.read("ws/MEMORY.md");
    assert!(
        memory.contains("Added a hello function to hello.py at the person's request"),
        "{memory}"
    );
    let (_, status) = home.run(&["status"]);
    assert_eq!(
        status["jobs"]["failed"].as_i64().unwrap_or(0),
        0,
        "{status}"
    );
    assert_eq!(
        status["sentences"]["last_7_days"]["ok"], n as i64,
        "{status}"
    );
}

#[test]
fn claude_code_writes_the_sentences_one_call_a_session_and_never_captures_its_own() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    machine_config(&home, "");
    connect_sentences(&home, "claude-code", &claude);
    let mut env = claude_env(&home, &model);
    env.push(("PATH", path_with(&claude)));
    let _watch = Watch::start(&home, &env);
    let project = home.path("proj");
    for i in 0..SESSIONS {
        let out = claude_in(&claude, &home, &model, &project)
            .args(["-p", &format!("Explain step {i} of the release checklist")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    exactly_one_capture_and_call_a_session(&home, &model, SESSIONS);
    // Harvest finds nothing of memsync's own either (it keeps no session).
    let (code, report) = home.run(&["harvest", "--harness", "claude-code", "--sentences"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map_or(0, Vec::len),
        0,
        "{report}"
    );
    // Disconnect takes the provider out with the hooks.
    let (code, report) = home.run(&["disconnect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    let (_, status) = home.run(&["status"]);
    assert!(status["sentences"]["provider"].is_null(), "{status}");
}

#[test]
fn codex_writes_the_sentences_of_harvested_sessions_and_keeps_no_session_of_its_own() {
    let Some(codex) = program("MEMSYNC_E2E_CODEX") else {
        return;
    };
    let home = Home::new();
    let model = FakeModel::start();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    home.write(".codex/config.toml", &config_toml(model.port));
    // Default idle_minutes: a rollout whose turn ended and that Codex closed is taken at once.
    machine_config(&home, "  interval_seconds: 2\n");
    let (code, report) = home.run(&["connect", "codex"]);
    assert_eq!(code, 0, "{report}");
    connect_sentences(&home, "codex", &codex);
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    for i in 0..SESSIONS {
        let out = codex_in(&codex, &home, &project)
            .args(["exec", "--skip-git-repo-check"])
            .arg(format!("Explain step {i} of the release checklist"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let env = vec![
        ("PATH", path_with(&codex)),
        ("FAKE_OPENAI_KEY", "sk-fake".to_string()),
    ];
    let _watch = Watch::start(&home, &env);
    exactly_one_capture_and_call_a_session(&home, &model, SESSIONS);
    // Codex kept no rollout of memsync's calls: only the person's ten.
    let rollouts = walk(&home.path(".codex/sessions"), "jsonl");
    assert_eq!(rollouts.len(), SESSIONS, "{rollouts:?}");
}

#[test]
fn gemini_cli_writes_the_sentences_and_harvest_skips_the_chats_of_its_calls() {
    let Some(gemini) = program("MEMSYNC_E2E_GEMINI") else {
        return;
    };
    let model = FakeModel::start();
    let home = Home::new();
    std::fs::create_dir_all(home.path(".gemini")).unwrap();
    home.write(
        ".gemini/settings.json",
        "{\n  \"security\": { \"auth\": { \"selectedType\": \"gemini-api-key\" } }\n}\n",
    );
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    machine_config(&home, "  interval_seconds: 2\n");
    let (code, report) = home.run(&["connect", "gemini-cli"]);
    assert_eq!(code, 0, "{report}");
    connect_sentences(&home, "gemini-cli", &gemini);
    let project = home.path("proj");
    std::fs::create_dir_all(&project).unwrap();
    home.write(
        ".gemini/trustedFolders.json",
        &serde_json::json!({ project.to_string_lossy(): "TRUST_FOLDER" }).to_string(),
    );
    let env = vec![
        ("PATH", path_with(&gemini)),
        (
            "GEMINI_API_KEY",
            "AIzaFakeKeyForTheE2eSuite0123456789abc".to_string(),
        ),
        ("GOOGLE_GEMINI_BASE_URL", model.base_url()),
        ("GEMINI_CLI_NO_RELAUNCH", "true".to_string()),
        ("NO_BROWSER", "true".to_string()),
    ];
    let _watch = Watch::start(&home, &env);
    for i in 0..SESSIONS {
        let out = Command::new(&gemini)
            .current_dir(&project)
            .env("PWD", &project)
            .env("HOME", home.dir.path())
            .env("XDG_CONFIG_HOME", home.path(".config"))
            .env("XDG_STATE_HOME", home.path(".local/state"))
            .env_remove("MEMSYNC_WORKSPACE")
            .env_remove("MEMSYNC_CONFIG")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .args(["-p", &format!("Explain step {i} of the release checklist")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    exactly_one_capture_and_call_a_session(&home, &model, SESSIONS);
    // Gemini CLI kept a chat for each of memsync's calls; harvest took none.
    let chats = walk(&home.path(".gemini/tmp"), "jsonl");
    let own = chats
        .iter()
        .filter(|c| std::fs::read_to_string(c).is_ok_and(|t| t.contains(MARKER)))
        .count();
    assert_eq!(own, SESSIONS, "{chats:?}");
    let (code, report) = home.run(&["harvest", "--harness", "gemini-cli", "--no-wait"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map_or(0, Vec::len),
        0,
        "{report}"
    );
    let skipped = report["skipped"].to_string();
    assert_eq!(
        skipped.matches("memsync's own model call").count(),
        SESSIONS,
        "{report}"
    );
}

fn walk(dir: &Path, ext: &str) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// The recipe that looped for ever before (issue 62): a bare `claude -p` as
/// `sentence.command`, which loads the person's settings and so fires
/// memsync's own hooks, and keeps its session where harvest looks.
#[test]
fn the_old_bare_claude_p_recipe_gives_one_capture_and_one_call_a_session() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(
        ".config/memsync/config.yaml",
        &format!(
            "harvest:\n  enabled: true\n\
             sentence:\n  per_minute: 30\n  command: \"'{}' -p 'Write ONE sentence of 12-48 words saying what this coding session did.'\"\n",
            claude.display()
        ),
    );
    let mut env = claude_env(&home, &model);
    env.push(("PATH", path_with(&claude)));
    let _watch = Watch::start(&home, &env);
    let project = home.path("proj");
    for i in 0..3 {
        let out = claude_in(&claude, &home, &model, &project)
            .args(["-p", &format!("Explain step {i} of the release checklist")])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    exactly_one_capture_and_call_a_session(&home, &model, 3);
    // Claude Code kept the calls' sessions; the hook took none, and a harvest
    // that takes every session now, however fresh, skips them as memsync's own.
    let kept = walk(&home.path(".claude/projects"), "jsonl");
    let own = kept
        .iter()
        .filter(|c| std::fs::read_to_string(c).is_ok_and(|t| t.contains(MARKER)))
        .count();
    assert_eq!(own, 3, "{kept:?}");
    let (code, report) = home.run(&["harvest", "--harness", "claude-code", "--no-wait"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        report["captured"].as_array().map_or(0, Vec::len),
        0,
        "{report}"
    );
    let skipped = report["skipped"].to_string();
    assert_eq!(
        skipped.matches("memsync's own model call").count(),
        3,
        "{report}"
    );
    assert_eq!(artifacts(&home.path("ws"), "summary").len(), 3);
}
