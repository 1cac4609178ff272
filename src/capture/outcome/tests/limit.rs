//! How a limit that stops the thread of the person's last request is told
//! (the helpers are the outcome tests').

use super::*;

/// The class: an earlier request was answered, the person asked again,
/// and in that thread the agent said things (a finding, then an
/// announcement) before the call a usage limit stopped, in any language and
/// for any limit notice. What the agent said last decides: an announcement
/// leaves the limit as what came of it, a finding said last stands; the
/// earlier request's report is never the outcome of the later one.
#[test]
fn a_limit_that_stops_a_later_request_is_never_answered_with_an_earlier_report() {
    let earlier = [
        user("u1", "add a dark mode toggle to the settings page"),
        said(
            "a1",
            "Added a dark mode toggle; the choice is saved in localStorage.",
        ),
        user("u2", "now make the toggle blue"),
    ];
    let call = |uuid: &str, text: &str| {
        assistant(
            uuid,
            serde_json::json!([{"type": "text", "text": text},
                {"type": "tool_use", "id": "t1", "name": "Edit",
                 "input": {"file_path": "/p/theme.css"}}]),
        )
    };
    let limits = [
        tool_error("r9", "API rate limit exceeded for user"),
        serde_json::json!({"type": "assistant", "sessionId": "s", "uuid": "e9",
            "isApiErrorMessage": true, "message": {"role": "assistant", "model": "<synthetic>",
            "content": [{"type": "text", "text": "API Error: Request rejected (429) · daily usage limit exceeded"}]}}),
    ];
    let turns = [
        (
            "The toggle's colour lives in src/theme.css.",
            "Let me edit it:",
        ),
        ("开关的颜色在 src/theme.css 里。", "让我修改它："),
    ];
    for limit in &limits {
        for (finding, announcement) in turns {
            let mut lines = earlier.to_vec();
            lines.push(call("a2", finding));
            lines.push(call("a3", announcement));
            lines.push(limit.clone());
            let got = outcome(&claude(&lines));
            assert!(got.starts_with("failed: "), "{announcement:?}: {got}");
            let mut lines = earlier.to_vec();
            lines.push(call("a2", announcement));
            lines.push(call("a3", finding));
            lines.push(limit.clone());
            assert_eq!(outcome(&claude(&lines)), finding);
        }
    }
}
