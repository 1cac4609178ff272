//! Typed errors, one per stage, and the one place they map to exit codes.
//!
//! Owns: every error type and `Error::exit_status`. Must not: print anything
//! (the binary does that). Each variant carries the path or the value it is
//! about and the reason, so a message always says what to fix.

use std::path::PathBuf;

/// Exit codes, as documented in `memsync man` (EXIT STATUS): 0 ok, 1 problems found, 2 usage or
/// configuration error, 3 runtime failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Ok = 0,
    Problems = 1,
    Usage = 2,
    Runtime = 3,
}

/// Any error of the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] ConfigError),

    #[error(transparent)]
    Usage(#[from] UsageError),

    #[error(transparent)]
    Store(#[from] StoreError),

    #[error(transparent)]
    Capture(#[from] CaptureError),

    #[error(transparent)]
    Hook(#[from] HookError),

    #[error(transparent)]
    Git(#[from] GitError),

    #[error(transparent)]
    Connect(#[from] ConnectError),

    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Another memsync process holds a lock this one needs.
    #[error("{path}: {reason}")]
    Locked { path: PathBuf, reason: String },
}

/// The configuration: files, the workspace they point at, the environment.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("config {path}: {reason}")]
    Invalid { path: PathBuf, reason: String },

    /// The workspace named by a flag, variable or config does not exist.
    #[error(
        "workspace {path} does not exist (from {source_name}); create it with `memsync init {path}`, or check the path{nearby}"
    )]
    NoWorkspace {
        path: PathBuf,
        source_name: &'static str,
        /// Workspaces near the current folder, as a hint (or nothing).
        nearby: String,
    },

    /// The workspace path exists but is not a directory.
    #[error("workspace {path} is not a directory")]
    NotADirectory { path: PathBuf },

    /// A variable memsync needs to place a file is unset.
    #[error("${var} is not set; {needed_for}")]
    Environment {
        var: &'static str,
        needed_for: &'static str,
    },
}

/// A value a person typed (a flag, an argument) that memsync cannot use.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A flag's value does not parse or is out of range.
    #[error("{flag} {value:?}: {reason}")]
    Value {
        flag: &'static str,
        value: String,
        reason: String,
    },

    /// A note an agent asked to write or correct that cannot be (`remember`).
    #[error("note not written: {0}")]
    Note(String),

    /// A flag or argument the command needs is missing or empty.
    #[error("{flag} {reason}")]
    Missing {
        flag: &'static str,
        reason: &'static str,
    },

    /// Two options that cannot go together.
    #[error("{flag}: {reason}")]
    Conflict {
        flag: &'static str,
        reason: &'static str,
    },

    /// A search query that FTS5 cannot read.
    #[error(
        "search: {query:?} is not a valid FTS5 query ({reason}); put words in double quotes to search for them as they are"
    )]
    Query { query: String, reason: String },

    /// A command named a note the workspace does not have.
    #[error("no note {path} in the workspace (nor a tombstone of one)")]
    UnknownNote { path: String },

    /// A command named a session the workspace does not have.
    #[error("no session {session}")]
    UnknownSession { session: String },

    /// A session id that more than one agent has.
    #[error("{session:?} matches {} sessions ({}); name one with --agent or by token", candidates.len(), candidates.join(", "))]
    AmbiguousSession {
        session: String,
        candidates: Vec<String>,
    },

    /// A session exists but has no artifact of the kind asked for.
    #[error("session {token} has no {kind}")]
    NoArtifact { token: String, kind: String },

    /// A directory that must be empty (or absent) is not.
    #[error("{path} is not empty; {reason}")]
    NotEmpty { path: PathBuf, reason: &'static str },
}

/// The SQLite index and the job queue.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("index {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// A harness's own database that memsync only reads (OpenClaw's sessions).
    #[error("{path}: {source}")]
    Harness {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// The writer path: what `capture` and `forget` are asked to write.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A write that would break an immutable artifact or a session's identity.
    #[error("{path}: refused: {reason}")]
    Refused { path: PathBuf, reason: String },

    /// A transcript that holds no session of its own to capture (a
    /// sub-agent's file, a session of only harness bookkeeping).
    #[error("{path}: nothing to capture: {reason}")]
    NothingToCapture { path: PathBuf, reason: String },

    /// An input (a transcript, a body) that cannot be captured as it is.
    #[error("{path}: {reason}")]
    Input { path: PathBuf, reason: String },
}

/// A harness hook's payload on stdin.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("hook payload: {reason}")]
    Payload { reason: String },

    #[error("unknown hook harness {harness:?}; supported: {supported}")]
    UnknownHarness {
        harness: String,
        supported: &'static str,
    },
}

/// Git, as `git setup`, the merge driver and projection commits run it.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git {args}: {stderr}")]
    Command { args: String, stderr: String },

    #[error("{path}: not inside a git work tree (run `git init` first)")]
    NotARepository { path: PathBuf },

    #[error("{path}: not UTF-8; left for git to mark as a conflict")]
    NotUtf8 { path: String },

    #[error("{path}: neither side is a valid tombstone; left for git to mark as a conflict")]
    NoTombstone { path: String },
}

/// `connect` and `disconnect`: a harness's file memsync cannot edit safely.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The file does not parse; it is left exactly as it is.
    #[error("{path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },

    /// The user already set something memsync would have to overwrite.
    #[error("{path}: {reason}")]
    Conflict { path: PathBuf, reason: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn config(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        ConfigError::Invalid {
            path: path.into(),
            reason: reason.into(),
        }
        .into()
    }

    pub fn store(path: impl Into<PathBuf>, source: rusqlite::Error) -> Self {
        StoreError::Sqlite {
            path: path.into(),
            source,
        }
        .into()
    }

    pub fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        CaptureError::Refused {
            path: path.into(),
            reason: reason.into(),
        }
        .into()
    }

    /// A flag's value that does not parse: exit 2 with the flag, the value and why.
    pub fn value(flag: &'static str, value: impl Into<String>, reason: impl Into<String>) -> Self {
        UsageError::Value {
            flag,
            value: value.into(),
            reason: reason.into(),
        }
        .into()
    }

    pub fn unknown_session(session: impl Into<String>) -> Self {
        UsageError::UnknownSession {
            session: session.into(),
        }
        .into()
    }

    /// The SQLite error underneath, if this is one.
    pub fn sqlite(&self) -> Option<&rusqlite::Error> {
        match self {
            Error::Store(
                StoreError::Sqlite { source, .. } | StoreError::Harness { source, .. },
            ) => Some(source),
            _ => None,
        }
    }

    /// A write to stdout whose reader is gone (`memsync search x | head -1`).
    pub fn is_closed_stdout(&self) -> bool {
        matches!(self, Error::Io { path, source }
            if path.as_os_str() == STDOUT && source.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The single mapping from error to process exit code.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Error::Config(_)
            | Error::Usage(_)
            | Error::Hook(_)
            | Error::Git(_)
            | Error::Connect(_) => ExitStatus::Usage,
            Error::Capture(CaptureError::Input { .. }) => ExitStatus::Usage,
            Error::Capture(
                CaptureError::Refused { .. } | CaptureError::NothingToCapture { .. },
            ) => ExitStatus::Problems,
            Error::Io { .. } | Error::Store(_) | Error::Locked { .. } => ExitStatus::Runtime,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The path an `Error::Io` on stdout carries.
pub const STDOUT: &str = "<stdout>";

/// An error and its causes on one line, each cause once (library errors
/// already show their source in their own message).
pub fn message(e: &Error) -> String {
    let mut message = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        cause = c.source();
    }
    message
}
