//! Gemini CLI, qwen-code, GitHub Copilot CLI, opencode and Cline: the files
//! the real programs wrote (`../shared/harness-samples/`) are each claimed
//! by their own reader and no other, captured with the person's request and
//! the agent's report (snapshots of the summary and the MEMORY.md row), and
//! harvested from the programs' own folders, opencode's from its SQLite
//! database, read-only.

mod common;

use std::path::{Path, PathBuf};

use common::{harness_sample as sample, run_at};
use memsync::harness::Harness;
use memsync::transcript::Format;

const NOW: &str = "2026-11-27T12:00:00Z";

/// Every session file in a sample folder (`.jsonl`, and Cline's `.messages.json`).
fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".jsonl") || name.ends_with(".messages.json")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn each_sample_is_claimed_by_its_own_reader_and_no_other() {
    let expected = [
        (
            "gemini-cli-0.61.0/chats",
            Format::Harness(Harness::GeminiCli),
        ),
        ("qwen-code-0.24.4", Format::Harness(Harness::QwenCode)),
        ("copilot-cli-1.0.102", Format::Harness(Harness::CopilotCli)),
        ("opencode-1.18.33", Format::Harness(Harness::Opencode)),
        ("cline-3.0.65", Format::Harness(Harness::Cline)),
        (
            "claude-code-2.1.332/transcripts",
            Format::Harness(Harness::ClaudeCode),
        ),
        ("codex-0.169.0", Format::Harness(Harness::Codex)),
        ("pi-0.73.1", Format::Harness(Harness::Pi)),
    ];
    let mut checked = 0;
    for (rel, format) in expected {
        let Some(dir) = sample(rel) else { return };
        for file in session_files(&dir) {
            let text = std::fs::read_to_string(&file).unwrap();
            let t = memsync::harnesses::read(&text);
            assert_eq!(t.format, format, "{}", file.display());
            assert!(t.understood(), "{}: nothing read", file.display());
            assert!(t.session_id.is_some(), "{}: no session id", file.display());
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} sample files");
}

/// `memsync harvest --json` in `home` at `now`, its report.
fn harvest_json(home: &Path, ws: &Path, now: &str, extra: &[&str]) -> serde_json::Value {
    let out = common::memsync_bin()
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .args([
            "--workspace",
            &ws.to_string_lossy(),
            "--now",
            now,
            "--json",
            "harvest",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A workspace that captured one file.
fn captured(file: &Path) -> common::captured::Captured {
    captured_with(file, &[])
}

fn captured_with(file: &Path, extra: &[&str]) -> common::captured::Captured {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let path = file.to_string_lossy();
    let mut args = vec!["capture", "session-end", "--transcript", &path];
    args.extend(extra);
    let out = run_at(&ws, NOW, &args);
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    common::captured::Captured { _tmp: tmp, ws }
}

fn pin(name: &str, c: &common::captured::Captured) {
    insta::assert_snapshot!(format!("{name}_summary"), c.summary());
    insta::assert_snapshot!(format!("{name}_memory_md_row"), c.ledger_rows());
}

#[test]
fn a_gemini_cli_chat_gives_the_request_its_file_and_the_report_not_the_session_context() {
    let Some(file) = sample("gemini-cli-0.61.0/chats/session-2026-11-26T03-17-c9ee067c.jsonl")
    else {
        return;
    };
    let c = captured(&file);
    let summary = c.summary();
    assert!(!c.everything().contains("session_context"));
    assert!(summary.contains("hello.py"), "{summary}");
    assert!(c.manifest().contains("harness: \"gemini-cli\""));
    assert!(c.manifest().contains("project: \"/home/dev/proj7\""));
    pin("gemini_cli_0_61", &c);
}

#[test]
fn a_failed_gemini_write_changes_no_file_and_a_memory_question_is_the_request() {
    let Some(failed) = sample("gemini-cli-0.61.0/chats/session-2026-11-26T03-14-2690b177.jsonl")
    else {
        return;
    };
    let rows = captured(&failed).ledger_rows();
    assert!(!rows.contains("changed"), "{rows}");
    let Some(recall) = sample("gemini-cli-0.61.0/chats/session-2026-11-26T03-16-79fbf40c.jsonl")
    else {
        return;
    };
    let rows = captured(&recall).ledger_rows();
    assert!(
        rows.contains("search your memory for the hello world work"),
        "{rows}"
    );
}

#[test]
fn a_qwen_code_chat_is_not_taken_for_claude_code() {
    let Some(dir) = sample("qwen-code-0.24.4") else {
        return;
    };
    let c = captured(&session_files(&dir)[0]);
    assert!(c.manifest().contains("harness: \"qwen-code\""));
    assert!(c.ledger_rows().contains("changed hello.py"));
    pin("qwen_code_0_24", &c);
}

#[test]
fn copilot_cli_events_give_the_typed_request_without_the_clis_datetime() {
    let Some(file) = sample("copilot-cli-1.0.102/events.jsonl") else {
        return;
    };
    let c = captured(&file);
    assert!(!c.everything().contains("current_datetime"));
    assert!(c.manifest().contains("harness: \"copilot-cli\""));
    assert!(c.manifest().contains("project: \"/home/dev/proj12\""));
    pin("copilot_cli_1_0", &c);
}

#[test]
fn a_cline_session_document_is_unwrapped_from_its_user_input_tag() {
    let Some(file) = sample("cline-3.0.65/session.messages.json") else {
        return;
    };
    let c = captured(&file);
    assert!(!c.everything().contains("<user_input"));
    assert!(c.manifest().contains("harness: \"cline\""));
    assert!(c.manifest().contains("project: \"/home/dev/proj13\""));
    pin("cline_3_0", &c);
}

#[test]
fn harvest_reads_every_new_harness_from_its_own_folder_and_opencodes_database_read_only() {
    let Some(samples) = sample("") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = common::captured::new_harness_home(&samples, &home);
    let db_before = std::fs::read(&db).unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    assert!(run_at(&ws, NOW, &["init"]).status.success());
    let harvest = |now: &str| harvest_json(&home, &ws, now, &[]);
    let first = harvest(NOW);
    let captured: Vec<String> = first["captured"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["harness"].as_str().unwrap().to_string())
        .collect();
    for (harness, n) in [
        ("gemini-cli", 3),
        ("qwen-code", 1),
        ("copilot-cli", 1),
        ("opencode", 3),
        ("cline", 1),
    ] {
        let got = captured.iter().filter(|h| *h == harness).count();
        assert_eq!(got, n, "{harness}: {first:#}");
    }
    let again = harvest("2026-11-27T12:05:00Z");
    assert_eq!(again["unchanged"], 9, "{again:#}");
    assert!(again["captured"].as_array().unwrap().is_empty());
    assert_eq!(
        std::fs::read(&db).unwrap(),
        db_before,
        "opencode.db was written"
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    // opencode's first session's write failed: no file changed there.
    let proj9 = memory
        .lines()
        .find(|l| l.contains("project=/home/dev/proj9"))
        .unwrap();
    assert!(!proj9.contains("changed"), "{proj9}");
    assert!(memory.contains("project=/home/dev/proj10"));
}

/// Copilot CLI ends a session with `session.shutdown`: harvest takes that
/// session at once, and waits `idle_minutes` only for one without it.
#[test]
fn a_copilot_session_its_program_shut_down_is_harvested_without_waiting_for_idle() {
    let Some(events) = sample("copilot-cli-1.0.102/events.jsonl") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let text = std::fs::read_to_string(events).unwrap();
    let state = home.join(".copilot/session-state");
    for (id, body) in [
        ("0084ec3e-9d67-46ba-afff-a2b9e7f34428", text.clone()),
        (
            "11111111-2222-4333-8444-555555555555",
            // The same session still running: no shutdown yet.
            text.lines()
                .filter(|l| !l.contains("\"type\":\"session.shutdown\""))
                .map(|l| {
                    l.replace(
                        "0084ec3e-9d67-46ba-afff-a2b9e7f34428",
                        "11111111-2222-4333-8444-555555555555",
                    ) + "\n"
                })
                .collect(),
        ),
    ] {
        std::fs::create_dir_all(state.join(id)).unwrap();
        std::fs::write(state.join(id).join("events.jsonl"), body).unwrap();
        common::set_mtime_at(&state.join(id).join("events.jsonl"), "2026-11-26T03:18:42Z");
    }
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    assert!(run_at(&ws, NOW, &["init"]).status.success());
    // A minute after the session's last event; idle_minutes is 30.
    let report = harvest_json(
        &home,
        &ws,
        "2026-11-26T03:19:42Z",
        &["--harness", "copilot-cli"],
    );
    let captured = report["captured"].as_array().unwrap();
    assert_eq!(captured.len(), 1, "{report:#}");
    assert_eq!(
        captured[0]["session_id"],
        "0084ec3e-9d67-46ba-afff-a2b9e7f34428"
    );
    assert_eq!(report["live"], 1, "{report:#}");
}

#[test]
fn an_opencode_session_gives_its_request_its_file_and_its_report() {
    let Some(samples) = sample("") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = common::captured::new_harness_home(&samples, &tmp.path().join("home"));
    let c = captured_with(&db, &["--session-id", "ses_dea23fd5fffeCl8f891mhV7r2E"]);
    assert!(c.manifest().contains("harness: \"opencode\""));
    assert!(c.manifest().contains("project: \"/home/dev/proj10\""));
    pin("opencode_1_18", &c);
}

/// One session of the sample's rows as `opencode export <id>` writes it:
/// `{info, messages: [{info, parts}]}`, pretty-printed.
fn opencode_export(rows: &Path, session: &str) -> String {
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(rows)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |table: &'static str| rows.iter().filter(move |r| r["table"] == table);
    let s = of("session").find(|r| r["id"] == session).unwrap();
    let messages: Vec<serde_json::Value> = of("message")
        .filter(|m| m["session_id"] == session)
        .map(|m| {
            let mut info = m["data"].clone();
            info["id"] = m["id"].clone();
            info["sessionID"] = session.into();
            let parts: Vec<serde_json::Value> = of("part")
                .filter(|p| p["message_id"] == m["id"])
                .map(|p| {
                    let mut part = p["data"].clone();
                    part["id"] = p["id"].clone();
                    part["messageID"] = m["id"].clone();
                    part
                })
                .collect();
            serde_json::json!({"info": info, "parts": parts})
        })
        .collect();
    let info = serde_json::json!({"id": session, "directory": s["directory"], "title": s["title"],
        "time": {"created": s["time_created"], "updated": s["time_updated"]}});
    serde_json::to_string_pretty(&serde_json::json!({"info": info, "messages": messages})).unwrap()
}

#[test]
fn an_opencode_export_is_read_as_the_session_it_holds_not_refused() {
    let Some(rows) = sample("opencode-1.18.33/rows.jsonl") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let session = "ses_dea23fd5fffeCl8f891mhV7r2E";
    let export = tmp.path().join("export.json");
    std::fs::write(&export, opencode_export(&rows, session)).unwrap();
    let t = memsync::harnesses::read(&std::fs::read_to_string(&export).unwrap());
    assert_eq!(t.format, Format::Harness(Harness::Opencode));
    assert_eq!(t.session_id.as_deref(), Some(session));
    let c = captured(&export);
    assert!(c.manifest().contains("harness: \"opencode\""));
    assert!(c.manifest().contains("project: \"/home/dev/proj10\""));
    // The same session as the database gives.
    let db = common::captured::new_harness_home(&sample("").unwrap(), &tmp.path().join("home"));
    let from_db = captured_with(&db, &["--session-id", session]);
    let sentence = |c: &common::captured::Captured| {
        let manifest = c.manifest();
        manifest
            .lines()
            .find(|l| l.starts_with("# "))
            .unwrap()
            .to_string()
    };
    assert_eq!(sentence(&c), sentence(&from_db));
}

#[test]
fn capture_reads_one_session_of_an_opencode_database_by_id_or_the_newest() {
    let Some(samples) = sample("") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = common::captured::new_harness_home(&samples, &tmp.path().join("home"));
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let db = db.to_string_lossy().into_owned();
    let capture = |extra: &[&str]| {
        let mut args = vec!["capture", "session-end", "--transcript", &db];
        args.extend(extra);
        run_at(&ws, NOW, &args)
    };
    let newest = capture(&[]);
    assert!(
        newest.status.success(),
        "{}",
        String::from_utf8_lossy(&newest.stderr)
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    assert!(
        memory.contains("session=ses_dea23edbdffeum0pW6JHDnVO24"),
        "{memory}"
    );
    let by_id = capture(&["--session-id", "ses_dea242a7bffeW7X5lD78S7y4GD"]);
    assert!(by_id.status.success());
    let missing = capture(&["--session-id", "ses_nope"]);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("holds no session ses_nope") && err.contains("ses_dea242a7"),
        "{err}"
    );
}

/// An older Gemini CLI's chat: one JSON document, rewritten whole each turn.
fn gemini_document(messages: &[serde_json::Value]) -> String {
    serde_json::json!({
        "sessionId": "5b1c0f7e-0000-4000-8000-00000000abcd",
        "projectHash": "ebd06dc6566bef4a15b663fdce2fa643893cecffb89b330155527143002f55f8",
        "startTime": "2026-11-20T09:00:00.000Z",
        "lastUpdated": "2026-11-20T09:05:00.000Z",
        "messages": messages,
    })
    .to_string()
}

fn turn(id: &str, ty: &str, at: &str, text: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "timestamp": at, "type": ty, "content": text})
}

#[test]
fn an_older_gemini_document_is_read_and_its_rewrites_are_a_growing_session_not_a_replaced_one() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let chats = home.join(".gemini/tmp/3f2a/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let chat = chats.join("session-2026-11-20T09-00-5b1c0f7e.json");
    let mut turns = vec![
        turn(
            "u1",
            "user",
            "2026-11-20T09:00:00.000Z",
            "Fix the retry loop in fetch.rs",
        ),
        turn(
            "g1",
            "gemini",
            "2026-11-20T09:01:00.000Z",
            "The retry loop now backs off exponentially.",
        ),
    ];
    std::fs::write(&chat, gemini_document(&turns)).unwrap();
    common::set_mtime_at(&chat, "2026-11-20T09:01:01Z");
    let t = memsync::harnesses::read(&std::fs::read_to_string(&chat).unwrap());
    assert_eq!(t.format, Format::Harness(Harness::GeminiCli));
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    assert!(run_at(&ws, NOW, &["init"]).status.success());
    let harvest = |now: &str| harvest_json(&home, &ws, now, &["--harness", "gemini-cli"]);
    let first = harvest(NOW);
    assert_eq!(first["captured"].as_array().unwrap().len(), 1, "{first:#}");
    // The next turn: Gemini CLI writes the document anew (a new inode, other last bytes).
    turns.push(turn(
        "u2",
        "user",
        "2026-11-20T10:00:00.000Z",
        "Add a test for the backoff",
    ));
    turns.push(turn(
        "g2",
        "gemini",
        "2026-11-20T10:01:00.000Z",
        "Added test_backoff_doubles.",
    ));
    let next = chats.join(".next");
    std::fs::write(&next, gemini_document(&turns)).unwrap();
    std::fs::rename(&next, &chat).unwrap();
    common::set_mtime_at(&chat, "2026-11-20T10:01:01Z");
    let second = harvest("2026-11-27T13:00:00Z");
    assert!(
        second["replaced"].as_array().is_none_or(|r| r.is_empty()),
        "{second:#}"
    );
    assert_eq!(
        second["continued"].as_array().unwrap().len(),
        1,
        "{second:#}"
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    assert!(memory.contains("backoff"), "{memory}");
}

/// A session of the Copilot CLI before 1.0, as it kept one: a pretty-printed
/// JSON document in `history-session-state/`, messages in the OpenAI chat
/// shape, an editor tool whose `command` is the edit.
const COPILOT_LEGACY: &str = r#"{
  "sessionId": "7f3c2a10-5b1e-4c8a-9d2f-1a2b3c4d5e6f",
  "startTime": "2026-11-20T09:00:00.000Z",
  "chatMessages": [
    { "role": "user", "content": "Fix the flaky retry test in pay.py" },
    {
      "role": "assistant",
      "content": "",
      "tool_calls": [
        {
          "id": "call_1",
          "type": "function",
          "function": {
            "name": "str_replace_editor",
            "arguments": "{\"command\":\"str_replace\",\"path\":\"pay.py\",\"old_str\":\"sleep(1)\",\"new_str\":\"clock.sleep(1)\"}"
          }
        }
      ]
    },
    { "role": "tool", "tool_call_id": "call_1", "content": "The file pay.py has been edited." },
    { "role": "assistant", "content": "The retry now waits on a fake clock; the test passes 100 of 100 runs." }
  ],
  "timeline": []
}
"#;

#[test]
fn an_older_copilot_cli_session_document_is_read_and_harvested_not_refused() {
    let t = memsync::harnesses::read(COPILOT_LEGACY);
    assert_eq!(t.format, Format::Harness(Harness::CopilotCli));
    assert_eq!(
        t.session_id.as_deref(),
        Some("7f3c2a10-5b1e-4c8a-9d2f-1a2b3c4d5e6f")
    );
    // The editor's `str_replace` is an edit of pay.py, not a shell command.
    assert_eq!(t.files(), vec!["pay.py"]);
    assert!(t.commands().is_empty(), "{:?}", t.commands());
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let legacy = home.join(".copilot/history-session-state");
    std::fs::create_dir_all(&legacy).unwrap();
    let doc = legacy.join("session_7f3c2a10-5b1e-4c8a-9d2f-1a2b3c4d5e6f_1795770000000.json");
    std::fs::write(&doc, COPILOT_LEGACY).unwrap();
    common::set_mtime_at(&doc, "2026-11-20T09:05:00Z");
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    assert!(run_at(&ws, NOW, &["init"]).status.success());
    let report = harvest_json(&home, &ws, NOW, &["--harness", "copilot-cli"]);
    assert_eq!(
        report["captured"].as_array().unwrap().len(),
        1,
        "{report:#}"
    );
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap();
    assert!(
        memory.contains("Fix the flaky retry test in pay.py")
            && memory.contains("changed pay.py")
            && memory.contains("fake clock"),
        "{memory}"
    );
}
