//! Sessions as a harness writes them, for the tests that capture one: the
//! shape of a chat is written once here, the words are the test's own.

/// A Claude Code JSONL transcript of `turns` (the person's message, the
/// assistant's reply), every line stamped `at` in `cwd`: what
/// `capture session-end --transcript` reads.
pub fn claude_code_chat(id: &str, cwd: &str, at: &str, turns: &[(&str, &str)]) -> String {
    let line = |role: &str, n: usize, text: &str| {
        let content = if role == "user" {
            serde_json::json!(text)
        } else {
            serde_json::json!([{"type": "text", "text": text}])
        };
        serde_json::json!({"type": role, "uuid": format!("{id}-{n}"), "sessionId": id,
            "cwd": cwd, "timestamp": at,
            "message": {"role": role, "content": content}})
        .to_string()
            + "\n"
    };
    turns
        .iter()
        .enumerate()
        .map(|(n, (person, reply))| {
            line("user", 2 * n, person) + &line("assistant", 2 * n + 1, reply)
        })
        .collect()
}
