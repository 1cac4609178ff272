//! opencode: what memsync knows of it. Its reader turns the rows of its database as JSON lines, and an `opencode export` into a
//! transcript.
//!
//! Owns: opencode's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
