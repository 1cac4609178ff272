//! The source a session-end capture reads: a transcript file, stdin, or
//! one session's rows of opencode's database, within the transcript budget,
//! and the note of what the budget and the line limit left out.
//!
//! Owns: opening and reading the source. Must not: decide what to capture.

use std::path::Path;

use crate::error::{Error, Result};
use crate::transcript::Transcript;

/// A transcript file (or stdin for `-`), read a line at a time; one
/// session's rows of an opencode database (`session_id`'s, else the newest).
pub(super) fn read_transcript(
    path: &Path,
    session_id: Option<&str>,
    (keep, max): (usize, u64),
) -> Result<std::io::Result<Transcript>> {
    if path == Path::new("-") {
        return Ok(crate::harnesses::read_from(std::io::stdin().lock(), keep));
    }
    if let Some(rows) = crate::store::opencode::session_rows(path, session_id, max)? {
        return Ok(crate::harnesses::read_from(&rows[..], keep));
    }
    let file = crate::files::open_file(path).map_err(|e| Error::io(path, e))?;
    Ok(crate::harnesses::read_from(
        std::io::BufReader::with_capacity(64 * 1024, file),
        keep,
    ))
}

/// Says in the report what the budget and the line limit left out.
pub(super) fn note_what_was_left_out(t: &Transcript, keep: usize, notes: &mut Vec<String>) {
    for cut in &t.cut_lines {
        notes.push(format!(
            "line {} of the transcript is {} bytes, over the {} KiB line limit: cut{}",
            cut.line,
            cut.bytes,
            keep / 1024,
            if t.plain.is_some() {
                ""
            } else {
                " and skipped"
            }
        ));
    }
    if t.elided > 0 {
        notes.push(format!(
            "{} messages ({} bytes) left out: a transcript keeps its first request and answer and its newest {} KiB (capture.max_transcript_bytes)",
            t.elided,
            t.elided_bytes,
            keep / 1024
        ));
    }
}
