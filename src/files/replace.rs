//! Rewriting a file that other programs append to, without losing their bytes.
//!
//! Owns: the read, render, rename and recovery of one shared file. Must not:
//! know what the file means (the caller's `render` decides its new text).
//!
//! A rename replaces the file atomically, but a program that opened the old
//! file to append (an OpenClaw agent writing today's log, `echo >>`) may write
//! into the old inode after memsync read it, or even after the rename. memsync
//! keeps the old file open across the rename and copies whatever was appended
//! to it onto the new file, until no process holds the old one open for
//! writing (a read lease on Linux tells that exactly; elsewhere a quiet spell).
//! A writer that holds the file for longer (a logger, a stream kept open) is
//! followed by the daemon for as long as it does; a one-shot command, which
//! cannot stay, leaves a file held open alone for the daemon or a later run.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use super::TEMP_TAG;
use super::held::{Catch, Held, HeldFiles, no_writer_holds};

/// How long a one-shot command's recovery waits for a writer that opened the
/// file just as it was replaced to close it.
const RECOVERY_LIMIT: Duration = Duration::from_secs(2);
/// How long the daemon copies appends itself before its follower takes over.
const HAND_OVER_AFTER: Duration = Duration::from_millis(20);
/// How long a one-shot command waits for a writer to close the file before
/// leaving it for later.
const HOLD_WAIT: Duration = Duration::from_millis(250);

/// What a rewrite does about a file another process holds open for writing.
#[derive(Debug, Clone, Copy)]
pub enum WhileHeld<'a> {
    /// Leave it as it is (`Replaced::Held`): the writer would go on writing
    /// into the replaced file after this command has exited. One-shot commands.
    Defer,
    /// Replace it and copy what the writer adds to the replaced file for as
    /// long as it holds it. The daemon.
    Follow(&'a HeldFiles),
}

/// What `replace_preserving_appends` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// `render` asked for no change.
    Unchanged,
    /// The new text is in place, with every byte appended meanwhile after it.
    Written,
    /// Another process holds the file open for writing (`WhileHeld::Defer`).
    Held,
}

/// Replaces `path` with `render(current text)` atomically. `render` returning
/// `None` (or the same text) leaves the file as it is. Bytes other programs
/// append to the file while this runs end up at the end of the new file.
pub fn replace_preserving_appends(
    path: &Path,
    while_held: WhileHeld<'_>,
    render: impl Fn(&str) -> Option<String>,
) -> std::io::Result<Replaced> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    loop {
        let old = open_existing(path)?;
        let (text, read_len) = match &old {
            Some(file) => read_whole_lines(file)?,
            None => (String::new(), 0),
        };
        let Some(new) = render(&text).filter(|n| *n != text) else {
            return Ok(Replaced::Unchanged);
        };
        if let (Some(file), WhileHeld::Defer) = (&old, while_held)
            && !writers_gone(file)
        {
            return Ok(Replaced::Held);
        }
        let existing = match &old {
            Some(file) => Some(file.metadata()?.permissions().mode()),
            None => None,
        };
        let temp = write_temp(dir, path, new.as_bytes(), existing.unwrap_or(0o644))?;
        if let Some(mode) = existing {
            // Created under the umask; an existing file keeps exactly its mode.
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
        }
        match &old {
            Some(file) => {
                // Someone replaced the whole file (an editor's save, a git
                // checkout) since it was read: render their text instead.
                if !same_inode(file, path) {
                    continue;
                }
                temp.persist(path).map_err(|e| e.error)?;
            }
            // A file created meanwhile is never replaced unseen.
            None => match temp.persist_noclobber(path) {
                Ok(_) => {}
                Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.error),
            },
        }
        // No fsync of the directory: until the rename is durable the old file
        // stands, and it holds every byte written to it (what `recover_appends`
        // copies is copied from it). The file's own bytes were synced first.
        if let Some(file) = old {
            recover_appends(file, read_len, path, while_held)?;
        }
        return Ok(Replaced::Written);
    }
}

fn open_existing(path: &Path) -> std::io::Result<Option<File>> {
    match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) if file.metadata()?.is_file() => Ok(Some(file)),
        Ok(_) => Err(std::io::Error::other("not a regular file")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(std::io::Error::other(
            "is a symbolic link; memsync never writes through one",
        )),
        Err(e) => Err(e),
    }
}

/// The file's text up to its last complete line, and how many bytes that
/// is. A last line without its newline while a writer holds the file open
/// is a write still in progress (a `write()` that crosses a page is briefly
/// visible half done): it is left in the old file for `recover_appends`,
/// which copies it with the rest of its bytes, so a render never cuts a line
/// in two. A file that simply ends without a newline keeps its last line.
fn read_whole_lines(mut file: &File) -> std::io::Result<(String, u64)> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let cut = whole_lines_len(file, &bytes);
    bytes.truncate(cut);
    let len = bytes.len() as u64;
    let text = String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8; left untouched")
    })?;
    Ok((text, len))
}

/// How much of `bytes` (what was just read from `file`) a render may take.
/// A last line without its newline is kept only when it is the file's true
/// end: no writer holds the file, and, asked after that, the file is still
/// as long as what was read. A write that was half visible during the read
/// and finished before the lease was asked has made the file longer.
fn whole_lines_len(file: &File, bytes: &[u8]) -> usize {
    if bytes.last().is_none_or(|&b| b == b'\n') {
        return bytes.len();
    }
    let cut = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let ours = bytes[cut..].windows(8).any(|w| w == b"memsync:");
    let ended = no_writer_holds(file) == Some(true)
        && file.metadata().is_ok_and(|m| m.len() == bytes.len() as u64);
    match ours || ended {
        true => bytes.len(),
        false => cut,
    }
}

/// The bytes in a synced temporary file beside `path`, named so a crash's
/// leftover is recognised (`is_interrupted_write`).
pub(super) fn write_temp(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    mode: u32,
) -> std::io::Result<tempfile::NamedTempFile> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}{TEMP_TAG}{}.", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    Ok(temp)
}

fn same_inode(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Copies what was appended to the replaced file (from `offset` on) onto the
/// new one until no process holds the replaced file open for writing. A
/// writer that keeps it open longer is handed to the daemon's follower, or,
/// in a one-shot command (which checked there was none just before), waited
/// for up to `RECOVERY_LIMIT`.
fn recover_appends(
    old: File,
    offset: u64,
    path: &Path,
    while_held: WhileHeld<'_>,
) -> std::io::Result<()> {
    let mut held = Held::new(old, offset, path);
    let started = Instant::now();
    let limit = match while_held {
        WhileHeld::Follow(_) => HAND_OVER_AFTER,
        WhileHeld::Defer => RECOVERY_LIMIT,
    };
    while held.catch_up()? == Catch::Writing {
        if started.elapsed() >= limit {
            match while_held {
                WhileHeld::Follow(files) => files.adopt(held),
                WhileHeld::Defer => tracing::warn!(
                    path = %path.display(),
                    "a process opened the file just as it was replaced and still holds it; what it writes from now on goes to the replaced file"
                ),
            }
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// Waits up to `HOLD_WAIT` for every writer of `file` to close it: false if
/// one still holds it (true when the system cannot tell).
fn writers_gone(file: &File) -> bool {
    let started = Instant::now();
    loop {
        match no_writer_holds(file) {
            Some(false) if started.elapsed() < HOLD_WAIT => {
                std::thread::sleep(Duration::from_millis(2))
            }
            Some(false) => return false,
            Some(true) | None => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_appended_during_the_render_land_after_the_new_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.md");
        std::fs::write(&path, "old\n").expect("write");
        let replaced = replace_preserving_appends(&path, WhileHeld::Defer, |text| {
            // Another program appends after memsync read the file.
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .expect("open");
            f.write_all(b"appended\n").expect("append");
            Some(text.replace("old", "new"))
        })
        .expect("replace");
        assert_eq!(replaced, Replaced::Written);
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "new\nappended\n"
        );
    }

    #[test]
    fn a_render_that_changes_nothing_leaves_the_file_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.md");
        std::fs::write(&path, "same\n").expect("write");
        let before = std::fs::metadata(&path).expect("stat").ino();
        let replaced = replace_preserving_appends(&path, WhileHeld::Defer, |t| Some(t.to_string()))
            .expect("replace");
        assert_eq!(replaced, Replaced::Unchanged);
        assert_eq!(std::fs::metadata(&path).expect("stat").ino(), before);
    }

    #[test]
    fn a_last_line_without_its_newline_is_kept_when_it_is_the_files_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.md");
        std::fs::write(&path, "a\nno newline").expect("write");
        let file = File::open(&path).expect("open");
        let (text, len) = read_whole_lines(&file).expect("read");
        assert_eq!((text.as_str(), len), ("a\nno newline", 12));
    }

    #[test]
    fn a_write_that_finished_after_the_read_is_left_for_the_recovery_not_cut() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.md");
        // What the read saw: a write still half done...
        std::fs::write(&path, "a\nhal").expect("write");
        let file = File::open(&path).expect("open");
        let mut seen = Vec::new();
        (&file).read_to_end(&mut seen).expect("read");
        // ...which finished, and its writer closed the file, before the lease
        // was asked for: no writer holds it, but the line goes on.
        let mut writer = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        writer.write_all(b"f\n").expect("append");
        drop(writer);
        assert_eq!(whole_lines_len(&file, &seen), 2);
    }

    #[test]
    fn a_symlink_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("outside.md");
        std::fs::write(&outside, "secret\n").expect("write");
        let link = dir.path().join("MEMORY.md");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        let err = replace_preserving_appends(&link, WhileHeld::Defer, |_| Some("x".into()))
            .expect_err("refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&outside).expect("read"), "secret\n");
    }
}
