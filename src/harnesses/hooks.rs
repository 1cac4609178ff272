//! The shapes hook payloads share: the event a payload names, the reply a
//! start or prompt event takes, and what memsync does at an event. Each
//! harness's folder says which of its events mean what ([`super::Program`]).
//!
//! Owns: hook payload shapes common to several harnesses. Must not: choose
//! a job or queue one (`jobs::hook` does).

use serde_json::Value;

/// What memsync does at one of a harness's hook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// The session ended (or will be cut short): capture it.
    End,
    /// The harness compacted the session and hands over its summary.
    Compacted,
    /// A session starts: answer with the start-up digest.
    Start,
    /// A prompt was submitted: answer with the sessions relevant to it.
    Prompt,
    /// An event memsync acknowledges and does nothing at, with the reason.
    Skip(&'static str),
}

/// The event a payload names (`hook_event_name`, or `hookEventName`).
pub fn named_event(payload: &Value) -> Option<String> {
    ["hook_event_name", "hookEventName"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|n| !n.trim().is_empty())
        .map(String::from)
}

/// The answer to a start or prompt event as most hooks read it:
/// `hookSpecificOutput.additionalContext`, echoing the event's name.
pub fn nested_reply(event: &str, text: &str) -> Value {
    serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": event,
            "additionalContext": text,
        }
    })
}

/// The events every harness with hooks names alike.
pub fn common_event(event: &str) -> Option<HookEvent> {
    match event {
        "SessionEnd" => Some(HookEvent::End),
        "SessionStart" => Some(HookEvent::Start),
        _ => None,
    }
}
