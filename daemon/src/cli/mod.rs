//! The `sitescan` command line (DESIGN.md, "Command line": a contract other tools
//! rely on). One module per subcommand; this file parses and dispatches, and maps
//! errors to the documented exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod admin;
mod budget;
mod conformance;
mod output;
mod progress;
mod remote;
mod render_args;
mod report;
mod rules;
mod scan;
mod serve;
mod service_args;
mod summary;
mod worker;

/// Exit code: clean.
pub const EXIT_OK: u8 = 0;
/// Exit code: findings at or above the threshold.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the scan (or service) could not run.
pub const EXIT_RUN: u8 = 3;

/// A failure carrying the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    /// One of the `EXIT_*` codes.
    pub code: u8,
    /// What went wrong, said so a person knows what to do.
    pub error: anyhow::Error,
}

impl CliError {
    /// A usage or configuration error (exit 2).
    pub fn usage(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: EXIT_USAGE,
            error: error.into(),
        }
    }

    /// A run-time failure (exit 3).
    pub fn run(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: EXIT_RUN,
            error: error.into(),
        }
    }
}

/// Result of a subcommand: the exit code on success.
pub type CliResult = Result<u8, CliError>;

#[derive(Debug, Parser)]
#[command(
    name = "sitescan",
    version,
    about = "Scan websites for accessibility (WCAG 2.1 A/AA), SEO, security, performance and content quality"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List every rule with its metadata.
    Rules(rules::Args),
    /// Run the REST API with the embedded store and in-process workers.
    Serve(serve::Args),
    /// Accounts, API keys and sites (stands in for the dashboard).
    Admin(admin::Args),
    /// Run the W3C ACT test cases and print per ACT rule how consistent the rules are.
    Conformance(conformance::Args),
    /// Crawl a site and report what the rules found (a summary on a terminal,
    /// else the JSON report on stdout).
    Scan(Box<scan::Args>),
    /// Re-render a saved JSON report, compare it with a baseline and apply gates.
    Report(report::Args),
    /// Run a fleet worker: take scan jobs from Redis and run them.
    Worker(worker::Args),
    /// Scans through a `sitescan serve` API (`remote scan --site ID --wait`).
    Remote(remote::Args),
}

/// Parses the command line, runs the subcommand and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Rules(args) => rules::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Admin(args) => admin::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::Scan(args) => scan::run(*args),
        Command::Report(args) => report::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Remote(args) => remote::run(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(CliError { code, error }) => {
            eprintln!("error: {error:#}");
            ExitCode::from(code)
        }
    }
}
