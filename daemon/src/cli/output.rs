//! What the CLI does with a finished report, shared by every command that ends
//! with one (`scan`, `report`, `remote scan`): compare it with a baseline,
//! render it, write it, and evaluate the gates into the exit code.
//!
//! The format is `--format`, else guessed from the `--output` file's extension
//! (`report.sarif` -> SARIF), else JSON. Gates only count failed findings;
//! crossing one exits with 1 and says why on stderr.
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
    pub(crate) fn finish(&self, mut report: Report, baseline: Option<&Report>) -> CliResult {
        if let Some(b) = baseline {
            apply_baseline(&mut report, b);
        }
        self.write_and_gate(&report)
    }

    /// [`OutputArgs::finish`] for a spooled scan: streams the findings from
    /// the temporary file unless a baseline needs them all in memory.
    pub(crate) fn finish_spooled(
        &self,
        spooled: SpooledReport,
        baseline: Option<&Report>,
    ) -> CliResult {
        match baseline {
            Some(_) => {
                let report = spooled.into_report().map_err(CliError::run)?;
                self.finish(report, baseline)
            }
            None => self.write_and_gate(&spooled),
        }
    }

    fn write_and_gate(&self, report: &dyn ReportSource) -> CliResult {
        let format = self.resolved_format();
        match &self.output {
            Some(path) => write_file(path, report, format)?,
            None => {
                let mut out = BufWriter::new(ClosedPipeIsFine::new(std::io::stdout().lock()));
                render_to(report, format, &mut out)
                    .and_then(|()| {
                        out.flush().map_err(|e| sitescan_engine::Error::Render {
                            format: format.name(),
                            reason: e.to_string(),
                        })
                    })
                    .context("cannot write the report to stdout")
                    .map_err(CliError::run)?;
            }
        }
        if let Some(b) = &report.head().baseline {
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
}

/// Writes the report to `path`; a report cut short by an error is removed
/// rather than left looking whole.
fn write_file(path: &Path, report: &dyn ReportSource, format: Format) -> Result<(), CliError> {
    let written = std::fs::File::create(path)
        .map_err(anyhow::Error::from)
        .and_then(|file| {
            let mut out = BufWriter::new(file);
            render_to(report, format, &mut out)?;
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

/// Stdout for the report: a closed pipe (`| head`) is the reader's choice, not a
/// failure, so the rest of the report is dropped quietly.
struct ClosedPipeIsFine<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> ClosedPipeIsFine<W> {
    fn new(inner: W) -> Self {
        Self {
            inner,
            closed: false,
        }
    }
}

impl<W: Write> Write for ClosedPipeIsFine<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
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
