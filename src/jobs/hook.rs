//! Hook mode: one JSON payload from a harness on stdin, turned into a durable
//! capture job. It must return within a harness's hook budget (Claude Code
//! gives SessionEnd 1.5 s), so it never runs the capture itself, never waits
//! for stdin to close (some builds never close it), and never prints to stdout.
//!
//! Owns: reading the payload and choosing the job. Must not: write canonical
//! files (the job does).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::JobRequest;
use crate::error::{Error, HookError, Result};
use crate::harness::Harness;
use crate::harnesses::{HookEvent, program};

/// The longest payload accepted; a compaction summary is the largest part.
const MAX_PAYLOAD_BYTES: usize = 8 * 1024 * 1024;

/// What `capture --hook` takes, for its error message.
pub const HOOK_HARNESSES: &str = crate::harness::HOOK_NAMES;

/// The folders a payload's paths are resolved against.
#[derive(Debug, Clone, Copy, Default)]
pub struct HookDirs<'a> {
    /// `~` of older Claude Code examples' `~/...` transcript paths.
    pub home: Option<&'a Path>,
    /// The harness's own folder, where a payload that names only its
    /// session finds the session's log.
    pub harness_home: Option<&'a Path>,
}

impl Harness {
    /// The harness a `capture --hook` argument names, when memsync takes its
    /// hooks (each harness's folder says what its events mean).
    pub fn from_hook_arg(s: &str) -> Option<Harness> {
        Harness::parse_alias(s).filter(|h| h.has_hooks())
    }

    /// What memsync answers a start or prompt event with, as the harness reads it.
    pub fn context_reply(self, event: &str, text: &str) -> Value {
        program(self).context_reply(event, text)
    }
}

/// What a hook event asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum HookAction {
    Enqueue(JobRequest),
    /// SessionStart: answer with the start-up digest for the session's folder.
    Context {
        cwd: Option<PathBuf>,
        /// The harness's name for the event, echoed in the answer.
        event: String,
    },
    /// UserPromptSubmit (Gemini CLI: BeforeAgent): answer with earlier
    /// sessions relevant to the prompt.
    Prompt {
        prompt: String,
        session_id: Option<String>,
        cwd: Option<PathBuf>,
        event: String,
    },
    /// Acknowledged, nothing to capture (the event's name).
    Ignore(String),
}

/// Reads the first complete JSON object from `input`. Stops as soon as one
/// parses, and gives up after `idle` without new bytes or at end of input.
pub fn read_payload(input: impl Read + Send + 'static, idle: Duration) -> Result<Value> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    // The reader may block forever on a stdin nobody closes; the process exits without it.
    std::thread::spawn(move || {
        let mut input = input;
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match input.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if tx.send(chunk[..n].to_vec()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let mut buf = Vec::new();
    let mut deadline = Instant::now() + idle;
    loop {
        let wait = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(wait) {
            Ok(bytes) => {
                buf.extend_from_slice(&bytes);
                if buf.len() > MAX_PAYLOAD_BYTES {
                    return Err(bad_payload(format!(
                        "larger than {MAX_PAYLOAD_BYTES} bytes"
                    )));
                }
                if let Some(value) = first_object(&buf)? {
                    return Ok(value);
                }
                deadline = Instant::now() + idle;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(bad_payload(format!(
                    "no complete JSON payload on stdin after {} ms of silence ({} bytes read)",
                    idle.as_millis(),
                    buf.len()
                )));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return first_object(&buf)?.ok_or_else(|| {
                    bad_payload(format!(
                        "stdin ended without a complete JSON payload ({} bytes read)",
                        buf.len()
                    ))
                });
            }
        }
    }
}

fn bad_payload(reason: impl Into<String>) -> Error {
    HookError::Payload {
        reason: reason.into(),
    }
    .into()
}

/// The first JSON value in `buf`, `None` while it is still incomplete.
fn first_object(buf: &[u8]) -> Result<Option<Value>> {
    let mut stream = serde_json::Deserializer::from_slice(buf).into_iter::<Value>();
    match stream.next() {
        None => Ok(None),
        Some(Ok(v)) if v.is_object() => Ok(Some(v)),
        Some(Ok(_)) => Err(bad_payload("not a JSON object")),
        Some(Err(e)) if e.is_eof() => Ok(None),
        Some(Err(e)) => Err(bad_payload(format!("not valid JSON: {e}"))),
    }
}

/// Chooses the job for a hook event: the end of a session captures it,
/// Claude Code's PostCompact its compaction, the start asks for the start-up
/// digest, a prompt for the sessions relevant to it; every other event is
/// acknowledged.
pub fn interpret(
    harness: Harness,
    payload: &Value,
    agent_id: &str,
    now: DateTime<Utc>,
    dirs: HookDirs<'_>,
) -> Result<HookAction> {
    // Copilot CLI spells its fields in camelCase.
    let field = |k: &str, camel: &str| {
        [k, camel]
            .iter()
            .find_map(|k| payload.get(*k).and_then(Value::as_str))
            .filter(|s| !s.trim().is_empty())
    };
    let program = program(harness);
    let event = program.hook_event(payload);
    let event = event.as_str();
    let session_id = || {
        field("session_id", "sessionId")
            .map(String::from)
            .ok_or_else(|| bad_payload(format!("{event} payload has no session_id")))
    };
    let Some(role) = program.hook_role(event, payload) else {
        return Ok(HookAction::Ignore(if event.is_empty() {
            "(no hook_event_name)".into()
        } else {
            event.to_string()
        }));
    };
    match role {
        HookEvent::Skip(why) => Ok(HookAction::Ignore(why.into())),
        HookEvent::End => {
            let session_id = session_id()?;
            let transcript_path = match field("transcript_path", "transcriptPath") {
                Some(path) => expand_home(path, dirs.home),
                None => program
                    .session_log(&session_id, dirs.harness_home)
                    .map_err(|why| bad_payload(format!("{event} {why}")))?,
            };
            Ok(HookAction::Enqueue(JobRequest::SessionEnd {
                agent_id: agent_id.to_string(),
                session_id,
                harness: harness.as_str().into(),
                transcript_path,
                cwd: field("cwd", "cwd").map(String::from),
                captured_at: now,
            }))
        }
        HookEvent::Compacted => {
            let summary = field("compact_summary", "compactSummary")
                .ok_or_else(|| bad_payload("PostCompact payload has no compact_summary"))?;
            Ok(HookAction::Enqueue(JobRequest::Compaction {
                agent_id: agent_id.to_string(),
                session_id: session_id()?,
                // The model's raw text: its `<summary>`, then its `<analysis>`.
                body: crate::capture::sanitize::sanitize(&crate::transcript::compaction::kept(
                    summary,
                ))
                .text,
                captured_at: now,
            }))
        }
        HookEvent::Start => Ok(HookAction::Context {
            cwd: field("cwd", "cwd").map(PathBuf::from),
            event: event.to_string(),
        }),
        HookEvent::Prompt => Ok(HookAction::Prompt {
            prompt: field("prompt", "prompt").unwrap_or_default().to_string(),
            session_id: field("session_id", "sessionId").map(String::from),
            cwd: field("cwd", "cwd").map(PathBuf::from),
            event: event.to_string(),
        }),
    }
}

/// Older Claude Code examples show `~/...` transcript paths.
fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_is_read_without_waiting_for_end_of_input() {
        // A pipe whose writer never closes: the payload must still be read at once.
        let (reader, mut writer) = std::io::pipe().unwrap();
        std::io::Write::write_all(
            &mut writer,
            br#"{"hook_event_name":"SessionEnd","session_id":"s1"}"#,
        )
        .unwrap();
        let started = Instant::now();
        let v = read_payload(reader, Duration::from_secs(5)).unwrap();
        assert_eq!(v["session_id"], "s1");
        assert!(started.elapsed() < Duration::from_secs(1));
        drop(writer);
    }

    #[test]
    fn silence_and_garbage_are_errors() {
        let (reader, writer) = std::io::pipe().unwrap();
        let err = read_payload(reader, Duration::from_millis(100)).unwrap_err();
        assert!(err.to_string().contains("silence"), "{err}");
        drop(writer);
        assert!(read_payload(&b"[1,2]"[..], Duration::from_secs(1)).is_err());
        assert!(read_payload(&b"{\"a\": nope}"[..], Duration::from_secs(1)).is_err());
    }

    #[test]
    fn gemini_clis_automatic_precompress_is_no_capture_and_a_manual_one_is() {
        let payload = |trigger: &str| {
            serde_json::json!({"hook_event_name": "PreCompress", "session_id": "s1",
                "transcript_path": "/t.jsonl", "trigger": trigger})
        };
        let act = |p| {
            interpret(
                Harness::GeminiCli,
                &p,
                "default",
                Utc::now(),
                HookDirs::default(),
            )
        };
        assert!(matches!(act(payload("auto")), Ok(HookAction::Ignore(_))));
        assert!(matches!(
            act(payload("manual")),
            Ok(HookAction::Enqueue(JobRequest::SessionEnd { .. }))
        ));
    }

    #[test]
    fn events_map_to_jobs() {
        let now = Utc::now();
        let end = serde_json::json!({"hook_event_name":"SessionEnd","session_id":"s1","transcript_path":"~/t.jsonl","cwd":"/p","reason":"other"});
        let action = interpret(
            Harness::ClaudeCode,
            &end,
            "default",
            now,
            HookDirs {
                home: Some(Path::new("/home/u")),
                harness_home: None,
            },
        )
        .unwrap();
        let HookAction::Enqueue(JobRequest::SessionEnd {
            transcript_path, ..
        }) = action
        else {
            panic!("{action:?}")
        };
        assert_eq!(transcript_path, PathBuf::from("/home/u/t.jsonl"));
        let compact = serde_json::json!({"hook_event_name":"PostCompact","session_id":"s1","compact_summary":"key sk-ant-api03-abcdefghijklmnopqrstu"});
        let HookAction::Enqueue(JobRequest::Compaction { body, .. }) = interpret(
            Harness::ClaudeCode,
            &compact,
            "default",
            now,
            HookDirs::default(),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(body, "key [REDACTED:anthropic-api-key]");
        let stop = serde_json::json!({"hook_event_name":"Stop","session_id":"s1"});
        assert_eq!(
            interpret(
                Harness::ClaudeCode,
                &stop,
                "default",
                now,
                HookDirs::default()
            )
            .unwrap(),
            HookAction::Ignore("Stop".into())
        );
    }

    /// The payloads Copilot CLI 1.0.102 sent to a `settings.json` hook in a
    /// `copilot -p` run: no event name, camelCase fields, and no transcript
    /// path at the end of the session.
    #[test]
    fn copilot_cli_events_are_told_by_their_fields_and_its_events_file_is_found() {
        let now = Utc::now();
        let dirs = HookDirs {
            home: None,
            harness_home: Some(Path::new("/home/dev/.copilot")),
        };
        let id = "ba00e506-c38f-48e6-b10d-245d837d4a8b";
        let at = |v: serde_json::Value| interpret(Harness::CopilotCli, &v, "default", now, dirs);
        let start = serde_json::json!({"sessionId": id, "timestamp": 1795776768043u64, "cwd": "/home/dev/proj", "source": "new", "initialPrompt": "Say hi"});
        assert_eq!(
            at(start).unwrap(),
            HookAction::Context {
                cwd: Some(PathBuf::from("/home/dev/proj")),
                event: "sessionStart".into()
            }
        );
        let prompt = serde_json::json!({"sessionId": id, "timestamp": 1795776768093u64, "cwd": "/home/dev/proj", "prompt": "Say hi"});
        let HookAction::Prompt {
            prompt, session_id, ..
        } = at(prompt).unwrap()
        else {
            panic!("not a prompt")
        };
        assert_eq!(
            (prompt.as_str(), session_id.as_deref()),
            ("Say hi", Some(id))
        );
        let stop = serde_json::json!({"sessionId": id, "timestamp": 1795776768143u64, "cwd": "/home/dev/proj", "transcriptPath": "/home/dev/.copilot/session-state/x/events.jsonl", "stopReason": "end_turn", "stop_hook_active": false});
        assert_eq!(at(stop).unwrap(), HookAction::Ignore("agentStop".into()));
        let end = serde_json::json!({"sessionId": id, "timestamp": 1795776768146u64, "cwd": "/home/dev/proj", "reason": "complete"});
        let HookAction::Enqueue(JobRequest::SessionEnd {
            transcript_path,
            harness,
            ..
        }) = at(end).unwrap()
        else {
            panic!("not a capture")
        };
        assert_eq!(harness, "copilot-cli");
        assert_eq!(
            transcript_path,
            PathBuf::from(format!(
                "/home/dev/.copilot/session-state/{id}/events.jsonl"
            ))
        );
        let climbing =
            serde_json::json!({"sessionId": "../../etc", "cwd": "/p", "reason": "complete"});
        let err = at(climbing).unwrap_err().to_string();
        assert!(err.contains("not a plain session name"), "{err}");
        let reply = Harness::CopilotCli.context_reply("sessionStart", "digest");
        assert_eq!(reply, serde_json::json!({"additionalContext": "digest"}));
    }
}
