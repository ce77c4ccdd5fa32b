//! `sitescan conformance <act-dir>`: runs the W3C ACT test cases through the rules
//! and prints, per ACT rule, consistent / partial / inconsistent / untested with
//! totals (the logic lives in `sitescan_engine::conformance`). With `--render`
//! every example, scripted ones included, is rendered in Chromium first.

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
    /// Render every example in the browser (Debian's `chromium`) and judge
    /// scripted examples too.
    #[arg(long)]
    render: bool,
    /// Tabs rendering at once with `--render`.
    #[arg(long, default_value_t = 4)]
    tabs: usize,
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
    let report = if args.render {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(CliError::run)?;
        let run = conformance::RenderRun {
            tabs: args.tabs.clamp(1, 32),
            ..conformance::RenderRun::default()
        };
        runtime
            .block_on(conformance::run_render(&args.dir, &run))
            .map_err(CliError::run)?
    } else {
        conformance::run(&args.dir).map_err(CliError::run)?
    };
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
