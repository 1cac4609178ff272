//! How memsync puts bytes on disk: atomic writes, writes that never pass
//! through a symlinked directory, private state directories, and telling a
//! crashed write's temporary file from one in flight.
//!
//! Owns: the file-system primitives every writer shares. Must not: know what
//! a file means (projections, artifacts and state all call in here).

pub mod block;
mod held;
mod replace;

use std::path::Path;

pub use held::HeldFiles;

/// Whether no process has `file` open for writing (Linux leases); `None`
/// where the system cannot tell.
pub fn no_writer_holds(file: &std::fs::File) -> Option<bool> {
    held::no_writer_holds(file)
}
pub use replace::{Replaced, WhileHeld, replace_preserving_appends};

use crate::error::{Error, Result};

/// Marks memsync's temporary files: `.{name}.memsync-{pid}.{random}`. The pid
/// tells a write in flight (its process lives) from one a crash left behind.
const TEMP_TAG: &str = ".memsync-";

/// Writes a file atomically: temp file in the same directory, fsync, rename,
/// fsync the directory. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_mode(path, bytes, 0o644)
}

/// `write_atomic`, giving a file that does not exist yet `new_mode` (less
/// the umask); a file that exists keeps its own mode.
pub fn write_atomic_mode(path: &Path, bytes: &[u8], new_mode: u32) -> std::io::Result<()> {
    put_in_place(path, bytes, new_mode)?;
    sync_dir(path)
}

/// Makes the renames into `path`'s directory durable (one fsync of the
/// directory covers every rename made in it before).
pub fn sync_dir(path: &Path) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::File::open(dir)?.sync_all()
}

/// The bytes durable under a temporary name, then renamed to `path`; the
/// rename is durable only once the directory is synced (`sync_dir`).
fn put_in_place(path: &Path, bytes: &[u8], new_mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions().mode());
    let temp = replace::write_temp(dir, path, bytes, existing.unwrap_or(new_mode))?;
    if let Some(mode) = existing {
        // Created under the umask; an existing file keeps exactly its mode.
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Opens `path` for reading only if it is a regular file: the open never
/// blocks (a FIFO named like an artifact or a transcript would wait for a
/// writer for ever) and a device (`/dev/zero`, `/dev/urandom`), a FIFO or a
/// directory is refused before a byte is read. Symbolic links are followed.
pub fn open_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let what = if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_dir() {
            "a directory"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a file"
        };
        return Err(std::io::Error::other(format!(
            "{what}, not a regular file; not read"
        )));
    }
    Ok(file)
}

/// The whole of a regular file (see [`open_file`]).
pub fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut open_file(path)?, &mut bytes)?;
    Ok(bytes)
}

/// [`read_file`] for any path-like argument, as `std::fs::read` takes one:
/// a FIFO, a device or a socket where a file should be is an error at
/// once, never a read that blocks.
pub fn read_file_at(path: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    read_file(path.as_ref())
}

/// [`read_text`] for any path-like argument (see [`read_file_at`]).
pub fn read_text_at(path: impl AsRef<Path>) -> std::io::Result<String> {
    read_text(path.as_ref())
}

/// A regular file's text (see [`open_file`]); invalid UTF-8 is an error.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_file(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Opens `rel` under `root` for reading only if it is a regular file reached
/// through no symbolic link (neither a directory on the way nor the file
/// itself): what memsync serves to an agent is never a file outside the
/// workspace that a committed link points at.
pub fn open_regular(root: &Path, rel: &str) -> std::io::Result<(std::fs::File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    check_real_dirs(root, rel)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(root.join(rel))
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => std::io::Error::other(format!(
                "{rel} is a symbolic link; memsync never reads through one"
            )),
            _ => e,
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!(
            "{rel} is not a regular file"
        )));
    }
    Ok((file, meta.len()))
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

/// `replace_preserving_appends` for a workspace-relative path, never through
/// a symlinked directory.
pub fn replace_in_workspace(
    root: &Path,
    rel: &str,
    while_held: WhileHeld<'_>,
    render: impl Fn(&str) -> Option<String>,
) -> std::io::Result<Replaced> {
    check_real_dirs(root, rel)?;
    replace_preserving_appends(&root.join(rel), while_held, render)
}

/// `write_atomic` for a workspace-relative path, never through a symlinked directory.
pub fn write_in_workspace(root: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    check_real_dirs(root, rel)?;
    write_atomic(&root.join(rel), bytes)
}

/// Writes a new file atomically under `rel`, never over one: an existing
/// file is `AlreadyExists` and keeps its bytes (the rename is a link that
/// fails when the name is taken).
pub fn write_new_in_workspace(root: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    check_real_dirs(root, rel)?;
    let path = root.join(rel);
    let dir = path.parent().unwrap_or(root);
    std::fs::create_dir_all(dir)?;
    let temp = replace::write_temp(dir, &path, bytes, 0o644)?;
    temp.persist_noclobber(&path).map_err(|e| e.error)?;
    sync_dir(&path)
}

/// `write_in_workspace` without the fsync of the directory: for files
/// written together, whose writer syncs the directory once after the last
/// (`sync_dir`). Until then a crash may lose the new name, never the bytes
/// under an old one.
pub fn write_in_workspace_unsynced(root: &Path, rel: &str, bytes: &[u8]) -> std::io::Result<()> {
    check_real_dirs(root, rel)?;
    put_in_place(&root.join(rel), bytes, 0o644)
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
    !process_alive(pid)
}

/// Whether a process of this id exists on this machine (one of another user
/// counts: it exists).
pub fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// memsync's state directory: `0700`, with a `.gitignore` of `*` so git never sees it.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| Error::io(dir, e))?;
    }
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n").map_err(|e| Error::io(&ignore, e))?;
    }
    Ok(())
}

pub fn set_private_mode(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
}

/// Whether this process may write `path` and create files beside it (as
/// SQLite's `-wal` and `-shm`): the file if it exists, and its nearest
/// existing directory. A read-only mount or another user's files say no.
pub fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let may_write = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes()).is_ok_and(|c| {
            // SAFETY: access only reads the NUL-terminated path we pass.
            unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
        })
    };
    if path.symlink_metadata().is_ok() && !may_write(path) {
        return false;
    }
    path.ancestors()
        .skip(1)
        .find(|d| d.is_dir())
        .is_some_and(may_write)
}
