//! Codex: what memsync knows of it. Its reader turns its rollout JSONL (`sessions/YYYY/MM/DD/rollout-*.jsonl`), and when a rollout says its turn is over into a
//! transcript.
//!
//! Owns: Codex's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
