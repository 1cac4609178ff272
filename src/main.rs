//! The `memsync` binary: parses arguments and calls the library. Nothing else.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use memsync::cli::args::Cli;

fn main() -> ExitCode {
    // `COMPLETE=bash memsync …` (what the completion script runs): answer and exit.
    clap_complete::CompleteEnv::with_factory(Cli::command).complete();
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    match memsync::cli::run(&cli) {
        Ok(status) => ExitCode::from(status as u8),
        // The reader of our stdout went away: end quietly, as a Unix filter does.
        Err(e) if e.is_closed_stdout() => ExitCode::from(141),
        Err(e) => {
            eprintln!("memsync: {}", memsync::error::message(&e));
            ExitCode::from(e.exit_status() as u8)
        }
    }
}

fn init_logging(verbose: u8, quiet: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("memsync={level}")));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}
