//! memsync keeps an AI agent's markdown memory workspace honest.
//!
//! The crate is layered; a module imports only from layers below it (and
//! `tests/layering.rs` fails on an upward import or a cycle):
//!
//! 1. Contracts: [`error`], [`contract`] (naming, tokens, checksum, time
//!    forms), [`files`] (atomic writes), [`lock`].
//! 2. Configuration: [`config`].
//! 3. Stages: [`scan`] → [`parse`] → [`validate`], with [`sentence`],
//!    [`compose`] (rendering canonical artifacts) and [`repo`] (git's state).
//! 4. The [`store`]: the SQLite index and the job queue; every SQL statement.
//! 5. Projection: [`project`] renders MEMORY.md and daily logs.
//! 6. The [`pipeline`]: one reconcile, run by every entry point.
//! 7. Entry points: [`capture`] and [`forget`] (the writer path), [`jobs`]
//!    (hook mode and its worker), [`harvest`] (sessions from the harnesses'
//!    own folders), [`mcp`] (the MCP server), [`watch`] (the daemon), [`search`],
//!    [`session`], [`git`], [`service`], [`example`], [`generate`].
//! 8. The [`cli`]: arguments, dispatch and text reports; `main.rs` only
//!    parses and calls [`cli::run`].

pub mod error;

pub mod contract;
pub mod files;
pub mod harness;
pub mod lock;

pub mod config;

pub mod compose;
pub mod note;
pub mod parse;
pub mod repo;
pub mod scan;
pub mod sentence;
pub mod transcript;
pub mod wiring;

pub mod harnesses;
pub mod validate;

pub mod store;

pub mod project;

pub mod pipeline;

pub mod capture;
pub mod connect;
pub mod context;
pub mod example;
pub mod forget;
pub mod generate;
pub mod git;
pub mod harvest;
pub mod jobs;
pub mod mcp;
pub mod recall;
pub mod remember;
pub mod search;
pub mod service;
pub mod session;
pub mod watch;

pub mod cli;

/// memsync's own state directory inside the workspace.
pub const STATE_DIR: &str = ".memsync";

pub use error::{Error, ExitStatus, Result};
