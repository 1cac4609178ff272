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

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use super::TEMP_TAG;

/// How long the recovery waits for writers of the old file to close it.
const RECOVERY_LIMIT: Duration = Duration::from_secs(2);
/// Without leases: how long the old file must stay unchanged to count as closed.
const QUIET_SPELL: Duration = Duration::from_millis(20);

/// What `replace_preserving_appends` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    /// `render` asked for no change.
    Unchanged,
    /// The new text is in place, with every byte appended meanwhile after it.
    Written,
}

/// Replaces `path` with `render(current text)` atomically. `render` returning
/// `None` (or the same text) leaves the file as it is. Bytes other programs
/// append to the file while this runs end up at the end of the new file.
pub fn replace_preserving_appends(
    path: &Path,
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
        File::open(dir)?.sync_all()?;
        if let Some(file) = old {
            recover_appends(file, read_len, path)?;
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
    let partial = bytes.last().is_some_and(|&b| b != b'\n');
    if partial {
        let cut = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let tail = &bytes[cut..];
        let ours = tail.windows(8).any(|w| w == b"memsync:");
        if !ours && no_writer_holds(file) != Some(true) {
            bytes.truncate(cut);
        }
    }
    let len = bytes.len() as u64;
    let text = String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8; left untouched")
    })?;
    Ok((text, len))
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
/// new one, until no process holds the replaced file open for writing. While
/// one does, only whole lines are copied: a write that crosses a page may be
/// seen half done, and its other half must follow it, not a newer line.
fn recover_appends(mut old: File, mut offset: u64, path: &Path) -> std::io::Result<()> {
    let started = Instant::now();
    let mut quiet_since = Instant::now();
    loop {
        // Checked before the length is read: a writer that closed the file
        // before this check wrote all it will.
        let closed = match no_writer_holds(&old) {
            Some(closed) => closed,
            None => quiet_since.elapsed() >= QUIET_SPELL,
        };
        let len = old.metadata()?.len();
        if len > offset {
            let mut tail = Vec::with_capacity((len - offset) as usize);
            old.seek(SeekFrom::Start(offset))?;
            (&mut old).take(len - offset).read_to_end(&mut tail)?;
            let whole = match closed {
                true => tail.len(),
                false => tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1),
            };
            if whole > 0 {
                append(path, &tail[..whole])?;
                offset += whole as u64;
                quiet_since = Instant::now();
                continue;
            }
        }
        if closed && len == offset {
            return Ok(());
        }
        if started.elapsed() >= RECOVERY_LIMIT {
            tracing::warn!(
                path = %path.display(),
                "a process still holds the replaced file open for writing; what it writes from now on goes to the old file"
            );
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Appends `bytes` to the file now at `path`, as any other writer would.
fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_data()
}

/// Whether no process has `file` open for writing: `Some` when the system can
/// tell (a Linux read lease is granted only then), `None` when it cannot.
#[cfg(target_os = "linux")]
fn no_writer_holds(file: &File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    // fcntl.h's F_SETSIG, which the libc crate does not export.
    const F_SETSIG: libc::c_int = 10;
    let fd = file.as_raw_fd();
    // A lease break signals its holder; SIGURG is ignored by default, where
    // the default SIGIO would end the process.
    // SAFETY: fcntl on a descriptor this function borrows; no memory is passed.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return None;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return Some(true);
        }
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(false),
        // Not the owner, or a file system without leases.
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn no_writer_holds(_file: &File) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_appended_during_the_render_land_after_the_new_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("log.md");
        std::fs::write(&path, "old\n").expect("write");
        let replaced = replace_preserving_appends(&path, |text| {
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
        let replaced = replace_preserving_appends(&path, |t| Some(t.to_string())).expect("replace");
        assert_eq!(replaced, Replaced::Unchanged);
        assert_eq!(std::fs::metadata(&path).expect("stat").ino(), before);
    }

    #[test]
    fn a_symlink_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("outside.md");
        std::fs::write(&outside, "secret\n").expect("write");
        let link = dir.path().join("MEMORY.md");
        std::os::unix::fs::symlink(&outside, &link).expect("symlink");
        let err = replace_preserving_appends(&link, |_| Some("x".into())).expect_err("refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&outside).expect("read"), "secret\n");
    }
}
