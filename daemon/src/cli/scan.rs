//! `sitescan scan <url>`: crawl a site, write the report, exit by threshold.
//!
//! The report goes to stdout (or `--output`); progress and messages go to stderr:
//! an indicatif progress bar when stderr is a terminal, plain log lines otherwise
//! (CI logs). As a person's own tool on their own machine, `scan` may fetch
//! loopback and private addresses unless `--no-private`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args as ClapArgs, ValueEnum};
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use sitescan_engine::config::{
    DEFAULT_CONCURRENCY, DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, DEFAULT_RATE_PER_HOST,
    DEFAULT_USER_AGENT,
};
use sitescan_engine::{Error, Report, ScanConfig, ScanEvent, Scanner};
use sitescan_rules::{Impact, Outcome};

use super::{CliError, CliResult, EXIT_FINDINGS, EXIT_OK};

/// Arguments of `sitescan scan`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// The start URL (http:// or https://).
    url: String,

    /// Rule sets and rule ids, comma-separated (wcag-a, wcag-aa, best-practice,
    /// accessibility, seo, security, performance, quality, all, or ids).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        env = "SITESCAN_RULES"
    )]
    rules: Vec<String>,

    /// Pages fetched at most; the crawl stops exactly there.
    #[arg(long, default_value_t = DEFAULT_MAX_PAGES, env = "SITESCAN_MAX_PAGES")]
    max_pages: usize,

    /// Link depth followed at most (the start page is depth 0).
    #[arg(long, default_value_t = DEFAULT_MAX_DEPTH, env = "SITESCAN_MAX_DEPTH")]
    max_depth: u32,

    /// Requests per second per host (a robots.txt Crawl-delay can only slow it).
    #[arg(long, default_value_t = DEFAULT_RATE_PER_HOST, env = "SITESCAN_RATE")]
    rate: f64,

    /// Requests in flight at once.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY, env = "SITESCAN_CONCURRENCY")]
    concurrency: usize,

    /// Only crawl URLs matching this regular expression (repeatable).
    #[arg(long = "include", value_name = "PATTERN", env = "SITESCAN_INCLUDE")]
    include: Vec<String>,

    /// Skip URLs matching this regular expression (repeatable).
    #[arg(long = "exclude", value_name = "PATTERN", env = "SITESCAN_EXCLUDE")]
    exclude: Vec<String>,

    /// Also crawl subdomains of the start host.
    #[arg(long, env = "SITESCAN_SUBDOMAINS")]
    subdomains: bool,

    /// User agent sent, and matched against robots.txt groups by its first word.
    #[arg(long, default_value = DEFAULT_USER_AGENT, env = "SITESCAN_USER_AGENT")]
    user_agent: String,

    /// Refuse loopback, private and link-local addresses (as the service does).
    #[arg(long, env = "SITESCAN_NO_PRIVATE")]
    no_private: bool,

    /// Ignore robots.txt (only for sites you own).
    #[arg(long, env = "SITESCAN_IGNORE_ROBOTS")]
    ignore_robots: bool,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Json, env = "SITESCAN_FORMAT")]
    format: Format,

    /// Write the report to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE", env = "SITESCAN_OUTPUT")]
    output: Option<PathBuf>,

    /// Exit with code 1 when a failed finding has this impact or a higher one.
    #[arg(long, value_name = "IMPACT", value_parser = parse_impact, env = "SITESCAN_FAIL_ON")]
    fail_on: Option<Impact>,
}

/// Report formats `scan` can write. New renderers add a variant here and an arm
/// in [`render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The JSON report of DESIGN.md (schema_version 1).
    Json,
}

fn parse_impact(s: &str) -> Result<Impact, String> {
    s.parse::<Impact>()
        .map_err(|_| format!("`{s}` is not an impact: use critical, serious, moderate or minor"))
}

impl Args {
    fn config(&self) -> ScanConfig {
        ScanConfig {
            rules: self.rules.clone(),
            max_pages: self.max_pages,
            max_depth: self.max_depth,
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            subdomains: self.subdomains,
            rate_per_host: self.rate,
            concurrency: self.concurrency,
            respect_robots: !self.ignore_robots,
            user_agent: self.user_agent.clone(),
            allow_private: !self.no_private,
            ..ScanConfig::default()
        }
    }
}

/// Writes the report in the chosen format.
fn render(format: Format, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
            writeln!(out)
        }
    }
}

/// Whether any failed finding is at or above the threshold.
pub(crate) fn over_threshold(report: &Report, threshold: Option<Impact>) -> bool {
    threshold.is_some_and(|t| {
        report
            .findings
            .iter()
            .any(|f| f.outcome == Outcome::Failed && f.impact >= t)
    })
}

fn classify(e: Error) -> CliError {
    match e {
        Error::InvalidUrl { .. } | Error::Config(_) => CliError::usage(e),
        other => CliError::run(other),
    }
}

/// Runs a scan.
pub(crate) fn run(args: Args) -> CliResult {
    let interactive = std::io::stderr().is_terminal();
    crate::telemetry::init_cli(interactive);
    let scanner = Scanner::builder()
        .config(args.config())
        .build()
        .map_err(classify)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            CliError::run(anyhow::Error::from(e).context("could not start the runtime"))
        })?;
    let report = runtime.block_on(scan(&scanner, &args.url, interactive))?;

    let written = match &args.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|f| {
                let mut w = std::io::BufWriter::new(f);
                render(args.format, &report, &mut w)?;
                w.flush()
            })
            .with_context(|| format!("could not write the report to {}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            match render(args.format, &report, &mut out) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.context("could not write the report to stdout"),
            }
        }
    };
    written.map_err(CliError::run)?;
    if let Some(path) = &args.output {
        tracing::info!(path = %path.display(), "report written");
    }
    Ok(if over_threshold(&report, args.fail_on) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

async fn scan(scanner: &Scanner, url: &str, interactive: bool) -> Result<Report, CliError> {
    let bar = interactive.then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {pos} pages done, {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let mut events = Box::pin(scanner.scan_stream(url));
    let mut result = None;
    while let Some(event) = events.next().await {
        match event {
            ScanEvent::Progress(p) => {
                if let Some(bar) = &bar {
                    bar.set_position(p.pages_done);
                    bar.set_message(format!("{} queued, {} errors", p.pages_queued, p.errors));
                }
            }
            ScanEvent::Page(_) => {}
            ScanEvent::Finished(report) => result = Some(Ok(*report)),
            ScanEvent::Failed(e) => result = Some(Err(classify(e))),
        }
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
        if let Some(Ok(report)) = &result {
            eprintln!(
                "{} pages scanned, {} findings{}",
                report.pages.len(),
                report.findings.len(),
                if report.stats.truncated {
                    format!(
                        "; stopped at the page limit with {} URLs left",
                        report.stats.urls_left
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    result.unwrap_or_else(|| {
        Err(CliError::run(anyhow::anyhow!(
            "the scan ended without a report; run again with RUST_LOG=debug to see why"
        )))
    })
}
