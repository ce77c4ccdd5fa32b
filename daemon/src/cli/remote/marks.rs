//! `sitescan remote marks export|import`: the bridge between the service's
//! triage marks and the CLI's `--baseline` file. Both name findings by the same
//! fingerprint (`sitescan_engine::baseline::fingerprint`), so either seeds the
//! other:
//!
//! - `export --site ID [--scan ID] [--output FILE]` writes a JSON report (the
//!   baseline file format) holding the findings of the site's newest completed
//!   scan (or `--scan`) whose fingerprint is marked on the site. A marked
//!   fingerprint that scan does not have cannot be written (a baseline file
//!   holds findings, not bare fingerprints): they are counted on stderr.
//! - `import --site ID FILE --status ignored|false_positive [--note TEXT]`
//!   marks the fingerprint of every finding in a baseline file (each once),
//!   and prints `{"marked": N, "created": N, "updated": N}`.
//!
//! Exit codes as `remote scan`: API 4xx and bad files are usage errors (2),
//! network failures and 5xx run errors (3).

use std::collections::{BTreeSet, HashSet};
use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Context};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use serde_json::{json, Value};
use sitescan_engine::baseline::{fingerprint, parse_report};

use super::{runtime, Client};
use crate::cli::{CliError, CliResult, EXIT_OK};

/// Pages of marks read at most (1000 a page): more than a site may have.
const MAX_MARK_PAGES: usize = 20;
/// Pages of a site's scans (100 a page) looked through for a completed one.
const MAX_SCAN_PAGES: usize = 5;

/// `sitescan remote marks ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum MarksCommand {
    /// Write the site's marked findings as a baseline file (a JSON report) that
    /// `scan --baseline` and `report --baseline` read.
    Export(ExportArgs),
    /// Mark every finding of a baseline file (a JSON report) on the site.
    Import(ImportArgs),
}

/// Where the API is.
#[derive(Debug, ClapArgs)]
pub(crate) struct ApiArgs {
    /// The site's id (`site_...`).
    #[arg(long, value_name = "ID")]
    site: String,
    /// Base URL of the API, e.g. https://sitescan.example.com.
    #[arg(long, value_name = "URL", env = "SITESCAN_API_URL")]
    api_url: String,
    /// API key (prefer the environment variable so it stays out of shell history).
    #[arg(
        long,
        value_name = "KEY",
        env = "SITESCAN_API_KEY",
        hide_env_values = true
    )]
    api_key: String,
}

/// Arguments of `remote marks export`.
#[derive(Debug, ClapArgs)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    api: ApiArgs,
    /// The completed scan whose findings are written (default: the site's newest
    /// completed scan).
    #[arg(long, value_name = "ID")]
    scan: Option<String>,
    /// Write the file here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The two statuses of a mark.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Status {
    /// A real problem the site accepts.
    Ignored,
    /// The rule was wrong.
    FalsePositive,
}

/// Arguments of `remote marks import`.
#[derive(Debug, ClapArgs)]
pub(crate) struct ImportArgs {
    #[command(flatten)]
    api: ApiArgs,
    /// The baseline file: a JSON report (`scan --format json`).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The status every finding is marked with.
    #[arg(long, value_enum)]
    status: Status,
    /// The note of every mark (at most 2000 characters).
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

/// Runs `sitescan remote marks ...`.
pub(crate) fn run(command: MarksCommand) -> CliResult {
    crate::telemetry::init_cli(false);
    match command {
        MarksCommand::Export(a) => export(a),
        MarksCommand::Import(a) => import(a),
    }
}

fn export(args: ExportArgs) -> CliResult {
    let client = Client::new(&args.api.api_url, &args.api.api_key)?;
    let site = args.api.site.clone();
    runtime()?.block_on(async {
        let marked = marked_fingerprints(&client, &site).await?;
        let scan_id = match args.scan {
            Some(id) => id,
            None => newest_completed(&client, &site).await?,
        };
        let body = client
            .send(
                client
                    .http
                    .get(client.url(&format!("/api/v1/scans/{scan_id}/report"))),
            )
            .await?;
        let bytes = serde_json::to_vec(&body["data"]).map_err(CliError::run)?;
        let mut report = parse_report(&bytes)
            .map_err(|e| CliError::run(anyhow!("the report of {scan_id}: {e:#}")))?;
        let mut written: HashSet<String> = HashSet::new();
        report.findings.retain(|f| {
            let fp = fingerprint(f);
            let keep = marked.contains(&fp);
            if keep {
                written.insert(fp);
            }
            keep
        });
        report.fixed = None;
        report.baseline = None;
        let missing = marked.len() - written.len();
        eprintln!(
            "sitescan: {} marked findings of {scan_id} written ({} fingerprints marked{})",
            report.findings.len(),
            marked.len(),
            if missing > 0 {
                format!(", {missing} not among that scan's findings and left out")
            } else {
                String::new()
            }
        );
        let json = serde_json::to_vec_pretty(&report).map_err(CliError::run)?;
        match &args.output {
            Some(path) => std::fs::write(path, &json)
                .with_context(|| format!("cannot write {}", path.display()))
                .map_err(CliError::usage)?,
            None => {
                let mut out = std::io::stdout().lock();
                out.write_all(&json)
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush())
                    .map_err(|e| CliError::run(anyhow!("writing the baseline: {e}")))?;
            }
        }
        Ok(EXIT_OK)
    })
}

/// Every fingerprint marked on the site.
async fn marked_fingerprints(client: &Client, site: &str) -> Result<BTreeSet<String>, CliError> {
    let mut out = BTreeSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_MARK_PAGES {
        let mut url = client.url(&format!("/api/v1/sites/{site}/marks?limit=1000"));
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let body = client.send(client.http.get(url)).await?;
        for m in body["data"].as_array().into_iter().flatten() {
            if let Some(fp) = m["fingerprint"].as_str() {
                out.insert(fp.to_string());
            }
        }
        match body["meta"]["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return Ok(out),
        }
    }
    Err(CliError::run(anyhow!(
        "the site's marks did not end after {MAX_MARK_PAGES} pages"
    )))
}

/// The id of the site's newest completed scan.
async fn newest_completed(client: &Client, site: &str) -> Result<String, CliError> {
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_SCAN_PAGES {
        let mut url = client.url(&format!("/api/v1/sites/{site}/scans?limit=100"));
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let body = client.send(client.http.get(url)).await?;
        let found = body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["status"] == "completed")
            .and_then(|s| s["id"].as_str());
        if let Some(id) = found {
            return Ok(id.to_string());
        }
        match body["meta"]["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    Err(CliError::usage(anyhow!(
        "site {site} has no completed scan to take the marked findings from; pass --scan ID"
    )))
}

fn import(args: ImportArgs) -> CliResult {
    let bytes = std::fs::read(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))
        .map_err(CliError::usage)?;
    let report = parse_report(&bytes)
        .with_context(|| format!("{}", args.file.display()))
        .map_err(CliError::usage)?;
    // Each fingerprint once, in a stable order.
    let fingerprints: BTreeSet<String> = report.findings.iter().map(fingerprint).collect();
    let client = Client::new(&args.api.api_url, &args.api.api_key)?;
    let status = match args.status {
        Status::Ignored => "ignored",
        Status::FalsePositive => "false_positive",
    };
    let mut body = json!({ "status": status });
    if let Some(note) = &args.note {
        body["note"] = json!(note);
    }
    let site = args.api.site;
    runtime()?.block_on(async {
        let (mut created, mut updated) = (0u64, 0u64);
        for fp in &fingerprints {
            let answer = client
                .send_with_status(
                    client
                        .http
                        .put(client.url(&format!("/api/v1/sites/{site}/marks/{fp}")))
                        .json(&body),
                )
                .await?;
            if answer.0 == reqwest::StatusCode::CREATED {
                created += 1;
            } else {
                updated += 1;
            }
        }
        let summary: Value = json!({
            "marked": fingerprints.len(),
            "created": created,
            "updated": updated,
        });
        println!("{summary}");
        Ok(EXIT_OK)
    })
}
