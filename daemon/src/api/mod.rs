//! The REST API of SPEC.md (`/api/v1`), on axum.
//!
//! - [`app`] is what `serve` runs: [`router`] (the API) and the dashboard
//!   (`crate::dashboard`) on one state.
//! - [`router`] builds the API from an [`AppState`]: the resource modules
//!   ([`sites`], [`scans`], [`keys`]) each give their routes, authenticated by
//!   [`auth::authenticate`]; `/api/v1/openapi.json`, `/healthz` and `/readyz` are
//!   open. Unknown routes and wrong methods answer the error envelope too.
//! - [`error`] is the code table, [`envelope`] the success envelope, request ids
//!   and body extractors, [`views`] the wire types, [`openapi`] the document.
//! - [`Service`] runs it all: store and queue recovery, the worker pool, the
//!   listener, graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::watch;

use crate::queue::{Job, Queue};
use crate::store::Store;
use crate::worker::{spawn_pool, ScanExecutor, WorkerSettings};

pub mod auth;
pub mod envelope;
pub mod error;
pub mod idempotency;
pub mod keys;
pub mod openapi;
pub mod reports;
pub mod scans;
pub mod sites;
pub mod views;
pub mod webhooks;

use envelope::{reply, Meta, RequestId};
use error::{ApiError, ErrorCode};
use views::Status;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Default per-key request limit, per minute.
pub const DEFAULT_RATE_PER_MINUTE: u32 = 600;

/// Settings of the API.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Accept sites on loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most each limit of a scan's page budget may be (`serve`'s budget
    /// flags); a scan's `config.budget` may only lower them.
    pub page_budget: sitescan_engine::PageBudget,
    /// The address clients reach the service at (`serve --public-url`), the
    /// base of absolute URLs (`Location`, `doc_url`); `None`: the request's
    /// `Host` (see [`envelope::public_base`]).
    pub public_url: Option<url::Url>,
}

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Records.
    pub store: Arc<dyn Store>,
    /// Jobs for the workers.
    pub queue: Arc<dyn Queue>,
    /// Per-key request limit.
    pub rate_limit: auth::RateLimit,
    /// Settings.
    pub settings: ApiSettings,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("rate_limit", &self.rate_limit)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The app: every route, layer and fallback.
pub fn router(state: AppState) -> Router {
    let authenticated = Router::new()
        .merge(sites::router())
        .merge(scans::router())
        .merge(reports::router())
        .merge(keys::router())
        .merge(webhooks::router())
        // Inside authentication (the later `route_layer` runs first): the
        // idempotency layer needs the caller's account.
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            idempotency::idempotency,
        ))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ));
    Router::new()
        .merge(authenticated)
        .route("/api/v1/openapi.json", get(openapi_json))
        .route(error::ERRORS_PAGE, get(errors_page))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            panic_response,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            envelope::request_id,
        ))
        .with_state(state)
}

/// The whole app `sitescan serve` runs: the API under `/api/v1` and the
/// dashboard under `/`, on the same state.
pub fn app(state: AppState, dashboard: crate::dashboard::DashboardSettings) -> Router {
    router(state.clone()).merge(crate::dashboard::router(state, dashboard))
}

/// A handler that panicked answers `internal_error` (the panic message is logged,
/// never sent) instead of dropping the connection.
fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string());
    ApiError::internal(format!("handler panicked: {message}")).into_response()
}

/// Unknown routes: the error envelope, except for a browser (`Accept:
/// text/html`) outside `/api/`, which gets the dashboard's "not found" page.
async fn not_found(req: axum::extract::Request) -> Response {
    let browser = !req.uri().path().starts_with("/api/")
        && req
            .headers()
            .get(axum::http::header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("text/html"));
    if browser {
        return crate::dashboard::not_found_page();
    }
    ApiError::new(
        ErrorCode::NotFound,
        "no such route; the API lives under /api/v1 (see /api/v1/openapi.json)",
    )
    .into_response()
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take this HTTP method (see /api/v1/openapi.json)",
    )
}

async fn openapi_json() -> Response {
    axum::Json(openapi::ApiDoc::openapi_doc()).into_response()
}

impl openapi::ApiDoc {
    /// The document (built once per request; it is small).
    pub fn openapi_doc() -> utoipa::openapi::OpenApi {
        openapi::document()
    }
}

/// `GET /docs/errors`: every error code with its status and meaning, one
/// anchor (`#<code>`) per code; what `doc_url` points at. Served from the
/// code table itself, so it always matches this build.
async fn errors_page() -> Response {
    crate::dashboard::errors_page()
}

async fn healthz(id: RequestId) -> Response {
    reply(
        StatusCode::OK,
        Meta::new(&id),
        Status {
            status: "ok".to_string(),
        },
    )
}

async fn readyz(State(state): State<AppState>, id: RequestId) -> Result<Response, ApiError> {
    state.store.ping().await.map_err(|e| {
        let mut err = ApiError::new(ErrorCode::ServiceUnavailable, "the store does not answer");
        err.internal = Some(e.to_string());
        err
    })?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        Status {
            status: "ok".to_string(),
        },
    ))
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
            self.queue
                .enqueue(Job {
                    scan_id: scan.id.clone(),
                    priority: scan.config.priority,
                })
                .await?;
        }
        Ok(unfinished.len())
    }

    /// Serves on `listener` until `shutdown` resolves, then stops taking
    /// requests and jobs, lets requests finish and returns. The dashboard's
    /// settings follow from the listener's address (see
    /// [`crate::dashboard::DashboardSettings::new`]).
    pub async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> crate::Result<()> {
        let dashboard = crate::dashboard::DashboardSettings::new(listener.local_addr()?, None);
        self.run_with(listener, shutdown, dashboard).await
    }

    /// [`Service::run`] with the dashboard's settings given.
    pub async fn run_with(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
        dashboard: crate::dashboard::DashboardSettings,
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
            stop_rx,
        )?;
        let rate_limit = auth::RateLimit::per_minute(auth::non_zero(self.rate_per_minute));
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
            },
        };
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
        let _ = tokio::time::timeout(grace, deliveries).await;
        housekeeping.abort();
        Ok(())
    }
}
