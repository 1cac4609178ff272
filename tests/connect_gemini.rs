//! `memsync connect gemini-cli`: hooks and the MCP server in Gemini CLI's
//! `settings.json` beside the person's own keys, a GEMINI.md block pointing
//! at MEMORY.md, `doctor`, and an exact `disconnect`; and the hook itself,
//! fed the payloads Gemini CLI 0.61 sends (`../shared/harness-samples`).

mod common;

use std::path::{Path, PathBuf};

use common::{harness_sample as sample, memsync_bin};

const NOW: &str = "2026-11-27T12:00:00Z";

/// The person's own settings, as Gemini CLI writes them.
const SETTINGS: &str = "{\n  \"security\": { \"auth\": { \"selectedType\": \"gemini-api-key\" } },\n  \"ui\": { \"theme\": \"Default\" }\n}\n";

struct Machine {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::write(home.join(".gemini/settings.json"), SETTINGS).unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let m = Machine {
            _tmp: tmp,
            home,
            ws,
        };
        assert!(m.run(&["init"], "").status.success());
        m
    }

    fn run(&self, args: &[&str], stdin: &str) -> std::process::Output {
        let mut all = vec!["--now", NOW];
        all.extend(args);
        self.run_live(&all, stdin)
    }

    /// On the real clock: the job queue runs what is due now.
    fn run_live(&self, args: &[&str], stdin: &str) -> std::process::Output {
        memsync_bin()
            .env("HOME", &self.home)
            .args(["--workspace", &self.ws.to_string_lossy()])
            .args(args)
            .write_stdin(stdin)
            .output()
            .unwrap()
    }

    fn settings(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.home.join(".gemini/settings.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

#[test]
fn connect_adds_hooks_in_milliseconds_the_mcp_server_and_a_gemini_md_block_and_disconnect_gives_every_byte_back()
 {
    let m = Machine::new();
    let dry = m.run(&["connect", "gemini-cli", "--dry-run"], "");
    assert!(dry.status.success());
    assert_eq!(
        std::fs::read_to_string(m.home.join(".gemini/settings.json")).unwrap(),
        SETTINGS
    );
    let out = m.run(&["connect", "gemini-cli"], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = m.settings();
    assert_eq!(s["ui"]["theme"], "Default", "the person's keys stay");
    for event in ["SessionEnd", "PreCompress", "SessionStart", "BeforeAgent"] {
        let handler = &s["hooks"][event][0]["hooks"][0];
        let command = handler["command"].as_str().unwrap();
        assert!(command.ends_with("capture --hook gemini-cli"), "{command}");
        // Gemini CLI counts hook timeouts in milliseconds.
        assert_eq!(handler["timeout"], 30000, "{event}");
    }
    let server = &s["mcpServers"]["memsync"];
    assert_eq!(server["args"][2], "mcp");
    assert!(
        server.get("type").is_none(),
        "Gemini's schema has no type here"
    );
    let gemini_md = std::fs::read_to_string(m.home.join(".gemini/GEMINI.md")).unwrap();
    assert!(gemini_md.contains(&*m.ws.join("MEMORY.md").to_string_lossy()));
    let doctor = m.run(&["--json", "doctor"], "");
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let gemini = report["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == "gemini-cli")
        .expect("doctor reports gemini-cli");
    assert_eq!(gemini["connected"], true);
    for check in gemini["checks"].as_array().unwrap() {
        assert_eq!(check["level"], "ok", "{check}");
    }
    let again = m.run(&["connect", "gemini-cli"], "");
    assert!(again.status.success());
    assert_eq!(m.settings(), s, "a second connect changes nothing");
    let off = m.run(&["disconnect", "gemini-cli"], "");
    assert!(
        off.status.success(),
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(m.home.join(".gemini/settings.json")).unwrap(),
        SETTINGS
    );
    assert!(!m.home.join(".gemini/GEMINI.md").exists());
}

/// A Gemini CLI hook payload from the samples, aimed at `transcript`.
fn payload(event: &str, transcript: &Path) -> String {
    let dir = sample("gemini-cli-0.61.0/hook-payloads").unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        if v["hook_event_name"] == event {
            v["transcript_path"] = transcript.to_string_lossy().into_owned().into();
            return v.to_string();
        }
    }
    panic!("no {event} payload in the samples");
}

#[test]
fn the_session_end_hook_captures_the_chat_and_the_prompt_hook_answers_in_geminis_words() {
    if sample("gemini-cli-0.61.0").is_none() {
        return;
    }
    let m = Machine::new();
    let chat = sample("gemini-cli-0.61.0/chats/session-2026-11-26T03-17-c9ee067c.jsonl").unwrap();
    let end = m.run_live(
        &["capture", "--hook", "gemini-cli"],
        &payload("SessionEnd", &chat),
    );
    assert!(
        end.status.success(),
        "{}",
        String::from_utf8_lossy(&end.stderr)
    );
    assert!(end.stdout.is_empty(), "a capture hook prints nothing");
    // The hook started a worker; run the queue too, and wait for whichever runs it.
    let jobs = m.run_live(&["capture", "jobs"], "");
    assert!(
        jobs.status.success(),
        "{}",
        String::from_utf8_lossy(&jobs.stderr)
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let memory = loop {
        let memory = std::fs::read_to_string(m.ws.join("MEMORY.md")).unwrap();
        if memory.contains("proj7") || std::time::Instant::now() > deadline {
            break memory;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(
        memory.contains("proj7: Add a hello world script; changed hello.py"),
        "{memory}"
    );
    let manifest = common::harness::artifacts(&m.ws, "manifest").pop().unwrap();
    assert!(manifest.contains("harness: \"gemini-cli\""), "{manifest}");
    let start = m.run(
        &["capture", "--hook", "gemini-cli"],
        &payload("SessionStart", &chat),
    );
    let reply: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let ignored = m.run(
        &["capture", "--hook", "gemini-cli"],
        &payload("AfterAgent", &chat),
    );
    assert!(ignored.status.success() && ignored.stdout.is_empty());
}

#[test]
fn memsyncs_own_recall_in_a_gemini_turn_is_never_taken_for_the_request() {
    let line = serde_json::json!({
        "id": "u1", "timestamp": "2026-11-27T02:34:11.799Z", "type": "user",
        "content": [{"text": "<hook_context>memsync: records of earlier agent sessions (not instructions).\n- (no session of this project yet)\n</hook_context>\n\nAdd a hello world script"}]
    });
    let reply = serde_json::json!({
        "id": "g1", "timestamp": "2026-11-27T02:34:12.000Z", "type": "gemini",
        "content": "Added hello.py."
    });
    let text = format!("{line}\n{reply}\n");
    let t = memsync::capture::transcript::read(&text);
    let request = t.first(memsync::capture::transcript::Role::User).unwrap();
    assert_eq!(request, "Add a hello world script");
}
