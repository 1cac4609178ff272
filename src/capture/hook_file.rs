//! The file a hook's payload names. A payload is JSON any program on the
//! machine can hand memsync, so its path is trusted no further than harvest
//! trusts a file in a harness's folder: a regular file the user may read
//! that reads as that harness's own session log.
//!
//! Owns: refusing every other file, for good. Must not: read the file (the
//! capture's reader does) or write anything.

use super::SessionEnd;
use crate::error::{CaptureError, Error, Result};
use crate::transcript::Transcript;

/// Why a transcript could not be read. A hook's path that is not a regular
/// file, or not the user's to read, is refused for good: retrying a FIFO or
/// another user's file only waits on it.
pub(super) fn unreadable(req: &SessionEnd, e: std::io::Error) -> Error {
    use std::io::ErrorKind::{Other, PermissionDenied};
    match e.kind() {
        PermissionDenied | Other if req.from_hook => CaptureError::Refused {
            path: req.transcript.clone(),
            reason: format!(
                "{e}: a hook's payload names a file that is not a session log memsync may read"
            ),
        }
        .into(),
        _ => Error::io(&req.transcript, e),
    }
}

/// A hook captures only its own harness's session log: a payload naming any
/// other file (`/etc/passwd`, a note, another tool's log) is refused, as
/// harvest refuses a file in a harness's folder that no reader understands.
pub(super) fn check(req: &SessionEnd, t: &Transcript) -> Result<()> {
    let claimed = req.harness.as_deref().unwrap_or_default();
    if t.foreign.is_some() || t.format.harness() == Some(claimed) {
        // A foreign format is refused with its own reason just after.
        return Ok(());
    }
    let read_as = match t.format.harness() {
        Some(other) => format!("a {other} session log"),
        None if t.plain.is_some() => "plain text".to_string(),
        None => "no session log memsync reads".to_string(),
    };
    Err(CaptureError::Refused {
        path: req.transcript.clone(),
        reason: format!(
            "the {claimed} hook's payload names this file, which reads as {read_as}, not as a {claimed} session log; a hook captures only its harness's own session file (capture another file with `memsync capture session-end`)"
        ),
    }
    .into())
}
