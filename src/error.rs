//! Typed errors for the library and the one place they map to exit codes.
//!
//! Owns: `Error` and `ExitStatus`. Must not: print anything (the binary does that).

use std::path::PathBuf;

/// Exit codes, as documented in the README: 0 ok, 1 problems found, 2 usage or
/// configuration error, 3 runtime failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Ok = 0,
    Problems = 1,
    Usage = 2,
    Runtime = 3,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("config {path}: {reason}")]
    Config { path: PathBuf, reason: String },

    #[error("{0}")]
    Usage(String),

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("index {path}: {source}")]
    Index {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    #[error("{path}: {reason}")]
    Locked { path: PathBuf, reason: String },

    /// A write that would break an immutable artifact or a session's identity.
    #[error("{path}: refused: {reason}")]
    Refused { path: PathBuf, reason: String },

    /// A command named a session the workspace does not have.
    #[error("no session {0}")]
    UnknownSession(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn config(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Config {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The single mapping from error to process exit code.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Error::Config { .. } | Error::Usage(_) | Error::UnknownSession(_) => ExitStatus::Usage,
            Error::Refused { .. } => ExitStatus::Problems,
            Error::Io { .. } | Error::Index { .. } | Error::Locked { .. } => ExitStatus::Runtime,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

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
