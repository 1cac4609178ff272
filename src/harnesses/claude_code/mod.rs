//! Claude Code: what memsync knows of it. Its reader turns its session JSONL (`projects/<slug>/<id>.jsonl`) into a
//! transcript.
//!
//! Owns: Claude Code's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
