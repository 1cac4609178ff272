//! memsync never captures its own model calls (issue 62): a hook fired
//! inside one answers with nothing and queues nothing, for every harness; a
//! session opened by memsync's prompt, or run in its model-call folder, is
//! refused by capture and skipped by harvest; and every recipe in
//! docs/CONFIGURATION.md, run through a stand-in harness that fires
//! memsync's hooks as a connected one does, gives one capture and one call.

mod common;

use std::path::Path;
use std::time::{Duration, SystemTime};

use common::home::Home;

const PROMPT: &str = "memsync-model-call: memory_sentence_v2\nWrite ONE sentence of 12 to 48 words that says what this coding session did.\n\n<session>\n## Request\n\nAdd a hello function\n</session>\n";

fn jobs(home: &Home) -> i64 {
    let (_, status) = home.run(&["status"]);
    let j = &status["jobs"];
    [
        "pending",
        "running",
        "waiting",
        "succeeded",
        "failed",
        "skipped",
    ]
    .iter()
    .map(|k| j[k].as_i64().unwrap_or(0))
    .sum()
}

/// A Claude Code session file: `prompt` asked in `cwd`, one answer.
fn claude_session(id: &str, cwd: &str, prompt: &str) -> String {
    let user = serde_json::json!({"type": "user", "uuid": "u-1", "sessionId": id, "cwd": cwd,
        "timestamp": "2026-11-20T09:00:00.000Z", "message": {"role": "user", "content": prompt}});
    let answer = serde_json::json!({"type": "assistant", "uuid": "a-1", "sessionId": id,
        "timestamp": "2026-11-20T09:00:05.000Z", "message": {"id": "m1", "role": "assistant",
        "content": [{"type": "text", "text": "Added a hello function to hello.py at the person's request."}]}});
    format!("{user}\n{answer}\n")
}

#[test]
fn a_hook_inside_memsyncs_own_model_call_queues_nothing_and_offers_nothing() {
    let home = Home::new();
    home.cmd().arg("init").assert().success();
    let transcript = home.path("t.jsonl");
    std::fs::write(
        &transcript,
        claude_session("s-1", "/home/dev/shop", "Add a hello function"),
    )
    .unwrap();
    let t = transcript.display();
    let payloads = [
        ("claude-code", format!(r#"{{"hook_event_name":"SessionEnd","session_id":"s-1","transcript_path":"{t}"}}"#)),
        ("claude-code", r#"{"hook_event_name":"SessionStart","session_id":"s-1","cwd":"/home/dev/shop"}"#.into()),
        ("claude-code", r#"{"hook_event_name":"UserPromptSubmit","session_id":"s-1","prompt":"hello function"}"#.into()),
        ("claude-code", r#"{"hook_event_name":"PostCompact","session_id":"s-1","compact_summary":"x"}"#.into()),
        ("gemini-cli", format!(r#"{{"hook_event_name":"SessionEnd","session_id":"s-2","transcript_path":"{t}"}}"#)),
        ("gemini-cli", r#"{"hook_event_name":"BeforeAgent","session_id":"s-2","prompt":"hello"}"#.into()),
        ("qwen-code", format!(r#"{{"hook_event_name":"SessionEnd","session_id":"s-3","transcript_path":"{t}"}}"#)),
        ("copilot-cli", format!(r#"{{"sessionId":"s-4","reason":"complete","transcriptPath":"{t}"}}"#)),
        ("copilot-cli", r#"{"sessionId":"s-4","source":"new","cwd":"/home/dev/shop"}"#.into()),
    ];
    for (harness, payload) in &payloads {
        let out = home
            .cmd()
            .args(["capture", "--hook", harness])
            .env("MEMSYNC_MODEL_CALL", "1")
            .write_stdin(payload.as_str())
            .output()
            .unwrap();
        assert!(out.status.success(), "{harness} {payload}");
        assert!(
            out.stdout.is_empty(),
            "{harness} {payload}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(jobs(&home), 0, "a model call's hook queued a job");
    // The same SessionEnd from a person's session is queued.
    home.cmd()
        .args(["capture", "--hook", "claude-code"])
        .env_remove("MEMSYNC_MODEL_CALL")
        .write_stdin(payloads[0].1.as_str())
        .assert()
        .success();
    assert_eq!(jobs(&home), 1);
}

#[test]
fn a_session_opened_by_memsyncs_prompt_is_refused_by_capture_in_any_format() {
    let home = Home::new();
    home.cmd().arg("init").assert().success();
    let plain = serde_json::json!({"role": "user", "content": PROMPT}).to_string()
        + "\n"
        + &serde_json::json!({"role": "assistant", "content": "Added hello.py to shop."})
            .to_string();
    // The prompt after a harness's own words (`claude -p 'X'` with stdin appended).
    let appended = format!("Write ONE sentence.\n\n{PROMPT}");
    for (name, text) in [
        (
            "claude.jsonl",
            claude_session("s-9", "/home/dev/shop", PROMPT),
        ),
        (
            "claude-appended.jsonl",
            claude_session("s-8", "/home/dev/shop", &appended),
        ),
        ("messages.jsonl", plain),
        ("plain.md", PROMPT.to_string()),
    ] {
        let path = home.path(name);
        std::fs::write(&path, text).unwrap();
        let out = home
            .cmd()
            .args(["capture", "session-end", "--session-id", "own"])
            .arg("--transcript")
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name} was captured");
        assert!(err.contains("memsync's own model call"), "{name}: {err}");
    }
    assert!(!home.read("ws/MEMORY.md").contains("hello"));
}

#[test]
fn harvest_skips_sessions_of_memsyncs_prompt_and_of_its_model_call_folder() {
    let home = Home::new();
    let d = home.dir.path().display().to_string();
    std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
    home.write(
        ".config/memsync/config.yaml",
        &format!("harvest:\n  claude_code_dir: {d}/.claude\n"),
    );
    home.cmd().arg("init").assert().success();
    let folder = home.path(".claude/projects/-x");
    std::fs::create_dir_all(&folder).unwrap();
    let call_folder = format!("{d}/.local/state/memsync/model-call");
    let sessions = [
        (
            "11111111-1111-4111-8111-111111111111",
            "/home/dev/shop",
            PROMPT,
        ),
        (
            "22222222-2222-4222-8222-222222222222",
            call_folder.as_str(),
            "Say something about hello.py",
        ),
        (
            "33333333-3333-4333-8333-333333333333",
            "/home/dev/shop",
            "Add a hello function to hello.py",
        ),
    ];
    for (id, cwd, prompt) in sessions {
        let path = folder.join(format!("{id}.jsonl"));
        std::fs::write(&path, claude_session(id, cwd, prompt)).unwrap();
        set_mtime(&path, SystemTime::now() - Duration::from_secs(7200));
    }
    let (code, report) = home.run(&["harvest", "--harness", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    let captured = report["captured"].as_array().unwrap();
    assert_eq!(captured.len(), 1, "{report}");
    assert!(captured[0]["path"].as_str().unwrap().contains("33333333"));
    let skipped = report["skipped"].to_string();
    assert_eq!(
        skipped.matches("memsync's own model call").count(),
        2,
        "{report}"
    );
}

fn set_mtime(path: &Path, at: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

/// A stand-in for a harness in print mode, as each recipe would run it: it
/// keeps the prompt as its session, fires memsync's SessionEnd hook as a
/// connected harness does (memsync's own marker in its environment or not),
/// and answers with a sentence (Codex: into its last-message file too).
const STAND_IN: &str = r#"#!/bin/sh
prompt="$(cat)"
n=$(ls "$SESSIONS" | wc -l)
id="aaaaaaaa-0000-4000-8000-00000000000$n"
python3 - "$prompt" "$id" "$PWD" "$SESSIONS/$id.jsonl" <<'PY'
import json, sys
prompt, sid, cwd, path = sys.argv[1:]
with open(path, "w") as f:
    f.write(json.dumps({"type": "user", "uuid": "u", "sessionId": sid, "cwd": cwd,
        "timestamp": "2026-11-20T09:00:00.000Z", "message": {"role": "user", "content": prompt}}) + "\n")
    f.write(json.dumps({"type": "assistant", "uuid": "a", "sessionId": sid,
        "timestamp": "2026-11-20T09:00:01.000Z", "message": {"id": "m", "role": "assistant",
        "content": [{"type": "text", "text": "ok"}]}}) + "\n")
PY
printf '{"hook_event_name":"SessionEnd","session_id":"%s","transcript_path":"%s"}' "$id" "$SESSIONS/$id.jsonl" \
  | "$MEMSYNC" --workspace "$WS" capture --hook claude-code >/dev/null 2>&1
answer="Added a hello function to hello.py at the person's request, and its new test passes afterwards."
while [ $# -gt 0 ]; do
  if [ "$1" = "--output-last-message" ]; then echo "$answer" > "$2"; fi
  shift
done
echo "$answer"
"#;

/// The machine-config recipes in docs/CONFIGURATION.md's "Memory sentences".
fn recipes() -> Vec<String> {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CONFIGURATION.md"),
    )
    .unwrap();
    let section = doc
        .split("\n## Memory sentences")
        .nth(1)
        .expect("docs/CONFIGURATION.md has a Memory sentences section");
    let section = section.split("\n## ").next().unwrap();
    let block = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a yaml block of recipes");
    block
        .split("\n# ")
        .filter_map(|r| r.find("\nsentence:\n").map(|at| r[at + 1..].to_string()))
        .collect()
}

#[test]
fn every_documented_recipe_gives_one_capture_and_one_call_and_never_captures_itself() {
    let recipes = recipes();
    assert!(recipes.len() >= 5, "{recipes:?}");
    let mut ran = 0;
    for recipe in recipes {
        let home = Home::new();
        std::fs::create_dir_all(home.path(".config/memsync")).unwrap();
        let bin = home.path("bin");
        let sessions = home.path("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        for program in ["claude", "codex", "gemini", "llm", "ollama"] {
            let path = bin.join(program);
            std::fs::write(&path, STAND_IN).unwrap();
            let mut perms = std::fs::metadata(&path).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
            std::fs::set_permissions(&path, perms).unwrap();
        }
        home.write(".config/memsync/config.yaml", &recipe);
        let (code, config) = home.run(&["config"]);
        assert_eq!(code, 0, "the recipe does not load: {recipe}\n{config}");
        let harness_or_command = ["claude-code", "codex", "gemini-cli", "command"]
            .iter()
            .any(|p| recipe.contains(&format!("provider: {p}")));
        if !harness_or_command {
            continue; // an HTTP provider: tests/sentence_provider.rs runs those
        }
        home.cmd().arg("init").assert().success();
        let transcript = home.path("person.jsonl");
        std::fs::write(
            &transcript,
            claude_session(
                "person-1",
                "/home/dev/shop",
                "Add a hello function to hello.py",
            ),
        )
        .unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let out = home
            .cmd()
            .args(["--json", "capture", "session-end"])
            .arg("--transcript")
            .arg(&transcript)
            .env("PATH", &path)
            .env("SESSIONS", &sessions)
            .env("WS", home.path("ws"))
            .env("MEMSYNC", assert_cmd::cargo::cargo_bin("memsync"))
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        assert!(
            out.status.success(),
            "{recipe}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(report["sentence_quality"], "ok", "{recipe}: {report}");
        // One call: the stand-in kept one session, the prompt memsync marks.
        let kept: Vec<_> = std::fs::read_dir(&sessions).unwrap().flatten().collect();
        assert_eq!(kept.len(), 1, "{recipe}: {kept:?}");
        // Its hook queued nothing, and its session is refused as memsync's own.
        assert_eq!(
            jobs(&home),
            0,
            "{recipe}: the model call's hook queued a capture"
        );
        let own = home
            .cmd()
            .args(["capture", "session-end"])
            .arg("--transcript")
            .arg(kept[0].path())
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&own.stderr).contains("memsync's own model call"),
            "{recipe}: the recipe's own session would be captured"
        );
        ran += 1;
    }
    assert!(ran >= 3, "only {ran} recipes ran");
}
