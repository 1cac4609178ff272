//! How the outcome of a run whose transcript ends in its tool calls, with
//! nothing reported, is told (the helpers are the outcome tests').

use super::*;

fn user(uuid: &str, text: &str) -> serde_json::Value {
    serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
        "message": {"role": "user", "content": text}})
}

fn words(uuid: &str, text: &str) -> serde_json::Value {
    assistant(uuid, serde_json::json!([{"type": "text", "text": text}]))
}

fn call(uuid: &str, name: &str, input: serde_json::Value) -> serde_json::Value {
    assistant(
        uuid,
        serde_json::json!([{"type": "tool_use", "id": format!("t{uuid}"), "name": name, "input": input}]),
    )
}

fn calls() -> Vec<serde_json::Value> {
    vec![
        call(
            "c1",
            "Read",
            serde_json::json!({"file_path": "/p/payment.py"}),
        ),
        call(
            "c2",
            "Edit",
            serde_json::json!({"file_path": "/p/gateway.py"}),
        ),
        call("c3", "Bash", serde_json::json!({"command": "pytest"})),
    ]
}

/// The class: the agent's only words in the session come before its tool
/// calls and the transcript ends in them (the person closed the program, a
/// run was killed): an announcement in any language before one call or
/// more, or a remark on the way before two or more, is not what came of it.
#[test]
fn a_run_that_ends_in_its_calls_without_a_report_is_told_so() {
    let announcements = [
        "I'll start by splitting payment.py into gateway.py and refunds.py.",
        "Je vais d'abord découper payment.py en plusieurs fichiers.",
        "Let me read the payment module first.",
        "まず payment.py を読みます。",
    ];
    let remarks = [
        "Interesting, the fixtures are older than I thought.",
        "Hmm, this module has no tests at all.",
    ];
    for n in 1..=3 {
        for said in announcements {
            let mut lines = vec![
                user("u1", "refactor the payment module into smaller files"),
                words("a1", said),
            ];
            lines.extend(calls().into_iter().take(n));
            assert_eq!(outcome(&claude(&lines)), ENDED, "{said} / {n}");
        }
    }
    for n in 2..=3 {
        for said in remarks {
            let mut lines = vec![user("u1", "migrate the tests to pytest"), words("a1", said)];
            lines.extend(calls().into_iter().take(n));
            assert_eq!(outcome(&claude(&lines)), ENDED, "{said} / {n}");
        }
    }
}

/// What stays: a report after the calls, a report earlier in the session,
/// and a remark before a single call (it may be the answer, said while the
/// agent saved a note).
#[test]
fn a_report_anywhere_or_a_remark_before_one_call_stays_the_outcome() {
    let mut reported = vec![
        user("u1", "refactor the payment module"),
        words("a1", "Let me look."),
    ];
    reported.extend(calls());
    reported.push(words(
        "a2",
        "Split payment.py into gateway.py and refunds.py; tests pass.",
    ));
    assert_eq!(
        outcome(&claude(&reported)),
        "Split payment.py into gateway.py and refunds.py; tests pass."
    );
    let mut earlier = vec![
        user("u1", "set the screensaver to 10 minutes"),
        words("a1", "Done. The screensaver now waits 10 minutes."),
        user("u2", "now refactor the payment module"),
        words("a2", "I'll start with payment.py."),
    ];
    earlier.extend(calls());
    assert_eq!(
        outcome(&claude(&earlier)),
        "Done. The screensaver now waits 10 minutes."
    );
    let one = vec![
        user("u1", "is the cache thread-safe?"),
        words(
            "a1",
            "Yes: every access goes through the RwLock in cache.rs.",
        ),
        call(
            "c1",
            "Write",
            serde_json::json!({"file_path": "/p/notes.md"}),
        ),
    ];
    assert_eq!(
        outcome(&claude(&one)),
        "Yes: every access goes through the RwLock in cache.rs."
    );
}
