//! `sitescan serve`: the REST API with the embedded backend (one redb file in
//! `--data-dir`) and an in-process worker pool. Prints one JSON line
//! `{"listening": "http://ADDR"}` on stdout once it accepts connections (so
//! scripts and tests can use `--bind 127.0.0.1:0`); logs are JSON on stderr.
//! SIGINT or SIGTERM stop it gracefully. The dashboard is served on the same
//! address, under `/` (see `crate::dashboard`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args as ClapArgs;

use super::service_args::{shutdown_signal, WebhookArgs, DEFAULT_DATA_DIR};
use super::{CliError, CliResult, EXIT_OK};
use crate::dashboard::DashboardSettings;
use crate::executor::EngineExecutor;
use crate::service::{Service, DEFAULT_RATE_PER_MINUTE};
use crate::store::embedded::Embedded;
use crate::worker::WorkerSettings;

/// Default listen address.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Default number of scans run at once.
pub(crate) const DEFAULT_WORKERS: usize = 2;

/// Arguments of `sitescan serve`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "SITESCAN_BIND", default_value = DEFAULT_BIND)]
    bind: SocketAddr,
    /// Directory of the embedded store.
    #[arg(long, env = "SITESCAN_DATA_DIR", default_value = DEFAULT_DATA_DIR)]
    data_dir: PathBuf,
    /// Scans run at once.
    #[arg(long, env = "SITESCAN_WORKERS", default_value_t = DEFAULT_WORKERS)]
    workers: usize,
    /// Allow sites on loopback, private and link-local addresses (tests and development only).
    #[arg(long, env = "SITESCAN_ALLOW_PRIVATE")]
    allow_private: bool,
    /// Requests per minute allowed per API key.
    #[arg(long, env = "SITESCAN_RATE_LIMIT", default_value_t = DEFAULT_RATE_PER_MINUTE)]
    rate_limit: u32,
    /// Requests per second to one scanned host (the in-process workers).
    #[arg(long, env = "SITESCAN_RATE", default_value_t = sitescan_engine::config::DEFAULT_RATE_PER_HOST)]
    rate: f64,
    /// Run as the fleet's API front end on this Redis (no in-process workers:
    /// `sitescan worker` runs the scans).
    #[arg(long, env = "SITESCAN_REDIS_URL")]
    redis: Option<String>,
    #[command(flatten)]
    redis_args: super::worker::RedisArgs,
    /// The address people open the dashboard at, when it differs from
    /// `--bind` (behind a TLS-terminating proxy): with an https URL the
    /// session cookie is `Secure` and HSTS is sent. Without it, the cookie is
    /// `Secure` unless `--bind` is a loopback address (local development).
    #[arg(long, env = "SITESCAN_PUBLIC_URL")]
    public_url: Option<url::Url>,
    #[command(flatten)]
    webhook_args: WebhookArgs,
    /// The most a scan's page budget may be: a scan's `config.budget` may
    /// lower each limit, never raise it; one that says nothing gets the
    /// defaults held under these.
    #[command(flatten)]
    budget: super::budget::BudgetArgs,
    /// The shortest time, in seconds, allowed between two runs of a
    /// scheduled scan: a schedule whose cron expression runs more often is
    /// refused (422).
    #[arg(
        long,
        env = "SITESCAN_SCHEDULE_MIN_INTERVAL",
        default_value_t = 60,
        value_name = "SECONDS"
    )]
    schedule_min_interval: u64,
}

/// Runs `sitescan serve` until SIGINT/SIGTERM.
pub(crate) fn run(args: Args) -> CliResult {
    crate::telemetry::init_service();
    if args.workers == 0 || args.workers > 64 {
        return Err(CliError::usage(anyhow::anyhow!(
            "--workers must be 1 to 64"
        )));
    }
    if !(args.rate.is_finite() && args.rate > 0.0) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--rate must be a positive number of requests per second"
        )));
    }
    if args.rate_limit == 0 {
        return Err(CliError::usage(anyhow::anyhow!(
            "--rate-limit must be at least 1"
        )));
    }
    let webhooks = args.webhook_args.settings(args.allow_private)?;
    let secret_key = crate::secret_key::SecretKey::from_env().map_err(CliError::usage)?;
    if args.schedule_min_interval == 0 {
        return Err(CliError::usage(anyhow::anyhow!(
            "--schedule-min-interval must be at least 1 second"
        )));
    }
    let schedules = crate::scheduler::SchedulerSettings {
        min_interval: Duration::from_secs(args.schedule_min_interval),
        ..Default::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::run)?;
    rt.block_on(async move {
        if let Some(url) = &args.redis {
            let backend = args.redis_args.connect(url).await?;
            crate::ops::credentials::check_start_up(&backend, secret_key.as_ref())
                .await
                .map_err(CliError::run)?;
            let listener = tokio::net::TcpListener::bind(args.bind)
                .await
                .map_err(|e| CliError::run(anyhow::anyhow!("cannot listen on {}: {e}", args.bind)))?;
            let addr = listener.local_addr().map_err(CliError::run)?;
            let dashboard = DashboardSettings::new(addr, args.public_url.as_ref());
            let shutdown = shutdown_signal().map_err(CliError::run)?;
            tracing::info!(%addr, prefix = %backend.settings().prefix, "sitescan serve (Redis) listening");
            {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{}", serde_json::json!({ "listening": format!("http://{addr}") }));
                let _ = out.flush();
            }
            crate::fleet::serve_api_with(backend, listener, args.rate_limit, args.allow_private, args.budget.budget(), dashboard, schedules, secret_key, shutdown)
                .await
                .map_err(CliError::run)?;
            return Ok(EXIT_OK);
        }
        let backend = Arc::new(Embedded::open(&args.data_dir).map_err(CliError::run)?);
        crate::ops::credentials::check_start_up(backend.as_ref(), secret_key.as_ref())
            .await
            .map_err(CliError::run)?;
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|e| CliError::run(anyhow::anyhow!("cannot listen on {}: {e}", args.bind)))?;
        let addr = listener.local_addr().map_err(CliError::run)?;
        // The in-process workers render when a browser is installed (found
        // the way render scans find it); without one, render scans are
        // refused at creation rather than left waiting for nobody.
        let render = match sitescan_engine::browser::launch::configured_binary() {
            Ok(browser) => {
                tracing::info!(browser = %browser.display(), "render scans: accepted");
                true
            }
            Err(e) => {
                tracing::info!(reason = %e, "render scans: refused (no browser)");
                false
            }
        };
        let service = Service {
            store: backend.clone(),
            queue: backend,
            executor: Arc::new(EngineExecutor),
            workers: WorkerSettings {
                workers: args.workers,
                allow_private: args.allow_private,
                page_budget: args.budget.budget(),
                rate_per_host: args.rate,
                render,
                secret_key,
            },
            rate_per_minute: args.rate_limit,
            grace: Duration::from_secs(10),
            webhooks,
            schedules,
        };
        let shutdown = shutdown_signal().map_err(CliError::run)?;
        tracing::info!(%addr, data_dir = %args.data_dir.display(), workers = args.workers, "sitescan serve listening");
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", serde_json::json!({ "listening": format!("http://{addr}") }));
            let _ = out.flush();
        }
        let dashboard = DashboardSettings::new(addr, args.public_url.as_ref());
        service
            .run_with(listener, shutdown, dashboard)
            .await
            .map_err(CliError::run)?;
        Ok(EXIT_OK)
    })
}
