//! memsync keeps an AI agent's markdown memory workspace honest.
//!
//! The pipeline, one module per stage: [`scan`] → [`parse`] → [`validate`] →
//! [`index`] → [`project`], run by [`pipeline`] for every entry point; [`watch`]
//! feeds it file events as the daemon. The writer path, [`capture`] and
//! [`forget`], writes canonical files first and then runs the same pipeline;
//! [`jobs`] queues the captures that harness hooks ask for.

pub mod capture;
pub mod cli;
pub mod compose;
pub mod config;
pub mod contract;
pub mod error;
pub mod example;
pub mod files;
pub mod forget;
pub mod generate;
pub mod git;

pub mod jobs;
pub mod lock;
pub mod parse;
pub mod pipeline;
pub mod project;
pub mod repo;
pub mod scan;
pub mod search;
pub mod sentence;
pub mod service;
pub mod session;
pub mod store;
pub mod validate;
pub mod watch;

/// memsync's own state directory inside the workspace.
pub const STATE_DIR: &str = ".memsync";

pub use error::{Error, ExitStatus, Result};
