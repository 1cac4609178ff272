//! Shell completion: the registration script `memsync completions SHELL`
//! prints, and the values completed from the index (session tokens, agents).
//!
//! The script calls `memsync` back at each TAB (clap_complete's dynamic
//! engine, `COMPLETE=SHELL memsync`), so values come from the user's own
//! index as it is now. Owns: which index a completion reads. Must not: fail
//! loudly or write anything (a completion that cannot read offers nothing).

use std::ffi::OsString;
use std::path::PathBuf;

use clap_complete::engine::CompletionCandidate;

use crate::config::{Env, Settings};
use crate::store::completion::{self, Candidate};

/// How many sessions `open <TAB>` offers, newest first.
const SESSIONS_OFFERED: usize = 200;

/// The script that makes `shell` complete `memsync` by calling it back.
pub fn registration(shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    let name = shell.to_string();
    if let Some(completer) = clap_complete::env::Shells::builtins().completer(&name) {
        // "memsync" from PATH, so the script survives an upgrade or a move.
        let _ =
            completer.write_registration("COMPLETE", "memsync", "memsync", "memsync", &mut script);
    }
    script
}

/// `--NAME VALUE` or `--NAME=VALUE` on the command line being completed.
fn flag_value(args: &[OsString], name: &str) -> Option<PathBuf> {
    let long = format!("--{name}");
    let joined = format!("--{name}=");
    args.iter().enumerate().find_map(|(i, a)| {
        let a = a.to_string_lossy();
        if a == long {
            args.get(i + 1).map(PathBuf::from)
        } else {
            a.strip_prefix(&joined).map(PathBuf::from)
        }
    })
}

/// The index of the workspace the line names (or the default one).
fn index_path() -> Option<PathBuf> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let (workspace, config) = (flag_value(&args, "workspace"), flag_value(&args, "config"));
    let settings = Settings::load(
        workspace.as_deref(),
        config.as_deref(),
        &Env::from_process(),
    )
    .ok()?;
    let index = settings.index_path();
    index.is_file().then_some(index)
}

fn offer(found: crate::error::Result<Vec<Candidate>>) -> Vec<CompletionCandidate> {
    found
        .unwrap_or_default()
        .into_iter()
        .map(|c| CompletionCandidate::new(c.value).help(Some(c.help.into())))
        .collect()
}

/// Session tokens, newest first, each described by its ledger sentence.
pub fn session_tokens() -> Vec<CompletionCandidate> {
    index_path().map_or_else(Vec::new, |index| {
        offer(completion::sessions(&index, SESSIONS_OFFERED))
    })
}

/// The agents with sessions in the index.
pub fn agents() -> Vec<CompletionCandidate> {
    index_path().map_or_else(Vec::new, |index| offer(completion::agents(&index)))
}
