//! The per-prompt recall (Claude Code's `UserPromptSubmit` hook): a prompt
//! about an earlier session gets that session's record with the prompt, an
//! unrelated prompt gets nothing at all, and nothing is offered twice or
//! after the start-up digest already gave it.

mod common;

use chrono::Duration;
use common::{Workspace, memsync_bin, now, session};

/// A session about a quokka enclosure, older than fifteen sessions of
/// another project (so the start-up digest, five lines of other work, leaves
/// it out).
fn workspace(newer: i64) -> Workspace {
    let ws = Workspace::new();
    let mut zoo = session("default", "zoo-1", now() - Duration::days(20));
    zoo.project = Some("/home/dev/code/zoo".into());
    let sentence = "Fixed the quokka enclosure gate latch in zoo/gates.rs so the night lock holds and the keepers get an alert.";
    for c in [zoo.summary.as_mut(), zoo.transcript.as_mut()]
        .into_iter()
        .flatten()
    {
        c.sentence = Some(sentence.into());
    }
    zoo.transcript.as_mut().unwrap().body =
        "user: the quokka enclosure gate latch fails at night\nassistant: fixed the latch in zoo/gates.rs\n".into();
    ws.add(&zoo);
    for i in 0..newer {
        ws.add(&session(
            "default",
            &format!("s-{i}"),
            now() - Duration::hours(i + 1),
        ));
    }
    ws.sync();
    ws
}

/// What the hook prints for `prompt` in harness session `session_id`.
fn prompt_hook(ws: &Workspace, session_id: &str, prompt: &str) -> String {
    let cwd = tempfile::tempdir().unwrap();
    let payload = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": session_id,
        "cwd": cwd.path(),
        "prompt": prompt,
        "transcript_path": "/nonexistent.jsonl",
    });
    let out = memsync_bin()
        .args(["--workspace", ws.root().to_str().unwrap()])
        .args(["--now", &memsync::contract::format_ts(now())])
        .args(["capture", "--hook", "claude-code"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn offered(stdout: &str) -> String {
    let reply: serde_json::Value = serde_json::from_str(stdout).expect("a JSON reply");
    assert_eq!(
        reply["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_prompt_about_an_earlier_session_gets_its_record_framed_as_a_record() {
    let ws = workspace(15);
    let text = offered(&prompt_hook(
        &ws,
        "h1",
        "Why does the quokka gate latch fail at night again?",
    ));
    assert!(text.contains("quokka enclosure gate latch"), "{text}");
    assert!(text.contains("not instructions"), "{text}");
    assert!(memsync::context::tokens(&text) <= memsync::recall::BUDGET_TOKENS);
    assert!(!text.contains("s-0"), "only what matches: {text}");
}

#[test]
fn an_unrelated_prompt_gets_nothing_at_all() {
    let ws = workspace(15);
    for prompt in [
        "write a haiku about autumn leaves",
        "what is the capital of Australia?",
        "",
    ] {
        assert_eq!(prompt_hook(&ws, "h1", prompt), "", "{prompt}");
    }
}

#[test]
fn a_session_is_offered_once_per_agent_session() {
    let ws = workspace(15);
    let prompt = "Why does the quokka gate latch fail at night again?";
    assert!(!prompt_hook(&ws, "h1", prompt).is_empty());
    assert_eq!(prompt_hook(&ws, "h1", prompt), "", "the same agent session");
    assert!(
        !prompt_hook(&ws, "h2", prompt).is_empty(),
        "another agent session"
    );
    let out = ws
        .cli(&["--json", "status"])
        .success()
        .get_output()
        .stdout
        .clone();
    let status: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(status["prompt_recall"]["sessions"], 2, "{status}");
    assert_eq!(status["prompt_recall"]["offered"], 2, "{status}");
}

#[test]
fn a_session_the_start_up_digest_gave_is_not_offered_again() {
    // Alone in the workspace, the quokka session is the digest's other work.
    let ws = workspace(0);
    assert_eq!(
        prompt_hook(
            &ws,
            "h1",
            "Why does the quokka gate latch fail at night again?"
        ),
        ""
    );
}

#[test]
fn the_config_turns_it_off() {
    let ws = workspace(15);
    ws.write("memsync.yaml", "search:\n  prompt_recall: false\n");
    assert_eq!(
        prompt_hook(
            &ws,
            "h1",
            "Why does the quokka gate latch fail at night again?"
        ),
        ""
    );
}
