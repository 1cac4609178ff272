//! pi: what memsync knows of it. Its reader turns its session JSONL, which OpenClaw writes too into a
//! transcript.
//!
//! Owns: pi's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
