//! qwen-code: what memsync knows of it. Its reader turns its chat JSONL (Claude Code's envelope around Gemini-style parts) into a
//! transcript.
//!
//! Owns: qwen-code's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
