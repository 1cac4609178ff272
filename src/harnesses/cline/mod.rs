//! Cline: what memsync knows of it. Its reader turns its `<id>.messages.json` document into a
//! transcript.
//!
//! Owns: Cline's own formats. Must not: import another harness's folder
//! (shared shapes live in the transcript stage).

pub mod reader;
