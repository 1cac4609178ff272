//! The conversation a session holds, whoever wrote it: the person's
//! requests, the agent's answers, its tool calls (name and target, never the
//! output) and the harness's compactions, with what a harness injected (IDE
//! preambles, metadata wrappers, slash-command markup, reminders,
//! heartbeats) dropped or unwrapped by the cleaners here. Each harness's own
//! reader lives in its folder (`src/harnesses/<name>/reader.rs`) and builds a
//! [`Transcript`] with this module's parts; the shapes no harness owns are
//! read here: [`aider`], [`dialogue`] (`user:`/`assistant:` text), the
//! [`generic`] `{"role","content"}` JSONL, and plain text. See
//! HARNESS_FORMATS.md; unknown or half-written lines are skipped and
//! counted, never fatal.
//!
//! Owns: the [`Transcript`] model, the cleaners, and rendering it as
//! markdown. Must not: know one harness's lines, do I/O beyond a line
//! reader, or sanitize (the caller sanitizes what it renders).

pub mod aider;
pub mod clean;
pub mod compaction;
pub mod dialogue;
pub mod envelope;
pub mod facts;
pub mod foreign;
pub use foreign::Foreign;
mod fork;
mod message;
pub use message::Message;
pub mod generic;
pub mod lines;
pub mod parts;
mod render;
pub mod tools;

pub use lines::{CutLine, LineReader};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::harness::Harness;

pub use aider::COMMIT as AIDER_COMMIT;
pub use facts::{Failure, Title, main_of};
pub use tools::{ToolKind, ToolUse};

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

/// A compaction the harness wrote into the session: its summary text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionNote {
    pub text: String,
    pub at: Option<DateTime<Utc>>,
    /// Its [`compaction::fingerprint`], to know a repeat.
    print: String,
}

/// Which shape the transcript was read as: a harness's own session log, or
/// one of the shapes no harness owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Harness(Harness),
    Plain,
    Messages,
    Aider,
    /// JSON lines no reader recognised.
    Unknown,
}

impl Format {
    /// The `harness` value a capture records when none is given.
    pub fn harness(self) -> Option<&'static str> {
        match self {
            Format::Harness(h) => Some(h.as_str()),
            Format::Aider => Some("aider"),
            Format::Plain | Format::Messages | Format::Unknown => None,
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
    pub compactions: Vec<CompactionNote>,
    pub skipped_lines: usize,
    pub session_id: Option<String>,
    pub project: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// A sub-agent's session (Claude Code sidechain, Codex sub-agent source).
    pub subagent: bool,
    /// The harness wrote its own end of the session (Copilot CLI's
    /// `session.shutdown`): harvest need not wait for it to go quiet.
    pub closed: bool,
    /// The file ends with the end of a turn (Codex's `task_complete`): once
    /// no process holds it open for writing, the session is over for now.
    pub turn_ended: bool,
    /// The session's title where the harness keeps one: the person's own
    /// name for it, else one a model wrote (Claude Code `ai-title`). Evidence
    /// of the topic, never the person's words.
    pub title: Option<Title>,
    /// The session that started this one, where the file names it.
    pub parent_session: Option<String>,
    /// The session this one was forked from, whose conversation the file
    /// copied before the fork's own (left out: it is the parent's).
    pub forked_from: Option<String>,
    /// Messages so far that are the fork's copy (see `fork.rs`).
    copied: usize,
    /// Turns the reader dropped as harness noise (heartbeats, injected context).
    pub dropped_turns: usize,
    /// Every place the person stopped the agent's run (Claude Code's
    /// `[Request interrupted by user]`), in messages before it, oldest first.
    stops: Vec<usize>,
    /// The newest tool call or model request that failed, and how many
    /// messages there were when it did: the outcome of a session that ends
    /// without an answer.
    pub failure: Option<Failure>,
    /// The least trusted source of a kept request (the owner for every
    /// local harness; OpenClaw says when a chat participant or a cron job asked).
    pub request_source: crate::contract::RequestSource,
    /// Lines of the source over the line limit, cut (and so, in JSONL, skipped).
    pub cut_lines: Vec<CutLine>,
    /// Messages left out to stay in the budget, and their bytes.
    pub elided: usize,
    pub elided_bytes: usize,
    /// What the file is when it is a format memsync does not read.
    pub foreign: Option<foreign::Foreign>,
    /// Files the person selected lines of in their editor while asking
    /// (Claude Code's `<ide_selection>`, the Codex IDE extension's active
    /// file under `## Active selection of the file:`), as named: what
    /// "why is this slow?" is about when no tool touched a file.
    pub selected: Vec<String>,
    budget: Budget,
}

/// What a transcript may hold of the conversation: `keep` bytes of message
/// text (the first request and answer, then the newest messages), each
/// message at most a quarter of it.
#[derive(Debug, Clone, Default)]
struct Budget {
    keep: usize,
    kept: usize,
    /// The first message of each role with text: never left out (the summary's request).
    first: [Option<usize>; 2],
    /// Messages before this one were considered for leaving out.
    next: usize,
}

/// No limit: text already in memory (hook payloads, tests).
pub const UNBOUNDED: usize = usize::MAX;

impl Transcript {
    /// Notes that the person stopped the agent's run here.
    pub(crate) fn note_stop(&mut self) {
        self.stops.push(self.messages.len());
    }

    /// How many messages there were when the person last stopped the run.
    pub fn stopped_at(&self) -> Option<usize> {
        self.stops.last().copied()
    }

    /// Whether the person stopped the agent's run just before message `i`
    /// (a request they cancelled before it was answered).
    pub fn stopped_before(&self, i: usize) -> bool {
        self.stops.contains(&i)
    }

    /// The bytes of conversation this transcript may keep.
    pub(crate) fn budget_keep(&self) -> usize {
        self.budget.keep
    }

    /// Takes `other`'s conversation (messages, budget, what was left out or
    /// dropped, the failure) in place of this one's, keeping this one's facts
    /// (ids, times, project): a reader that read two views of one session
    /// keeps the better one.
    pub(crate) fn take_conversation(&mut self, other: Transcript) {
        (self.messages, self.budget, self.elided, self.elided_bytes) = (
            other.messages,
            other.budget,
            other.elided,
            other.elided_bytes,
        );
        (self.dropped_turns, self.failure) = (other.dropped_turns, other.failure);
        // Where the person stopped the run, counted in the messages taken.
        self.stops = other.stops;
        // What the person selected, whichever view saw it.
        for path in other.selected {
            self.note_selected(Some(path));
        }
    }

    pub(crate) fn new(format: Format) -> Transcript {
        Transcript::bounded(format, UNBOUNDED)
    }

    /// A file of a format memsync does not read: nothing in it is read.
    pub(crate) fn foreign(what: foreign::Foreign) -> Transcript {
        let mut t = Transcript::new(Format::Unknown);
        t.foreign = Some(what);
        t
    }

    pub(crate) fn bounded(format: Format, keep: usize) -> Transcript {
        Transcript {
            format,
            plain: None,
            messages: Vec::new(),
            compactions: Vec::new(),
            skipped_lines: 0,
            session_id: None,
            project: None,
            started_at: None,
            ended_at: None,
            subagent: false,
            closed: false,
            turn_ended: false,
            parent_session: None,
            forked_from: None,
            copied: 0,
            title: None,
            failure: None,
            stops: Vec::new(),
            request_source: Default::default(),
            dropped_turns: 0,
            cut_lines: Vec::new(),
            elided: 0,
            elided_bytes: 0,
            foreign: None,
            selected: Vec::new(),
            budget: Budget {
                keep,
                ..Budget::default()
            },
        }
    }

    /// Whether a reader understood the input: a known format with at least one
    /// turn or compaction, or non-empty plain text.
    pub fn understood(&self) -> bool {
        match self.format {
            Format::Unknown => false,
            Format::Plain => self.plain.as_deref().is_some_and(|p| !p.trim().is_empty()),
            _ => !self.messages.is_empty() || !self.compactions.is_empty(),
        }
    }

    /// Whether the session holds a request from a person (not only heartbeats
    /// or injected context): typed in it, or, for a session that opens with
    /// the summary of the one it continues, reported in that summary and
    /// worked on after it.
    pub fn has_request(&self) -> bool {
        let continued = (self.compactions.iter())
            .any(|c| compaction::reported_request(&c.text).is_some())
            && self.messages.iter().any(|m| m.role == Role::Assistant);
        self.plain.as_deref().is_some_and(|p| !p.trim().is_empty())
            || self.messages.iter().any(|m| m.role == Role::User)
            || continued
    }

    /// The messages up to `end`, as a view for summaries of part of a session.
    pub fn prefix(&self, end: usize) -> Transcript {
        let mut t = self.clone();
        t.messages.truncate(end);
        t
    }

    pub fn first(&self, role: Role) -> Option<&str> {
        self.messages
            .iter()
            .find(|m| m.role == role && !m.text.trim().is_empty())
            .map(|m| m.text.as_str())
    }

    pub fn last(&self, role: Role) -> Option<&str> {
        self.last_message(role).map(|m| m.text.as_str())
    }

    /// The newest message of `role` that has text.
    pub fn last_message(&self, role: Role) -> Option<&Message> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == role && !m.text.trim().is_empty())
    }

    /// Every tool call, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.messages.iter().flat_map(|m| m.tools.iter())
    }

    /// Notes a file the person selected lines of (once).
    pub(crate) fn note_selected(&mut self, path: Option<String>) {
        if let Some(path) = path.filter(|p| !self.selected.contains(p)) {
            self.selected.push(path);
        }
    }

    /// The files the person selected lines of, relative to the project
    /// where they lie under it.
    pub fn selected_files(&self) -> Vec<String> {
        (self.selected.iter())
            .map(|p| tools::relative_to(p, self.project.as_deref()))
            .collect()
    }

    /// Files the session read or changed through tool calls, changed first,
    /// each once, relative to the project where they lie under it.
    pub fn files(&self) -> Vec<String> {
        let mut changed = Vec::new();
        let mut read = Vec::new();
        for t in self.tool_uses() {
            let list = match t.kind {
                ToolKind::Change => &mut changed,
                ToolKind::Read => &mut read,
                _ => continue,
            };
            let path = tools::relative_to(&t.target, self.project.as_deref());
            if !list.contains(&path) {
                list.push(path);
            }
        }
        read.retain(|p| !changed.contains(p));
        changed.extend(read);
        changed
    }

    /// Files the session changed through tool calls.
    pub fn changed_files(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.tool_uses().filter(|t| t.kind == ToolKind::Change) {
            let path = tools::relative_to(&t.target, self.project.as_deref());
            if !out.contains(&path) {
                out.push(path);
            }
        }
        out
    }

    /// Shell commands the agent ran, as a person would retype them, each once.
    pub fn commands(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.tool_uses().filter(|t| t.kind == ToolKind::Command) {
            if !out.contains(&t.target) {
                out.push(t.target.clone());
            }
        }
        out
    }

    /// Notes a time given in milliseconds since the epoch.
    pub(crate) fn note_ms(&mut self, ms: i64) {
        if let Some(at) = DateTime::<Utc>::from_timestamp_millis(ms) {
            self.started_at = Some(self.started_at.map_or(at, |s| s.min(at)));
            self.ended_at = Some(self.ended_at.map_or(at, |e| e.max(at)));
        }
    }

    /// Records who sent the newest message, when it is a person's.
    pub(crate) fn note_sender(&mut self, sender: Option<String>) {
        if let Some(last) = self.messages.last_mut().filter(|m| m.role == Role::User) {
            last.sender = last.sender.take().or(sender);
        }
    }

    pub(crate) fn note_time(&mut self, ts: &str) {
        let Some(ts) = crate::contract::parse_ts(ts) else {
            return;
        };
        self.started_at = Some(self.started_at.map_or(ts, |s| s.min(ts)));
        self.ended_at = Some(self.ended_at.map_or(ts, |e| e.max(ts)));
    }

    /// Appends a message, joining it to the previous one when both belong to
    /// the same streamed response (or are tool-only steps of one agent turn).
    pub(crate) fn push(
        &mut self,
        role: Role,
        text: String,
        tools: Vec<ToolUse>,
        id: Option<String>,
    ) {
        if text.trim().is_empty() && tools.is_empty() {
            return;
        }
        let cap = self.budget.keep / 4;
        if let Some(last) = self.messages.last_mut()
            && last.role == role
            && (id.is_some() && last.id == id || role == Role::Assistant)
        {
            let before = last.bytes();
            if !text.trim().is_empty() {
                last.working = false;
                if !last.text.is_empty() {
                    last.text.push_str("\n\n");
                }
                // A message of its own (not a streamed part of the last one)
                // is what the agent said last: the report, so far.
                if id.is_none() || last.id != id {
                    last.report_from = last.text.len();
                    last.said_from = last.text.len();
                    last.id = id.clone();
                }
                last.text.push_str(text.trim());
                cut_message(&mut last.text, cap);
            }
            // A segment's text comes before its tool calls; what follows them is the report.
            if !tools.is_empty() {
                last.report_from = last.text.len();
            }
            last.tools.extend(tools);
            let after = last.bytes();
            self.note_kept(role, after.saturating_sub(before));
            return;
        }
        let mut text = text.trim().to_string();
        cut_message(&mut text, cap);
        let report_from = if tools.is_empty() { 0 } else { text.len() };
        let message = Message {
            role,
            text,
            tools,
            id,
            report_from,
            said_from: 0,
            elided: None,
            sender: None,
            working: false,
        };
        let bytes = message.bytes();
        self.messages.push(message);
        self.note_kept(role, bytes);
    }

    /// Appends what the agent said while it worked (Codex's `commentary`
    /// phase): like words before a tool call, never the turn's report.
    pub(crate) fn push_working(&mut self, text: String) {
        if text.trim().is_empty() {
            return;
        }
        self.push(Role::Assistant, text, Vec::new(), None);
        if let Some(last) = self.messages.last_mut() {
            last.report_from = last.text.len();
            last.working = true;
        }
    }

    /// Counts `bytes` more of the newest message (of `role`) and leaves out
    /// the oldest messages while over the budget; never the first request,
    /// the first answer or the newest message.
    pub(crate) fn note_kept(&mut self, role: Role, bytes: usize) {
        let newest = self.messages.len() - 1;
        let slot = &mut self.budget.first[role as usize];
        if slot.is_none() && !self.messages[newest].text.is_empty() {
            *slot = Some(newest);
        }
        self.budget.kept += bytes;
        while self.budget.kept > self.budget.keep && self.budget.next < newest {
            let i = self.budget.next;
            self.budget.next += 1;
            if self.budget.first.contains(&Some(i)) {
                continue;
            }
            let digest = self.message_digest(i);
            let m = &mut self.messages[i];
            let bytes = m.bytes();
            (m.text, m.tools, m.elided) = (String::new(), Vec::new(), Some(digest));
            self.budget.kept -= bytes;
            self.elided += 1;
            self.elided_bytes += bytes;
        }
    }

    /// Adds a compaction's summary unless it says nothing or repeats an earlier one.
    pub(crate) fn push_compaction(&mut self, text: &str, at: Option<&str>) {
        let text = compaction::kept(text);
        let Some(print) = compaction::fingerprint(&text) else {
            return;
        };
        if compaction::says_nothing(compaction::summary_part(&text)) {
            return;
        }
        if self.compactions.iter().any(|c| c.print == print) {
            return;
        }
        self.compactions.push(CompactionNote {
            text,
            print,
            at: at.and_then(crate::contract::parse_ts),
        });
    }
}

/// Cuts `text` to `cap` bytes (at a character boundary) with a marker.
pub(crate) fn cut_message(text: &mut String, cap: usize) {
    if text.len() <= cap {
        return;
    }
    let mut at = cap;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let cut = text.len() - at;
    text.truncate(at);
    text.push_str(&format!(" [… {cut} bytes cut by memsync]"));
}

pub(crate) fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

pub(crate) fn set_once(slot: &mut Option<String>, value: Option<String>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// The text of a content value: a string, or the `text` blocks of a block list
/// (tool results, thinking and images are not text).
pub(crate) fn text_of(content: &Value) -> Option<String> {
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
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// The session id a harness put in the file's name (`rollout-…-<uuid>.jsonl`,
/// `<uuid>.jsonl`): the last UUID in it.
pub fn id_in_name(path: &std::path::Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy();
    let bytes = stem.as_bytes();
    let shape = |s: &[u8]| {
        s.len() == 36
            && s.iter().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_hexdigit(),
            })
    };
    (0..bytes.len().saturating_sub(35))
        .rev()
        .find(|&i| shape(&bytes[i..i + 36]))
        .map(|i| stem[i..i + 36].to_string())
}
