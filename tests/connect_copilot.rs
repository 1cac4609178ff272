//! `memsync connect copilot-cli`: sessionEnd, sessionStart and
//! userPromptSubmitted hooks listed flat in `~/.copilot/settings.json` beside
//! the person's own (comments and trailing commas kept, as Copilot CLI reads
//! them), the MCP server in `mcp-config.json`, a block in
//! `copilot-instructions.md`, `doctor`, and an exact `disconnect`; and the
//! hook fed the payloads Copilot CLI 1.0.102 sends (no event name, no
//! transcript path), with the session's events where Copilot keeps them.

mod common;

use std::path::PathBuf;

use common::{harness_sample as sample, memsync_bin};

const NOW: &str = "2026-11-27T12:00:00Z";

/// The person's own settings as Copilot CLI accepts them: a comment, a hook
/// of theirs, a trailing comma.
const SETTINGS: &str = "// mine\n{\n  \"hooks\": {\n    \"sessionEnd\": [\n      { \"type\": \"command\", \"bash\": \"./notify.sh\" },\n    ],\n  },\n  \"theme\": \"dark\"\n}\n";

struct Machine {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".copilot")).unwrap();
        std::fs::write(home.join(".copilot/settings.json"), SETTINGS).unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(
            ws.join("memsync.yaml"),
            "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
        )
        .unwrap();
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

    fn file(&self, name: &str) -> PathBuf {
        self.home.join(".copilot").join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).unwrap_or_default()
    }

    /// The file's JSON, read as Copilot CLI reads it (comments, trailing commas).
    fn json(&self, name: &str) -> serde_json::Value {
        let text = self.read(name);
        jsonc_parser::parse_to_serde_value::<serde_json::Value>(&text, &Default::default()).unwrap()
    }

    /// Runs the queued capture jobs and waits (20 s at most) for MEMORY.md to
    /// hold `needle`: the hook's own worker may be the one running them.
    fn wait_for_ledger(&self, needle: &str) -> String {
        let jobs = self.run_live(&["capture", "jobs"], "");
        assert!(jobs.status.success(), "{}", said(&jobs));
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

fn said(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn connect_lists_bash_hooks_beside_the_persons_the_mcp_server_and_an_instructions_block_and_disconnect_gives_every_byte_back()
 {
    let m = Machine::new();
    let dry = m.run(&["connect", "copilot-cli", "--dry-run"], "");
    assert!(dry.status.success(), "{}", said(&dry));
    assert_eq!(
        m.read("settings.json"),
        SETTINGS,
        "a dry run writes nothing"
    );
    assert!(!m.file("mcp-config.json").exists());

    let out = m.run(&["connect", "copilot-cli"], "");
    assert!(out.status.success(), "{}", said(&out));
    let text = m.read("settings.json");
    assert!(
        text.starts_with("// mine\n") && text.contains("\"theme\": \"dark\""),
        "{text}"
    );
    let settings = m.json("settings.json");
    let ends = settings["hooks"]["sessionEnd"].as_array().unwrap();
    assert_eq!(
        ends[0]["bash"], "./notify.sh",
        "the person's hook stays first"
    );
    for event in ["sessionEnd", "sessionStart", "userPromptSubmitted"] {
        let ours = settings["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| {
                h["bash"]
                    .as_str()
                    .is_some_and(|c| c.ends_with("capture --hook copilot-cli"))
            })
            .unwrap_or_else(|| panic!("no memsync {event} hook: {text}"));
        assert_eq!(
            (&ours["type"], &ours["timeoutSec"]),
            (&"command".into(), &30.into())
        );
    }
    let server = &m.json("mcp-config.json")["mcpServers"]["memsync"];
    assert_eq!(server["type"], "local");
    assert_eq!(server["tools"], serde_json::json!(["*"]));
    let args = server["args"].as_array().unwrap();
    assert_eq!(args.last().unwrap(), "mcp");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(m.file("mcp-config.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "mcp-config.json holds tokens: {mode:o}");
    let instructions = m.read("copilot-instructions.md");
    assert!(
        instructions.contains(&*m.ws.join("MEMORY.md").to_string_lossy()),
        "{instructions}"
    );

    let again = m.run(&["connect", "copilot-cli"], "");
    assert!(again.status.success(), "{}", said(&again));
    assert_eq!(
        m.read("settings.json"),
        text,
        "a second connect changes nothing"
    );

    let doctor = m.run(&["--json", "doctor"], "");
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let copilot = report["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == "copilot-cli")
        .unwrap_or_else(|| panic!("doctor reports no copilot-cli: {report}"));
    assert_eq!(copilot["connected"], true);
    for check in copilot["checks"].as_array().unwrap() {
        assert_eq!(check["level"], "ok", "{check}");
    }

    let out = m.run(&["disconnect", "copilot-cli"], "");
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(m.read("settings.json"), SETTINGS);
    assert!(!m.file("mcp-config.json").exists());
    assert!(!m.file("copilot-instructions.md").exists());
}

#[test]
fn an_mcp_server_named_memsync_that_memsync_did_not_write_is_kept_unless_forced() {
    let m = Machine::new();
    let theirs = "{\n  \"mcpServers\": {\n    \"memsync\": { \"type\": \"local\", \"command\": \"/opt/other\", \"args\": [\"serve\"], \"tools\": [\"*\"] }\n  }\n}\n";
    std::fs::write(m.file("mcp-config.json"), theirs).unwrap();
    let out = m.run(&["connect", "copilot-cli"], "");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("mcp-config.json"), "{}", said(&out));
    assert_eq!(m.read("mcp-config.json"), theirs);
    assert_eq!(m.read("settings.json"), SETTINGS, "nothing is half done");
    let forced = m.run(&["connect", "copilot-cli", "--force"], "");
    assert!(forced.status.success(), "{}", said(&forced));
    assert_eq!(
        m.json("mcp-config.json")["mcpServers"]["memsync"]["args"][2],
        "mcp"
    );
}

/// Copilot CLI 1.0.102's payloads carry no event name and, at sessionEnd, no
/// transcript path: the session's events are in `session-state/<id>/`.
#[test]
fn the_hook_captures_a_copilot_session_from_its_events_and_answers_its_start_at_the_top_level() {
    let Some(events) = sample("copilot-cli-1.0.102/events.jsonl") else {
        return;
    };
    let m = Machine::new();
    let id = "0084ec3e-9d67-46ba-afff-a2b9e7f34428";
    let dir = m.file("session-state").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(events, dir.join("events.jsonl")).unwrap();
    let end = format!(
        r#"{{"sessionId":"{id}","timestamp":1795776768146,"cwd":"/home/dev/proj12","reason":"complete"}}"#
    );
    let out = m.run_live(&["capture", "--hook", "copilot-cli"], &end);
    assert!(out.status.success(), "{}", said(&out));
    assert!(out.stdout.is_empty(), "a capture hook prints nothing");
    let memory = m.wait_for_ledger("proj12: ");
    assert!(
        memory.contains("proj12: Add a hello world script;")
            && memory.contains("outcome: I added hello.py"),
        "{memory}"
    );

    let start = format!(
        r#"{{"sessionId":"{id}","timestamp":1795776768043,"cwd":"/home/dev/proj12","source":"new","initialPrompt":"Say hi"}}"#
    );
    let out = m.run_live(&["capture", "--hook", "copilot-cli"], &start);
    let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = reply["additionalContext"].as_str().unwrap_or_default();
    assert!(context.contains("Add a hello world script"), "{reply}");
    assert!(reply.get("hookSpecificOutput").is_none(), "{reply}");
}
