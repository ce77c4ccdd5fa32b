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

use super::admin::DEFAULT_DATA_DIR;
use super::{CliError, CliResult, EXIT_OK};
use crate::api::{Service, DEFAULT_RATE_PER_MINUTE};
use crate::dashboard::DashboardSettings;
use crate::executor::EngineExecutor;
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
}

/// Webhook delivery options shared by `serve` and `worker` (the processes that
/// run a delivery task; `serve --redis` leaves deliveries to the workers).
#[derive(Debug, Clone, ClapArgs)]
pub(crate) struct WebhookArgs {
    /// Seconds to wait before each retry of a failed webhook delivery,
    /// comma-separated (attempts at most = values + 1; each wait varies by ±20%).
    #[arg(
        long,
        env = "SITESCAN_WEBHOOK_RETRY_DELAYS",
        default_value = "60,300,1800,7200,18000,36000,36000"
    )]
    pub(crate) webhook_retry_delays: String,
    /// Seconds one webhook delivery attempt may take.
    #[arg(long, env = "SITESCAN_WEBHOOK_TIMEOUT", default_value_t = 10.0)]
    pub(crate) webhook_timeout: f64,
}

impl WebhookArgs {
    /// The delivery settings these options give, or a usage error.
    pub(crate) fn settings(
        &self,
        allow_private: bool,
    ) -> Result<crate::webhooks::DeliverySettings, CliError> {
        let mut settings = crate::webhooks::DeliverySettings::new(allow_private);
        settings.retry_delays = parse_delays(&self.webhook_retry_delays)
            .map_err(|e| CliError::usage(anyhow::anyhow!("--webhook-retry-delays: {e}")))?;
        if !(self.webhook_timeout.is_finite() && (0.1..=300.0).contains(&self.webhook_timeout)) {
            return Err(CliError::usage(anyhow::anyhow!(
                "--webhook-timeout must be 0.1 to 300 seconds"
            )));
        }
        settings.timeout = Duration::from_secs_f64(self.webhook_timeout);
        Ok(settings)
    }
}

/// Parses `60,300,1800`: 1 to 20 waits of 0.01 s to 7 days each.
fn parse_delays(raw: &str) -> Result<Vec<Duration>, String> {
    let mut out = Vec::new();
    for part in raw.split(',') {
        let part = part.trim();
        let secs: f64 = part
            .parse()
            .map_err(|_| format!("`{part}` is not a number of seconds"))?;
        if !(secs.is_finite() && (0.01..=7.0 * 86_400.0).contains(&secs)) {
            return Err(format!("`{part}` must be 0.01 to 604800 seconds"));
        }
        out.push(Duration::from_secs_f64(secs));
    }
    if out.len() > 20 {
        return Err("at most 20 retries".to_string());
    }
    Ok(out)
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::run)?;
    rt.block_on(async move {
        if let Some(url) = &args.redis {
            let backend = args.redis_args.connect(url).await?;
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
            crate::fleet::serve_api(backend, listener, args.rate_limit, args.allow_private, args.budget.budget(), dashboard, shutdown)
                .await
                .map_err(CliError::run)?;
            return Ok(EXIT_OK);
        }
        let backend = Arc::new(Embedded::open(&args.data_dir).map_err(CliError::run)?);
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|e| CliError::run(anyhow::anyhow!("cannot listen on {}: {e}", args.bind)))?;
        let addr = listener.local_addr().map_err(CliError::run)?;
        let service = Service {
            store: backend.clone(),
            queue: backend,
            executor: Arc::new(EngineExecutor),
            workers: WorkerSettings {
                workers: args.workers,
                allow_private: args.allow_private,
                page_budget: args.budget.budget(),
                rate_per_host: args.rate,
            },
            rate_per_minute: args.rate_limit,
            grace: Duration::from_secs(10),
            webhooks,
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

/// A future resolving on SIGINT or SIGTERM. The handlers are installed here,
/// before the address is announced, so a signal sent right after is not lost.
pub(crate) fn shutdown_signal(
) -> std::io::Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {},
                _ = int.recv() => {},
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_retry_delays_parse_and_the_default_is_the_documented_one() {
        assert_eq!(
            parse_delays("0.2, 0.8").unwrap(),
            [Duration::from_millis(200), Duration::from_millis(800)]
        );
        assert!(parse_delays("").is_err());
        assert!(parse_delays("1,x").unwrap_err().contains("`x`"));
        assert!(parse_delays("-1").is_err());
        assert!(parse_delays("1e9").is_err());
        assert!(parse_delays(&vec!["1"; 21].join(",")).is_err());
        let args = WebhookArgs {
            webhook_retry_delays: "60,300,1800,7200,18000,36000,36000".into(),
            webhook_timeout: 10.0,
        };
        let s = args.settings(false).unwrap();
        let d = crate::webhooks::DeliverySettings::new(false);
        assert_eq!((s.retry_delays, s.timeout), (d.retry_delays, d.timeout));
        let bad = WebhookArgs {
            webhook_timeout: 0.0,
            ..args
        };
        assert!(bad.settings(false).is_err());
    }
}
