//! Codex marks each thing the agent says with a `phase`: `commentary` while
//! it works, `final_answer` for the turn's answer. A turn whose last words
//! are commentary was cut off (killed, interrupted, captured mid-run)
//! whatever those words say, in any language; the helpers are the outcome
//! tests'.

use super::*;

fn rollout(lines: &[serde_json::Value]) -> Transcript {
    let meta = serde_json::json!({"timestamp": "2026-03-02T09:00:00.000Z", "type": "session_meta",
        "payload": {"id": "0195f1c2-0000-7000-8000-000000000001", "timestamp": "2026-03-02T09:00:00.000Z",
            "cwd": "/home/ana/shop", "originator": "codex_cli_rs", "cli_version": "0.139.0"}});
    let text: Vec<String> = std::iter::once(&meta)
        .chain(lines)
        .map(|l| l.to_string())
        .collect();
    read(&text.join("\n"))
}

fn event(payload: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"timestamp": "2026-03-02T09:00:01.000Z", "type": "event_msg", "payload": payload})
}

fn asked(text: &str) -> serde_json::Value {
    event(serde_json::json!({"type": "user_message", "message": text}))
}

fn agent(text: &str, phase: Option<&str>) -> serde_json::Value {
    let mut p = serde_json::json!({"type": "agent_message", "message": text});
    if let Some(phase) = phase {
        p["phase"] = phase.into();
    }
    event(p)
}

fn shell(command: &str) -> serde_json::Value {
    serde_json::json!({"timestamp": "2026-03-02T09:00:02.000Z", "type": "response_item",
        "payload": {"type": "function_call", "name": "shell",
            "arguments": serde_json::json!({"command": ["bash", "-lc", command]}).to_string(),
            "call_id": "call_1"}})
}

/// Commentary worded as findings, not as announcements: only the phase
/// tells them from an answer.
const COMMENTARY: &[&str] = &[
    "The first inventory surfaced the right kinds of problems, but some counts were off.",
    "日志里看到了，主要有 4 个问题。",
    "Le test échoue encore sur la ligne 12 de parser.py.",
    "설정 파일은 config/app.toml 에 있습니다.",
    "setup.sh は設定ファイルを自動生成しています。",
];

#[test]
fn a_turn_that_ends_on_commentary_ended_before_its_answer() {
    for words in COMMENTARY {
        // Cut before its first call, and after it.
        for calls in [0, 1, 2] {
            let mut lines = vec![asked("normalise the note tags in the vault")];
            lines.push(agent(words, Some("commentary")));
            lines.extend((0..calls).map(|_| shell("rg -n '#[a-z]+' .")));
            let t = rollout(&lines);
            assert_eq!(outcome(&t), ENDED, "{words} and {calls} call(s)");
        }
        // An earlier turn's answer stands for a session cut in a later one.
        let t = rollout(&[
            asked("count the tags in the vault"),
            shell("rg -c '#' ."),
            agent("There are 412 tags in 96 notes.", Some("final_answer")),
            asked("now normalise them"),
            agent(words, Some("commentary")),
        ]);
        assert_eq!(outcome(&t), "There are 412 tags in 96 notes.", "{words}");
    }
}

#[test]
fn the_final_answer_after_commentary_or_an_unphased_message_is_the_outcome() {
    for words in COMMENTARY {
        let answered = rollout(&[
            asked("normalise the note tags in the vault"),
            agent(words, Some("commentary")),
            shell("python3 normalize_tags.py"),
            agent("Normalised 412 tags in 96 notes.", Some("final_answer")),
        ]);
        assert_eq!(outcome(&answered), "Normalised 412 tags in 96 notes.");
        // Older Codex marks no phase: the words are the answer.
        let unphased = rollout(&[
            asked("normalise the note tags in the vault"),
            shell("python3 normalize_tags.py"),
            agent(words, None),
        ]);
        assert_eq!(outcome(&unphased), *words);
    }
}
