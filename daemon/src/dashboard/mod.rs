//! The dashboard: server-rendered pages where people sign in, create API keys,
//! register sites, start scans and read their reports, and manage webhooks.
//! Mounted by the same axum app as the API (`/` here, `/api/v1` there) and
//! reading and writing through the same operations as the API handlers
//! (`crate::ops`: key creation, site validation, scan creation with the
//! plan's quota, cancel, webhook changes): no rule is implemented twice, and
//! the dashboard never calls the API's handlers.
//!
//! - [`auth`]: users' sign-in (argon2id), sessions (cookie, rotated on
//!   sign-in), CSRF synchronizer tokens, login rate limits, password links.
//! - [`layout`]: the page frame (landmarks, skip link, navigation, plan notice)
//!   and shared pieces (field errors tied with `aria-describedby`, SVG charts).
//! - [`keys`], [`sites`], [`scans`], [`webhooks`]: the page families.
//! - [`explorer`] (a scan's findings filtered, sorted, searched and paged),
//!   [`fullreport`] (the report in full), [`quota`] (why "Scan now" is off), [`trend`] (a site's scores
//!   over time), [`compare`] (two scans side by side), [`pictures`] (render
//!   mode's screenshots, shown in the explorer).
//! - `assets/`: the one CSS file, the one small JS file and the SVG icon,
//!   embedded and served from `/assets/` with long cache lifetimes (their
//!   URLs carry a content hash); the icon also answers `/favicon.ico`.
//!
//! Secrets shown once (a new API key, a new webhook's signing secret) follow
//! post/redirect/get: the creating POST keeps the secret in the server-side
//! session as a one-time flash (`Store::put_flash`) and answers 303; the page
//! it leads to takes the flash (`Store::take_flash`) and shows it, so a
//! reload shows it no more and re-sends no form.
//!
//! Every answer carries a strict Content-Security-Policy
//! ([`CONTENT_SECURITY_POLICY`]: no inline script or style anywhere), plus
//! `X-Content-Type-Options`, `Referrer-Policy`, `X-Frame-Options`, and HSTS when
//! the dashboard is served over https. The scan report (the engine's HTML
//! renderer, which inlines its CSS) is shown in an iframe from its own route
//! whose CSP allows exactly that CSS by hash (see [`scans`]).
//!
//! Cookies are `Secure` unless the dashboard is served over plain http on a
//! loopback address (local development): see [`DashboardSettings`].

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::api::error::ErrorCode;
use crate::error::Error;
use crate::state::AppState;

pub mod auth;
pub mod compare;
pub mod credentials;
pub mod explorer;
pub mod fullreport;
pub mod keys;
pub mod layout;
pub mod marks;
pub mod pictures;
pub mod quota;
pub mod scans;
pub mod schedules;
pub mod sites;
pub mod trend;
pub mod webhooks;

/// The policy of every dashboard page: only our own origin, no framing, no
/// `<base>`, forms post only to us, no plugins. No `'unsafe-inline'`: pages
/// have no inline scripts, no `<style>` and no `style` attributes.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";
/// Sent with every page: the full URL stays on our origin, only the origin
/// goes elsewhere.
pub const REFERRER_POLICY: &str = "strict-origin-when-cross-origin";
/// HSTS when served over https: one year.
pub const HSTS: &str = "max-age=31536000; includeSubDomains";
/// Largest form body accepted.
pub const MAX_FORM_BYTES: usize = 64 * 1024;

/// How the dashboard is exposed: decides the cookie's `Secure` attribute and
/// HSTS.
#[derive(Debug, Clone)]
pub struct DashboardSettings {
    /// Set `Secure` on the session cookie.
    pub secure_cookies: bool,
    /// Send `Strict-Transport-Security`.
    pub hsts: bool,
    /// The public URL given (`serve --public-url`): also the base of the
    /// API's absolute URLs.
    pub public_url: Option<url::Url>,
}

impl DashboardSettings {
    /// From where the server listens and, when it is behind a proxy, the
    /// public URL people open (`serve --public-url`):
    /// - with a public URL: `Secure` cookies and HSTS exactly when it is https;
    /// - without: `Secure` cookies unless the listener is on a loopback
    ///   address (plain-http local development, where browsers would drop a
    ///   `Secure` cookie); no HSTS, since the server itself speaks plain http.
    pub fn new(bind: SocketAddr, public_url: Option<&url::Url>) -> Self {
        match public_url {
            Some(u) => {
                let https = u.scheme() == "https";
                DashboardSettings {
                    secure_cookies: https,
                    hsts: https,
                    public_url: Some(u.clone()),
                }
            }
            None => DashboardSettings {
                secure_cookies: !bind.ip().is_loopback(),
                hsts: false,
                public_url: None,
            },
        }
    }
}

/// What every dashboard handler can reach.
#[derive(Clone)]
pub struct DashState {
    /// The API's state: the same store, queue and settings.
    pub app: AppState,
    /// Cookie and HSTS settings.
    pub settings: DashboardSettings,
    /// Sign-in attempt limits.
    pub limits: Arc<auth::LoginLimits>,
}

impl std::fmt::Debug for DashState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashState")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// The dashboard's routes (no fallback: the API's answers unknown paths).
pub fn router(app: AppState, settings: DashboardSettings) -> Router {
    let state = DashState {
        app,
        settings,
        limits: Arc::new(auth::LoginLimits::new()),
    };
    Router::new()
        .route("/", get(home))
        .route("/login", get(auth::login_page).post(auth::login))
        .route("/logout", post(auth::logout))
        .route(
            "/set-password",
            get(auth::set_password_page).post(auth::set_password),
        )
        .route("/settings/keys", get(keys::list).post(keys::create))
        .route("/settings/keys/{keyId}/created", get(keys::created))
        .route(
            "/settings/keys/{keyId}/revoke",
            get(keys::revoke_confirm).post(keys::revoke),
        )
        .route("/sites", get(sites::list).post(sites::create))
        .route("/sites/{siteId}", get(sites::show))
        .route(
            "/sites/{siteId}/remove",
            get(sites::remove_confirm).post(sites::remove),
        )
        .route("/sites/{siteId}/scans", post(sites::scan_now))
        .route("/sites/{siteId}/schedules", post(schedules::create))
        .route("/sites/{siteId}/credentials", post(credentials::save))
        .route(
            "/sites/{siteId}/credentials/remove",
            post(credentials::remove),
        )
        .route(
            "/schedules/{scheduleId}/enabled",
            post(schedules::set_enabled),
        )
        .route("/schedules/{scheduleId}/remove", post(schedules::remove))
        .route("/scans/{scanId}", get(scans::show))
        .route("/scans/{scanId}/status", get(scans::status))
        .route("/scans/{scanId}/report", get(scans::report))
        .route("/sites/{siteId}/marks/{fingerprint}", post(marks::mark))
        .route(
            "/sites/{siteId}/marks/{fingerprint}/remove",
            post(marks::unmark),
        )
        .route("/scans/{scanId}/full", get(fullreport::show))
        .route("/scans/{scanId}/findings", get(explorer::show))
        .route(
            "/scans/{scanId}/screenshots/{screenshotId}",
            get(pictures::show),
        )
        .route("/scans/{scanId}/compare", get(compare::show))
        .route("/scans/{scanId}/download", get(scans::download))
        .route("/scans/{scanId}/cancel", post(scans::cancel))
        .route("/webhooks", get(webhooks::list).post(webhooks::create))
        .route("/webhooks/{webhookId}", get(webhooks::show))
        .route("/webhooks/{webhookId}/created", get(webhooks::created))
        .route("/webhooks/{webhookId}/enabled", post(webhooks::set_enabled))
        .route(
            "/webhooks/{webhookId}/delete",
            get(webhooks::delete_confirm).post(webhooks::delete),
        )
        .route(
            "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
            post(webhooks::redeliver),
        )
        .route("/assets/{file}", get(layout::asset))
        .route("/favicon.ico", get(layout::favicon))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security_headers,
        ))
        .with_state(state)
}

async fn home(visitor: auth::Visitor) -> Response {
    if visitor.user.is_some() {
        Redirect::to("/sites").into_response()
    } else {
        Redirect::to("/login").into_response()
    }
}

/// The "not found" page for browsers on unknown paths (the app's fallback),
/// with the dashboard's security headers (HSTS aside: the fallback does not
/// know how the dashboard is exposed).
pub fn not_found_page() -> Response {
    let mut resp = (
        StatusCode::NOT_FOUND,
        layout::error_page("Not found", "There is no page at this address."),
    )
        .into_response();
    set_security_headers(resp.headers_mut(), false, true);
    resp
}

/// The error reference every API error's `doc_url` points into: one table
/// row per code, each row's `id` the code, so `#<code>` lands on it. Made
/// from [`crate::api::error::ErrorCode::ALL`], so it always matches this
/// build; open without signing in (an API client's user follows the link).
pub fn errors_page() -> Response {
    let main = maud::html! {
        p { "Every error of the API is a JSON object "
            code { "{\"error\": {\"code\", \"message\", \"details\", \"request_id\", \"doc_url\"}}" }
            ". Branch on " code { "code" } " (stable); show " code { "message" } " to a person; "
            code { "details" } " names every field with a problem; quote " code { "request_id" }
            " when asking about an error." }
        table aria-labelledby="codes-heading" {
            caption id="codes-heading" { "Error codes" }
            thead { tr { th scope="col" { "Code" } th scope="col" class="n" { "HTTP status" } th scope="col" { "When" } } }
            tbody {
                @for c in ErrorCode::ALL {
                    tr id=(c.as_str()) {
                        th scope="row" { code { (c.as_str()) } }
                        td.n { (c.status().as_u16()) }
                        td { (c.summary()) }
                    }
                }
            }
        }
    };
    let mut resp = layout::page("API error codes", None, main).into_response();
    set_security_headers(resp.headers_mut(), false, false);
    resp
}

fn set_security_headers(h: &mut axum::http::HeaderMap, hsts: bool, no_store: bool) {
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
    }
    if !h.contains_key(header::X_FRAME_OPTIONS) {
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static(REFERRER_POLICY),
    );
    if hsts {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
    if no_store && !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

/// Adds the security headers to every dashboard answer (a route that set its
/// own CSP, the report frame, keeps it) and keeps pages out of caches.
async fn security_headers(State(state): State<DashState>, req: Request, next: Next) -> Response {
    let is_asset = req.uri().path().starts_with("/assets/");
    let mut resp = next.run(req).await;
    set_security_headers(resp.headers_mut(), state.settings.hsts, !is_asset);
    resp
}

/// An error page: what went wrong, for a person, with the right status.
#[derive(Debug)]
pub struct PageError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The heading.
    pub title: &'static str,
    /// What happened and what to do.
    pub message: String,
    /// Logged, never shown.
    pub internal: Option<String>,
}

impl PageError {
    /// 404 for something not in the visitor's account (or not at all).
    pub fn not_found(what: &str) -> Self {
        PageError {
            status: StatusCode::NOT_FOUND,
            title: "Not found",
            message: format!("There is no {what} with this address in your account."),
            internal: None,
        }
    }

    /// 403 for a form without a valid CSRF token.
    pub fn csrf() -> Self {
        PageError {
            status: StatusCode::FORBIDDEN,
            title: "Form expired",
            message: "This form was not sent from a current page of this site (its security token is missing or wrong). Go back, reload the page and try again.".to_string(),
            internal: None,
        }
    }

    /// 500, logging the cause.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        PageError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            title: "Something went wrong",
            message: "Something failed on our side. Try again in a moment.".to_string(),
            internal: Some(cause.to_string()),
        }
    }
}

impl From<Error> for PageError {
    fn from(e: Error) -> Self {
        let refused = |status: StatusCode, message: String| PageError {
            status,
            title: "Cannot do that",
            message,
            internal: None,
        };
        match e {
            Error::NotFound {
                kind: kind @ ("site" | "scan" | "webhook" | "delivery"),
                ..
            } => PageError::not_found(kind),
            Error::NotFound { kind, id } => PageError {
                status: StatusCode::NOT_FOUND,
                title: "Not found",
                message: match kind {
                    "account" => format!("no account `{id}`"),
                    other => format!("no {other} `{id}` in this account"),
                },
                internal: None,
            },
            Error::Unavailable(cause) => PageError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                title: "Try again shortly",
                message: "The service cannot reach its storage right now. Try again in a moment."
                    .to_string(),
                internal: Some(cause),
            },
            Error::Invalid(p) => refused(StatusCode::UNPROCESSABLE_ENTITY, p.to_string()),
            e @ Error::QuotaExceeded { .. } => {
                refused(StatusCode::TOO_MANY_REQUESTS, e.to_string())
            }
            Error::Conflict(m) | Error::NotReady(m) => refused(StatusCode::CONFLICT, m),
            e @ Error::SecretKeyMissing => refused(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
            other => PageError::internal(other),
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        if let Some(cause) = &self.internal {
            tracing::error!(status = %self.status, error = %cause, "dashboard error");
        }
        let body = layout::error_page(self.title, &self.message);
        (self.status, body).into_response()
    }
}

/// Result of a page handler.
pub type PageResult = Result<Response, PageError>;
