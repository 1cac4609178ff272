//! GitHub Copilot CLI: what memsync knows of it. Its reader turns its `events.jsonl`, the legacy one-document session, and its `session.shutdown` end marker into a
//! transcript.
//!
//! Owns: GitHub Copilot CLI's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
