//! The CLI layer: arguments ([`args`]), what each command runs ([`dispatch`],
//! [`commands`]) and how its report reads ([`render`]). `main.rs` parses the
//! arguments and calls [`run`].
//!
//! Owns: everything a person at a shell sees. Must not: be imported by any
//! other module (it is the top layer).

pub mod args;
pub mod commands;
mod complete;
mod connect;
mod dispatch;
mod forget;
mod inspect;
mod listing;
mod manual;
mod progress;
pub mod render;
mod render_memory;
mod render_search;
mod render_status;
mod service;
pub mod status;
mod terminal;
mod units;

pub use dispatch::run;
