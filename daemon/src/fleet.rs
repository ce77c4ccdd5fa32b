//! The fleet: `sitescan worker` daemons taking scan jobs from Redis, and the
//! thin API front end of `sitescan serve --redis`. Both share one Redis through
//! [`RedisBackend`] (the same `Store` and `Queue` traits as the embedded
//! service), and both serve `/metrics` in the Prometheus text format.
//!
//! A worker slot's life with a job:
//! 1. take it under a lease (`dequeue`: jobs the background reclaimer took
//!    back from workers past their visibility timeout first, then weighted
//!    priority rounds; an idle slot waits in a blocking stream read); a scan
//!    past `max_attempts` of its own (failed runs, crashes while one of its
//!    pages was in analysis; see `worker::begin`) is not run again but
//!    dead-lettered and marked `failed` with the reason;
//! 2. `start_scan` (queued/running -> running; a reclaimed job's crash is
//!    charged first, see `worker::begin`: a page in analysis at two crashes
//!    fails the scan, naming it), run the engine, heartbeat the lease every
//!    third of the visibility timeout so no one reclaims it — a slot whose
//!    lease was lost (it was frozen or cut off past the timeout) drops the
//!    job without writing anything;
//! 3. completed: `finish_scan` (idempotent: a reclaimed job finishing twice
//!    writes one result) then `ack`; failed: the job goes back to the end of
//!    its stream for another attempt, or to the dead-letter stream after the
//!    last one;
//! 4. on SIGTERM no slot takes a new job; a scan in hand gets the grace period
//!    to finish, otherwise it is handed back to the queue at once.
//!
//! Redis outages: every call fails fast (the connection manager reconnects in
//! the background); slots log and retry with exponential backoff, writes of a
//! finished scan are retried until Redis answers, and the API answers 503.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::queue::Capabilities;
use crate::render_gate::RenderGate;
use crate::scheduler::SchedulerSettings;
use crate::store::redis::RedisBackend;
use crate::worker::{spawn_loop, LoopSettings, ScanExecutor, ScanLimits};

/// Settings of one worker daemon.
#[derive(Debug, Clone)]
pub struct FleetSettings {
    /// Scans run at once by this process.
    pub concurrency: usize,
    /// Allow scanning loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most a scan's page budget may be (`worker`'s budget flags).
    pub page_budget: sitescan_engine::PageBudget,
    /// Requests per second to one host (`worker --rate`).
    pub rate_per_host: f64,
    /// On SIGTERM, how long a scan in hand may still run before it is handed back.
    pub grace: Duration,
    /// How this process's webhook delivery task sends events.
    pub webhooks: crate::webhooks::DeliverySettings,
    /// This worker renders (`worker --render`): it takes render scans too,
    /// and announces itself as a render worker, while its browser works
    /// (see [`crate::render_gate`]).
    pub render: bool,
    /// Opens the credentials of the sites scanned (`SITESCAN_SECRET_KEY`).
    pub secret_key: Option<crate::secret_key::SecretKey>,
}

/// Starts `settings.concurrency` worker slots on `backend` (the job loop of
/// [`crate::worker::spawn_loop`]), the background reclaimer of jobs whose
/// workers stopped heartbeating, and the webhook delivery task. The slots stop
/// taking jobs when `shutdown` turns true and end once their scan in hand is
/// finished or handed back; the returned set ends when they all have.
pub fn spawn_workers(
    backend: RedisBackend,
    executor: Arc<dyn ScanExecutor>,
    settings: FleetSettings,
    shutdown: watch::Receiver<bool>,
) -> JoinSet<()> {
    let mut set = JoinSet::new();
    // Webhook deliveries run in every worker process; the outbox's leases keep
    // two processes from sending the same attempt.
    set.spawn(crate::webhooks::run_deliveries(
        Arc::new(backend.clone()),
        settings.webhooks.clone(),
        shutdown.clone(),
    ));
    let can = Capabilities {
        render: settings.render,
    };
    // A render worker takes (and reclaims) render jobs only while its
    // browser works.
    let render_gate = settings.render.then(RenderGate::browser);
    let gate = render_gate.clone();
    set.spawn(backend.clone().run_reclaimer(
        move || Capabilities {
            render: gate.as_ref().is_some_and(|g| g.is_open()),
        },
        shutdown.clone(),
    ));
    let loop_settings = LoopSettings {
        slots: settings.concurrency,
        limits: ScanLimits {
            allow_private: settings.allow_private,
            page_budget: settings.page_budget,
            rate_per_host: settings.rate_per_host,
            secret_key: settings.secret_key,
        },
        max_attempts: backend.settings().max_attempts,
        retry_failed: true,
        grace: settings.grace,
        requeue_on_handback: true,
        // Long enough to ride out a Redis restart.
        persist_for: backend
            .settings()
            .visibility_timeout
            .max(Duration::from_secs(30)),
        can,
        render_gate,
    };
    let backend = Arc::new(backend);
    spawn_loop(
        &mut set,
        backend.clone(),
        backend,
        executor,
        loop_settings,
        shutdown,
    );
    set
}

/// Pages-per-second gauge: the pages counter sampled at each scrape, the rate
/// taken over the last minute of samples.
#[derive(Debug, Default)]
pub struct PageRate {
    samples: Mutex<VecDeque<(Instant, u64)>>,
}

impl PageRate {
    /// Records `pages` now and returns pages per second over the window.
    pub fn observe(&self, pages: u64) -> f64 {
        let now = Instant::now();
        let Ok(mut s) = self.samples.lock() else {
            return 0.0;
        };
        s.push_back((now, pages));
        while s.len() > 2
            && s.front()
                .is_some_and(|(t, _)| now.duration_since(*t) > Duration::from_secs(60))
        {
            s.pop_front();
        }
        match s.front() {
            Some((t, p)) if now.duration_since(*t) > Duration::from_millis(1) => {
                pages.saturating_sub(*p) as f64 / now.duration_since(*t).as_secs_f64()
            }
            _ => 0.0,
        }
    }
}

/// The Prometheus text exposition of the fleet's state (cluster-wide, read
/// from Redis): queue depth per priority, jobs in flight, dead-letter size,
/// scans running / completed / failed / canceled, pages and pages per second.
pub async fn render_metrics(backend: &RedisBackend, rate: &PageRate) -> crate::Result<String> {
    let depths = backend.depths().await?;
    let render_workers = backend.render_workers().await?;
    let stats = backend.stats().await?;
    let pps = rate.observe(stats.pages);
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, rows: &[(&str, String)]| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in rows {
            let _ = writeln!(out, "{name}{labels} {value}");
        }
    };
    metric(
        "sitescan_queue_depth",
        "gauge",
        "Scan jobs waiting, per priority.",
        &[
            ("{priority=\"high\"}", depths.high.to_string()),
            ("{priority=\"normal\"}", depths.normal.to_string()),
            ("{priority=\"low\"}", depths.low.to_string()),
        ],
    );
    metric(
        "sitescan_render_queue_depth",
        "gauge",
        "Render scan jobs waiting (counted in sitescan_queue_depth too).",
        &[("", depths.render.to_string())],
    );
    metric(
        "sitescan_render_workers",
        "gauge",
        "Workers that render (worker --render) heard from in the last 15 seconds.",
        &[("", render_workers.to_string())],
    );
    metric(
        "sitescan_jobs_in_flight",
        "gauge",
        "Scan jobs delivered to a worker and not yet acknowledged.",
        &[("", depths.in_flight.to_string())],
    );
    metric(
        "sitescan_dead_letter_size",
        "gauge",
        "Jobs in the dead-letter stream.",
        &[("", depths.dead.to_string())],
    );
    metric(
        "sitescan_scans_running",
        "gauge",
        "Scans running now.",
        &[("", stats.running.to_string())],
    );
    metric(
        "sitescan_scans_total",
        "counter",
        "Scans that reached a final status.",
        &[
            ("{status=\"completed\"}", stats.completed.to_string()),
            ("{status=\"failed\"}", stats.failed.to_string()),
            ("{status=\"canceled\"}", stats.canceled.to_string()),
        ],
    );
    metric(
        "sitescan_pages_total",
        "counter",
        "Pages fetched by completed scans.",
        &[("", stats.pages.to_string())],
    );
    metric(
        "sitescan_pages_per_second",
        "gauge",
        "Pages per second over the last minute (from sitescan_pages_total).",
        &[("", format!("{pps:.3}"))],
    );
    Ok(out)
}

#[derive(Clone)]
struct MetricsState {
    backend: RedisBackend,
    rate: Arc<PageRate>,
}

async fn metrics(State(state): State<MetricsState>) -> Response {
    match render_metrics(&state.backend, &state.rate).await {
        Ok(body) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            body,
        )
            .into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("# Redis does not answer: {e}\n"),
        )
            .into_response(),
    }
}

/// A router serving `GET /metrics` from `backend`.
pub fn metrics_router(backend: RedisBackend) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(MetricsState {
            backend,
            rate: Arc::new(PageRate::default()),
        })
}

/// Serves `/metrics` (and `/healthz`) on `listener` until `shutdown` resolves.
pub async fn serve_metrics(
    backend: RedisBackend,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> crate::Result<()> {
    let app = metrics_router(backend).route("/healthz", get(|| async { "ok\n" }));
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    Ok(())
}

/// The API front end on Redis (`sitescan serve --redis`): the same routes as
/// the embedded service plus `/metrics`, and no in-process workers — the
/// `sitescan worker` daemons run the scans. Scheduled scans run with the
/// default [`SchedulerSettings`]; see [`serve_api_with`].
pub async fn serve_api(
    backend: RedisBackend,
    listener: tokio::net::TcpListener,
    rate_per_minute: u32,
    allow_private: bool,
    page_budget: sitescan_engine::PageBudget,
    dashboard: crate::dashboard::DashboardSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> crate::Result<()> {
    serve_api_with(
        backend,
        listener,
        rate_per_minute,
        allow_private,
        page_budget,
        dashboard,
        SchedulerSettings::default(),
        None,
        shutdown,
    )
    .await
}

/// [`serve_api`] with the settings of scheduled scans: every API process
/// runs a scheduler; the store's atomic claim of each run makes exactly one
/// of them fire it.
#[allow(clippy::too_many_arguments)]
pub async fn serve_api_with(
    backend: RedisBackend,
    listener: tokio::net::TcpListener,
    rate_per_minute: u32,
    allow_private: bool,
    page_budget: sitescan_engine::PageBudget,
    dashboard: crate::dashboard::DashboardSettings,
    schedules: SchedulerSettings,
    secret_key: Option<crate::secret_key::SecretKey>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> crate::Result<()> {
    use crate::api::{auth, ApiSettings, AppState};
    use crate::service::app;
    use crate::state::RenderWorkers;
    let state = AppState {
        store: Arc::new(backend.clone()),
        queue: Arc::new(backend.clone()),
        rate_limit: auth::RateLimit::per_minute(auth::non_zero(rate_per_minute)),
        settings: ApiSettings {
            allow_private,
            page_budget,
            public_url: dashboard.public_url.clone(),
            schedule_min_interval: schedules.min_interval,
            render_workers: RenderWorkers::Fleet,
            secret_key,
        },
    };
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let scheduler = crate::scheduler::spawn_scheduler(state.clone(), schedules, stop_rx);
    let app = metrics_router(backend).merge(app(state, dashboard));
    let served = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await;
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(10), scheduler).await;
    served?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_rate_is_pages_over_the_window() {
        let rate = PageRate::default();
        assert_eq!(rate.observe(10), 0.0, "one sample: no rate yet");
        std::thread::sleep(Duration::from_millis(200));
        let r = rate.observe(30);
        // 20 pages in a bit more than 0.2 s.
        assert!(r > 50.0 && r <= 100.0, "{r}");
        // A counter that went down (Redis flushed) never gives a negative rate.
        assert_eq!(rate.observe(0), 0.0);
    }
}
