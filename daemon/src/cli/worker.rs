//! `sitescan worker`: a fleet daemon taking scan jobs from Redis (see
//! [`crate::fleet`]). Prints one JSON line `{"worker": CONSUMER, "metrics":
//! "http://ADDR"|null, "render": bool}` on stdout once it runs; logs are JSON
//! on stderr. With `--render` it takes render scans too (see
//! [`crate::queue`] on how render jobs reach only such workers).
//! SIGTERM or SIGINT: stop taking jobs, finish the scan in hand within
//! `--grace-period` or hand it back, exit 0.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Args as ClapArgs;
use tokio::sync::watch;

use super::{CliError, CliResult, EXIT_OK};
use crate::executor::EngineExecutor;
use crate::fleet::{serve_metrics, spawn_workers, FleetSettings};
use crate::store::redis::{RedisBackend, RedisSettings, DEFAULT_MAX_ATTEMPTS};

/// Redis connection options shared by `worker`, `serve --redis` and `admin --redis`.
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct RedisArgs {
    /// Every Redis key starts with this prefix (several deployments can share a server).
    #[arg(long, env = "SITESCAN_REDIS_PREFIX", default_value = "sitescan")]
    pub(crate) redis_prefix: String,
    /// Seconds a job may go without a heartbeat before another worker reclaims it.
    #[arg(long, env = "SITESCAN_VISIBILITY_TIMEOUT", default_value_t = 300.0)]
    pub(crate) visibility_timeout: f64,
    /// Deliveries of a job before it goes to the dead-letter stream and its scan fails.
    #[arg(long, env = "SITESCAN_MAX_ATTEMPTS", default_value_t = DEFAULT_MAX_ATTEMPTS)]
    pub(crate) max_attempts: u32,
}

impl RedisArgs {
    /// Connects to `url` with these options.
    pub(crate) async fn connect(&self, url: &str) -> Result<RedisBackend, CliError> {
        if !(self.visibility_timeout.is_finite() && self.visibility_timeout >= 0.1) {
            return Err(CliError::usage(anyhow::anyhow!(
                "--visibility-timeout must be at least 0.1 seconds"
            )));
        }
        if self.max_attempts == 0 {
            return Err(CliError::usage(anyhow::anyhow!(
                "--max-attempts must be at least 1"
            )));
        }
        let mut settings = RedisSettings::new(url).map_err(CliError::run)?;
        settings.prefix = self.redis_prefix.clone();
        settings.visibility_timeout = Duration::from_secs_f64(self.visibility_timeout);
        settings.max_attempts = self.max_attempts;
        RedisBackend::connect(settings).await.map_err(|e| match e {
            crate::Error::Config(_) => CliError::usage(e),
            other => CliError::run(other),
        })
    }
}

/// Arguments of `sitescan worker`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// Redis URL (`redis://127.0.0.1:6379/0`).
    #[arg(long, env = "SITESCAN_REDIS_URL")]
    redis: String,
    /// Scans run at once by this worker.
    #[arg(long, env = "SITESCAN_CONCURRENCY", default_value_t = 2)]
    concurrency: usize,
    #[command(flatten)]
    redis_args: RedisArgs,
    /// On SIGTERM, seconds the scan in hand may still run before it is handed back.
    #[arg(long, env = "SITESCAN_GRACE_PERIOD", default_value_t = 30.0)]
    grace_period: f64,
    /// Serve `/metrics` on this address (port 0 picks a free port).
    #[arg(long, env = "SITESCAN_METRICS_BIND")]
    metrics_bind: Option<SocketAddr>,
    /// Allow sites on loopback, private and link-local addresses (tests and development only).
    #[arg(long, env = "SITESCAN_ALLOW_PRIVATE")]
    allow_private: bool,
    /// Requests per second to one scanned host.
    #[arg(long, env = "SITESCAN_RATE", default_value_t = sitescan_engine::config::DEFAULT_RATE_PER_HOST)]
    rate: f64,
    #[command(flatten)]
    webhook_args: super::service_args::WebhookArgs,
    /// The most a scan's page budget may be: a scan's `config.budget` is held
    /// under these when it runs here.
    #[command(flatten)]
    budget: super::budget::BudgetArgs,
    /// Take render scans too (`config.render: true`): this worker has a
    /// browser (Debian's `chromium`, or SITESCAN_CHROMIUM). Without it the
    /// worker takes static scans only. Run it as an unprivileged user, so
    /// Chromium's sandbox stays on.
    #[arg(long, env = "SITESCAN_RENDER")]
    render: bool,
}

/// Runs `sitescan worker` until SIGTERM/SIGINT.
pub(crate) fn run(args: Args) -> CliResult {
    crate::telemetry::init_service();
    if args.concurrency == 0 || args.concurrency > 64 {
        return Err(CliError::usage(anyhow::anyhow!(
            "--concurrency must be 1 to 64"
        )));
    }
    if !(args.rate.is_finite() && args.rate > 0.0) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--rate must be a positive number of requests per second"
        )));
    }
    if !(args.grace_period.is_finite() && args.grace_period >= 0.0) {
        return Err(CliError::usage(anyhow::anyhow!(
            "--grace-period must be 0 or more seconds"
        )));
    }
    let webhooks = args.webhook_args.settings(args.allow_private)?;
    let secret_key = crate::secret_key::SecretKey::from_env().map_err(CliError::usage)?;
    // A worker that says it renders must be able to: otherwise it would take
    // render scans and fail each one.
    if args.render {
        let browser = sitescan_engine::browser::launch::configured_binary()
            .map_err(|e| CliError::usage(anyhow::anyhow!("--render: {e}")))?;
        tracing::info!(browser = %browser.display(), "render scans: this worker takes them");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::run)?;
    rt.block_on(async move {
        // Signal handlers first, so a SIGTERM while waiting for Redis is seen.
        let shutdown = super::service_args::shutdown_signal().map_err(CliError::run)?;
        tokio::pin!(shutdown);
        // A worker started while Redis is down waits for it (with backoff)
        // rather than exiting; a bad URL or option still fails at once.
        let mut delay = Duration::from_millis(200);
        let backend = loop {
            match args.redis_args.connect(&args.redis).await {
                Ok(b) => break b,
                Err(e) if e.code == super::EXIT_USAGE => return Err(e),
                Err(e) => {
                    tracing::warn!(error = %e.error, retry_in_ms = delay.as_millis() as u64, "Redis is not reachable; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = &mut shutdown => return Ok(EXIT_OK),
                    }
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        };
        crate::ops::credentials::check_start_up(&backend, secret_key.as_ref())
            .await
            .map_err(CliError::run)?;
        let (stop_tx, stop_rx) = watch::channel(false);
        let metrics_addr = match args.metrics_bind {
            Some(bind) => {
                let listener = tokio::net::TcpListener::bind(bind)
                    .await
                    .map_err(|e| CliError::run(anyhow::anyhow!("cannot listen on {bind}: {e}")))?;
                let addr = listener.local_addr().map_err(CliError::run)?;
                let mut stop = stop_rx.clone();
                let backend = backend.clone();
                tokio::spawn(async move {
                    let done = async move {
                        let _ = stop.wait_for(|s| *s).await;
                    };
                    if let Err(e) = serve_metrics(backend, listener, done).await {
                        tracing::warn!(error = %e, "metrics server stopped");
                    }
                });
                Some(format!("http://{addr}"))
            }
            None => None,
        };
        let settings = FleetSettings {
            concurrency: args.concurrency,
            allow_private: args.allow_private,
            page_budget: args.budget.budget(),
            rate_per_host: args.rate,
            grace: Duration::from_secs_f64(args.grace_period),
            webhooks,
            render: args.render,
            secret_key,
        };
        let consumer = backend.settings().consumer.clone();
        tracing::info!(%consumer, concurrency = args.concurrency, render = args.render, "sitescan worker running");
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(
                out,
                "{}",
                serde_json::json!({ "worker": consumer, "metrics": metrics_addr, "render": args.render })
            );
            let _ = out.flush();
        }
        let mut slots = spawn_workers(backend, Arc::new(EngineExecutor), settings, stop_rx);
        tokio::select! {
            _ = &mut shutdown => {
                tracing::info!("shutting down: no new jobs");
                let _ = stop_tx.send(true);
                while slots.join_next().await.is_some() {}
            }
            _ = async { while slots.join_next().await.is_some() {} } => {}
        }
        tracing::info!("worker stopped");
        Ok(EXIT_OK)
    })
}
