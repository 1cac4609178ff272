//! How the outcome of a run the person stopped is told (the helpers are
//! the outcome tests').

use super::*;

/// The class: the person stops the run (`[Request interrupted by user]`,
/// with or without "for tool use") after the agent only announced what it
/// would do, in any language, or after it called tools without a word; the
/// outcome says the run was stopped. A result reported before the stop, or
/// a new request answered after it, stays the outcome.
#[test]
fn a_run_the_person_stopped_before_any_result_is_reported_as_stopped() {
    let said = |uuid: &str, text: &str| {
        assistant(uuid, serde_json::json!([{"type": "text", "text": text}]))
    };
    let read_call = assistant(
        "r",
        serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Read",
            "input": {"file_path": "/p/orm.py"}}]),
    );
    let announcements = [
        "I'll conduct a comprehensive review of the ORM layer first.",
        "Je vais d'abord examiner toute la couche ORM.",
        "Let me start by reading the models.",
    ];
    for marker in [
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
    ] {
        for announced in announcements {
            let t = claude(&[
                user("u1", "Refactor the whole ORM layer to async"),
                said("a1", announced),
                read_call.clone(),
                user("u2", marker),
            ]);
            assert_eq!(outcome(&t), STOPPED, "{announced} / {marker}");
        }
        let silent = claude(&[
            user("u1", "Refactor the whole ORM layer to async"),
            read_call.clone(),
            user("u2", marker),
        ]);
        assert_eq!(outcome(&silent), STOPPED, "{marker}");
        let reported = claude(&[
            user("u1", "Refactor the whole ORM layer to async"),
            read_call.clone(),
            said(
                "a1",
                "Converted the 12 query helpers to async; the tests pass.",
            ),
            user("u2", marker),
        ]);
        assert_eq!(
            outcome(&reported),
            "Converted the 12 query helpers to async; the tests pass."
        );
        let went_on = claude(&[
            user("u1", "Refactor the whole ORM layer to async"),
            said("a1", "I'll conduct a comprehensive review first."),
            user("u2", marker),
            user("u3", "Just convert the session helper instead"),
            said("a2", "Converted the session helper to async."),
        ]);
        assert_eq!(outcome(&went_on), "Converted the session helper to async.");
        // What the person typed after the stop, never answered: the
        // session ended on it, so the stopped request is the last handled.
        for after in [
            "never mind, stop",
            "算了，不用了",
            "non, laisse tomber",
            "wait, use the v2 API instead",
        ] {
            let t = claude(&[
                user("u1", "Refactor the whole ORM layer to async"),
                said("a1", announcements[0]),
                read_call.clone(),
                user("u2", marker),
                user("u3", after),
            ]);
            assert_eq!(outcome(&t), STOPPED, "{after} / {marker}");
        }
    }
}

/// Codex says so itself: `turn_aborted` with the reason `interrupted` ends
/// a turn the person stopped (Esc, Ctrl-C); a turn it ended otherwise, or
/// one followed by the agent's report, is not a stop.
#[test]
fn a_codex_turn_the_person_interrupted_is_reported_as_stopped() {
    let line = |kind: &str, payload: serde_json::Value| {
        serde_json::json!({"timestamp": "2026-04-01T06:08:12.610Z", "type": kind, "payload": payload})
            .to_string()
    };
    let event = |payload: serde_json::Value| line("event_msg", payload);
    let rollout = |reason: &str, after: Option<&str>| {
        let mut lines = vec![
            event(
                serde_json::json!({"type": "user_message", "message": "Refactor the whole ORM layer to async"}),
            ),
            event(
                serde_json::json!({"type": "agent_message", "message": "I'll start by reading the models."}),
            ),
            line(
                "response_item",
                serde_json::json!({"type": "function_call", "name": "shell", "call_id": "c1",
                    "arguments": "{\"command\":[\"cat\",\"orm.py\"]}"}),
            ),
            event(serde_json::json!({"type": "turn_aborted", "reason": reason})),
        ];
        if let Some(said) = after {
            lines.push(event(
                serde_json::json!({"type": "agent_message", "message": said}),
            ));
        }
        read(&lines.join("\n"))
    };
    assert_eq!(outcome(&rollout("interrupted", None)), STOPPED);
    assert_ne!(outcome(&rollout("replaced", None)), STOPPED);
    let reported = rollout(
        "interrupted",
        Some("The ORM layer is async now; tests pass."),
    );
    assert_eq!(
        outcome(&reported),
        "The ORM layer is async now; tests pass."
    );
}
