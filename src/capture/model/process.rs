//! How memsync runs a program for a model call (a provider's print mode, a
//! configured command): in memsync's own model-call folder, with the
//! model-call marker in its environment, its own process group, the prompt
//! on stdin and a timeout that kills everything it started.
//!
//! Owns: spawning, feeding, timing out and reading one call. Must not: judge
//! what the program printed (that is `gate`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// Why an external command gave no usable output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandFailure {
    #[error("could not start `{0}`: {1}")]
    Spawn(String, String),
    #[error("`{0}` did not finish within {1} s and was killed")]
    Timeout(String, u64),
    #[error("`{0}` exited with {1}")]
    Exit(String, String),
    #[error("`{0}` printed nothing")]
    Empty(String),
}

/// The folder every model call runs in: `$XDG_STATE_HOME/memsync/model-call`
/// (else `~/.local/state/…`, else the temp dir's). A harness keeps its
/// sessions per folder, so a session started here is told from the
/// person's by its folder alone. Made private if missing.
pub fn call_folder() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let state = var("XDG_STATE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = state.join(crate::contract::MODEL_CALL_FOLDER);
    // A folder that cannot be made leaves the call in the current one; the
    // environment marker and the prompt's marker still hold.
    let _ = crate::files::create_private_dir(&dir);
    dir
}

/// Runs `cmd` as a model call: `label` names it in errors, `stdin` is its
/// input; returns its trimmed standard output.
pub fn run(
    mut cmd: Command,
    label: &str,
    stdin: &str,
    timeout: Duration,
) -> Result<String, CommandFailure> {
    use std::os::unix::process::CommandExt;
    let folder = call_folder();
    if folder.is_dir() {
        cmd.current_dir(&folder);
    }
    let mut child = cmd
        .env(crate::contract::MODEL_CALL_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| CommandFailure::Spawn(label.into(), e.to_string()))?;
    let input = stdin.to_string();
    let mut child_stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = child_stdin.as_mut() {
            // A command that ignores its input closes the pipe early: not an error.
            let _ = s.write_all(input.as_bytes());
        }
    });
    let mut child_stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = child_stdout.as_mut() {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) | Err(_) => {
            // SAFETY: kill(2) on the child's process group, which we created.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            return Err(CommandFailure::Timeout(label.into(), timeout.as_secs()));
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(CommandFailure::Exit(label.into(), status.to_string()));
    }
    let text = String::from_utf8_lossy(&out).trim().to_string();
    if text.is_empty() {
        return Err(CommandFailure::Empty(label.into()));
    }
    Ok(text)
}
