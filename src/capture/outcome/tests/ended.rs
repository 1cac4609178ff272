//! How the outcome of a run whose transcript ends in its tool calls, with
//! nothing reported, is told (the helpers are the outcome tests').

use super::*;

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
        for announced in announcements {
            let mut lines = vec![
                user("u1", "refactor the payment module into smaller files"),
                said("a1", announced),
            ];
            lines.extend(calls().into_iter().take(n));
            assert_eq!(outcome(&claude(&lines)), ENDED, "{announced} / {n}");
        }
    }
    for n in 2..=3 {
        for remark in remarks {
            let mut lines = vec![
                user("u1", "migrate the tests to pytest"),
                said("a1", remark),
            ];
            lines.extend(calls().into_iter().take(n));
            assert_eq!(outcome(&claude(&lines)), ENDED, "{remark} / {n}");
        }
    }
}

/// The class: a run that said what it changed on the way, then announced
/// its next step and ended in its calls (killed, closed, out of context),
/// in any language: what it changed is what came of it, told with how the
/// run ended. Announcements and remarks on the way are no such change.
#[test]
fn a_change_told_on_the_way_stands_for_a_run_that_ended_in_its_calls() {
    for change in [
        "Migrated the settings form to react-hook-form; validation now runs on blur.",
        "I moved the retry logic into http.ts.",
        "J'ai déplacé la logique de retry dans http.ts.",
        "我把重试逻辑移到了 http.ts。",
        "リトライ処理を http.ts に移しました。",
    ] {
        for next in [
            "Now let me run the tests to verify:",
            "次にテストを実行します。",
        ] {
            let mut lines = vec![
                user("u1", "refactor the payment module into smaller files"),
                said("a1", change),
            ];
            lines.extend(calls().into_iter().take(2));
            lines.push(said("a2", next));
            lines.extend(calls().into_iter().skip(2));
            let told = outcome(&claude(&lines));
            assert!(told.starts_with(change), "{change} / {next}: {told}");
            assert!(told.contains("run ended in its tool calls"), "{told}");
        }
    }
    for remark in [
        "Interesting, the fixtures are older than I thought.",
        "Looked at the tests first.",
        "I'll start by splitting payment.py.",
        // A change thought, not told.
        "<think>Added the retry in http.ts.</think>\n\nLet me look at the tests.",
    ] {
        let mut lines = vec![
            user("u1", "migrate the tests to pytest"),
            said("a1", remark),
        ];
        lines.extend(calls());
        assert_eq!(outcome(&claude(&lines)), ENDED, "{remark}");
    }
}

/// What stays: a report after the calls, a report earlier in the session,
/// and a remark before a single call (it may be the answer, said while the
/// agent saved a note).
#[test]
fn a_report_anywhere_or_a_remark_before_one_call_stays_the_outcome() {
    let mut reported = vec![
        user("u1", "refactor the payment module"),
        said("a1", "Let me look."),
    ];
    reported.extend(calls());
    reported.push(said(
        "a2",
        "Split payment.py into gateway.py and refunds.py; tests pass.",
    ));
    assert_eq!(
        outcome(&claude(&reported)),
        "Split payment.py into gateway.py and refunds.py; tests pass."
    );
    let mut earlier = vec![
        user("u1", "set the screensaver to 10 minutes"),
        said("a1", "Done. The screensaver now waits 10 minutes."),
        user("u2", "now refactor the payment module"),
        said("a2", "I'll start with payment.py."),
    ];
    earlier.extend(calls());
    assert_eq!(
        outcome(&claude(&earlier)),
        "Done. The screensaver now waits 10 minutes."
    );
    let one = vec![
        user("u1", "is the cache thread-safe?"),
        said(
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

/// The class: a transcript cut off mid-run, as the agent announced its next
/// step with no call after it ("Now let me create the command.", "现在查看
/// …"), or after tool calls without a word, or right after a tool stumble
/// (an edit before a read): the run ended before a result, or what the
/// agent found before it in the thread stands. A promise in a chat
/// without calls ("I'll use tabs from now on.") is the answer.
#[test]
fn a_run_cut_off_mid_way_ended_before_a_result() {
    let read_call = |id: &str| {
        assistant(
            id,
            serde_json::json!([{"type": "tool_use", "id": format!("t{id}"), "name": "Read",
                "input": {"file_path": "/p/cli.py"}}]),
        )
    };
    let result = |id: &str| {
        serde_json::json!({"type": "user", "sessionId": "s", "uuid": format!("r{id}"),
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("t{id}"), "content": "def main(): ..."}]}})
    };
    for next in [
        "Now let me create the fetch-sessions command.",
        "现在查看 space 的 Walk 实现和 heap 相关代码。",
        "Je vais maintenant ajouter la commande.",
    ] {
        let cut = claude(&[
            user("u1", "add a fetch-sessions command to cli.py"),
            read_call("1"),
            result("1"),
            said("a1", next),
        ]);
        assert_eq!(outcome(&cut), ENDED, "{next}");
        let found = claude(&[
            user("u1", "add a fetch-sessions command to cli.py"),
            read_call("1"),
            result("1"),
            said(
                "a1",
                "cli.py has no command registry: each command is an if branch.",
            ),
            read_call("2"),
            result("2"),
            said("a2", next),
        ]);
        assert_eq!(
            outcome(&found),
            "cli.py has no command registry: each command is an if branch.",
            "{next}"
        );
    }
    let silent = claude(&[
        user("u1", "add a fetch-sessions command to cli.py"),
        read_call("1"),
        result("1"),
    ]);
    assert_eq!(outcome(&silent), ENDED);
    // An announcement that leads into the answer, or one before a finding
    // in the same words, is no cut: the answer stands.
    let answered = claude(&[
        user("u1", "why is the build slow and is the cache used?"),
        read_call("1"),
        result("1"),
        said(
            "a1",
            "I'll answer the two questions separately.\n\n1. Source maps are built in production.\n2. The cache is off.",
        ),
    ]);
    assert_eq!(
        outcome(&answered),
        "1. Source maps are built in production.\n2. The cache is off."
    );
    let promise = claude(&[
        user("u1", "always indent with tabs in this project"),
        said("a1", "I'll use tabs from now on."),
    ]);
    assert_eq!(outcome(&promise), "I'll use tabs from now on.");
}
