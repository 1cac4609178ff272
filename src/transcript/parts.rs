//! Gemini-style message content (`parts` of `text`, `thought` and
//! `functionCall`), which Gemini CLI writes and qwen-code inherited.
//!
//! Owns: reading text and tool calls out of `parts`. Must not: know either
//! harness's lines around them (their readers do).

use serde_json::Value;

use super::tools;

/// The text of a Gemini `content`: a string, or `parts` whose `text` is not
/// the model's thought (function calls and responses are not text).
pub fn parts_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.trim().to_string(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// The tool calls among Gemini `parts` (`functionCall {name, args}`).
pub fn parts_calls(parts: &Value) -> Vec<tools::ToolUse> {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("functionCall"))
        .flat_map(|c| {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("tool");
            tools::tool_use(name, &c["args"])
        })
        .collect()
}
