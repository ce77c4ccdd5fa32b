//! What the CLI does with a finished report, shared by every command that ends
//! with one (`scan`, `report`, `remote scan`): compare it with a baseline,
//! render it, write it, and evaluate the gates into the exit code.
//!
//! The format is `--format`, else guessed from the `--output` file's extension
//! (`report.sarif` -> SARIF), else JSON. Gates only count failed findings;
//! crossing one exits with 1 and says why on stderr.
//!
//! A scan whose stdout is a terminal, with neither a format nor an output file
//! asked for, is read by a person: it prints a summary instead (see
//! [`super::summary`]) and saves the full report as JSON and HTML files
//! ([`Delivery::Summary`]). Pipes and files get the report as before.
//!
//! A report that cannot be written whole (a full disk, a reader that closed
//! the pipe) is a run that failed: exit 3 with a message saying which.
//!
//! A scan's report arrives spooled (its findings in a temporary file, see
//! `sitescan_engine::SpooledReport`) and is written through a buffer as it is
//! read back, so writing a large report costs no memory per finding; with
//! `--baseline` it is loaded whole, since the comparison matches every finding.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args as ClapArgs;
use sitescan_engine::baseline::{apply_baseline, parse_report};
use sitescan_engine::gate::{parse_impact, parse_min_score, Gate};
use sitescan_engine::render::{render_to, Format};
use sitescan_engine::{Report, ReportSource, SpooledReport};
use sitescan_rules::{Category, Impact};

use super::summary::{self, Delivered, Saved, Summary};
use super::{CliError, CliResult, EXIT_FINDINGS, EXIT_OK};

/// Output, baseline and gate flags.
#[derive(Debug, Clone, Default, ClapArgs)]
pub(crate) struct OutputArgs {
    /// Report format: json, html, sarif, junit, csv or markdown [default: from the
    /// --output extension, else json].
    #[arg(long, value_parser = parse_format, env = "SITESCAN_FORMAT")]
    pub(crate) format: Option<Format>,
    /// Write the report to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE", env = "SITESCAN_OUTPUT")]
    pub(crate) output: Option<PathBuf>,
    /// An earlier JSON report: mark each finding new or unchanged and list the
    /// fixed ones.
    #[arg(long, value_name = "FILE", env = "SITESCAN_BASELINE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Exit 1 when a finding is at or above this impact (critical, serious,
    /// moderate, minor).
    #[arg(long, value_name = "IMPACT", value_parser = parse_impact_arg, env = "SITESCAN_FAIL_ON")]
    pub(crate) fail_on: Option<Impact>,
    /// Exit 1 when a finding not in the baseline is at or above this impact
    /// (without --baseline every finding is new).
    #[arg(long, value_name = "IMPACT", value_parser = parse_impact_arg, env = "SITESCAN_FAIL_ON_NEW")]
    pub(crate) fail_on_new: Option<Impact>,
    /// Exit 1 when there are more than N findings.
    #[arg(long, value_name = "N", env = "SITESCAN_MAX_FINDINGS")]
    pub(crate) max_findings: Option<u64>,
    /// Exit 1 when a category scores below N (0-100); repeatable, e.g.
    /// --min-score accessibility=90 --min-score seo=80.
    #[arg(long = "min-score", value_name = "CATEGORY=N", value_parser = parse_min_score_arg)]
    pub(crate) min_score: Vec<(Category, u8)>,
    /// Open the HTML report in the browser ($BROWSER, else the system's
    /// default); without an HTML --output, an HTML copy is written to the
    /// temporary directory first.
    #[arg(long, env = "SITESCAN_OPEN")]
    pub(crate) open: bool,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

fn parse_impact_arg(s: &str) -> Result<Impact, String> {
    parse_impact(s).map_err(|e| e.to_string())
}

fn parse_min_score_arg(s: &str) -> Result<(Category, u8), String> {
    parse_min_score(s).map_err(|e| e.to_string())
}

impl OutputArgs {
    /// The format to write: `--format`, else the output file's extension, else JSON.
    pub(crate) fn resolved_format(&self) -> Format {
        if let Some(f) = self.format {
            return f;
        }
        self.output
            .as_deref()
            .and_then(Path::extension)
            .and_then(|e| e.to_str())
            .and_then(|ext| {
                Format::ALL
                    .into_iter()
                    .find(|f| f.file_extension().eq_ignore_ascii_case(ext))
                    .or_else(|| ext.parse().ok())
            })
            .unwrap_or(Format::Json)
    }

    /// The gate the flags describe.
    pub(crate) fn gate(&self) -> Gate {
        Gate {
            fail_on: self.fail_on,
            fail_on_new: self.fail_on_new,
            max_findings: self.max_findings,
            min_scores: self.min_score.clone(),
        }
    }

    /// Reads and checks `--baseline` (call it before scanning, so a wrong file
    /// fails at once with exit 2 instead of after a long crawl).
    pub(crate) fn load_baseline(&self) -> Result<Option<Report>, CliError> {
        let Some(path) = &self.baseline else {
            return Ok(None);
        };
        let bytes = std::fs::read(path)
            .with_context(|| format!("cannot read the baseline {}", path.display()))
            .map_err(CliError::usage)?;
        parse_report(&bytes)
            .with_context(|| format!("baseline {}", path.display()))
            .map(Some)
            .map_err(CliError::usage)
    }

    /// Applies the baseline, writes the report and returns the exit code the
    /// gates give.
    pub(crate) fn finish(&self, report: Report, baseline: Option<&Report>) -> CliResult {
        self.finish_as(report, baseline, Delivery::Report)
    }

    fn finish_as(
        &self,
        mut report: Report,
        baseline: Option<&Report>,
        delivery: Delivery,
    ) -> CliResult {
        if let Some(b) = baseline {
            apply_baseline(&mut report, b);
        }
        self.write_and_gate(&report, delivery)
    }

    /// [`OutputArgs::finish`] for a spooled scan: streams the findings from
    /// the temporary file unless a baseline needs them all in memory.
    pub(crate) fn finish_spooled(
        &self,
        spooled: SpooledReport,
        baseline: Option<&Report>,
        delivery: Delivery,
    ) -> CliResult {
        match baseline {
            Some(_) => {
                let report = spooled.into_report().map_err(CliError::run)?;
                self.finish_as(report, baseline, delivery)
            }
            None => self.write_and_gate(&spooled, delivery),
        }
    }

    fn write_and_gate(&self, report: &dyn ReportSource, delivery: Delivery) -> CliResult {
        match delivery {
            Delivery::Report => self.write_report(report)?,
            Delivery::Summary { color } => self.write_summary(report, color)?,
        }
        if let (Some(b), Delivery::Report) = (&report.head().baseline, delivery) {
            eprintln!(
                "sitescan: against the baseline: {} new, {} unchanged, {} fixed",
                b.new, b.unchanged, b.fixed
            );
        }
        let verdict = self.gate().evaluate_source(report).map_err(CliError::run)?;
        if verdict.passed() {
            return Ok(EXIT_OK);
        }
        for reason in &verdict.reasons {
            eprintln!("sitescan: gate failed: {reason}");
        }
        Ok(EXIT_FINDINGS)
    }

    /// The report in the asked format, to `--output` or stdout; with `--open`,
    /// the HTML report in the browser too.
    fn write_report(&self, report: &dyn ReportSource) -> Result<(), CliError> {
        let format = self.resolved_format();
        match &self.output {
            Some(path) => write_file(path, report, format)?,
            None => {
                let mut out = Stdout::new(std::io::stdout().lock());
                let written = render_to(report, format, &mut out).and_then(|()| {
                    out.flush().map_err(|e| sitescan_engine::Error::Render {
                        format: format.name(),
                        reason: e.to_string(),
                    })
                });
                if let Err(e) = written {
                    return Err(out.error("the report", e));
                }
            }
        }
        if self.open {
            let html = match (&self.output, format) {
                (Some(path), Format::Html) => path.clone(),
                _ => {
                    let path = save_copy(report, Format::Html, &std::env::temp_dir())?;
                    eprintln!("sitescan: HTML report written to {}", path.display());
                    path
                }
            };
            open_in_browser(&html);
        }
        Ok(())
    }

    /// The summary on stdout; the full report saved as JSON and HTML files
    /// (see [`report_dir`]) and, with `--open`, the HTML one opened.
    fn write_summary(&self, report: &dyn ReportSource, color: bool) -> Result<(), CliError> {
        let summary = Summary::of(report)
            .context("cannot read the report back")
            .map_err(CliError::run)?;
        let dir = report_dir();
        let json = save_copy(report, Format::Json, &dir)?;
        let mut delivered = Delivered {
            files: vec![Saved {
                label: "JSON",
                path: json,
            }],
            opened: false,
            html_skipped: None,
        };
        // The HTML view groups findings, so it holds the whole report in
        // memory; past a size that memory is the scan's own promise broken.
        if report.finding_count() <= HTML_MAX_FINDINGS {
            let html = save_copy(report, Format::Html, &dir)?;
            delivered.opened = self.open && open_in_browser(&html);
            delivered.files.push(Saved {
                label: "HTML",
                path: html,
            });
        } else {
            delivered.html_skipped = Some(report.finding_count());
            if self.open {
                eprintln!(
                    "sitescan: --open: no HTML report to open (too many findings for one page)"
                );
            }
        }
        let text = summary::render(&summary, &delivered, color);
        let mut out = Stdout::new(std::io::stdout().lock());
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            return Err(out.error(
                "the summary",
                sitescan_engine::Error::Render {
                    format: "summary",
                    reason: e.to_string(),
                },
            ));
        }
        Ok(())
    }
}

/// Findings above which the summary saves no HTML report: the HTML view
/// loads every finding at once (about 1 KB each), while the rest of a scan
/// keeps them on disk.
pub(crate) const HTML_MAX_FINDINGS: u64 = 100_000;

/// How a finished report reaches its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// The report in the chosen format, to stdout or `--output` (pipes,
    /// files, CI).
    Report,
    /// A person at a terminal: a summary on stdout, the full report saved as
    /// files. `color`: the terminal takes ANSI colours.
    Summary {
        /// Colour the summary.
        color: bool,
    },
}

impl Delivery {
    /// The summary for a terminal on stdout when neither a format nor an
    /// output file was asked for (flag or environment), else the report.
    pub(crate) fn choose(args: &OutputArgs, stdout_is_terminal: bool) -> Delivery {
        if stdout_is_terminal && args.format.is_none() && args.output.is_none() {
            Delivery::Summary {
                color: console::colors_enabled(),
            }
        } else {
            Delivery::Report
        }
    }
}

/// Where the summary's full report is saved: the working directory, where a
/// person finds it again (as Lighthouse does), else the temporary directory
/// when the working directory cannot be written.
fn report_dir() -> PathBuf {
    let cwd = std::env::current_dir().ok();
    match cwd {
        Some(dir) if is_writable(&dir) => dir,
        _ => std::env::temp_dir(),
    }
}

fn is_writable(dir: &Path) -> bool {
    tempfile::tempfile_in(dir).is_ok()
}

/// `sitescan-<host>[-<port>]-<YYYYMMDD-HHMMSS>`: the site and the scan's start,
/// so a directory of reports sorts by site, then time.
fn file_stem(report: &Report) -> String {
    let host = url::Url::parse(&report.site).ok().map(|u| {
        let host = u.host_str().unwrap_or("site").to_string();
        match u.port() {
            Some(port) => format!("{host}-{port}"),
            None => host,
        }
    });
    let host: String = host
        .unwrap_or_else(|| "site".to_string())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    format!(
        "sitescan-{host}-{}",
        report.started_at.format("%Y%m%d-%H%M%S")
    )
}

/// Writes the report in `format` to a new file in `dir` named by
/// [`file_stem`] (`-2`, `-3`, ... when taken: nothing is overwritten), and
/// returns its absolute path.
fn save_copy(report: &dyn ReportSource, format: Format, dir: &Path) -> Result<PathBuf, CliError> {
    let stem = file_stem(report.head());
    let ext = format.file_extension();
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    for n in 1..=100u32 {
        let name = match n {
            1 => format!("{stem}.{ext}"),
            n => format!("{stem}-{n}.{ext}"),
        };
        let path = dir.join(name);
        let file = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(CliError::run(anyhow::anyhow!(
                    "cannot write the report to {}: {e}",
                    path.display()
                )))
            }
        };
        fill_file(&path, file, report, format)?;
        return Ok(path);
    }
    Err(CliError::run(anyhow::anyhow!(
        "cannot write the report: {} already has 100 reports named {stem}*",
        dir.display()
    )))
}

/// Opens an HTML report in the user's browser (`$BROWSER` when set, else the
/// system's opener); a failure is a warning, the report is still there.
fn open_in_browser(path: &Path) -> bool {
    match opener::open_browser(path) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "sitescan: could not open {} in a browser: {e}",
                path.display()
            );
            false
        }
    }
}

/// Writes the report to `path`; a report cut short by an error is removed
/// rather than left looking whole.
fn write_file(path: &Path, report: &dyn ReportSource, format: Format) -> Result<(), CliError> {
    let file = std::fs::File::create(path)
        .with_context(|| format!("cannot write the report to {}", path.display()))
        .map_err(CliError::run)?;
    fill_file(path, file, report, format)
}

fn fill_file(
    path: &Path,
    file: std::fs::File,
    report: &dyn ReportSource,
    format: Format,
) -> Result<(), CliError> {
    let mut out = BufWriter::new(file);
    let written = render_to(report, format, &mut out)
        .map_err(anyhow::Error::from)
        .and_then(|()| {
            out.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        });
    written
        .inspect_err(|_| {
            let _ = std::fs::remove_file(path);
        })
        .with_context(|| format!("cannot write the report to {}", path.display()))
        .map_err(CliError::run)
}

/// Buffered stdout that remembers why a write failed, so the message can say
/// that the reader closed the pipe or the disk is full instead of a generic
/// render error. Either way the run exits 3 (the report did not arrive whole):
/// under `set -o pipefail` a cut-off report must not pass for a complete one.
struct Stdout<W: Write> {
    inner: BufWriter<W>,
    /// The first write error.
    failed: Option<std::io::Error>,
}

impl<W: Write> Stdout<W> {
    fn new(inner: W) -> Self {
        Self {
            inner: BufWriter::new(inner),
            failed: None,
        }
    }

    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r {
            if self.failed.is_none() {
                self.failed = Some(std::io::Error::new(e.kind(), e.to_string()));
            }
        }
        r
    }

    /// The error to report when writing `what` failed with `e`.
    fn error(&self, what: &str, e: sitescan_engine::Error) -> CliError {
        CliError::run(match &self.failed {
            Some(io) if io.kind() == std::io::ErrorKind::BrokenPipe => anyhow::anyhow!(
                "cannot write {what} to stdout: the reader closed the pipe before all of it was written"
            ),
            Some(io) => anyhow::anyhow!("cannot write {what} to stdout: {io}"),
            None => anyhow::Error::from(e).context(format!("cannot write {what} to stdout")),
        })
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.note(r)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let r = self.inner.write_all(buf);
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.note(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_comes_from_the_flag_then_the_extension_then_json() {
        let mut args = OutputArgs::default();
        assert_eq!(args.resolved_format(), Format::Json);
        args.output = Some("out/report.SARIF".into());
        assert_eq!(args.resolved_format(), Format::Sarif);
        args.output = Some("junit.xml".into());
        assert_eq!(args.resolved_format(), Format::Junit);
        args.output = Some("summary.md".into());
        assert_eq!(args.resolved_format(), Format::Markdown);
        args.output = Some("report.txt".into());
        assert_eq!(args.resolved_format(), Format::Json);
        args.format = Some(Format::Html);
        assert_eq!(args.resolved_format(), Format::Html);
    }

    #[test]
    fn gate_collects_the_flags() {
        let args = OutputArgs {
            fail_on: Some(Impact::Serious),
            max_findings: Some(3),
            min_score: vec![(Category::Seo, 80)],
            ..Default::default()
        };
        let gate = args.gate();
        assert_eq!(gate.fail_on, Some(Impact::Serious));
        assert_eq!(gate.max_findings, Some(3));
        assert_eq!(gate.min_scores, vec![(Category::Seo, 80)]);
        assert!(OutputArgs::default().gate().is_empty());
    }

    #[test]
    fn a_missing_baseline_is_a_usage_error() {
        let args = OutputArgs {
            baseline: Some("/nonexistent/sitescan-baseline.json".into()),
            ..Default::default()
        };
        let err = args.load_baseline().unwrap_err();
        assert_eq!(err.code, super::super::EXIT_USAGE);
        assert!(format!("{:#}", err.error).contains("cannot read the baseline"));
    }
}
