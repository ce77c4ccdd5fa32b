//! The REST API (`/api/v1`), on axum: an adapter over [`crate::ops`].
//!
//! - [`router`] builds the API from an [`AppState`]: the resource modules
//!   ([`sites`], [`scans`], [`reports`], [`keys`], [`webhooks`]) each give
//!   their routes, authenticated by [`auth::authenticate`];
//!   `/api/v1/openapi.json`, `/healthz` and `/readyz` are open. Unknown routes
//!   and wrong methods answer the error envelope too. [`router_with`] lets the
//!   app that serves it (`crate::service::app`) add the HTML pages a browser
//!   gets, without this module knowing the dashboard.
//! - Handlers read the request, call one operation of [`crate::ops`] and
//!   answer its value in the envelope, or its [`crate::Error`] mapped by
//!   [`error`] to the documented code table.
//! - [`envelope`] is the success envelope, request ids and body extractors,
//!   [`openapi`] the document; the wire types are [`crate::views`].

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

pub use crate::state::{ApiSettings, AppState};
/// The wire types, kept reachable as `api::views` for callers of the API's
/// types (they live below the API, in `crate::views`).
pub use crate::views;

pub mod auth;
pub mod context;
pub mod credentials;
pub mod envelope;
pub mod error;
pub mod idempotency;
pub mod keys;
pub mod marks;
pub mod openapi;
pub mod reports;
pub mod scans;
pub mod schedules;
pub mod screenshots;
pub mod sites;
pub mod webhooks;

use crate::views::Status;
use envelope::{reply, Meta, RequestId};
use error::{ApiError, ErrorCode};

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Default per-key request limit, per minute.
pub const DEFAULT_RATE_PER_MINUTE: u32 = 600;

/// The HTML pages a browser gets from the app that serves the API beside a
/// front end (`crate::service::app` gives the dashboard's).
#[derive(Debug, Clone, Copy)]
pub struct HtmlPages {
    /// An unknown route outside `/api/`, asked for with `Accept: text/html`.
    pub not_found: fn() -> Response,
    /// `GET /docs/errors`, the error reference every `doc_url` points into.
    pub errors: fn() -> Response,
}

/// The API alone: every route, layer and fallback, unknown routes answering
/// the error envelope.
pub fn router(state: AppState) -> Router {
    router_with(state, None)
}

/// The API with `pages` for browsers: see [`HtmlPages`].
pub fn router_with(state: AppState, pages: Option<HtmlPages>) -> Router {
    let authenticated = Router::new()
        .merge(sites::router())
        .merge(scans::router())
        .merge(reports::router())
        .merge(keys::router())
        .merge(webhooks::router())
        .merge(schedules::router())
        .merge(credentials::router())
        .merge(marks::router())
        .merge(screenshots::router())
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
    let mut open = Router::new()
        .merge(authenticated)
        .route("/api/v1/openapi.json", get(openapi_json))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz));
    if let Some(pages) = pages {
        open = open.route(
            error::ERRORS_PAGE,
            get(move || async move { (pages.errors)() }),
        );
    }
    let browser_page = pages.map(|p| p.not_found);
    open.fallback(move |req: axum::extract::Request| not_found(req, browser_page))
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

/// A handler that panicked answers `internal_error` (the panic message is logged,
/// never sent) instead of dropping the connection.
fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = sitescan_rules::panic_message(panic.as_ref()).unwrap_or("unknown panic");
    ApiError::internal(format!("handler panicked: {message}")).into_response()
}

/// Unknown routes: the error envelope, except for a browser (`Accept:
/// text/html`) outside `/api/`, which gets the front end's "not found" page
/// when there is one.
async fn not_found(
    req: axum::extract::Request,
    browser_page: Option<fn() -> Response>,
) -> Response {
    let browser = !req.uri().path().starts_with("/api/")
        && req
            .headers()
            .get(axum::http::header::ACCEPT)
            .and_then(|a| a.to_str().ok())
            .is_some_and(|a| a.contains("text/html"));
    if let (true, Some(page)) = (browser, browser_page) {
        return page();
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

async fn healthz(id: RequestId) -> Response {
    reply(
        StatusCode::OK,
        Meta::new(&id),
        Status {
            status: "ok".to_string(),
            render: None,
        },
    )
}

async fn readyz(State(state): State<AppState>, id: RequestId) -> Result<Response, ApiError> {
    state.store.ping().await.map_err(|e| {
        let mut err = ApiError::new(ErrorCode::ServiceUnavailable, "the store does not answer");
        err.internal = Some(e.to_string());
        err
    })?;
    let render = crate::ops::scans::render_readiness(&state).await;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        Status {
            status: "ok".to_string(),
            render,
        },
    ))
}
