//! `sitescan conformance <act-dir>`: runs the W3C ACT test cases through the rules
//! and prints, per ACT rule, consistent / partial / inconsistent / untested with
//! totals (the logic lives in `sitescan_engine::conformance`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args as ClapArgs, ValueEnum};
use sitescan_engine::conformance;

use super::{CliError, CliResult, EXIT_OK};

/// Arguments of `sitescan conformance`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// The ACT test-case folder (holds `manifest.json`).
    dir: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text, env = "SITESCAN_FORMAT")]
    format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Runs the conformance cases and prints the result.
pub(crate) fn run(args: Args) -> CliResult {
    if !args.dir.is_dir() {
        return Err(CliError::usage(anyhow::anyhow!(
            "{} is not a folder; give the ACT test-case folder that holds manifest.json",
            args.dir.display()
        )));
    }
    let report = conformance::run(&args.dir).map_err(CliError::run)?;
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        Format::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(out)),
        Format::Text => out.write_all(conformance::render_text(&report).as_bytes()),
    };
    match written {
        Ok(()) => Ok(EXIT_OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(EXIT_OK),
        Err(e) => Err(CliError::run(e)),
    }
}
