//! Reads a session transcript as harnesses write it: plain text or markdown, or
//! JSONL in the generic `{"role","content"}` shape, Claude Code's, Codex's or
//! OpenClaw's (see HARNESS_FORMATS.md). Unknown or half-written lines are
//! skipped and counted, never fatal.
//!
//! Owns: turning transcript text into messages and session facts. Must not: do
//! I/O or sanitize (the caller sanitizes what it renders).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::Value;

/// Text that harnesses inject as user messages; never a person's request.
const INJECTED_PREFIXES: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<system-reminder>",
    "<task-notification>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: The messages below",
    "[Request interrupted by user",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn heading(self) -> &'static str {
        match self {
            Role::User => "User",
            Role::Assistant => "Assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub text: String,
    /// Lines of one streamed response share this id and are joined.
    id: Option<String>,
}

/// Which shape the transcript was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Plain,
    Messages,
    ClaudeCode,
    Codex,
    OpenClaw,
}

impl Format {
    /// The `harness` value a capture records when none is given.
    pub fn harness(self) -> Option<&'static str> {
        match self {
            Format::ClaudeCode => Some("claude-code"),
            Format::Codex => Some("codex"),
            Format::OpenClaw => Some("openclaw"),
            Format::Plain | Format::Messages => None,
        }
    }
}

/// What a transcript says about its session.
#[derive(Debug, Clone)]
pub struct Transcript {
    pub format: Format,
    /// Plain transcripts keep their text here and have no messages.
    pub plain: Option<String>,
    pub messages: Vec<Message>,
    pub skipped_lines: usize,
    pub session_id: Option<String>,
    pub project: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// Shell commands the agent ran, in order, without repeats.
    pub commands: Vec<String>,
    /// Files named in tool calls, in order, without repeats.
    pub files: Vec<String>,
    /// The harness's own compaction summary, if the transcript holds one.
    pub compaction: Option<String>,
}

impl Transcript {
    /// The transcript as the markdown body of a transcript artifact (unsanitized).
    pub fn to_markdown(&self) -> String {
        if let Some(text) = &self.plain {
            return text.clone();
        }
        let mut out = String::new();
        for m in &self.messages {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str("## ");
            out.push_str(m.role.heading());
            out.push_str("\n\n");
            out.push_str(m.text.trim());
        }
        out
    }

    pub fn first(&self, role: Role) -> Option<&str> {
        self.messages
            .iter()
            .find(|m| m.role == role)
            .map(|m| m.text.as_str())
    }

    pub fn last(&self, role: Role) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == role)
            .map(|m| m.text.as_str())
    }
}

/// Reads a transcript. JSONL is recognised by its first non-empty line being a
/// JSON object; anything else is plain text.
pub fn read(text: &str) -> Transcript {
    let mut t = Transcript {
        format: Format::Plain,
        plain: None,
        messages: Vec::new(),
        skipped_lines: 0,
        session_id: None,
        project: None,
        started_at: None,
        ended_at: None,
        commands: Vec::new(),
        files: Vec::new(),
        compaction: None,
    };
    let first = text.lines().find(|l| !l.trim().is_empty());
    let Some(first_value) = first.and_then(|l| serde_json::from_str::<Value>(l).ok()) else {
        t.plain = Some(text.to_string());
        return t;
    };
    if !first_value.is_object() {
        t.plain = Some(text.to_string());
        return t;
    }
    let mut reader = Reader::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.is_object() => reader.line(&mut t, &v),
            _ => t.skipped_lines += 1,
        }
    }
    reader.finish(&mut t);
    t
}

/// Per-file state while reading JSONL.
#[derive(Default)]
struct Reader {
    seen_ids: HashSet<String>,
    /// Codex: plain `response_item` messages, used only when no `event_msg` text exists.
    codex_fallback: Vec<Message>,
    codex_events: bool,
    commands: HashSet<String>,
    files: HashSet<String>,
}

impl Reader {
    fn line(&mut self, t: &mut Transcript, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        if let Some(ts) = v.get("timestamp").and_then(Value::as_str) {
            note_time(t, ts);
        }
        // Lines repeated by resume or fork carry the same id.
        let id = v
            .get("uuid")
            .or_else(|| v.get("id"))
            .and_then(Value::as_str);
        if let Some(id) = id
            && kind != "session"
            && !self.seen_ids.insert(id.to_string())
        {
            return;
        }
        let known = if v.get("payload").is_some() {
            t.format = Format::Codex;
            self.codex(t, kind, &v["payload"])
        } else if kind == "session" && v.get("version").is_some() {
            t.format = Format::OpenClaw;
            set_once(&mut t.session_id, str_at(v, "id"));
            set_once(&mut t.project, str_at(v, "cwd"));
            true
        } else if t.format == Format::OpenClaw {
            self.openclaw(t, kind, v)
        } else if matches!(kind, "user" | "assistant") && v.get("message").is_some() {
            t.format = Format::ClaudeCode;
            self.claude(t, kind, v)
        } else if v.get("role").is_some() {
            if t.format == Format::Plain {
                t.format = Format::Messages;
            }
            self.generic(t, v)
        } else {
            is_known_bookkeeping(kind)
        };
        if !known {
            t.skipped_lines += 1;
        }
    }

    fn claude(&mut self, t: &mut Transcript, kind: &str, v: &Value) -> bool {
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        set_once(&mut t.session_id, str_at(v, "sessionId"));
        let message = &v["message"];
        if kind == "user" {
            if flag("isCompactSummary") {
                t.compaction = text_of(&message["content"]);
                return true;
            }
            if flag("isMeta") || flag("isSidechain") {
                return true;
            }
            set_once(&mut t.project, str_at(v, "cwd"));
            if let Some(text) = text_of(&message["content"]) {
                push_message(t, Role::User, text, None);
            }
            return true;
        }
        if flag("isSidechain") {
            return true;
        }
        self.tool_calls(&message["content"], "tool_use", "input");
        if let Some(text) = text_of(&message["content"]) {
            push_message(t, Role::Assistant, text, str_at(message, "id"));
        }
        true
    }

    fn codex(&mut self, t: &mut Transcript, kind: &str, p: &Value) -> bool {
        let ptype = p.get("type").and_then(Value::as_str).unwrap_or_default();
        match (kind, ptype) {
            // Forked rollouts repeat their parent's meta: only the first counts.
            ("session_meta", _) if t.session_id.is_none() => {
                t.session_id = str_at(p, "id");
                t.project = str_at(p, "cwd");
                if let Some(ts) = p.get("timestamp").and_then(Value::as_str) {
                    note_time(t, ts);
                }
            }
            ("event_msg", "user_message" | "agent_message") => {
                let role = if ptype == "user_message" {
                    Role::User
                } else {
                    Role::Assistant
                };
                if let Some(text) = str_at(p, "message") {
                    self.codex_events = true;
                    push_message(t, role, text, None);
                }
            }
            ("response_item", "message") => {
                let role = match p.get("role").and_then(Value::as_str) {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    _ => return true,
                };
                if let Some(text) = text_of(&p["content"]) {
                    push_into(&mut self.codex_fallback, role, text, None);
                }
            }
            ("response_item", "function_call") => {
                let args = p
                    .get("arguments")
                    .and_then(Value::as_str)
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .unwrap_or(Value::Null);
                self.note_tool_input(&args);
            }
            ("compacted", _) => t.compaction = str_at(p, "message"),
            _ => {}
        }
        true
    }

    fn openclaw(&mut self, t: &mut Transcript, kind: &str, v: &Value) -> bool {
        match kind {
            "message" => {
                let m = &v["message"];
                let role = match m.get("role").and_then(Value::as_str) {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    _ => return true,
                };
                self.tool_calls(&m["content"], "toolCall", "arguments");
                if let Some(text) = text_of(&m["content"]) {
                    push_message(t, role, text, None);
                }
            }
            "compaction" => t.compaction = str_at(v, "summary"),
            _ => {}
        }
        true
    }

    fn generic(&mut self, t: &mut Transcript, v: &Value) -> bool {
        let role = match v.get("role").and_then(Value::as_str) {
            Some("user" | "human") => Role::User,
            Some("assistant" | "ai" | "model") => Role::Assistant,
            Some(_) => return true,
            None => return false,
        };
        if let Some(text) = text_of(&v["content"]) {
            push_message(t, role, text, None);
        }
        true
    }

    /// Notes commands and files from tool-call blocks of type `block_type`.
    fn tool_calls(&mut self, content: &Value, block_type: &str, input_key: &str) {
        let Some(blocks) = content.as_array() else {
            return;
        };
        for b in blocks {
            if b.get("type").and_then(Value::as_str) == Some(block_type) {
                self.note_tool_input(&b[input_key]);
            }
        }
    }

    fn note_tool_input(&mut self, input: &Value) {
        let command = match input.get("command") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(parts)) => Some(
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        };
        if let Some(c) = command.filter(|c| !c.trim().is_empty()) {
            self.commands.insert(c);
        }
        for key in ["file_path", "path", "notebook_path"] {
            if let Some(p) = input.get(key).and_then(Value::as_str) {
                self.files.insert(p.to_string());
            }
        }
    }

    fn finish(mut self, t: &mut Transcript) {
        if t.format == Format::Codex && !self.codex_events {
            t.messages = std::mem::take(&mut self.codex_fallback);
        }
        let mut commands: Vec<String> = self.commands.into_iter().collect();
        commands.sort();
        let mut files: Vec<String> = self.files.into_iter().collect();
        files.sort();
        t.commands = commands;
        t.files = files;
    }
}

fn is_known_bookkeeping(kind: &str) -> bool {
    matches!(
        kind,
        "system"
            | "summary"
            | "file-history-snapshot"
            | "queue-operation"
            | "attachment"
            | "progress"
            | "ai-title"
            | "custom-title"
            | "agent-name"
            | "last-prompt"
            | "pr-link"
            | "mode"
            | "permission-mode"
    )
}

fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

fn set_once(slot: &mut Option<String>, value: Option<String>) {
    if slot.is_none() {
        *slot = value;
    }
}

fn note_time(t: &mut Transcript, ts: &str) {
    let Some(ts) = crate::contract::parse_ts(ts) else {
        return;
    };
    t.started_at = Some(t.started_at.map_or(ts, |s| s.min(ts)));
    t.ended_at = Some(t.ended_at.map_or(ts, |e| e.max(ts)));
}

/// The text of a content value: a string, or the `text` blocks of a block list
/// (tool results, thinking and images are not text).
fn text_of(content: &Value) -> Option<String> {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| {
                matches!(
                    b.get("type").and_then(Value::as_str),
                    Some("text" | "input_text" | "output_text")
                )
            })
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => return None,
    };
    let trimmed = text.trim();
    if trimmed.is_empty() || INJECTED_PREFIXES.iter().any(|p| trimmed.starts_with(p)) {
        return None;
    }
    Some(trimmed.to_string())
}

fn push_message(t: &mut Transcript, role: Role, text: String, id: Option<String>) {
    push_into(&mut t.messages, role, text, id);
}

/// Appends a message, joining it to the previous one when both belong to the
/// same streamed response.
fn push_into(messages: &mut Vec<Message>, role: Role, text: String, id: Option<String>) {
    if let (Some(last), Some(id)) = (messages.last_mut(), id.as_deref())
        && last.role == role
        && last.id.as_deref() == Some(id)
    {
        last.text.push_str("\n\n");
        last.text.push_str(&text);
        return;
    }
    messages.push(Message { role, text, id });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_kept_as_it_is() {
        let t = read("# Notes\n\nWe fixed the retry.\n");
        assert_eq!(t.format, Format::Plain);
        assert_eq!(t.to_markdown(), "# Notes\n\nWe fixed the retry.\n");
    }

    #[test]
    fn claude_code_lines_become_messages() {
        let jsonl = r#"{"type":"user","uuid":"u-1","sessionId":"5d3c","cwd":"/home/ana/shop","timestamp":"2026-03-02T09:00:00.120Z","message":{"role":"user","content":"Add a retry to the payment client"}}
{"type":"user","uuid":"u-0","isMeta":true,"sessionId":"5d3c","timestamp":"2026-03-02T09:00:00.100Z","message":{"role":"user","content":"<command-name>/clear</command-name>"}}
{"type":"assistant","uuid":"a-1","sessionId":"5d3c","timestamp":"2026-03-02T09:00:04.900Z","message":{"id":"msg_7","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"cargo test"}},{"type":"tool_use","id":"toolu_8","name":"Read","input":{"file_path":"src/pay.rs"}}]}}
{"type":"user","uuid":"u-2","sessionId":"5d3c","timestamp":"2026-03-02T09:00:05.010Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}}
{"type":"assistant","uuid":"a-2","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.000Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Added backoff."}]}}
{"type":"assistant","uuid":"a-3","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.500Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Tests pass."}]}}
{"type":"assistant","uuid":"a-3","sessionId":"5d3c","timestamp":"2026-03-02T09:00:06.500Z","message":{"id":"msg_8","role":"assistant","content":[{"type":"text","text":"Tests pass."}]}}
{"type":"file-history-snapshot","messageId":"x"}
{"type":"user","uuid":"u-3","sessi
"#;
        let t = read(jsonl);
        assert_eq!(t.format, Format::ClaudeCode);
        assert_eq!(t.session_id.as_deref(), Some("5d3c"));
        assert_eq!(t.project.as_deref(), Some("/home/ana/shop"));
        assert_eq!(t.skipped_lines, 1, "the half-written last line");
        assert_eq!(t.commands, vec!["cargo test"]);
        assert_eq!(t.files, vec!["src/pay.rs"]);
        assert_eq!(
            t.to_markdown(),
            "## User\n\nAdd a retry to the payment client\n\n## Assistant\n\nAdded backoff.\n\nTests pass."
        );
        assert_eq!(
            t.started_at.map(crate::contract::format_ts).as_deref(),
            Some("2026-03-02T09:00:00.100Z")
        );
    }

    #[test]
    fn codex_prefers_event_messages_over_response_items() {
        let jsonl = r#"{"timestamp":"2026-03-02T09:00:00.000Z","type":"session_meta","payload":{"id":"0195f1c2","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/ana/shop"}}
{"timestamp":"2026-03-02T09:00:00.050Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}
{"timestamp":"2026-03-02T09:00:00.060Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a retry"}]}}
{"timestamp":"2026-03-02T09:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Add a retry"}}
{"timestamp":"2026-03-02T09:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"rg\",\"pay\"]}","call_id":"c1"}}
{"timestamp":"2026-03-02T09:00:09.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Added backoff in src/pay.rs."}}
{"timestamp":"2026-03-02T10:00:00.000Z","type":"compacted","payload":{"message":"Summary: retry added."}}
"#;
        let t = read(jsonl);
        assert_eq!(t.format, Format::Codex);
        assert_eq!(t.session_id.as_deref(), Some("0195f1c2"));
        assert_eq!(t.messages.len(), 2);
        assert_eq!(t.commands, vec!["rg pay"]);
        assert_eq!(t.compaction.as_deref(), Some("Summary: retry added."));
        assert_eq!(
            t.last(Role::Assistant),
            Some("Added backoff in src/pay.rs.")
        );
    }

    #[test]
    fn openclaw_and_generic_messages() {
        let oc = r#"{"type":"session","version":3,"id":"7b1e","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/home/ana/.openclaw/workspace"}
{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-03-02T09:00:01.000Z","message":{"role":"user","content":"Remind me about retries"}}
{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-03-02T09:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Exponential backoff."},{"type":"thinking","thinking":"hm"}]}}
"#;
        let t = read(oc);
        assert_eq!(t.format, Format::OpenClaw);
        assert_eq!(t.session_id.as_deref(), Some("7b1e"));
        assert_eq!(t.messages.len(), 2);

        let generic = "{\"role\":\"user\",\"content\":\"hi there\"}\n{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}\n{\"weird\":1}\nnot json\n";
        let t = read(generic);
        assert_eq!(t.format, Format::Messages);
        assert_eq!(t.messages.len(), 2);
        assert_eq!(t.skipped_lines, 2);
    }
}
