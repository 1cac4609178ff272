//! Gemini CLI: what memsync knows of it. Its reader turns its chat JSONL and, before 0.61, its one-document `session-*.json` into a
//! transcript.
//!
//! Owns: Gemini CLI's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
