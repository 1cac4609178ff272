//! What came of a session: what the agent reported at the end of its last
//! turn, not what it said it was about to do.
//!
//! Narration is recognised first by position (the text a turn writes before
//! its last tool call is intent; what follows the call is the report, in any
//! language), then, inside the report, by how a sentence opens or ends ("I'll
//! …", "Let me …", "…하겠습니다", "让我…") when a result follows it. Thinking blocks and their
//! placeholders never count. A transcript that stops after a tool call gives
//! way to the newest turn that reported. A session whose last request got no report but
//! a failed call has that call's error as its outcome.
//!
//! Owns: choosing the outcome text. Must not: shorten it for the sentence
//! (the gist does) or do I/O.

use super::transcript::{Message, Role, Transcript, clean};

/// Openings of a sentence that announces work instead of reporting it.
const INTENT_OPENINGS: &[&str] = &[
    "i'll ",
    "i will ",
    "i’ll ",
    "let me ",
    "let's ",
    "now i'll ",
    "now i will ",
    "now let me ",
    "now i need to ",
    "now i ",
    "next, i",
    "next i",
    "first, i",
    "first i",
    "i'm going to ",
    "i am going to ",
    "i need to ",
    "i'll now ",
    "okay, let me",
    "ok, let me",
    "great, let me",
    "perfect! let me",
    "perfect! now",
    "我来",
    "让我",
    "讓我",
    "我将",
    "我將",
    "我会",
    "我會",
    "我先",
    "接下来",
    "下面我",
    "现在我",
    "現在我",
    "首先",
    "まず",
    "次に",
    "では、",
    "それでは",
    "먼저",
    "이제 ",
    "다음으로",
    "다음 단계로",
];

/// Openings that are courtesy, before what a sentence really says.
const COURTESY: &[&str] = &[
    "as per your request, ",
    "as requested, ",
    "sure, ",
    "sure! ",
    "certainly, ",
    "certainly! ",
    "of course, ",
    "of course! ",
    "absolutely, ",
    "absolutely! ",
    "alright, ",
    "all right, ",
];

/// Endings of a sentence that announces work: Japanese "…します" / "…しましょう"
/// / "…していきます", Korean "…하겠습니다" / "…할게요" / "…하겠습니다.".
const INTENT_ENDINGS: &[&str] = &[
    "します",
    "しましょう",
    "していきます",
    "してみます",
    "確認します",
    "하겠습니다",
    "할게요",
    "하겠어요",
    "해보겠습니다",
    "살펴보겠습니다",
];

/// The agent's last report: its final turn's text after its last tool call,
/// without thinking, from the first paragraph that is not narration (with
/// the next one when that paragraph only introduces it).
pub fn outcome(t: &Transcript) -> String {
    let answer = answer(t);
    // Messages after the person's last request: the thread it opened.
    let thread = t
        .messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |u| u + 1);
    match t.failure.as_ref().filter(|f| f.after >= thread) {
        // A usage or rate limit that stopped a slash command run after the
        // work was reported (a review) is not what came of the session; one
        // that stopped a typed request is.
        Some(failure) if is_limit(&failure.error) && after_command(t, thread) => {
            last_report(t).unwrap_or_else(|| format!("failed: {}", failure.error))
        }
        Some(failure) if answer.is_empty() || is_narration(&answer) || !reported(t, thread) => {
            format!("failed: {}", failure.error)
        }
        _ => answer,
    }
}

/// Whether the request that opened the thread from `thread` on is a slash
/// command (a review, a cleanup run after the work), not a typed request.
fn after_command(t: &Transcript, thread: usize) -> bool {
    thread
        .checked_sub(1)
        .and_then(|i| t.messages.get(i))
        .is_some_and(|m| m.role == Role::User && m.text.trim_start().starts_with('/'))
}

/// Whether an error is the model provider's quota, not the work's failure.
fn is_limit(error: &str) -> bool {
    const LIMITS: &[&str] = &[
        "hit your limit",
        "out of extra usage",
        "usage limit",
        "rate limit",
        "rate_limit",
        "quota",
        "too many requests",
    ];
    let lower = error.to_lowercase();
    LIMITS.iter().any(|l| lower.contains(l))
}

/// The newest answer an agent's turn reported (text after its last tool
/// call) that is not itself a limit notice.
fn last_report(t: &Transcript) -> Option<String> {
    t.messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant && m.reported() && !is_limit(m.report()))
        .map(answer_of)
        .find(|a| !a.is_empty() && !is_narration(a))
}

/// Whether the agent reported something in messages `thread..` (text after
/// its last tool call, not only before it).
fn reported(t: &Transcript, thread: usize) -> bool {
    t.messages[thread.min(t.messages.len())..]
        .iter()
        .any(|m| m.role == Role::Assistant && m.reported())
}

/// The agent's last answer, narration and thinking left out.
fn answer(t: &Transcript) -> String {
    let spoke = |m: &&Message| m.role == Role::Assistant && !m.text.trim().is_empty();
    // A transcript that stops after a tool call (cut off, killed mid-turn)
    // holds only what the agent was about to do there: its newest report is
    // what came of the session.
    let cut_off = t
        .messages
        .iter()
        .rev()
        .find(spoke)
        .is_some_and(|m| !m.reported());
    let reported_any = t.messages.iter().any(|m| spoke(&m) && m.reported());
    // "OK." to a closing "thanks" is not what was done: the reply before it is.
    let mut replies = t
        .messages
        .iter()
        .rev()
        .filter(spoke)
        .filter(|m| !(cut_off && reported_any) || m.reported())
        .map(answer_of);
    let last = replies.next().unwrap_or_default();
    if !is_acknowledgement(&last) {
        return last;
    }
    replies.find(|a| !is_acknowledgement(a)).unwrap_or(last)
}

/// A reply that only acknowledges ("OK", "Done.", "好的", "👍").
fn is_acknowledgement(reply: &str) -> bool {
    const ACKS: &[&str] = &[
        "ok",
        "okay",
        "done",
        "sure",
        "yes",
        "got it",
        "noted",
        "understood",
        "will do",
        "好的",
        "好",
        "收到",
        "了解",
        "はい",
        "了解です",
    ];
    let t = reply.trim().trim_end_matches(['.', '!', '。', '！']).trim();
    !t.is_empty() && (t.chars().count() <= 3 || ACKS.contains(&t.to_lowercase().as_str()))
}

/// One turn's answer, narration and thinking left out.
fn answer_of(last: &Message) -> String {
    let report = without_thinking(last.report());
    // Headings and horizontal rules (`---`) are structure, not what was done;
    // a rule may also open a paragraph that holds more.
    let paras: Vec<&str> = report
        .split("\n\n")
        .map(|p| without_leading_rule(p.trim()))
        .filter(|p| !p.is_empty() && !p.starts_with('#'))
        .collect();
    let Some(start) = paras
        .iter()
        .position(|p| !is_narration(p) && !p.starts_with("```"))
        .or(paras.len().checked_sub(1))
    else {
        return String::new();
    };
    let first = paras[start];
    match paras.get(start + 1) {
        Some(next) if first.ends_with([':', '：']) => format!("{first}\n\n{next}"),
        _ => first.to_string(),
    }
}

/// A paragraph without the markdown rule (`---`, `***`, `___`) on its first line.
fn without_leading_rule(p: &str) -> &str {
    let (first, rest) = p.split_once('\n').unwrap_or((p, ""));
    let first = first.trim();
    let rule = first.len() >= 3
        && first
            .chars()
            .all(|c| matches!(c, '-' | '*' | '_' | '=' | ' '));
    if rule { rest.trim() } else { p }
}

/// Whether a paragraph or sentence announces what the agent is about to do.
pub fn is_narration(text: &str) -> bool {
    let t = text.trim().trim_start_matches(['*', '-', '>', ' ']);
    let lower = t.to_lowercase();
    // "As per your request, I'll provide …": the courtesy does not make it a report.
    let lower = COURTESY
        .iter()
        .find_map(|c| lower.strip_prefix(c))
        .map_or(lower.clone(), str::to_string);
    let first_sentence = lower
        .split_inclusive(['.', '!', '?', '。', '！', '？', '\n'])
        .next()
        .unwrap_or_default()
        .trim();
    let core = first_sentence.trim_end_matches(['.', '!', '?', '。', '！', '？', '…', ' ']);
    // A lead-in ending in a colon is not narration here: before a tool call
    // it is outside the report already, and inside it it introduces the
    // result ("Here is metrics_check.py:"), which the outcome joins.
    INTENT_OPENINGS.iter().any(|o| lower.starts_with(o))
        || INTENT_ENDINGS.iter().any(|e| core.ends_with(e))
}

/// A text without `<thinking>` blocks and the placeholders some harnesses
/// leave where one was (`<thinking-content-7bbeb8e1…>`).
fn without_thinking(text: &str) -> String {
    let stripped = clean::strip_blocks(text, &["thinking", "think"]);
    stripped
        .lines()
        .filter(|l| {
            let l = l.trim();
            !(l.starts_with("<thinking") && l.ends_with('>'))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::transcript::read;

    fn claude(lines: &[serde_json::Value]) -> Transcript {
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        read(&text.join("\n"))
    }

    fn assistant(uuid: &str, content: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"type": "assistant", "sessionId": "s", "uuid": uuid,
            "message": {"role": "assistant", "content": content}})
    }

    #[test]
    fn the_report_after_the_last_tool_call_is_the_outcome_not_the_announcement() {
        let t = claude(&[
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
                "message": {"role": "user", "content": "please add a hello world script"}}),
            assistant(
                "a1",
                serde_json::json!([{"type": "text", "text": "I'll create a hello world script."}]),
            ),
            assistant(
                "a2",
                serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Write",
                "input": {"file_path": "/p/hello.py", "content": "print('hi')"}}]),
            ),
            assistant(
                "a3",
                serde_json::json!([{"type": "text", "text": "I added hello.py, which prints hi."}]),
            ),
        ]);
        assert_eq!(outcome(&t), "I added hello.py, which prints hi.");
    }

    #[test]
    fn an_acknowledgement_at_the_end_gives_way_to_the_report_before_it() {
        let user = |uuid: &str, text: &str| {
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
                "message": {"role": "user", "content": text}})
        };
        let text = |s: &str| serde_json::json!([{"type": "text", "text": s}]);
        let t = claude(&[
            user("u1", "please add a hello world script"),
            assistant("a1", text("I added hello.py, which prints hi.")),
            user("u2", "thanks!"),
            assistant("a2", text("OK.")),
        ]);
        assert_eq!(outcome(&t), "I added hello.py, which prints hi.");
        assert!(is_acknowledgement("好的"));
        assert!(!is_acknowledgement("Done: hello.py prints hi."));
    }

    #[test]
    fn a_transcript_cut_off_after_a_tool_call_keeps_the_last_report() {
        let user = |uuid: &str, text: &str| {
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
                "message": {"role": "user", "content": text}})
        };
        let t = claude(&[
            user("u1", "set the screensaver to 10 minutes"),
            assistant(
                "a1",
                serde_json::json!([{"type": "text", "text": "Done. The screensaver now waits 10 minutes."}]),
            ),
            user("u2", "this monitor warning, can we fix it?"),
            assistant(
                "a2",
                serde_json::json!([{"type": "text", "text": "Found it. Fix: move the laptop to x=3840:"},
                    {"type": "tool_use", "id": "t1", "name": "Edit",
                     "input": {"file_path": "/p/monitors.conf"}}]),
            ),
        ]);
        assert_eq!(outcome(&t), "Done. The screensaver now waits 10 minutes.");
    }

    #[test]
    fn narration_in_any_language_gives_way_to_the_result_that_follows() {
        for (narration, result) in [
            (
                "Let me read the config first.",
                "The config had a typo in the port; fixed.",
            ),
            (
                "다음 단계로 tasks.md를 생성하겠습니다.",
                "tasks.md에 65개의 작업을 생성했습니다.",
            ),
            (
                "让我收集本次对话涉及的文件。",
                "已更新 README.md 和 docs/setup.md。",
            ),
            ("では、テストを実行します。", "テストは全て成功しました。"),
        ] {
            assert!(is_narration(narration), "{narration}");
            assert!(!is_narration(result), "{result}");
        }
        assert!(!is_narration("I added hello.py."));
        assert!(!is_narration("65 tasks generated in tasks.md"));
    }

    #[test]
    fn a_lead_in_before_a_horizontal_rule_takes_the_report_after_it() {
        let t = claude(&[
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
                "message": {"role": "user", "content": "how does the heap walk work?"}}),
            assistant(
                "a1",
                serde_json::json!([{"type": "text", "text": "Here is the analysis:\n\n---\n\nThe walk starts at space --check and visits every object."}]),
            ),
        ]);
        assert_eq!(
            outcome(&t),
            "Here is the analysis:\n\nThe walk starts at space --check and visits every object."
        );
    }

    #[test]
    fn thinking_and_its_placeholders_are_never_the_outcome() {
        let text = "<thinking>weigh options</thinking>\n<thinking-content-7bbeb8e1a2>\n\nFixed the retry loop.";
        assert_eq!(without_thinking(text).trim(), "Fixed the retry loop.");
    }

    fn tool_error(uuid: &str, output: &str) -> serde_json::Value {
        serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "t1", "is_error": true, "content": output}]}})
    }

    #[test]
    fn a_turn_that_ends_in_a_failed_call_without_a_report_has_the_error_as_outcome() {
        let ask = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
            "message": {"role": "user", "content": "run the nightly import"}});
        let run = assistant(
            "a1",
            serde_json::json!([{"type": "text", "text": "I'll run the import."},
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python3 import.py"}}]),
        );
        let failed = tool_error(
            "r1",
            "Traceback (most recent call last):\n  File \"import.py\"\nKeyError: 'DATABASE_URL'\n",
        );
        let t = claude(&[ask.clone(), run.clone(), failed.clone()]);
        assert_eq!(outcome(&t), "failed: KeyError: 'DATABASE_URL'");
        // A report after the failure is the outcome: the agent said what it made of it.
        let report = assistant(
            "a2",
            serde_json::json!([{"type": "text", "text": "The import needs DATABASE_URL; set it in .env and rerun."}]),
        );
        let t = claude(&[ask.clone(), run.clone(), failed.clone(), report]);
        assert_eq!(
            outcome(&t),
            "The import needs DATABASE_URL; set it in .env and rerun."
        );
        // A failure before the last request is not this request's outcome.
        let later = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u2",
            "message": {"role": "user", "content": "thanks, that is all"}});
        let t = claude(&[ask, run, failed, later]);
        assert_eq!(outcome(&t), "I'll run the import.");
    }

    #[test]
    fn a_usage_limit_hit_by_a_trailing_command_after_the_report_is_not_the_outcome() {
        let ask = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
            "message": {"role": "user", "content": "refactor the type system"}});
        let done = assistant(
            "a1",
            serde_json::json!([{"type": "text", "text": "Refactor done: one ArchetypeType left, the build passes."}]),
        );
        let review = serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u2",
            "message": {"role": "user", "content": "/vibe-review"}});
        let run = assistant(
            "a2",
            serde_json::json!([{"type": "text", "text": "Let me review."},
                {"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "review"}}]),
        );
        let limit = tool_error("r1", "You've hit your limit · resets 2pm (Asia/Shanghai)");
        let t = claude(&[
            ask.clone(),
            done.clone(),
            review.clone(),
            run.clone(),
            limit,
        ]);
        assert_eq!(
            outcome(&t),
            "Refactor done: one ArchetypeType left, the build passes."
        );
        // Any other failure of the last request still stands.
        let crash = tool_error("r1", "Error: review agent crashed");
        let t = claude(&[ask, done, review, run, crash]);
        assert_eq!(outcome(&t), "failed: Error: review agent crashed");
    }
}
