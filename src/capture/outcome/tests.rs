//! How the outcome is chosen, one behaviour per test.

use super::*;
use crate::harnesses::read;

fn outcome(t: &Transcript) -> String {
    decide(t).report
}

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
    let t = claude(&[
        user("u1", "please add a hello world script"),
        said("a1", "I added hello.py, which prints hi."),
        user("u2", "thanks!"),
        said("a2", "OK."),
    ]);
    assert_eq!(outcome(&t), "I added hello.py, which prints hi.");
    assert!(is_acknowledgement("好的"));
    assert!(!is_acknowledgement("Done: hello.py prints hi."));
}

#[test]
fn a_transcript_cut_off_after_a_tool_call_keeps_the_last_report() {
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
        (
            "I’m inspecting the vault to see how notes use tags.",
            "The vault has 3,526 notes; 40 use inline tags.",
        ),
        (
            "现在让我检查一下当前的工作空间文件状态。",
            "工作空间的文件都在，没有被修改。",
        ),
        (
            "Je vais vous aider à harmoniser la navigation.",
            "La navigation utilise maintenant les slashs finaux.",
        ),
        ("Ich werde die Tests ausführen.", "Alle Tests laufen durch."),
        (
            "Voy a revisar el archivo.",
            "El archivo tenía un error de sintaxis.",
        ),
        (
            "Tôi sẽ kiểm tra tệp cấu hình.",
            "Đã sửa cổng trong tệp cấu hình.",
        ),
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

fn user(uuid: &str, text: &str) -> serde_json::Value {
    serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
        "message": {"role": "user", "content": text}})
}

fn said(uuid: &str, text: &str) -> serde_json::Value {
    assistant(uuid, serde_json::json!([{"type": "text", "text": text}]))
}

#[test]
fn thanks_after_the_work_and_the_reply_to_it_are_not_the_outcome() {
    let work = [
        user("u1", "add a dark mode toggle to the settings page"),
        said(
            "a1",
            "Added a dark mode toggle; the choice is saved in localStorage.",
        ),
    ];
    for thanks in ["great thanks!", "Perfect, thank you so much", "谢谢"] {
        let mut lines = work.to_vec();
        lines.push(user("u2", thanks));
        lines.push(said(
            "a2",
            "You're welcome! Let me know if you need anything else.",
        ));
        assert_eq!(
            outcome(&claude(&lines)),
            "Added a dark mode toggle; the choice is saved in localStorage.",
            "{thanks}"
        );
    }
    // "ok" may be a go-ahead: what the agent says to it stands.
    let mut lines = work.to_vec();
    lines.push(user("u2", "ok"));
    lines.push(said("a2", "The toggle now also follows the system theme."));
    assert_eq!(
        outcome(&claude(&lines)),
        "The toggle now also follows the system theme."
    );
}

#[test]
fn a_limit_hit_after_the_agent_said_what_it_did_leaves_that_as_the_outcome() {
    let ask = user("u1", "upgrade tokio to 1.40");
    let push = assistant(
        "a1",
        serde_json::json!([{"type": "text", "text": "Upgraded tokio to 1.40; everything builds."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "gh pr create --fill"}}]),
    );
    let limit = tool_error("r1", "API rate limit exceeded for user");
    let t = claude(&[ask.clone(), push, limit.clone()]);
    assert_eq!(outcome(&t), "Upgraded tokio to 1.40; everything builds.");
    // Announced, not done: the limit is what came of it.
    let announce = assistant(
        "a1",
        serde_json::json!([{"type": "text", "text": "I'll open the pull request."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "gh pr create --fill"}}]),
    );
    let t = claude(&[ask, announce, limit]);
    assert_eq!(outcome(&t), "failed: API rate limit exceeded for user");
}

#[test]
fn a_cancelled_sibling_a_declined_call_or_a_repair_notice_is_not_the_failure() {
    let ask = user("u1", "load the seed data");
    let run = assistant(
        "a1",
        serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "psql -f seed.sql"}}]),
    );
    let real = tool_error(
        "r1",
        "psql: error: password authentication failed for user \"app\"",
    );
    let cancelled = tool_error(
        "r2",
        "<tool_use_error>Cancelled: parallel tool call Bash(psql) errored</tool_use_error>",
    );
    let t = claude(&[ask.clone(), run.clone(), real, cancelled]);
    assert_eq!(
        outcome(&t),
        "failed: psql: error: password authentication failed for user \"app\""
    );
    for notice in [
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.",
    ] {
        let t = claude(&[ask.clone(), run.clone(), tool_error("r1", notice)]);
        assert!(!outcome(&t).starts_with("failed:"), "{notice}");
    }
}

#[test]
fn a_commit_before_a_closing_thanks_still_seals_the_session() {
    let commit = assistant(
        "a1",
        serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Bash",
            "input": {"command": "git commit -m \"fix: stop the retry loop after 3 attempts\""}},
            {"type": "text", "text": "Committed the fix."}]),
    );
    let t = claude(&[
        user("u1", "the retry loop never stops, fix it and commit"),
        commit,
        user("u2", "thanks!"),
        said("a2", "You're welcome!"),
    ]);
    assert_eq!(
        decide(&t).commit,
        Some(Commit::Made(
            "fix: stop the retry loop after 3 attempts".into()
        ))
    );
}

#[test]
fn a_proposed_commit_message_is_decided_once_with_the_report_it_ends() {
    let t = claude(&[
        user("u1", "add pagination to the /orders endpoint"),
        said(
            "a1",
            "Here's the commit message:\n\n```\nfeat(orders): paginate /orders with limit and cursor\n```",
        ),
    ]);
    let decided = decide(&t);
    assert_eq!(
        decided.commit,
        Some(Commit::Proposed(
            "feat(orders): paginate /orders with limit and cursor".into()
        ))
    );
    assert!(decided.report.starts_with("Here's the commit message:"));
}

#[test]
fn a_reports_titles_tables_and_status_marks_give_way_to_what_it_says() {
    let ask = user("u1", "add exponential backoff to the retry loop");
    for (reply, want) in [
        (
            "**Summary**\n- Added backoff to `retry_loop`, up to 10 s.",
            "- Added backoff to `retry_loop`, up to 10 s.",
        ),
        (
            "**What changed:**\n\n1. `retry_loop` backs off up to 10 s.",
            "1. `retry_loop` backs off up to 10 s.",
        ),
        (
            "## Changes\n\n- Added backoff to `retry_loop`.",
            "- Added backoff to `retry_loop`.",
        ),
        (
            "✅ Done\n\n`retry_loop` backs off up to 10 s.",
            "✅ Done\n\n`retry_loop` backs off up to 10 s.",
        ),
        (
            "| crate | async |\n|---|---|\n| moka | yes |\n\nmoka fits best: it is async.",
            "moka fits best: it is async.",
        ),
        // A bold sentence or status line is the result itself.
        (
            "**All 48 tests pass.**\n\nNothing else changed.",
            "**All 48 tests pass.**",
        ),
        (
            "**✅ 旧代码清理完成**\n\n构建验证通过 ✓",
            "**✅ 旧代码清理完成**",
        ),
    ] {
        let t = claude(&[ask.clone(), said("a1", reply)]);
        assert_eq!(outcome(&t), want, "{reply}");
    }
}

#[test]
fn a_routine_step_asked_after_the_report_leaves_the_report_and_is_told_after_it() {
    let work = [
        user("u1", "add exponential backoff to the retry loop"),
        said("a1", "Added exponential backoff; it doubles up to 10 s."),
    ];
    let mut lines = work.to_vec();
    lines.push(user("u2", "ok, now push it"));
    lines.push(said("a2", "Pushed to origin/main."));
    let decided = decide(&claude(&lines));
    assert_eq!(
        decided.report,
        "Added exponential backoff; it doubles up to 10 s."
    );
    assert_eq!(
        decided.errand,
        Some(Errand {
            ask: "ok, now push it".into(),
            reply: "Pushed to origin/main.".into()
        })
    );
    // A limit the errand hit is told after the report, not in its place.
    let mut lines = work.to_vec();
    lines.push(user("u2", "open a PR"));
    lines.push(assistant(
        "a2",
        serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Bash",
            "input": {"command": "gh pr create --fill"}}]),
    ));
    lines.push(tool_error("r1", "API rate limit exceeded for user"));
    let decided = decide(&claude(&lines));
    assert_eq!(
        decided.report,
        "Added exponential backoff; it doubles up to 10 s."
    );
    assert_eq!(
        decided.errand.map(|e| e.reply),
        Some("failed: API rate limit exceeded for user".into())
    );
    // New work after the report is the outcome's thread.
    let mut lines = work.to_vec();
    lines.push(user("u2", "now add jitter too"));
    lines.push(said("a2", "Added ±20 % jitter to each delay."));
    let decided = decide(&claude(&lines));
    assert_eq!(decided.report, "Added ±20 % jitter to each delay.");
    assert_eq!(decided.errand, None);
}

#[test]
fn an_acknowledging_clause_before_the_result_is_left_out_but_an_answer_stays() {
    for (sentence, want) in [
        (
            "好的，我已经修复了登录页面的错误，现在可以正常登录。",
            "我已经修复了登录页面的错误，现在可以正常登录。",
        ),
        (
            "Sure, I fixed the login bug in auth.py.",
            "I fixed the login bug in auth.py.",
        ),
        (
            "Yes, it is saved on disk, not just in memory.",
            "Yes, it is saved on disk, not just in memory.",
        ),
        (
            "100, 200 and 300 are the limits now.",
            "100, 200 and 300 are the limits now.",
        ),
    ] {
        assert_eq!(past_acknowledging_clause(sentence), want, "{sentence}");
    }
}

#[test]
fn an_offer_of_more_work_or_a_realisation_is_not_the_result_when_one_follows() {
    let ask = user("u1", "add exponential backoff to the retry loop");
    for (reply, want) in [
        (
            "Would you like me to also add jitter?\n\nThe retry loop now backs off up to 10 s.",
            "The retry loop now backs off up to 10 s.",
        ),
        (
            "I see the problem now.\n\nThe loop slept a fixed second; it now backs off.",
            "The loop slept a fixed second; it now backs off.",
        ),
        // Alone, a question is what the session ended on.
        ("Should I use jitter too?", "Should I use jitter too?"),
    ] {
        let t = claude(&[ask.clone(), said("a1", reply)]);
        assert_eq!(outcome(&t), want, "{reply}");
        let sentence = crate::capture::gist::compose(&t, None).unwrap_or_default();
        assert!(sentence.contains(want.trim_end_matches('.')), "{sentence}");
    }
}

#[test]
fn what_came_of_the_first_request_is_kept_beside_how_the_session_ended() {
    let t = claude(&[
        user("u1", "my screen saver comes up way too fast"),
        said(
            "a1",
            "It starts after 2.5 minutes. What would you like instead?",
        ),
        user("u2", "10 minutes"),
        said("a2", "Done. The screensaver now waits 10 minutes."),
        user("u3", "now give btop a dark theme"),
        said("a3", "Applied a dark Coffee Bean theme to btop."),
    ]);
    let decided = decide(&t);
    assert_eq!(decided.report, "Applied a dark Coffee Bean theme to btop.");
    // The answer that asked back goes on in the person's reply.
    assert_eq!(
        decided.first.as_deref(),
        Some("Done. The screensaver now waits 10 minutes.")
    );
    // One request: nothing more to tell.
    let t = claude(&[user("u1", "give btop a dark theme"), said("a1", "Applied.")]);
    assert_eq!(decide(&t).first, None);
}

/// A harness that records no tool calls (an older Gemini CLI chat) leaves
/// the agent's steps as messages of their own: the outcome is what the last
/// one reports, never the plan the first announced.
#[test]
fn of_several_messages_without_tool_calls_the_last_is_the_outcome() {
    for (plan, last) in [
        (
            "I'll run cargo clippy first, then fix what it finds.",
            "Fixed all four clippy warnings and committed the changes.",
        ),
        (
            "好的，我將使用 cargo clippy 來分析您的代碼庫。",
            "我已經根據 cargo clippy 的建議修復了所有問題，並提交了這些變更。",
        ),
    ] {
        let t = claude(&[
            user("u1", "make the code more concise"),
            said("a1", plan),
            said("a2", "Clippy found 4 warnings; fixing them one by one."),
            said("a3", last),
        ]);
        assert_eq!(outcome(&t), last);
    }
}

/// A short first paragraph that trails off ("Nghe này Master...", "So…")
/// introduces the report after it, as one ending in a colon does.
#[test]
fn a_paragraph_that_trails_off_introduces_the_report_after_it() {
    let report = "I searched /app/skills and found no n8n workflow there.";
    for intro in ["Nghe này Master...", "So…", "Well, Master...", "Итак…"] {
        let t = claude(&[
            user("u1", "list every n8n workflow"),
            said(
                "a1",
                &format!("{intro}\n\n{report}\n\nShould I look elsewhere?"),
            ),
        ]);
        assert!(outcome(&t).ends_with(report), "{intro}: {}", outcome(&t));
    }
}

/// A request the agent looked into, then a run stopped by the provider's
/// quota or by a lookup that missed: what the agent said stands, however the
/// provider words its limit and whichever file was not there.
#[test]
fn a_provider_limit_or_a_missed_lookup_at_the_end_leaves_what_the_agent_said() {
    let ask = user("u1", "make a 10 second promo video with nano banana");
    let look = assistant(
        "a1",
        serde_json::json!([{"type": "text", "text": "Nano banana can only create images, not a video; checking its skill for another way."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/srv/skills/nano/SKILL.md"}}]),
    );
    for error in [
        "{\"error\":{\"message\":\"{\\n \\\"error\\\": {\\n \\\"code\\\": 429,\\n \\\"message\\\": \\\"Resource exhausted.\\\"}}\"}}",
        "429 Too Many Requests",
        "RESOURCE_EXHAUSTED: quota exceeded for model",
        "Overloaded (529)",
        "ENOENT: no such file or directory, access '/srv/skills/nano/SKILL.md'",
        "cat: /srv/skills/nano/SKILL.md: No such file or directory",
        "File does not exist.",
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        "File content (10434 tokens) exceeds maximum allowed tokens (10000).",
    ] {
        let t = claude(&[ask.clone(), look.clone(), tool_error("r1", error)]);
        assert!(
            outcome(&t).contains("only create images"),
            "{error}: {}",
            outcome(&t)
        );
    }
    // A failure of the work itself still is the outcome.
    let t = claude(&[ask, look, tool_error("r1", "Error: ffmpeg exited with 1")]);
    assert!(outcome(&t).starts_with("failed:"), "{}", outcome(&t));
}

mod aside;
mod bare;
mod closing;
mod ended;
mod limit;
mod manners;
mod phases;
mod progress;
mod step;
mod stopped;
