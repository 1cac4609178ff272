//! `memsync connect gemini-cli` and `connect qwen-code` (a Gemini CLI fork):
//! hooks and the MCP server in the harness's `settings.json` beside the
//! person's own keys, a GEMINI.md or QWEN.md block pointing at MEMORY.md,
//! `doctor`, and an exact `disconnect`; and the hook itself, fed the payloads
//! Gemini CLI 0.61 (`../shared/harness-samples`) and qwen-code 0.24.4 send.

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
    /// The harness's folder: `.gemini` or `.qwen`.
    dir: &'static str,
}

impl Machine {
    fn new() -> Machine {
        Machine::with(".gemini")
    }

    fn with(dir: &'static str) -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(dir)).unwrap();
        std::fs::write(home.join(dir).join("settings.json"), SETTINGS).unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let m = Machine {
            _tmp: tmp,
            home,
            ws,
            dir,
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

    fn file(&self, name: &str) -> PathBuf {
        self.home.join(self.dir).join(name)
    }

    fn settings(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.file("settings.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// What `doctor --json` says of `harness`.
    fn doctor_report(&self, harness: &str) -> serde_json::Value {
        let doctor = self.run(&["--json", "doctor"], "");
        let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
        report["harnesses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["harness"] == harness)
            .cloned()
            .unwrap_or_else(|| panic!("doctor reports no {harness}: {report}"))
    }

    /// `doctor`'s checks of `harness`, every one of them ok.
    fn assert_doctor_ok(&self, harness: &str) {
        let found = self.doctor_report(harness);
        assert_eq!(found["connected"], true);
        for check in found["checks"].as_array().unwrap() {
            assert_eq!(check["level"], "ok", "{check}");
        }
    }

    /// `harness`'s end-of-session hook, fed `payload`, prints nothing and
    /// queues a capture whose ledger row names the sample's request and file.
    fn assert_end_hook_captures(&self, harness: &str, payload: &str, project: &str) {
        let end = self.run_live(&["capture", "--hook", harness], payload);
        assert!(
            end.status.success(),
            "{}",
            String::from_utf8_lossy(&end.stderr)
        );
        assert!(end.stdout.is_empty(), "a capture hook prints nothing");
        let memory = self.wait_for_ledger(project);
        assert!(
            memory.contains(&format!(
                "{project}: Add a hello world script; changed hello.py"
            )),
            "{memory}"
        );
        let manifest = common::harness::artifacts(&self.ws, "manifest")
            .pop()
            .unwrap();
        assert!(
            manifest.contains(&format!("harness: \"{harness}\"")),
            "{manifest}"
        );
    }

    /// Runs the job queue and waits for MEMORY.md to hold `needle` (the
    /// hook's own worker may be the one that runs it).
    fn wait_for_ledger(&self, needle: &str) -> String {
        let jobs = self.run_live(&["capture", "jobs"], "");
        assert!(
            jobs.status.success(),
            "{}",
            String::from_utf8_lossy(&jobs.stderr)
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let memory = std::fs::read_to_string(self.ws.join("MEMORY.md")).unwrap();
            if memory.contains(needle) || std::time::Instant::now() > deadline {
                return memory;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

#[test]
fn connect_adds_hooks_in_milliseconds_the_mcp_server_and_a_gemini_md_block_and_disconnect_gives_every_byte_back()
 {
    let m = Machine::new();
    let dry = m.run(&["connect", "gemini-cli", "--dry-run"], "");
    assert!(dry.status.success());
    assert_eq!(
        std::fs::read_to_string(m.file("settings.json")).unwrap(),
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
    let gemini_md = std::fs::read_to_string(m.file("GEMINI.md")).unwrap();
    assert!(gemini_md.contains(&*m.ws.join("MEMORY.md").to_string_lossy()));
    m.assert_doctor_ok("gemini-cli");
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
        std::fs::read_to_string(m.file("settings.json")).unwrap(),
        SETTINGS
    );
    assert!(!m.file("GEMINI.md").exists());
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
    m.assert_end_hook_captures("gemini-cli", &payload("SessionEnd", &chat), "proj7");
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
    let t = memsync::harnesses::read(&text);
    let request = t.first(memsync::transcript::Role::User).unwrap();
    assert_eq!(request, "Add a hello world script");
}

#[test]
fn connect_qwen_code_adds_hooks_in_seconds_the_mcp_server_and_a_qwen_md_block_turns_harvest_on_and_disconnect_gives_every_byte_back()
 {
    let m = Machine::with(".qwen");
    let out = m.run(&["connect", "qwen-code"], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("`qwen -p` ends no session"), "{said}");
    let s = m.settings();
    assert_eq!(s["ui"]["theme"], "Default", "the person's keys stay");
    for event in [
        "SessionEnd",
        "PostCompact",
        "SessionStart",
        "UserPromptSubmit",
    ] {
        let handler = &s["hooks"][event][0]["hooks"][0];
        let command = handler["command"].as_str().unwrap();
        assert!(command.ends_with("capture --hook qwen-code"), "{command}");
        // qwen-code reads 1000 or more as milliseconds, less as seconds.
        assert_eq!(handler["timeout"], 30, "{event}");
    }
    let server = &s["mcpServers"]["memsync"];
    assert_eq!(server["args"][2], "mcp");
    assert!(server.get("type").is_none(), "{server}");
    let qwen_md = std::fs::read_to_string(m.file("QWEN.md")).unwrap();
    assert!(qwen_md.contains(&*m.ws.join("MEMORY.md").to_string_lossy()));

    // `qwen -p` ends no session for a hook: harvest is on and brings it in.
    let chats = m.file("projects/-home-dev-proj11/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let sample_chat = sample("qwen-code-0.24.4").map(|d| {
        let file = std::fs::read_dir(d)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let to = chats.join(file.file_name().unwrap());
        std::fs::copy(&file, &to).unwrap();
        // Idle on the test's fixed clock, whenever the test runs.
        common::set_mtime_at(&to, "2026-11-26T12:00:00Z");
    });
    if sample_chat.is_some() {
        let harvest = m.run(&["harvest"], "");
        assert!(
            harvest.status.success(),
            "{}",
            String::from_utf8_lossy(&harvest.stderr)
        );
        let memory = std::fs::read_to_string(m.ws.join("MEMORY.md")).unwrap();
        assert!(
            memory.contains("proj11: Add a hello world script"),
            "{memory}"
        );
        m.assert_doctor_ok("qwen-code");
    }

    let off = m.run(&["disconnect", "qwen-code"], "");
    assert!(
        off.status.success(),
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(m.file("settings.json")).unwrap(),
        SETTINGS
    );
    assert!(!m.file("QWEN.md").exists());
    let qwen = m.doctor_report("qwen-code");
    assert_eq!(qwen["connected"], false, "{qwen}");
}

/// A payload as qwen-code 0.24.4 sends it: Claude Code's fields and events.
fn qwen_payload(event: &str, transcript: &Path, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "session_id": "8bd8249f-1000-44dd-b2c8-a855bfea490b",
        "transcript_path": transcript,
        "cwd": "/home/dev/proj11",
        "hook_event_name": event,
        "timestamp": "2026-11-26T03:18:30.000Z",
        "permission_mode": "yolo",
    });
    for (k, value) in extra.as_object().unwrap() {
        v[k] = value.clone();
    }
    v.to_string()
}

#[test]
fn qwen_codes_hooks_capture_an_interactive_exit_and_a_compaction_and_answer_at_start() {
    let Some(dir) = sample("qwen-code-0.24.4") else {
        return;
    };
    let chat = std::fs::read_dir(dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let m = Machine::with(".qwen");
    let hook = |payload: String| m.run_live(&["capture", "--hook", "qwen-code"], &payload);
    let exit = serde_json::json!({"reason": "prompt_input_exit"});
    m.assert_end_hook_captures(
        "qwen-code",
        &qwen_payload("SessionEnd", &chat, exit),
        "proj11",
    );

    // qwen-code's PostCompact carries the summary it kept, as Claude Code's does.
    let compact = hook(qwen_payload(
        "PostCompact",
        &chat,
        serde_json::json!({"trigger": "manual", "compact_summary": "We added hello.py; next: a test for it."}),
    ));
    assert!(compact.status.success());
    m.wait_for_ledger("proj11");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while common::harness::artifacts(&m.ws, "compaction").is_empty()
        && std::time::Instant::now() < deadline
    {
        m.run_live(&["capture", "jobs"], "");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let compaction = common::harness::artifacts(&m.ws, "compaction");
    assert!(
        compaction.iter().any(|c| c.contains("next: a test for it")),
        "{compaction:?}"
    );

    let start = m.run(
        &["capture", "--hook", "qwen-code"],
        &qwen_payload(
            "SessionStart",
            &chat,
            serde_json::json!({"source": "startup"}),
        ),
    );
    let reply: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        reply["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("changed hello.py"),
        "{reply}"
    );
    // qwen-code asks again after a tool call with an empty prompt, and ends each turn with Stop.
    for (event, extra) in [
        ("UserPromptSubmit", serde_json::json!({"prompt": ""})),
        ("Stop", serde_json::json!({"stop_hook_active": false})),
    ] {
        let out = m.run(
            &["capture", "--hook", "qwen-code"],
            &qwen_payload(event, &chat, extra),
        );
        assert!(out.status.success(), "{event}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.trim().is_empty(), "{event}: {said}");
    }
}

/// The hook commands connect wrote stay known while any harness with hooks
/// is connected, so disconnecting one harness never leaves another's
/// commands unrecognised (they were all forgotten with Claude Code's).
#[test]
fn disconnecting_one_harness_with_hooks_keeps_the_hook_commands_another_still_uses() {
    let m = Machine::new();
    std::fs::create_dir_all(m.home.join(".claude")).unwrap();
    for h in ["claude-code", "gemini-cli"] {
        let out = m.run(&["connect", h], "");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let record = m.home.join(".local/state/memsync/connect.json");
    let hooks = || -> Vec<String> {
        std::fs::read_to_string(&record)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| serde_json::from_value(v["hooks"].clone()).ok())
            .unwrap_or_default()
    };
    assert!(!hooks().is_empty());
    assert!(m.run(&["disconnect", "claude-code"], "").status.success());
    assert!(
        hooks().iter().any(|h| h.contains("gemini")),
        "{:?}",
        hooks()
    );
    assert!(m.run(&["disconnect", "gemini-cli"], "").status.success());
    assert!(hooks().is_empty(), "{:?}", hooks());
}
