//! Codex rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`):
//! every line an envelope `{timestamp, type, payload}`; legacy files (up to
//! about September 2025) a bare `{id, timestamp, instructions}` line, then
//! bare response items.
//!
//! Owns: the Codex item types. The conversation comes from one source, never
//! two (each repeats the others), the best the file has:
//! 1. `event_msg` `item_completed` items (Codex ≥ 0.16x): messages and tool
//!    calls in the order they happened;
//! 2. `event_msg` `user_message`/`agent_message` (free of injected context),
//!    with the `response_item` tool calls between them;
//! 3. `response_item` messages and tool calls (oldest files, legacy files).

use serde_json::{Value, json};

use crate::harness::Harness;
use crate::transcript::{Format, Role, Transcript, clean, str_at, text_of, tools};

/// Whether a rollout's last line ends a turn and no process holds the file
/// open for writing: `codex exec` wrote its end and exited (Linux; elsewhere
/// harvest waits for `idle_minutes`).
pub fn turn_over(rollout: &std::path::Path) -> bool {
    crate::transcript::lines::last_event(rollout).is_some_and(|(file, event)| {
        event["type"] == "event_msg"
            && matches!(
                event["payload"]["type"].as_str(),
                Some("task_complete" | "turn_aborted")
            )
            && crate::files::no_writer_holds(&file) == Some(true)
    })
}
/// Whether JSON lines are a Codex rollout: `payload` envelopes, or the
/// legacy form (a bare `{id, timestamp, instructions}` line, state markers).
pub fn is_log(first: &Value, head: &[Value]) -> bool {
    first.get("payload").is_some()
        || head.iter().any(|v| v.get("payload").is_some())
        || first.get("id").is_some() && first.get("instructions").is_some()
        || head.iter().any(|v| v.get("record_type").is_some())
}

pub fn read<S: AsRef<str>>(lines: impl Iterator<Item = S>, keep: usize) -> Transcript {
    let mut r = Rollout {
        t: Transcript::bounded(Format::Harness(Harness::Codex), keep),
        items: None,
        responses: Transcript::bounded(Format::Harness(Harness::Codex), keep),
        events: false,
        metas: 0,
        copy: ForkCopy::None,
    };
    for (n, line) in lines.enumerate() {
        r.line(n, line.as_ref());
    }
    r.finish()
}

struct Rollout {
    /// The session's facts, compactions and skipped lines; source 2's messages.
    t: Transcript,
    /// Source 1, once an `item_completed` is seen.
    items: Option<Transcript>,
    /// Source 3.
    responses: Transcript,
    /// Whether source 2 has a message.
    events: bool,
    metas: usize,
    copy: ForkCopy,
}

/// Where a fork's copy of its parent's conversation is. Codex before 0.150
/// opened a forked rollout with its own meta, then the parent's, then the
/// parent's lines, every one stamped with the instant of the fork; newer
/// forks copy nothing.
#[derive(Clone, Copy)]
enum ForkCopy {
    None,
    /// A fork: the parent's meta may come next.
    Expected,
    /// Lines stamped within this long of the parent's meta are the copy.
    Open(chrono::DateTime<chrono::Utc>),
    Over,
}

/// How long after the fork instant a line may be stamped and still be the
/// copy: the copy is written at once; the fork's own first line comes later.
const COPY_BURST: chrono::TimeDelta = chrono::TimeDelta::milliseconds(100);

impl Rollout {
    fn line(&mut self, n: usize, line: &str) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            self.t.skipped_lines += 1;
            return;
        };
        let at = v.get("timestamp").and_then(Value::as_str);
        if self.is_copy(v.get("type").and_then(Value::as_str), at) {
            return;
        }
        if let Some(ts) = at {
            self.t.note_time(ts);
        }
        let Some(p) = v.get("payload") else {
            self.legacy_line(n, &v);
            return;
        };
        let kind = v.get("type").and_then(Value::as_str).unwrap_or_default();
        let ptype = p.get("type").and_then(Value::as_str).unwrap_or_default();
        // The turn is over only while nothing follows its end.
        self.t.turn_ended =
            kind == "event_msg" && matches!(ptype, "task_complete" | "turn_aborted");
        match (kind, ptype) {
            ("session_meta", _) => self.meta(p),
            ("event_msg", "user_message") => {
                self.events = true;
                let message = str_at(p, "message");
                (self.t).note_selected(message.as_deref().and_then(super::user::selected_file));
                match message.as_deref().and_then(super::user::user_text) {
                    Some(text) => self.t.push(Role::User, text, Vec::new(), None),
                    None => self.t.dropped_turns += 1,
                }
            }
            ("event_msg", "agent_message") => {
                self.events = true;
                if let Some(text) = str_at(p, "message").as_deref().and_then(clean::assistant) {
                    agent_said(&mut self.t, text, p);
                }
            }
            ("event_msg", "item_completed") => {
                let keep = self.t.budget_keep();
                let items = self.items.get_or_insert_with(|| {
                    Transcript::bounded(Format::Harness(Harness::Codex), keep)
                });
                completed_item(items, &p["item"]);
            }
            ("response_item", _) => self.response_item(p),
            // The person interrupted the turn (Esc, Ctrl-C): each source
            // notes where, so the outcome can say the run was stopped.
            ("event_msg", "turn_aborted")
                if str_at(p, "reason").as_deref() == Some("interrupted") =>
            {
                self.t.note_stop();
                self.responses.note_stop();
                if let Some(items) = self.items.as_mut() {
                    items.note_stop();
                }
            }
            ("event_msg", "exec_command_end")
                if p.get("exit_code")
                    .and_then(Value::as_i64)
                    .is_some_and(|c| c != 0) =>
            {
                let output = str_at(p, "aggregated_output").or_else(|| str_at(p, "stderr"));
                let output = output.unwrap_or_default();
                self.t.note_failure(&output);
                self.responses.note_failure(&output);
            }
            ("compacted", _) => {
                // An empty message leaves the summary encrypted (or absent);
                // the replacement history only replays turns the rollout
                // already holds, so it is no compaction of its own.
                let text = str_at(p, "message")
                    .filter(|m| !m.trim().is_empty())
                    .or_else(|| readable_summary(p));
                if let Some(text) = text {
                    self.t.push_compaction(&text, at);
                }
            }
            _ => {}
        }
    }

    fn meta(&mut self, p: &Value) {
        self.metas += 1;
        // Forked rollouts repeat their parent's meta: only the first counts.
        if self.metas > 1 {
            return;
        }
        self.t.session_id = str_at(p, "id").or_else(|| str_at(p, "session_id"));
        self.t.project = str_at(p, "cwd");
        let subagent = p["source"].get("subagent");
        self.t.subagent = subagent.is_some();
        if !self.t.subagent {
            self.t.forked_from = str_at(p, "forked_from_id");
            if self.t.forked_from.is_some() {
                self.copy = ForkCopy::Expected;
            }
        }
        self.t.parent_session = subagent
            .and_then(|s| s["thread_spawn"].get("parent_thread_id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(ts) = p.get("timestamp").and_then(Value::as_str) {
            self.t.note_time(ts);
        }
    }

    /// Whether a line is a fork's copy of its parent's (see [`ForkCopy`]).
    fn is_copy(&mut self, kind: Option<&str>, at: Option<&str>) -> bool {
        if matches!(self.copy, ForkCopy::None | ForkCopy::Over) {
            return false;
        }
        let at = at.and_then(crate::contract::parse_ts);
        self.copy = match (self.copy, kind, at) {
            (ForkCopy::Expected, Some("session_meta"), Some(instant)) => ForkCopy::Open(instant),
            (ForkCopy::Open(instant), _, Some(at))
                if at >= instant && at - instant <= COPY_BURST =>
            {
                ForkCopy::Open(instant)
            }
            _ => ForkCopy::Over,
        };
        matches!(self.copy, ForkCopy::Open(_))
    }

    /// A legacy line: the first is the session's meta, `record_type` lines
    /// are state markers, the rest are bare response items.
    fn legacy_line(&mut self, n: usize, v: &Value) {
        let is_meta = n == 0 && v.get("id").is_some() && v.get("type").is_none();
        match () {
            _ if is_meta => self.meta(v),
            _ if v.get("record_type").is_some() => {}
            _ if v.get("type").is_some() => self.response_item(v),
            _ => self.t.skipped_lines += 1,
        }
    }

    /// A model-visible item: a message (source 3 only) or a tool call
    /// (sources 2 and 3).
    fn response_item(&mut self, p: &Value) {
        if p.get("type").and_then(Value::as_str) == Some("message") {
            if self.t.project.is_none() {
                self.t.project = context_cwd(p);
            }
            message_item(&mut self.responses, p);
            return;
        }
        let calls = tool_call(p);
        if !calls.is_empty() {
            self.t
                .push(Role::Assistant, String::new(), calls.clone(), None);
            self.responses
                .push(Role::Assistant, String::new(), calls, None);
        }
    }

    /// The transcript with the messages of the best source the file has.
    fn finish(self) -> Transcript {
        let Rollout {
            mut t,
            items,
            responses,
            events,
            ..
        } = self;
        let source = match items {
            Some(items) if items.has_request() || !events => Some(items),
            _ if events => None,
            _ => Some(responses),
        };
        if let Some(s) = source {
            t.take_conversation(s);
        }
        t
    }
}

/// The tool calls of a `response_item` (none for other items).
fn tool_call(p: &Value) -> Vec<tools::ToolUse> {
    let name = p.get("name").and_then(Value::as_str).unwrap_or("tool");
    match p.get("type").and_then(Value::as_str).unwrap_or_default() {
        // Legacy files call apply_patch as a function with the patch as `input`.
        "function_call" if name == "apply_patch" => {
            let args = p
                .get("arguments")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
            tools::patch_files(
                name,
                args.get("input")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )
        }
        "function_call" => tools::tool_use(name, &p["arguments"]),
        "custom_tool_call" => {
            let input = p.get("input").and_then(Value::as_str).unwrap_or_default();
            if name == "apply_patch" {
                tools::patch_files(name, input)
            } else {
                tools::tool_use(name, &json!({ "input": input }))
            }
        }
        "local_shell_call" => tools::tool_use("shell", &p["action"]),
        _ => Vec::new(),
    }
}

/// An `item_completed` item (Codex ≥ 0.16x): a message or a tool call.
fn completed_item(t: &mut Transcript, item: &Value) {
    let text = || item_text(&item["content"]);
    match item.get("type").and_then(Value::as_str).unwrap_or_default() {
        "UserMessage" => {
            t.note_selected(text().as_deref().and_then(super::user::selected_file));
            match text().as_deref().and_then(super::user::user_text) {
                Some(text) => t.push(Role::User, text, Vec::new(), None),
                None => t.dropped_turns += 1,
            }
        }
        "AgentMessage" => {
            if let Some(text) = text().as_deref().and_then(clean::assistant) {
                agent_said(t, text, item);
            }
        }
        "FileChange" => {
            let paths = item["changes"].as_object().into_iter().flatten();
            let calls = paths.map(|(path, _)| tools::changed("apply_patch", path));
            t.push(Role::Assistant, String::new(), calls.collect(), None);
        }
        "CommandExecution" => {
            let calls = tools::tool_use("exec_command", &json!({ "command": item["command"] }));
            t.push(Role::Assistant, String::new(), calls, None);
            if item
                .get("exit_code")
                .and_then(Value::as_i64)
                .is_some_and(|c| c != 0)
            {
                let output = item.get("aggregated_output").and_then(Value::as_str);
                t.note_failure(output.unwrap_or_default());
            }
        }
        "McpToolCall" => {
            let server = item.get("server").and_then(Value::as_str).unwrap_or("mcp");
            let tool = item.get("tool").and_then(Value::as_str).unwrap_or("tool");
            let name = format!("mcp__{server}__{tool}");
            let calls = tools::tool_use(&name, &item["arguments"]);
            t.push(Role::Assistant, String::new(), calls, None);
        }
        "WebSearch" => {
            let calls = tools::tool_use("web_search", item);
            t.push(Role::Assistant, String::new(), calls, None);
        }
        _ => {}
    }
}

/// The text blocks of an item's content (`{"type": "Text" | "text", "text"}`).
fn item_text(content: &Value) -> Option<String> {
    let blocks = content.as_array()?;
    let text: Vec<&str> = blocks
        .iter()
        .filter(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|k| k.eq_ignore_ascii_case("text"))
        })
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n\n");
    (!text.trim().is_empty()).then(|| text.trim().to_string())
}

/// A legacy file's project: the `<cwd>` of its injected environment context.
fn context_cwd(p: &Value) -> Option<String> {
    let text = text_of(&p["content"])?;
    let (_, rest) = text.split_once("<environment_context>")?;
    let (_, rest) = rest.split_once("<cwd>")?;
    let (cwd, _) = rest.split_once("</cwd>")?;
    Some(cwd.trim().to_string()).filter(|c| !c.is_empty())
}

/// A `response_item` message (user or assistant), cleaned of injected context.
fn message_item(t: &mut Transcript, p: &Value) {
    let text = text_of(&p["content"]).unwrap_or_default();
    match p.get("role").and_then(Value::as_str) {
        Some("user") => {
            t.note_selected(super::user::selected_file(&text));
            if let Some(text) = super::user::user_text(&text) {
                t.push(Role::User, text, Vec::new(), None);
            }
        }
        Some("assistant") => {
            if let Some(text) = clean::assistant(&text) {
                agent_said(t, text, p);
            }
        }
        _ => {}
    }
}

/// What the agent said, by its `phase` where Codex marks one: `commentary`
/// is said while working (never the turn's answer), `final_answer` is the
/// answer.
fn agent_said(t: &mut Transcript, text: String, message: &Value) {
    if message.get("phase").and_then(Value::as_str) == Some("commentary") {
        t.push_working(text);
    } else {
        t.push(Role::Assistant, text, Vec::new(), None);
    }
}

/// The summary a `compacted` item's replacement history carries in the
/// clear (a `compaction` item with text), if any.
fn readable_summary(p: &Value) -> Option<String> {
    p["replacement_history"]
        .as_array()?
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("compaction"))
        .find_map(|item| {
            ["summary", "text", "content"]
                .iter()
                .find_map(|k| item.get(*k).and_then(Value::as_str))
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string)
        })
}
