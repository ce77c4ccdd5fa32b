//! `sitescan remote scan --site ID`: start a scan on a `sitescan serve` API
//! (for CI jobs that scan from a fleet instead of crawling themselves), and with
//! `--wait` poll it to the end, download its JSON report and render and gate it
//! through `output.rs` exactly as `scan` does, so formats and gates behave the same.
//!
//! Exit codes: 0 / 1 (gate) as `scan`; API errors 401/403/404 (and other 4xx)
//! are usage errors (2) with the API's code and message on one line; network
//! failures, 5xx, a failed or canceled scan and `--timeout` are run errors (3).
//! The API key is only ever sent in the `X-API-Key` header, never printed.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sitescan_engine::baseline::parse_report;

use super::output::OutputArgs;
use super::{CliError, CliResult, EXIT_OK};

mod marks;

/// First wait between two polls; it doubles up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(500);
/// Longest wait between two polls.
const MAX_POLL: Duration = Duration::from_secs(5);

/// Arguments of `sitescan remote`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: RemoteCommand,
}

#[derive(Debug, Subcommand)]
enum RemoteCommand {
    /// Start a scan of a registered site on the API; with --wait, wait for it and
    /// write and gate its report like `scan`.
    Scan(Box<ScanArgs>),
    /// Triage marks of a site: export them as a baseline file for `scan
    /// --baseline`, or mark every finding of a baseline file.
    #[command(subcommand)]
    Marks(marks::MarksCommand),
}

/// Queue priority sent with the scan.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Priority {
    /// After normal and high scans.
    Low,
    /// The default.
    Normal,
    /// Before the others.
    High,
}

impl Priority {
    fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
        }
    }
}

/// Arguments of `sitescan remote scan`.
#[derive(Debug, ClapArgs)]
struct ScanArgs {
    /// The site's id (`site_...`), as `sitescan admin` or POST /api/v1/sites gave it.
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
    /// Rule sets and rule ids to run (comma separated or repeated).
    #[arg(long, value_delimiter = ',', default_value = "all")]
    rules: Vec<String>,
    /// Queue priority.
    #[arg(long, value_enum)]
    priority: Option<Priority>,
    /// Render mode (the API's `config.render`): the service loads each page in
    /// a browser and checks the DOM its scripts build.
    #[arg(long)]
    render: bool,
    /// With --render: how the browser waits for each page, its throttling
    /// and its pictures (the API's `config.render_options`).
    #[command(flatten)]
    render_args: super::render_args::RenderArgs,
    /// Wait for the scan to finish, then write its report and apply the gates.
    #[arg(long)]
    wait: bool,
    /// Give up waiting after this many seconds (exit 3).
    #[arg(long, value_name = "SECS", default_value_t = 1800)]
    timeout: u64,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `sitescan remote ...`.
pub(crate) fn run(args: Args) -> CliResult {
    match args.command {
        RemoteCommand::Scan(a) => scan(*a),
        RemoteCommand::Marks(c) => marks::run(c),
    }
}

fn scan(args: ScanArgs) -> CliResult {
    let interactive = std::io::stderr().is_terminal();
    crate::telemetry::init_cli(interactive);
    args.render_args.check(args.render)?;
    let baseline = args.output.load_baseline()?;
    let client = Client::new(&args.api_url, &args.api_key)?;
    let runtime = runtime()?;
    runtime.block_on(async {
        let mut config = json!({ "rules": args.rules });
        if let Some(p) = args.priority {
            config["priority"] = json!(p.as_str());
        }
        if args.render {
            config["render"] = json!(true);
            if let Some(options) = args.render_args.api_options() {
                config["render_options"] = options;
            }
        }
        let started = client
            .send(
                client
                    .http
                    .post(client.url(&format!("/api/v1/sites/{}/scans", args.site)))
                    .json(&json!({ "config": config })),
            )
            .await?;
        let scan = &started["data"];
        let id = scan["id"]
            .as_str()
            .ok_or_else(|| CliError::run(anyhow!("the API answered without a scan id")))?
            .to_string();
        if !args.wait {
            println!("{}", json!({"id": id, "status": scan["status"]}));
            return Ok(EXIT_OK);
        }
        wait(&client, &id, Duration::from_secs(args.timeout), interactive).await?;
        let body = client
            .send(
                client
                    .http
                    .get(client.url(&format!("/api/v1/scans/{id}/report"))),
            )
            .await?;
        let bytes = serde_json::to_vec(&body["data"]).map_err(CliError::run)?;
        let report = parse_report(&bytes)
            .map_err(|e| CliError::run(anyhow!("the report of {id}: {e:#}")))?;
        args.output.finish(report, baseline.as_ref())
    })
}

/// The API, its base URL and key.
struct Client {
    http: reqwest::Client,
    base: String,
    key: String,
}

/// A runtime for one command's requests.
fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::run(anyhow::Error::from(e).context("could not start the runtime")))
}

impl Client {
    /// A client of the API at `api_url` with `api_key`; both are checked.
    fn new(api_url: &str, api_key: &str) -> Result<Client, CliError> {
        let base = url::Url::parse(api_url.trim_end_matches('/'))
            .map_err(|e| CliError::usage(anyhow!("--api-url `{api_url}`: {e}")))?;
        if api_key.trim().is_empty() {
            return Err(CliError::usage(anyhow!(
                "no API key: pass --api-key or set SITESCAN_API_KEY"
            )));
        }
        Ok(Client {
            http: reqwest::Client::new(),
            base: base.as_str().trim_end_matches('/').to_string(),
            key: api_key.to_string(),
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends with the key and returns the JSON body of a success; an error
    /// envelope becomes one line with its status, code and message.
    async fn send(&self, req: reqwest::RequestBuilder) -> Result<Value, CliError> {
        self.send_with_status(req).await.map(|(_, body)| body)
    }

    /// [`Client::send`], with the status of the success.
    async fn send_with_status(
        &self,
        req: reqwest::RequestBuilder,
    ) -> Result<(StatusCode, Value), CliError> {
        let resp = req
            .header("X-API-Key", &self.key)
            .send()
            .await
            .map_err(|e| CliError::run(anyhow!("cannot reach the API at {}: {e}", self.base)))?;
        let status = resp.status();
        let text = resp
            .text()
            .await
            .map_err(|e| CliError::run(anyhow!("reading the API's answer: {e}")))?;
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok((status, body));
        }
        let code = body["error"]["code"].as_str().unwrap_or("unknown_error");
        let message = body["error"]["message"].as_str().unwrap_or("(no message)");
        let hint = match status {
            StatusCode::UNAUTHORIZED => " (check --api-key / SITESCAN_API_KEY)",
            StatusCode::FORBIDDEN => " (the key's plan does not allow this)",
            StatusCode::NOT_FOUND => " (check --site: the site must belong to the key's account)",
            _ => "",
        };
        let error = anyhow!("API {}: {code}: {message}{hint}", status.as_u16());
        if status.is_client_error() && status != StatusCode::TOO_MANY_REQUESTS {
            Err(CliError::usage(error))
        } else {
            Err(CliError::run(error))
        }
    }
}

/// Polls the scan with backoff until it completes (Ok) or fails, is canceled or
/// `timeout` passes (exit 3).
async fn wait(
    client: &Client,
    id: &str,
    timeout: Duration,
    interactive: bool,
) -> Result<(), CliError> {
    let bar = interactive.then(|| {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let start = Instant::now();
    let mut delay = FIRST_POLL;
    let mut last = String::new();
    let result = loop {
        let body = match client
            .send(client.http.get(client.url(&format!("/api/v1/scans/{id}"))))
            .await
        {
            Ok(b) => b,
            Err(e) => break Err(e),
        };
        let scan = &body["data"];
        let status = scan["status"].as_str().unwrap_or("unknown");
        let line = match scan["progress"].as_object() {
            Some(p) => format!(
                "{id}: {status}, {} pages done, {} queued",
                p.get("pages_done").and_then(Value::as_u64).unwrap_or(0),
                p.get("pages_queued").and_then(Value::as_u64).unwrap_or(0)
            ),
            None => format!("{id}: {status}"),
        };
        if line != last {
            match &bar {
                Some(bar) => bar.set_message(line.clone()),
                None => tracing::info!("{line}"),
            }
            last = line;
        }
        match status {
            "completed" => break Ok(()),
            "failed" | "canceled" => {
                let why = scan["error"].as_str().unwrap_or("no reason given");
                break Err(CliError::run(anyhow!("scan {id} {status}: {why}")));
            }
            _ => {}
        }
        if start.elapsed() >= timeout {
            break Err(CliError::run(anyhow!(
                "scan {id} still {status} after {} s (--timeout)",
                timeout.as_secs()
            )));
        }
        tokio::time::sleep(delay.min(timeout.saturating_sub(start.elapsed()))).await;
        delay = (delay * 2).min(MAX_POLL);
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}
