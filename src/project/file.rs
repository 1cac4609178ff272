//! Projection files: the managed block inside them, atomic writes, and the
//! writer lease.
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
    match std::fs::read(abs) {
        Ok(bytes) => match String::from_utf8(bytes) {
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

/// The byte range of the managed block: (start of begin line, end of end line).
fn block_range(text: &str) -> Option<(usize, usize)> {
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

/// Marks memsync's temporary files: `.{name}.memsync-{pid}.{random}`. The pid
/// tells a write in flight (its process lives) from one a crash left behind.
const TEMP_TAG: &str = ".memsync-";

/// Writes a file atomically: temp file in the same directory, fsync, rename,
/// fsync the directory. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let permissions = std::fs::metadata(path)
        .map(|m| m.permissions())
        .unwrap_or_else(|_| std::fs::Permissions::from_mode(0o644));
    let mut file = tempfile::Builder::new()
        .prefix(&format!(".{name}{TEMP_TAG}{}.", std::process::id()))
        .permissions(permissions)
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}

/// Refuses a workspace path reached through a symbolic link: the directories
/// of `rel` under `root` must be real directories (or not exist yet), so no
/// command reads, writes or deletes outside the workspace by following one.
pub fn check_real_dirs(root: &Path, rel: &str) -> std::io::Result<()> {
    let Some((parent, _)) = rel.rsplit_once('/') else {
        return Ok(());
    };
    let mut dir = root.to_path_buf();
    for part in parent.split('/') {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(std::io::Error::other(format!(
                    "{} is a symbolic link; memsync never reads or writes through one",
                    dir.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `write_atomic` for a workspace-relative path, never through a symlinked directory.
pub fn write_in_workspace(root: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    check_real_dirs(root, rel)?;
    write_atomic(&root.join(rel), bytes)
}

/// Whether `name` is a temporary file of `write_atomic` whose process is gone:
/// the rest of a write that a crash or `kill -9` interrupted. The target file
/// still holds its old bytes, so removing it loses nothing.
pub fn is_interrupted_write(name: &str) -> bool {
    let Some((_, tail)) = name.strip_prefix('.').and_then(|n| n.rsplit_once(TEMP_TAG)) else {
        return false;
    };
    let Some((pid, random)) = tail.split_once('.') else {
        return false;
    };
    let Ok(pid) = pid.parse::<i32>() else {
        return false;
    };
    if random.is_empty() || pid <= 0 || pid as u32 == std::process::id() {
        return false;
    }
    // SAFETY: signal 0 only asks whether the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    !alive
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
            "writer.lock",
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
    }

    #[test]
    fn a_begin_without_an_end_is_not_treated_as_a_block() {
        let text = "<!-- memsync:begin x -->\nuser text\n";
        assert_eq!(outside_block(text), (text, ""));
        assert!(splice(text, "B\n").starts_with(text));
    }
}
