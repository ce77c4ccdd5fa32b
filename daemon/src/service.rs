//! The service `sitescan serve` runs, at the top of the daemon: [`app`]
//! composes the API (`crate::api`) and the dashboard (`crate::dashboard`) on
//! one [`AppState`], and [`Service`] runs it with everything behind it:
//! store and queue recovery, the worker pool, webhook delivery, the
//! scheduler of scheduled scans (`crate::scheduler`), the listener
//! and graceful shutdown. Nothing below imports this module.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::sync::watch;

use crate::api::{self, HtmlPages};
use crate::dashboard::{self, DashboardSettings};
use crate::queue::{Job, Queue};
use crate::state::{non_zero, ApiSettings, AppState, RateLimit, RenderWorkers};
use crate::store::Store;
use crate::worker::{spawn_pool, ScanExecutor, WorkerSettings};

/// Per-key requests per minute when `serve` is not told otherwise.
pub use crate::api::DEFAULT_RATE_PER_MINUTE;

/// The whole app `sitescan serve` runs: the API under `/api/v1` and the
/// dashboard under `/`, on the same state; a browser asking for an unknown
/// page, or for the error reference, gets the dashboard's HTML.
pub fn app(state: AppState, settings: DashboardSettings) -> Router {
    let pages = HtmlPages {
        not_found: dashboard::not_found_page,
        errors: dashboard::errors_page,
    };
    api::router_with(state.clone(), Some(pages)).merge(dashboard::router(state, settings))
}

/// Everything `sitescan serve` runs.
pub struct Service {
    /// Records.
    pub store: Arc<dyn Store>,
    /// Jobs.
    pub queue: Arc<dyn Queue>,
    /// Runs scans.
    pub executor: Arc<dyn ScanExecutor>,
    /// Worker pool settings.
    pub workers: WorkerSettings,
    /// Per-key requests per minute.
    pub rate_per_minute: u32,
    /// How long running requests get to finish on shutdown.
    pub grace: Duration,
    /// How webhook deliveries are made (the delivery task runs in `run`).
    pub webhooks: crate::webhooks::DeliverySettings,
    /// Scheduled scans (the scheduler task runs in `run`).
    pub schedules: crate::scheduler::SchedulerSettings,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("workers", &self.workers)
            .field("rate_per_minute", &self.rate_per_minute)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// Re-queues scans left unfinished by a previous run, so they finish. With
    /// the embedded backend no other process can hold them, so every in-flight
    /// job goes back to the queue. Returns how many scans were re-queued.
    pub async fn recover(&self) -> crate::Result<usize> {
        self.queue.recover().await?;
        let unfinished = self.store.unfinished_scans().await?;
        for scan in &unfinished {
            self.queue.enqueue(Job::of(scan)).await?;
        }
        Ok(unfinished.len())
    }

    /// Serves on `listener` until `shutdown` resolves, then stops taking
    /// requests and jobs, lets requests finish and returns. The dashboard's
    /// settings follow from the listener's address (see
    /// [`DashboardSettings::new`]).
    pub async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> crate::Result<()> {
        let dashboard = DashboardSettings::new(listener.local_addr()?, None);
        self.run_with(listener, shutdown, dashboard).await
    }

    /// [`Service::run`] with the dashboard's settings given.
    pub async fn run_with(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
        dashboard: DashboardSettings,
    ) -> crate::Result<()> {
        let requeued = self.recover().await?;
        if requeued > 0 {
            tracing::info!(requeued, "re-queued unfinished scans from the last run");
        }
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut pool = spawn_pool(
            self.store.clone(),
            self.queue.clone(),
            self.executor.clone(),
            self.workers.clone(),
            stop_rx.clone(),
        );
        let deliveries = crate::webhooks::spawn_delivery_task(
            self.store.clone(),
            self.webhooks.clone(),
            stop_rx.clone(),
        )?;
        let rate_limit = RateLimit::per_minute(non_zero(self.rate_per_minute));
        let housekeeping = {
            let rate_limit = rate_limit.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(60));
                loop {
                    every.tick().await;
                    rate_limit.forget_idle();
                }
            })
        };
        let state = AppState {
            store: self.store.clone(),
            queue: self.queue.clone(),
            rate_limit,
            settings: ApiSettings {
                allow_private: self.workers.allow_private,
                page_budget: self.workers.page_budget,
                public_url: dashboard.public_url.clone(),
                schedule_min_interval: self.schedules.min_interval,
                render_workers: RenderWorkers::InProcess {
                    render: self.workers.render,
                },
                secret_key: self.workers.secret_key,
            },
        };
        let mut scheduler =
            crate::scheduler::spawn_scheduler(state.clone(), self.schedules, stop_rx);
        let app = app(state, dashboard).into_make_service_with_connect_info::<SocketAddr>();
        let grace = self.grace;
        let stop = async move {
            shutdown.await;
            tracing::info!("shutting down: no new requests or jobs");
            let _ = stop_tx.send(true);
        };
        axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await?;
        // Workers leave a scan in hand in flight: it runs again after restart.
        let _ =
            tokio::time::timeout(grace, async { while pool.join_next().await.is_some() {} }).await;
        pool.abort_all();
        // Aborted tasks drop their futures (and their handles on the store)
        // only when polled: wait for that, so the store is released on return.
        while pool.join_next().await.is_some() {}
        let mut deliveries = deliveries;
        if tokio::time::timeout(grace, &mut deliveries).await.is_err() {
            deliveries.abort();
            let _ = deliveries.await;
        }
        // A tick still running past the grace period is cut off, so the
        // store is released when this returns.
        if tokio::time::timeout(grace, &mut scheduler).await.is_err() {
            scheduler.abort();
            let _ = scheduler.await;
        }
        housekeeping.abort();
        Ok(())
    }
}
