//! `sitescan rules`: every rule's metadata, as text or JSON.

use std::io::Write;

use clap::{Args as ClapArgs, ValueEnum};
use serde::Serialize;
use sitescan_rules::{registry, Category, Impact, Level, Scope};

use super::{CliError, CliResult, EXIT_OK};

/// Arguments of `sitescan rules`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text, env = "SITESCAN_FORMAT")]
    format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// One rule as `rules --format json` prints it (DESIGN.md's contract).
#[derive(Debug, Serialize)]
struct RuleEntry {
    id: &'static str,
    category: Category,
    title: &'static str,
    wcag: &'static [&'static str],
    level: Option<Level>,
    impact: Impact,
    act: &'static [&'static str],
    help_url: &'static str,
    best_practice: bool,
    manual_review: bool,
    /// What a finding is about by default (`page` or `host`): host findings
    /// are reported once per host, listing the pages.
    scope: Scope,
    /// Rules that own the same mistake on the same element: where one of them
    /// reports the element, this rule's finding is dropped.
    defers_to: &'static [&'static str],
}

/// Prints the registry.
pub(crate) fn run(args: Args) -> CliResult {
    let entries: Vec<RuleEntry> = registry::all_meta()
        .map(|m| RuleEntry {
            id: m.id,
            category: m.category,
            title: m.title,
            wcag: m.wcag,
            level: m.level,
            impact: m.impact,
            act: m.act,
            help_url: m.help_url,
            best_practice: m.best_practice,
            manual_review: m.manual_review,
            scope: m.scope,
            defers_to: m.defers_to,
        })
        .collect();
    let mut out = std::io::stdout().lock();
    let written = match args.format {
        Format::Json => serde_json::to_writer_pretty(&mut out, &entries)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(out)),
        Format::Text => entries.iter().try_for_each(|e| {
            let wcag = if e.wcag.is_empty() {
                String::new()
            } else {
                format!(" [WCAG {}]", e.wcag.join(", "))
            };
            writeln!(
                out,
                "{:<32} {:<13} {:<8} {}{}",
                e.id,
                e.category.as_str(),
                e.impact.as_str(),
                e.title,
                wcag
            )
        }),
    };
    match written {
        Ok(()) => Ok(EXIT_OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(EXIT_OK),
        Err(e) => Err(CliError::run(e)),
    }
}
