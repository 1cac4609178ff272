//! Projection files: the managed block inside them and the writer lease.
//!
//! Owns: splicing a block into a file without touching any other byte.
//! Must not: decide what the block says.

use std::path::Path;

use crate::error::{Error, Result};
use crate::validate::Problem;

pub const BLOCK_BEGIN: &str = "<!-- memsync:begin";
pub const BLOCK_END: &str = "<!-- memsync:end -->";

/// The file's current text; `None` (with a problem) when it exists but cannot be read.
pub(super) fn read_existing(abs: &Path, rel: &str, problems: &mut Vec<Problem>) -> Option<String> {
    match std::fs::symlink_metadata(abs) {
        Ok(meta) if !meta.is_file() => {
            problems.push(Problem::error(
                rel,
                "projection.read",
                "not a regular file (a directory or a link?); left untouched",
            ));
            return None;
        }
        _ => {}
    }
    match crate::files::read_file(abs) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) if block_count(&text) > 1 => {
                problems.push(Problem::error(
                    rel,
                    "projection.markers",
                    format!(
                        "holds {} memsync blocks (a pasted copy?); left untouched until only one `{BLOCK_BEGIN}` … `{BLOCK_END}` pair remains",
                        block_count(&text)
                    ),
                ));
                None
            }
            Ok(text) => Some(text),
            Err(_) => {
                problems.push(Problem::error(
                    rel,
                    "projection.encoding",
                    "not valid UTF-8; left untouched",
                ));
                None
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(String::new()),
        Err(e) => {
            problems.push(Problem::error(
                rel,
                "projection.read",
                format!("cannot read: {e}; left untouched"),
            ));
            None
        }
    }
}

/// How many begin markers the text holds: more than one means a pasted copy,
/// and memsync cannot tell which block is its own.
pub fn block_count(text: &str) -> usize {
    text.split_inclusive('\n')
        .filter(|line| line.starts_with(BLOCK_BEGIN))
        .count()
}

/// The byte range of the managed block: (start of begin line, end of end line).
pub fn block_range(text: &str) -> Option<(usize, usize)> {
    block_range_with(text, BLOCK_BEGIN, BLOCK_END)
}

/// The byte range of a block between a line starting with `begin` and a line
/// that is `end`; the same rule for every file memsync manages a block in.
pub fn block_range_with(text: &str, begin_prefix: &str, end_line: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut begin = None;
    for line in text.split_inclusive('\n') {
        if begin.is_none() && line.starts_with(begin_prefix) {
            begin = Some(offset);
        } else if begin.is_some() && line.trim_end() == end_line {
            return begin.map(|b| (b, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

/// The text before and after the managed block (everything, when there is none).
pub fn outside_block(text: &str) -> (&str, &str) {
    match block_range(text) {
        Some((b, e)) => (&text[..b], &text[e..]),
        None => (text, ""),
    }
}

/// Replaces the managed block, or appends one after a blank line; every other byte stays.
pub fn splice(existing: &str, block: &str) -> String {
    splice_with(existing, block, block_range(existing))
}

/// `splice` for a block found by `block_range_with`.
pub fn splice_with(existing: &str, block: &str, range: Option<(usize, usize)>) -> String {
    if let Some((b, e)) = range {
        return format!("{}{block}{}", &existing[..b], &existing[e..]);
    }
    let mut out = existing.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(block);
    out
}

/// Takes out the block at `range`, with the blank line `splice_with` put
/// before a block it appended; every other byte stays.
pub fn unsplice(existing: &str, (b, e): (usize, usize)) -> String {
    let (mut head, tail) = (&existing[..b], &existing[e..]);
    if tail.is_empty()
        && let Some(h) = head.strip_suffix('\n')
        && h.ends_with('\n')
    {
        head = h;
    }
    format!("{head}{tail}")
}

/// The lease on writing projections: two memsync processes never write them at once.
pub struct WriterLock {
    _lock: crate::lock::PidLock,
}

impl WriterLock {
    /// Waits up to 30 s for another writer to finish.
    pub fn acquire(state_dir: &Path) -> Result<WriterLock> {
        match crate::lock::PidLock::acquire(
            state_dir,
            crate::lock::WRITER_LOCK,
            std::time::Duration::from_secs(30),
        )? {
            crate::lock::Acquired::Held(lock) => Ok(WriterLock { _lock: lock }),
            crate::lock::Acquired::Busy { path, holder } => Err(Error::Locked {
                path,
                reason: format!("another memsync process (pid {holder}) is writing projections"),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_keeps_every_byte_outside_the_block() {
        let old = "head\r\n<!-- memsync:begin x -->\nold\n<!-- memsync:end -->\ntail";
        assert_eq!(
            splice(old, "<!-- memsync:begin x -->\nnew\n<!-- memsync:end -->\n"),
            "head\r\n<!-- memsync:begin x -->\nnew\n<!-- memsync:end -->\ntail"
        );
        assert_eq!(splice("no newline", "B\n"), "no newline\n\nB\n");
        assert_eq!(splice("", "B\n"), "B\n");
        let spliced = splice("head\n", "<!-- memsync:begin x -->\n<!-- memsync:end -->\n");
        let range = block_range(&spliced).expect("block");
        assert_eq!(unsplice(&spliced, range), "head\n");
    }

    #[test]
    fn a_begin_without_an_end_is_not_treated_as_a_block() {
        let text = "<!-- memsync:begin x -->\nuser text\n";
        assert_eq!(outside_block(text), (text, ""));
        assert!(splice(text, "B\n").starts_with(text));
    }
}
