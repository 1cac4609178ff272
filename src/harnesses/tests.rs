//! Unit tests of the transcript readers: one per wrapper, drop rule and format quirk.

use super::read;
use crate::harness::Harness;
use crate::transcript::*;

#[test]
fn plain_text_is_kept_as_it_is() {
    let t = read("# Notes\n\nWe fixed the retry.\n");
    assert_eq!(t.format, Format::Plain);
    assert_eq!(t.to_markdown(), "# Notes\n\nWe fixed the retry.\n");
    assert!(t.understood());
}

#[test]
fn claude_code_lines_become_messages_with_tool_calls() {
    let jsonl = r#"{"type":"user","uuid":"u-1","sessionId":"5d3c","cwd":"/home/ana/shop","timestamp":"2026-03-02T09:00:00.120Z","message":{"role":"user","content":"Add a retry to the payment client"}}
{"type":"user","uuid":"u-0","isMeta":true,"sessionId":"5d3c","timestamp":"2026-03-02T09:00:00.100Z","message":{"role":"user","content":"<command-name>/clear</command-name>"}}
{"type":"assistant","uuid":"a-1","sessionId":"5d3c","timestamp":"2026-03-02T09:00:04.900Z","message":{"id":"msg_7","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"cargo test"}},{"type":"tool_use","id":"toolu_8","name":"Read","input":{"file_path":"/home/ana/shop/src/pay.rs"}}]}}
{"type":"user","uuid":"u-2","sessionId":"5d3c","timestamp":"2026-03-02T09:00:05.010Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}}
{"type":"assistant","uuid":"a-2","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.000Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Added backoff."}]}}
{"type":"assistant","uuid":"a-3","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.500Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Tests pass."}]}}
{"type":"assistant","uuid":"a-3","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.500Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Tests pass."}]}}
{"type":"file-history-snapshot","messageId":"x"}
{"type":"user","uuid":"u-3","sessi
"#;
    let t = read(jsonl);
    assert_eq!(t.format, Format::Harness(Harness::ClaudeCode));
    assert_eq!(t.session_id.as_deref(), Some("5d3c"));
    assert_eq!(t.project.as_deref(), Some("/home/ana/shop"));
    assert_eq!(t.skipped_lines, 1, "the half-written last line");
    assert_eq!(t.commands(), vec!["cargo test"]);
    assert_eq!(t.files(), vec!["src/pay.rs"]);
    assert_eq!(
        t.to_markdown(),
        "## User\n\nAdd a retry to the payment client\n\n## Assistant\n\n- Bash `cargo test`\n- Read `src/pay.rs`\n\nAdded backoff.\n\nTests pass.",
        "tool calls where they happened, paths inside the project relative to it"
    );
    assert_eq!(
        t.message_digest(1),
        crate::contract::body_sha256(
            "## Assistant\n\nAdded backoff.\n\nTests pass.\n\n- Bash `cargo test`\n- Read `/home/ana/shop/src/pay.rs`"
        ),
        "a capture cursor digests the layout cursors were first written in"
    );
    assert_eq!(
        t.started_at.map(crate::contract::format_ts).as_deref(),
        Some("2026-03-02T09:00:00.100Z")
    );
}

#[test]
fn codex_prefers_event_messages_and_keeps_only_readable_compactions() {
    let jsonl = r#"{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0195f1c2","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/ana/shop"}}
{"timestamp":"2026-03-02T09:00:00.050Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}
{"timestamp":"2026-03-02T09:00:00.060Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a retry"}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Add a retry"}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cd /home/ana/shop && rg pay\"]}","call_id":"c1"}}
{"timestamp":"2026-03-02T09:00:09.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Added backoff in src/pay.rs."}}
{"timestamp":"2026-03-02T10:00:00.000Z","type":"compacted","payload":{"message":"Summary: retry added."}}
{"timestamp":"2026-03-02T10:00:01.000Z","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a retry"}]},{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]},{"type":"compaction","encrypted_content":"gAAAAABpQ9"}]}}
{"timestamp":"2026-03-02T11:00:01.000Z","type":"compacted","payload":{"message":"","replacement_history":[{"type":"compaction","summary":"Retry limits moved to config."}]}}
"#;
    let t = read(jsonl);
    assert_eq!(t.format, Format::Harness(Harness::Codex));
    assert_eq!(t.session_id.as_deref(), Some("0195f1c2"));
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.commands(), vec!["rg pay"]);
    let texts: Vec<&str> = t.compactions.iter().map(|c| c.text.as_str()).collect();
    // The "Summary:" heading goes with the wrapping, as in Claude Code's copy;
    // an empty message over an encrypted summary is no compaction (its
    // history replays turns the rollout holds), a summary in the clear is.
    assert_eq!(texts, vec!["retry added.", "Retry limits moved to config."]);
    assert_eq!(
        t.last(Role::Assistant),
        Some("Added backoff in src/pay.rs.")
    );
}

#[test]
fn openclaw_and_pi_read_the_active_branch_without_heartbeats() {
    let oc = r###"{"type":"session","version":3,"id":"7b1e","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/ana/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T09:00:01.000Z","message":{"role":"user","content":"Remind me about retries"}}
{"type":"message","id":"b1","parentId":"a1","timestamp":"2026-03-02T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Abandoned answer."}]}}
{"type":"message","id":"b2","parentId":"a1","timestamp":"2026-03-02T09:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Exponential backoff."},{"type":"thinking","thinking":"hm"}]}}
{"type":"message","id":"c1","parentId":"b2","timestamp":"2026-03-02T09:00:05.000Z","message":{"role":"user","content":"[OpenClaw heartbeat poll]"}}
{"type":"message","id":"c2","parentId":"c1","timestamp":"2026-03-02T09:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]}}
{"type":"compaction","id":"d1","parentId":"c2","timestamp":"2026-03-02T09:00:07.000Z","summary":"## Goal\nretries"}
{"type":"compaction","id":"d2","parentId":"d1","timestamp":"2026-03-02T09:00:08.000Z","summary":"## Goal\nretries"}
"###;
    let t = read(oc);
    assert_eq!(t.format, Format::Harness(Harness::OpenClaw));
    assert_eq!(t.session_id.as_deref(), Some("7b1e"));
    assert_eq!(
        t.to_markdown(),
        "## User\n\nRemind me about retries\n\n## Assistant\n\nExponential backoff."
    );
    assert_eq!(t.compactions.len(), 1, "a repeated compaction is kept once");

    let old_pi = r#"{"type":"session","id":"d703","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/Users/b/pi-mono"}
{"type":"message","timestamp":"2025-11-20T23:33:01.550Z","message":{"role":"user","content":[{"type":"text","text":"/mode"}]}}
{"type":"message","timestamp":"2025-11-20T23:33:50.804Z","message":{"role":"user","content":[{"type":"text","text":"port user-message-selector.ts"}]}}
{"type":"message","timestamp":"2025-11-20T23:33:54.572Z","message":{"role":"assistant","content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"packages/coding-agent/docs/theme.md"}}]}}
"#;
    let t = read(old_pi);
    assert_eq!(t.format, Format::Harness(Harness::Pi));
    assert_eq!(t.first(Role::User), Some("port user-message-selector.ts"));
    assert_eq!(t.files(), vec!["packages/coding-agent/docs/theme.md"]);
}

#[test]
fn an_openclaw_chore_and_what_the_agent_ran_for_it_stay_out_of_the_persons_thread() {
    let oc = r###"{"type":"session","version":3,"id":"7b1f","timestamp":"2026-02-20T09:00:00.000Z","cwd":"/home/ak/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"System: [2026-02-20 06:35:17 GMT+1] Cron (error): Backup done\n\n- **Datum:** 20.02.2026\n\nA scheduled reminder has been triggered. The reminder content is:\n\nBackup done"}}
{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}]}}
{"type":"message","id":"a3","parentId":"a2","message":{"role":"user","content":"[Image] User text: [Telegram Ak (@ak) id:76 +7m Fri 2026-02-20 09:12 GMT+1] can I run Windows on the VPS? Description: A screenshot."}}
{"type":"message","id":"a4","parentId":"a3","message":{"role":"assistant","content":[{"type":"text","text":"Hard on a VPS: use the Chrome extension locally."}]}}
{"type":"message","id":"a5","parentId":"a4","message":{"role":"user","content":"Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply HEARTBEAT_OK."}}
{"type":"message","id":"a6","parentId":"a5","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"gog calendar list"}}]}}
{"type":"message","id":"a7","parentId":"a6","message":{"role":"assistant","content":[{"type":"text","text":"HEARTBEAT_OK"}]}}
{"type":"message","id":"a8","parentId":"a7","message":{"role":"assistant","content":[{"type":"text","text":"Providers:\n- anthropic (3)"}],"provider":"openclaw","model":"gateway-injected"}}
"###;
    let t = read(oc);
    assert_eq!(t.first(Role::User), Some("can I run Windows on the VPS?"));
    assert_eq!(
        t.last(Role::Assistant),
        Some("Hard on a VPS: use the Chrome extension locally.")
    );
    assert!(
        t.messages.iter().all(|m| m.tools.is_empty()),
        "{:?}",
        t.messages
    );
}

#[test]
fn an_openclaw_command_and_its_status_card_are_neither_request_nor_report() {
    let oc = r###"{"type":"session","version":3,"id":"7b1f","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/ana/.openclaw/workspace"}
{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"Add a retry to the fetcher in fetch.py"}}
{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","content":[{"type":"text","text":"Added a retry with backoff to fetch.py."}],"provider":"anthropic","model":"claude"}}
{"type":"message","id":"a3","parentId":"a2","message":{"role":"user","content":"/status","excludeFromContext":true,"__openclaw":{"contextFreeCommand":true}}}
{"type":"message","id":"a4","parentId":"a3","message":{"role":"assistant","content":[{"type":"text","text":"🦞 OpenClaw 2026.3.1\n🧠 Model: anthropic/claude\n🧮 Tokens: 12k in / 1k out"}],"provider":"openclaw","model":"gateway-injected","excludeFromContext":true,"__openclaw":{"contextFreeCommand":true}}}
"###;
    let t = read(oc);
    assert_eq!(t.format, Format::Harness(Harness::OpenClaw));
    assert_eq!(
        t.last(Role::Assistant),
        Some("Added a retry with backoff to fetch.py.")
    );
    assert_eq!(
        t.last(Role::User),
        Some("Add a retry to the fetcher in fetch.py")
    );
}

#[test]
fn a_plan_mode_plan_is_what_the_agent_told_the_person_headed_by_its_title() {
    let cc = r###"{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w/shop","permissionMode":"plan","message":{"role":"user","content":"add pagination to the /orders endpoint"}}
{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ExitPlanMode","input":{"plan":"# Plan: paginate the /orders endpoint\n\n1. Add `limit` and `cursor`\n2. Add tests"}}]}}
"###;
    let t = read(cc);
    assert_eq!(
        t.last(Role::Assistant),
        Some(
            "Proposed plan: paginate the /orders endpoint\n\n# Plan: paginate the /orders endpoint\n\n1. Add `limit` and `cursor`\n2. Add tests"
        )
    );
    assert!(t.tool_uses().next().is_none(), "the plan is no tool call");
}

#[test]
fn aider_history_becomes_turns() {
    let md = "\n# aider chat started at 2025-09-22 12:04:00\n\n> Aider v0.83.1\n\n#### /ask  \n> Main model: x\n\n#### /model openrouter/deepseek  \n> Main model: y\n\n#### write the curl requests  \n\nHere they are.\n\n> Applied edit to metrics_check.sh  \n";
    let t = read(md);
    assert_eq!(t.format, Format::Aider);
    assert_eq!(t.session_id.as_deref(), Some("aider-2025-09-22T12-04-00"));
    assert_eq!(t.first(Role::User), Some("write the curl requests"));
    assert_eq!(t.files(), vec!["metrics_check.sh"]);
}

#[test]
fn an_aider_turn_the_person_interrupted_is_a_stop_before_the_next_prompt() {
    let md = "# aider chat started at 2026-04-22 09:06:43\n\n#### rewrite the importer in go  \n>  \n> ^C again to exit  \n\n#### the csv import drops rows with accents  \n\nFixed the encoding.\n";
    let t = read(md);
    let next = (t.messages.iter())
        .position(|m| m.text.starts_with("the csv import"))
        .expect("the second prompt");
    assert!(t.stopped_before(next), "{:?}", t.messages);
    assert!(!t.stopped_before(next + 1));
}

#[test]
fn json_no_reader_knows_is_not_understood() {
    let t = read("{\"weird\":1}\n{\"other\":2}\n");
    assert!(!t.understood());
    let generic = "{\"role\":\"user\",\"content\":\"hi there\"}\n{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}\n{\"weird\":1}\nnot json\n";
    let t = read(generic);
    assert_eq!(t.format, Format::Messages);
    assert_eq!(t.messages.len(), 2);
    assert_eq!(t.skipped_lines, 2);
}

#[test]
fn an_aider_prompt_typed_below_a_command_line_is_still_the_persons_request() {
    let md = "# aider chat started at 2026-04-07 00:11:11\n\n#### /add src/content/blog/  \n####   \n#### Haiku, write 3 Markdown articles in src/content/blog on local visibility in the 28.  \n#### - Médiamétrie (Dec. 2025): 42.4 million unique visitors.  \n> No files matched 'Haiku,'.\n\n#### /add src/pages/  \n> Added src/pages/index.astro to the chat\n";
    let t = read(md);
    let asks: Vec<&str> = (t.messages.iter())
        .filter(|m| m.role == Role::User)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert!(
        asks[0].starts_with("Haiku, write 3 Markdown articles"),
        "{asks:?}"
    );
    assert!(asks[0].contains("Médiamétrie"));
}

#[test]
fn aider_skips_reasoning_blocks_and_answers_to_its_prompts_and_keeps_its_commits() {
    let md = "# aider chat started at 2026-04-22 22:40:12\n\n#### Why does dictation paste the same text twice?\n\n> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: y\n#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all\n\n<thinking-content-7bbe>\n\nHere's a thinking process:\n\n1. Understand the request.\n</thinking-content-7bbe>\n\nThe hotkey handler fires twice; the report explains why.\n\n> Applied edit to -> Swift binary sends CGEvent\n> Applied edit to ./report-dictation.md\n> Commit f8bf6e6 docs: add the dictation duplication report\n";
    let t = read(md);
    assert_eq!(t.format, Format::Aider);
    let users: Vec<&str> = t
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text.as_str())
        .collect();
    assert_eq!(users, vec!["Why does dictation paste the same text twice?"]);
    let answer = t.last(Role::Assistant).unwrap_or_default();
    assert!(!answer.contains("thinking process"), "{answer}");
    assert!(answer.contains("fires twice"), "{answer}");
    let tools: Vec<(&str, &str)> = t
        .tool_uses()
        .map(|u| (u.name.as_str(), u.target.as_str()))
        .collect();
    assert_eq!(
        tools,
        vec![
            ("edit", "./report-dictation.md"),
            (AIDER_COMMIT, "docs: add the dictation duplication report")
        ]
    );
}

#[test]
fn a_question_typed_under_a_long_paste_is_its_closing_prose() {
    let paste = "This is a Phoenix app.\n\n## Guidelines\n\n- Use `mix precommit`\n\n## Testing\n\n    html = render(view)\n    IO.inspect(html)\nIn previous projects I used a readable id like `cust_abc123`.\nIs it worth replacing the UUID ids with ids like this?";
    assert_eq!(
        clean::closing_question(paste).as_deref(),
        Some(
            "In previous projects I used a readable id like `cust_abc123`.\nIs it worth replacing the UUID ids with ids like this?"
        )
    );
    assert_eq!(
        clean::closing_question("## Guidelines\n\n- Use `mix precommit`"),
        None
    );
    assert_eq!(clean::closing_question("Done.\n    let x = y?"), None);
}

#[test]
fn what_a_person_typed_under_a_pasted_log_is_their_request() {
    let log: Vec<String> = (0..60)
        .map(|i| {
            format!("2026-05-01 10:00:{i:02} ERROR conn reset by peer at pool.rs:88 worker={i}")
        })
        .collect();
    let question = "Why does the pool drop every connection after thirty seconds?";
    let pasted = format!("{}\n\n{question}", log.join("\n"));
    assert_eq!(clean::after_paste(&pasted).as_deref(), Some(question));
    // Words first, then the paste: the opening is the request.
    let asked_first = format!("{question}\n{}\nAny idea what causes it?", log.join("\n"));
    assert_eq!(clean::after_paste(&asked_first), None);
    // A paste with nothing typed under it, or a short one, has no such line.
    assert_eq!(clean::after_paste(&log.join("\n")), None);
    assert_eq!(clean::after_paste("```\nlet x = 1;\n```\nwhy?"), None);
}

#[test]
fn the_main_changed_file_is_the_first_one_that_is_not_incidental() {
    let write = |uuid: &str, path: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}","sessionId":"s","cwd":"/w/shop","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t{uuid}","name":"Write","input":{{"file_path":"{path}","content":"x"}}}}]}}}}"#
        )
    };
    let ask = r#"{"type":"user","uuid":"u","sessionId":"s","cwd":"/w/shop","message":{"role":"user","content":"back up the config without secrets"}}"#;
    let t = read(
        &[
            ask.to_string(),
            write("1", "/w/shop/.gitignore"),
            write("2", "/w/shop/memory/2026-03-01.md"),
            write("3", "/w/shop/.learnings/LEARNINGS.md"),
            write("4", "/w/shop/scripts/backup.py"),
            write("5", "/w/shop/Cargo.lock"),
        ]
        .join("\n"),
    );
    assert_eq!(
        crate::transcript::facts::main_of(&t.changed_files()),
        Some("scripts/backup.py")
    );
    // Only incidental files: the first of them.
    let t = read(&[ask.to_string(), write("1", "/w/shop/.gitignore")].join("\n"));
    assert_eq!(
        crate::transcript::facts::main_of(&t.changed_files()),
        Some(".gitignore")
    );
}

#[test]
fn a_claude_code_forks_copy_is_left_out_with_the_failure_in_it() {
    // `--fork-session`: the person's copied line is unmarked, the copied
    // answer names the parent as the session it was asked in.
    let jsonl = r#"{"type":"user","uuid":"u-1","sessionId":"fork","cwd":"/home/ana/shop","timestamp":"2026-03-02T09:00:00.000Z","message":{"role":"user","content":"Explain the retry"}}
{"type":"assistant","uuid":"a-1","sessionId":"fork","timestamp":"2026-03-02T09:00:02.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"pytest"}}]}}
{"type":"user","uuid":"u-2","sessionId":"fork","timestamp":"2026-03-02T09:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Error: 3 tests failed"}]}}
{"type":"assistant","uuid":"a-2","sessionId":"fork","requestSessionId":"parent","timestamp":"2026-03-02T09:00:04.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Retries back off."}]}}
{"type":"user","uuid":"u-3","sessionId":"fork","timestamp":"2026-03-03T10:00:00.000Z","message":{"role":"user","content":"Now add jitter"}}
{"type":"assistant","uuid":"a-3","sessionId":"fork","timestamp":"2026-03-03T10:00:05.000Z","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Added jitter."}]}}
"#;
    let t = read(jsonl);
    assert_eq!(t.forked_from.as_deref(), Some("parent"));
    assert_eq!(
        t.to_markdown(),
        "## User\n\nNow add jitter\n\n## Assistant\n\nAdded jitter."
    );
    assert!(t.failure.is_none(), "{:?}", t.failure);
    assert_eq!(
        t.started_at.map(crate::contract::format_ts).as_deref(),
        Some("2026-03-03T10:00:00.000Z")
    );
    assert_eq!(t.first(Role::User), Some("Now add jitter"));
}

#[test]
fn a_codex_line_stamped_after_the_forks_instant_is_the_forks_own() {
    let meta = |id: &str, fork: &str| {
        format!(
            r#"{{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{{"id":"{id}","cwd":"/home/ana/shop"{fork}}}}}"#
        )
    };
    let said = |at: &str, text: &str| {
        format!(
            r#"{{"timestamp":"2026-03-02T09:00:{at}Z","type":"event_msg","payload":{{"type":"user_message","message":"{text}"}}}}"#
        )
    };
    let jsonl = [
        meta("child", r#","forked_from_id":"parent""#),
        meta("parent", ""),
        said("00.000", "Explain the retry"),
        said("00.090", "And the timeout"),
        said("00.250", "Now add jitter"),
    ]
    .join("\n");
    let t = read(&jsonl);
    assert_eq!(t.session_id.as_deref(), Some("child"));
    assert_eq!(t.forked_from.as_deref(), Some("parent"));
    assert_eq!(t.to_markdown(), "## User\n\nNow add jitter");
}

/// qwen-code before its JSONL chats kept Gemini CLI's one-document chat,
/// with the model's turns typed after itself; they are the model's answers.
#[test]
fn an_older_qwen_code_document_keeps_the_models_answers_and_is_qwen_codes() {
    for (model_type, harness) in [("qwen", Harness::QwenCode), ("gemini", Harness::GeminiCli)] {
        let doc = serde_json::json!({
            "sessionId": "7d1f2c3a-0000-4000-8000-000000000001",
            "projectHash": "ab12",
            "startTime": "2025-09-01T10:00:00.000Z",
            "lastUpdated": "2025-09-01T10:05:00.000Z",
            "messages": [
                {"id": "m1", "timestamp": "2025-09-01T10:00:01.000Z", "type": "user",
                 "content": "Rename the helper to parse_config and update its callers"},
                {"id": "m2", "timestamp": "2025-09-01T10:04:00.000Z", "type": model_type,
                 "content": "Renamed it and updated the 4 callers; the tests pass.",
                 "tokens": {"input": 10, "output": 5, "cached": 0, "thoughts": 0, "total": 15},
                 "model": "qwen3-coder-plus"}
            ]
        });
        for text in [doc.to_string(), serde_json::to_string_pretty(&doc).unwrap()] {
            let t = read(&text);
            assert_eq!(t.format, Format::Harness(harness), "{model_type}");
            let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
            assert_eq!(roles, vec![Role::User, Role::Assistant], "{model_type}");
            assert!(t.messages[1].text.contains("updated the 4 callers"));
        }
    }
}

#[test]
fn an_older_claude_code_export_is_told_by_its_welcome_box() {
    let export = "╭──────────────────────────────╮\n│ ✻ Welcome to Claude Code!    │\n│   cwd: /home/dev/proj        │\n╰──────────────────────────────╯\n\n> fix the retry bug\n\n⏺ Fixed the retry loop in fetch.rs.\n";
    assert!(
        read(export)
            .foreign
            .is_some_and(|w| w.contains("exported by /export"))
    );
    // A note that only mentions Claude Code is text memsync reads.
    let note = "Tried Claude Code v2.1 today.\n\n● a bullet of mine\n";
    assert_eq!(read(note).foreign, None);
}

#[test]
fn the_harnesses_that_write_sentences_are_those_whose_folders_have_a_print_mode() {
    for h in Harness::ALL {
        assert_eq!(
            super::program(h).print_mode().is_some(),
            h.writes_sentences(),
            "{h}"
        );
    }
}

/// Every harness whose MCP entry sits in a JSON5 config.
#[test]
fn the_entry_is_added_beside_comments_and_taken_out_again() {
    let text = "{\n  // mine\n  \"agents\": { \"defaults\": {} },\n}\n";
    let args = vec!["--workspace".to_string(), "/ws".into(), "mcp".into()];
    for (config, file) in [
        (super::openclaw::connect::OPENCLAW, "openclaw.json"),
        (super::opencode::connect::OPENCODE, "opencode.json"),
    ] {
        let p = std::path::Path::new(file);
        let added = config.set(p, text, ("/bin/memsync", &args), false).unwrap();
        assert!(added.contains("// mine"), "{added}");
        let entry = config.get(p, &added).unwrap().unwrap();
        assert_eq!((config.args_of)(&entry), serde_json::json!(args));
        assert_eq!(
            config
                .set(p, &added, ("/bin/memsync", &args), false)
                .unwrap(),
            added
        );
        let removed = config.remove(p, &added, &args).unwrap();
        assert!(config.get(p, &removed).unwrap().is_none());
        assert!(!removed.contains("\"mcp\""), "{removed}");
        assert!(
            config
                .set(p, &added, ("/bin/memsync", &["x".into()]), false)
                .is_err()
        );
    }
}
