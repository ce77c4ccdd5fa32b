//! `sitescan report <FILE>`: re-render a saved JSON report, compare it with a
//! baseline and apply the gates, without scanning again. A CI job scans once
//! (`scan --output report.json`) and then writes each format it needs (SARIF for
//! code scanning, Markdown for the job summary, JUnit for the test tab).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args as ClapArgs;
use sitescan_engine::baseline::parse_report;

use super::output::OutputArgs;
use super::{CliError, CliResult};

/// Arguments of `sitescan report`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// A JSON report written by `sitescan scan` (`-` reads stdin).
    #[arg(value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
}

/// Reads the report, then renders and gates it like `scan` does.
pub(crate) fn run(args: Args) -> CliResult {
    let bytes = if args.input.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .context("cannot read the report from stdin")
            .map_err(CliError::usage)?;
        buf
    } else {
        std::fs::read(&args.input)
            .with_context(|| format!("cannot read the report {}", args.input.display()))
            .map_err(CliError::usage)?
    };
    let report = parse_report(&bytes)
        .with_context(|| format!("report {}", args.input.display()))
        .map_err(CliError::usage)?;
    let baseline = args.output.load_baseline()?;
    args.output.finish(report, baseline.as_ref())
}
