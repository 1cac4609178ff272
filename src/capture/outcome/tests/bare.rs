//! How a last reply that names nothing of the work is told (the helpers
//! are the outcome tests').

use super::*;

/// The class: the agent's last reply only says the work is finished
/// ("Filled and validated.", "Updated.", "All set!", "Готово.", "完成了"),
/// in any language, after a report that said what it did, before or between
/// its tool calls: that report is the outcome. With no such report, the
/// reply stays; a short reply that names a thing ("Fixed the typo.") is one.
#[test]
fn a_reply_that_only_says_it_finished_gives_way_to_the_report_before_it() {
    let report = "The form has 12 fields; I filled them with the values from fixtures/test.json.";
    let edit = assistant(
        "e",
        serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Edit",
            "input": {"file_path": "/p/form.json", "old_string": "a", "new_string": "b"}}]),
    );
    let done = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "r",
        "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "t1", "content": "The file has been updated."}]}});
    for bare in [
        "Filled and validated.",
        "Updated.",
        "All set!",
        "Done and pushed.",
        "Готово.",
        "完成了",
        "Erledigt.",
        "Listo.",
    ] {
        let t = claude(&[
            user(
                "u1",
                "fill in the form fields in form.json with the test values",
            ),
            said("a1", report),
            edit.clone(),
            done.clone(),
            said("a2", bare),
        ]);
        assert_eq!(outcome(&t), report, "{bare}");
        let alone = claude(&[
            user(
                "u1",
                "fill in the form fields in form.json with the test values",
            ),
            edit.clone(),
            done.clone(),
            said("a2", bare),
        ]);
        assert_eq!(outcome(&alone), bare, "{bare}");
    }
    let named = claude(&[
        user("u1", "fix the typo in the README"),
        said("a1", report),
        edit.clone(),
        done.clone(),
        said("a2", "Fixed the typo."),
    ]);
    assert_eq!(outcome(&named), "Fixed the typo.");
}
