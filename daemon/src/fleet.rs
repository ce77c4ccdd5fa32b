//! The fleet: `sitescan worker` daemons taking scan jobs from Redis, and the
//! thin API front end of `sitescan serve --redis`. Both share one Redis through
//! [`RedisBackend`] (the same `Store` and `Queue` traits as the embedded
//! service), and both serve `/metrics` in the Prometheus text format.
//!
//! A worker slot's life with a job:
//! 1. take it (`dequeue`: reclaimed jobs of dead workers first, then weighted
//!    priority rounds); a scan past `max_attempts` of its own (failed runs,
//!    crashes while one of its pages was in analysis; see `worker::begin`) is
//!    not run again but dead-lettered and marked `failed` with the reason;
//! 2. `start_scan` (queued/running -> running; a reclaimed job's crash is
//!    charged first, see `worker::begin`: a page in analysis at two crashes
//!    fails the scan, naming it), run the engine, heartbeat every third of the
//!    visibility timeout so no one reclaims it;
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
use chrono::Utc;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{info, warn, Instrument};

use crate::queue::{Delivery, Queue};
use crate::store::redis::RedisBackend;
use crate::store::{ScanOutcome, Store};
use crate::worker::{begin, clear_analysis, execute, Begin, ScanExecutor};

/// Settings of one worker daemon.
#[derive(Debug, Clone)]
pub struct FleetSettings {
    /// Scans run at once by this process.
    pub concurrency: usize,
    /// Allow scanning loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most a scan's page budget may be (`worker`'s budget flags).
    pub page_budget: sitescan_engine::PageBudget,
    /// On SIGTERM, how long a scan in hand may still run before it is handed back.
    pub grace: Duration,
    /// How this process's webhook delivery task sends events.
    pub webhooks: crate::webhooks::DeliverySettings,
}

/// Backoff between retries of a failing Redis call: 100 ms doubling to 5 s.
#[derive(Debug)]
struct Backoff(Duration);

impl Backoff {
    fn new() -> Self {
        Backoff(Duration::from_millis(100))
    }
    async fn wait(&mut self) {
        tokio::time::sleep(self.0).await;
        self.0 = (self.0 * 2).min(Duration::from_secs(5));
    }
}

/// Retries `op` with backoff until it succeeds or `give_up` passes.
async fn persist<T, F, Fut>(what: &str, give_up: Duration, mut op: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = crate::Result<T>>,
{
    let start = Instant::now();
    let mut backoff = Backoff::new();
    loop {
        match op().await {
            Ok(v) => return Some(v),
            Err(e) if start.elapsed() < give_up => {
                warn!(error = %e, "{what} failed; retrying");
                backoff.wait().await;
            }
            Err(e) => {
                warn!(error = %e, "{what} failed; giving up (the job will be reclaimed)");
                return None;
            }
        }
    }
}

/// Starts `settings.concurrency` worker slots on `backend`. They stop taking
/// jobs when `shutdown` turns true and end once their scan in hand is finished
/// or handed back; the returned set ends when they all have.
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
    for slot in 0..settings.concurrency.max(1) {
        let (backend, executor, settings) = (backend.clone(), executor.clone(), settings.clone());
        let mut shutdown = shutdown.clone();
        set.spawn(async move {
            let mut backoff = Backoff::new();
            loop {
                if *shutdown.borrow() {
                    break;
                }
                let taken = tokio::select! {
                    d = backend.dequeue(Duration::from_secs(1)) => d,
                    _ = shutdown.changed() => break,
                };
                match taken {
                    Ok(Some(delivery)) => {
                        backoff = Backoff::new();
                        let span = tracing::info_span!("scan", scan_id = %delivery.job.scan_id, slot, attempt = delivery.attempt);
                        run_job(&backend, &*executor, &settings, delivery, shutdown.clone())
                            .instrument(span)
                            .await;
                    }
                    Ok(None) => backoff = Backoff::new(),
                    Err(e) => {
                        warn!(error = %e, "could not take a job (is Redis reachable?); retrying");
                        backoff.wait().await;
                    }
                }
            }
        });
    }
    set
}

/// Gives a job up: marks its scan failed with the reason, then moves it to the
/// dead-letter stream (in this order, so a crash in between only repeats it).
async fn give_up(backend: &RedisBackend, scan_id: &str, reason: String) {
    warn!(%reason, "job goes to the dead-letter stream");
    let outcome = ScanOutcome::Failed {
        error: reason.clone(),
    };
    // Dead-letter first, then mark the scan failed: whoever sees `failed` can
    // rely on the job already being in the dead-letter stream.
    persist("dead-lettering the job", Duration::from_secs(60), || {
        backend.dead_letter(scan_id, &reason)
    })
    .await;
    // The store writes the `scan.failed` event with the status.
    persist("marking the scan failed", Duration::from_secs(60), || {
        backend.finish_scan(scan_id, outcome.clone(), Utc::now())
    })
    .await;
}

async fn run_job(
    backend: &RedisBackend,
    executor: &dyn ScanExecutor,
    settings: &FleetSettings,
    delivery: Delivery,
    mut shutdown: watch::Receiver<bool>,
) {
    let id = delivery.job.scan_id.clone();
    let max = backend.settings().max_attempts;
    // Attempts are the scan's own (`worker::begin`): failed runs and crashes
    // while one of its pages was in analysis. A job reclaimed from a worker
    // that died on another scan's page was delivered again, but costs its
    // scan nothing.
    let scan = match begin(backend, &id, max).await {
        Ok(Begin::Run(scan)) => *scan,
        Ok(Begin::Exhausted(_)) => {
            let last = backend
                .last_failure(&id)
                .await
                .ok()
                .flatten()
                .unwrap_or_else(|| {
                    "its worker stopped while analysing a page (crashed, killed or lost Redis)"
                        .to_string()
                });
            give_up(
                backend,
                &id,
                format!("gave up after {max} attempts: {last}"),
            )
            .await;
            return;
        }
        Ok(Begin::Gone) => {
            info!("scan is canceled or gone; dropping the job");
            let _ = backend.ack(&id).await;
            return;
        }
        Ok(Begin::Stop(reason)) => {
            give_up(backend, &id, reason).await;
            return;
        }
        Err(e) => {
            warn!(error = %e, "could not start the scan; handing the job back");
            let _ = backend.release_job(&id, &e.to_string()).await;
            return;
        }
    };
    info!(url = %scan.url, "scan started");
    let heartbeat_every =
        (backend.settings().visibility_timeout / 3).max(Duration::from_millis(100));
    let mut beat = tokio::time::interval(heartbeat_every);
    beat.tick().await;
    let limits = crate::worker::ScanLimits {
        allow_private: settings.allow_private,
        page_budget: settings.page_budget,
    };
    let run = execute(backend, backend, executor, &scan, limits);
    tokio::pin!(run);
    let mut deadline: Option<tokio::time::Instant> = None;
    let outcome = loop {
        let grace_over = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            o = &mut run => break o,
            _ = beat.tick() => match backend.heartbeat(&id).await {
                Ok(true) => {}
                Ok(false) => {
                    warn!("the job was reclaimed by another worker; leaving it to them");
                    return;
                }
                Err(e) => warn!(error = %e, "heartbeat failed; retrying"),
            },
            changed = shutdown.changed(), if deadline.is_none() => {
                if changed.is_err() || *shutdown.borrow() {
                    info!(grace_secs = settings.grace.as_secs_f64(), "shutting down: finishing the scan in hand within the grace period");
                    deadline = Some(tokio::time::Instant::now() + settings.grace);
                }
            }
            _ = grace_over => {
                info!("grace period over: handing the job back");
                // No crash: nothing may be charged to the pages left in analysis.
                clear_analysis(backend, &id).await;
                if let Err(e) = backend.requeue_scan(&id).await {
                    warn!(error = %e, "could not mark the scan queued again");
                }
                if let Err(e) = backend.release_job(&id, "").await {
                    warn!(error = %e, "could not hand the job back; it will be reclaimed after the visibility timeout");
                }
                return;
            }
        }
    };
    clear_analysis(backend, &id).await;
    let give_up_after = backend
        .settings()
        .visibility_timeout
        .max(Duration::from_secs(30));
    match outcome {
        Some(ScanOutcome::Failed { error }) if scan.attempts < max => {
            warn!(%error, "attempt failed; the job goes back to the queue");
            persist("marking the scan queued again", give_up_after, || {
                backend.requeue_scan(&id)
            })
            .await;
            persist("handing the job back", give_up_after, || {
                backend.release_job(&id, &error)
            })
            .await;
            return;
        }
        Some(ScanOutcome::Failed { error }) => {
            give_up(
                backend,
                &id,
                format!("gave up after {max} attempts: {error}"),
            )
            .await;
            return;
        }
        Some(outcome) => {
            let saved = persist("saving the scan's outcome", give_up_after, || {
                backend.finish_scan(&id, outcome.clone(), Utc::now())
            })
            .await;
            match saved {
                Some(done) => info!(status = done.status.as_str(), "scan finished"),
                None => return,
            }
        }
        None => info!("scan canceled"),
    }
    persist("acknowledging the job", give_up_after, || backend.ack(&id)).await;
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
/// `sitescan worker` daemons run the scans.
pub async fn serve_api(
    backend: RedisBackend,
    listener: tokio::net::TcpListener,
    rate_per_minute: u32,
    allow_private: bool,
    page_budget: sitescan_engine::PageBudget,
    dashboard: crate::dashboard::DashboardSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> crate::Result<()> {
    use crate::api::{auth, ApiSettings, AppState};
    use crate::service::app;
    let state = AppState {
        store: Arc::new(backend.clone()),
        queue: Arc::new(backend.clone()),
        rate_limit: auth::RateLimit::per_minute(auth::non_zero(rate_per_minute)),
        settings: ApiSettings {
            allow_private,
            page_budget,
            public_url: dashboard.public_url.clone(),
        },
    };
    let app = metrics_router(backend).merge(app(state, dashboard));
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
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
