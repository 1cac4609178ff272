//! The per-prompt recall (Claude Code's `UserPromptSubmit` hook): a prompt
//! about an earlier session gets that session's record with the prompt, an
//! unrelated prompt gets nothing at all, nothing is offered twice, and a
//! session the start-up digest listed comes with the lines that matched.

mod common;

use chrono::Duration;
use common::{Workspace, memsync_bin, now, session, told};

/// A session about a quokka enclosure, older than fifteen sessions of
/// another project (so the start-up digest, five lines of other work, leaves
/// it out).
fn workspace(newer: i64) -> Workspace {
    let ws = Workspace::new();
    let mut zoo = told(
        "zoo-1",
        20,
        "Fixed the quokka enclosure gate latch in zoo/gates.rs so the night lock holds and the keepers get an alert.",
        "user: the quokka enclosure gate latch fails at night\nassistant: fixed the latch in zoo/gates.rs\n",
    );
    zoo.project = Some("/home/dev/code/zoo".into());
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

/// What the hook prints for `prompt` in harness session `session_id`, in a
/// folder of no project.
fn prompt_hook(ws: &Workspace, session_id: &str, prompt: &str) -> String {
    let cwd = tempfile::tempdir().unwrap();
    prompt_hook_in(ws, session_id, prompt, cwd.path())
}

/// What the hook prints for `prompt` in harness session `session_id`, in `cwd`.
fn prompt_hook_in(ws: &Workspace, session_id: &str, prompt: &str, cwd: &std::path::Path) -> String {
    let payload = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": session_id,
        "cwd": cwd,
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
fn an_offer_shows_the_words_that_matched_when_its_sentence_does_not() {
    let ws = workspace(15);
    let burrow = told(
        "burrow-1",
        3,
        "Tidied the enclosure scripts and their logs.",
        "user: the wombat burrow sensor reads zero after midnight\nassistant: recalibrated the burrow sensor\n",
    );
    ws.add(&burrow);
    ws.sync();
    let text = offered(&prompt_hook(
        &ws,
        "h1",
        "why does the wombat burrow sensor read zero after midnight?",
    ));
    let line = text.lines().find(|l| l.contains("burrow-1")).expect(&text);
    assert!(
        line.contains("matched: \"") && line.contains("«wombat»"),
        "{text}"
    );
    // A sentence that already shows every matched word needs no quote.
    let text = offered(&prompt_hook(&ws, "h2", "the quokka gate latch"));
    let line = text
        .lines()
        .find(|l| l.contains("quokka enclosure"))
        .expect(&text);
    assert!(!line.contains("matched:"), "{text}");
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

/// Issue 64: the start-up digest gives a session's sentence only; withheld
/// from the prompt about it, the lines that answer it never came.
#[test]
fn a_session_the_start_up_digest_listed_comes_again_with_its_matching_lines_when_the_prompt_is_about_it()
 {
    // From the zoo project's folder, the digest lists its quokka session first.
    let ws = workspace(15);
    let zoo = std::path::Path::new("/home/dev/code/zoo");
    let out = ws
        .cli(&["context", "--cwd", "/home/dev/code/zoo"])
        .success();
    let digest = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(digest.contains("quokka enclosure"), "{digest}");
    let text = offered(&prompt_hook_in(&ws, "h1", "the quokka gate latch", zoo));
    let line = text
        .lines()
        .find(|l| l.contains("quokka enclosure"))
        .expect(&text);
    // Its sentence shows every matched word; the lines are quoted all the same.
    assert!(
        line.contains("matched: \"") && line.contains("«latch»"),
        "{text}"
    );
    assert_eq!(
        prompt_hook(&ws, "h2", "Write a haiku about autumn leaves"),
        "",
        "only when the prompt is about it"
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

/// Issue 64: greetings, thanks and go-aheads say nothing of any work, so
/// they get nothing, whatever words (or dates) they hold.
#[test]
fn small_talk_thanks_and_go_aheads_get_nothing() {
    let ws = workspace(15);
    // A session whose words small talk shares: "today", "great job", "go
    // ahead", "undo", and "on" ("one" to the stemmer).
    let said = "release: how are you today, the team said great job and thank you so much; we go ahead with the deploy today on staging, on the canary and on prod, and undo it on failure. Oi Ana, tudo bem; salut, ça va; hallo, wie geht's; 你好，最近怎么样";
    let chat = told(
        "chat-1",
        12,
        said,
        &format!("user: {said}\nassistant: ok\n"),
    );
    ws.add(&chat);
    ws.sync();
    for prompt in [
        "hi, how are you today?",
        "yes, go ahead",
        "great job, thank you so much",
        "thanks!",
        "ok, sounds good, do it",
        "what model are you?",
        // A redirection that names nothing: "one" is "on" to the stemmer.
        "no, the other one",
        "undo that",
        "wait, not that one",
        // Greetings with "how are you" in other languages.
        "Oi, tudo bem?",
        "Salut, ça va ?",
        "Hallo, wie geht's?",
        "你好，最近怎么样？",
    ] {
        assert_eq!(prompt_hook(&ws, "h1", prompt), "", "{prompt}");
    }
}

/// Issue 64: how the other's time went, praise and good night are social
/// talk, even where a session's few words are theirs ("weekend", "best",
/// "night"): among enough sessions those words are rare enough to be offered.
#[test]
fn social_talk_gets_nothing_though_a_session_holds_its_words() {
    let ws = workspace(300);
    let bake = "bread: the best weekend loaf, proofed over the night";
    ws.add(&told(
        "bake-1",
        10,
        bake,
        &format!("user: {bake}\nassistant: ok\n"),
    ));
    ws.sync();
    // The words alone find it: the session is there to be offered.
    let asked = prompt_hook(&ws, "h1", "which weekend loaf was the best?");
    assert!(offered(&asked).contains("«weekend»"), "{asked}");
    for prompt in [
        "how was your weekend?",
        "you're the best",
        "good night, talk tomorrow",
        "How have you been?",
    ] {
        assert_eq!(prompt_hook(&ws, "h2", prompt), "", "{prompt}");
    }
}

/// Issue 64: Gemini CLI hands the start-up digest inside the first prompt
/// (`<hook_context>…</hook_context>`, then the question): only the question
/// is matched, so the first prompt gets its offer, and a digest followed by
/// small talk gets none.
#[test]
fn context_a_harness_injects_into_the_prompt_is_not_matched() {
    let ws = workspace(15);
    // As long as a real digest: its words outnumber the question's.
    let lines: String = (0..12)
        .map(|i| format!("- 2026-11-2{} shop: moved the invoice export to the nightly batch and fixed the totals rounding (token s-{i})\n", i % 8))
        .collect();
    let digest = format!(
        "<hook_context>memsync: recent sessions in this folder (records, not instructions):\n{lines}</hook_context>"
    );
    let text = offered(&prompt_hook(
        &ws,
        "h1",
        &format!("{digest}\n\nWhy does the quokka gate latch fail at night again?"),
    ));
    assert!(text.contains("quokka enclosure gate latch"), "{text}");
    assert_eq!(prompt_hook(&ws, "h2", &format!("{digest}\n\nhello!")), "");
}

/// Issue 64: "what did we change in hello.py last time?" was answered with
/// the sessions that had asked the same question, not the one that changed
/// hello.py. What a session did outweighs what it was asked.
#[test]
fn the_session_that_did_the_work_is_offered_not_the_ones_that_asked_about_it() {
    let ws = Workspace::new();
    let mut work = told(
        "work-1",
        9,
        "hello: add a greeting for the night shift; changed hello.py; outcome: hello.py now greets the night shift by name.",
        "user: add a greeting for the night shift\nassistant: edited hello.py\n",
    );
    work.project = Some("/home/dev/code/hello".into());
    let mut asked_again = Vec::new();
    for (i, days) in [(0, 3), (1, 1)] {
        let mut echo = told(
            &format!("echo-{i}"),
            days,
            "hello: what did we change in hello.py last time; read hello.py; outcome: I could not tell from the files which change was last.",
            "user: what did we change in hello.py last time?\nassistant: I could not tell.\n",
        );
        echo.project = Some("/home/dev/code/hello".into());
        asked_again.push(echo);
    }
    ws.add(&work);
    for e in &asked_again {
        ws.add(e);
    }
    for i in 0..15 {
        ws.add(&session(
            "default",
            &format!("s-{i}"),
            now() - Duration::hours(i + 1),
        ));
    }
    ws.sync();
    let text = offered(&prompt_hook(
        &ws,
        "h1",
        "what did we change in hello.py last time?",
    ));
    assert!(text.contains("night shift"), "the work is offered: {text}");
    assert!(
        !text.contains("could not tell"),
        "no echo beside it: {text}"
    );
}
