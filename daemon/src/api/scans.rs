//! Scans: start one (generic and per-type endpoints of SPEC.md), read it, list a
//! site's scans, cancel it, fetch its report.

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use sitescan_rules::Category;

use super::auth::Auth;
use super::envelope::{reply, ApiPath, Meta, OptionalJson, RequestContext, RequestId};
use super::error::{ApiError, Problems};
use crate::ops::scans::{self, default_rules, NewScan, BAD_CURSOR};
use crate::state::AppState;
use crate::views::download::Download;
use crate::views::{ScanRequest, ScanRequestConfig, ScanView};

/// Scans per page of a list, by default and at most.
pub const LIST_DEFAULT: usize = 20;
/// See [`LIST_DEFAULT`].
pub const LIST_MAX: usize = 100;

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/sites/{siteId}/scans",
            post(create_scan).get(list_scans),
        )
        .route(
            "/api/v1/sites/{siteId}/accessibility/scans",
            post(create_accessibility_scan),
        )
        .route("/api/v1/sites/{siteId}/seo/scans", post(create_seo_scan))
        .route(
            "/api/v1/sites/{siteId}/performance/scans",
            post(create_performance_scan),
        )
        .route(
            "/api/v1/sites/{siteId}/security/scans",
            post(create_security_scan),
        )
        .route(
            "/api/v1/sites/{siteId}/quality/scans",
            post(create_quality_scan),
        )
        .route("/api/v1/scans/{scanId}", get(get_scan))
        .route("/api/v1/scans/{scanId}/cancel", post(cancel_scan))
        .route("/api/v1/scans/{scanId}/report", get(get_report))
}

/// Starts a scan of a site; `config.rules` picks what runs.
#[utoipa::path(post, path = "/api/v1/sites/{siteId}/scans", tag = "scans",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    request_body = ScanRequest,
    responses(
        (status = 202, description = "The scan, queued; Location names it", body = ScanEnvelope,
            headers(("Location" = String, description = "Absolute URL of the scan (on the public URL, else the request's Host)"))),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed (config.rules missing, unknown rule set, bad value)", body = ErrorBody),
        (status = 429, description = "scan_limit_exceeded (Retry-After: seconds to next UTC midnight) or rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn create_scan(
    state: State<AppState>,
    auth: Auth,
    id: RequestId,
    path: ApiPath,
    body: OptionalJson<ScanRequest>,
) -> Result<Response, ApiError> {
    start(state, auth, id, path, body, None).await
}

macro_rules! typed_scan_endpoint {
    ($name:ident, $path:literal, $cat:expr, $what:literal) => {
        #[doc = concat!("Starts ", $what, "; `config` is optional and its rules must stay within the type.")]
        #[utoipa::path(post, path = $path, tag = "scans",
            security(("api_key" = [])),
            params(("siteId" = String, Path, description = "Site id")),
            request_body(content = Option<ScanRequest>, description = "Optional; rules default to the type"),
            responses(
                (status = 202, description = "The scan, queued; Location names it", body = ScanEnvelope,
                    headers(("Location" = String, description = "Absolute URL of the scan (on the public URL, else the request's Host)"))),
                (status = 400, description = "invalid_json", body = ErrorBody),
                (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
                (status = 403, description = "plan_not_allowed", body = ErrorBody),
                (status = 404, description = "site_not_found", body = ErrorBody),
                (status = 413, description = "payload_too_large", body = ErrorBody),
                (status = 415, description = "unsupported_media_type", body = ErrorBody),
                (status = 422, description = "validation_failed (rules outside the type, unknown rule set, bad value)", body = ErrorBody),
                (status = 429, description = "scan_limit_exceeded or rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
            ))]
        pub(crate) async fn $name(
            state: State<AppState>,
            auth: Auth,
            id: RequestId,
            path: ApiPath,
            body: OptionalJson<ScanRequest>,
        ) -> Result<Response, ApiError> {
            start(state, auth, id, path, body, Some($cat)).await
        }
    };
}

typed_scan_endpoint!(
    create_accessibility_scan,
    "/api/v1/sites/{siteId}/accessibility/scans",
    Category::Accessibility,
    "a WCAG 2.1 accessibility scan (default rules: wcag-aa)"
);
typed_scan_endpoint!(
    create_seo_scan,
    "/api/v1/sites/{siteId}/seo/scans",
    Category::Seo,
    "an SEO scan"
);
typed_scan_endpoint!(
    create_performance_scan,
    "/api/v1/sites/{siteId}/performance/scans",
    Category::Performance,
    "a performance scan"
);
typed_scan_endpoint!(
    create_security_scan,
    "/api/v1/sites/{siteId}/security/scans",
    Category::Security,
    "a security scan"
);
typed_scan_endpoint!(
    create_quality_scan,
    "/api/v1/sites/{siteId}/quality/scans",
    Category::Quality,
    "a content quality scan"
);

async fn start(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    OptionalJson(body): OptionalJson<ScanRequest>,
    category: Option<Category>,
) -> Result<Response, ApiError> {
    let config: ScanRequestConfig = match (body.and_then(|b| b.config), category) {
        (Some(c), _) => c,
        (None, Some(_)) => ScanRequestConfig::default(),
        (None, None) => {
            return Err(ApiError::validation(
                "config",
                "required: {\"config\": {\"rules\": [\"wcag-aa\"]}}",
            ))
        }
    };
    // Missing rules on the generic endpoint are one problem among the
    // others (`validate_rules` names an empty list), not an early return.
    let rules = match (config.rules, category) {
        (Some(r), _) => r,
        (None, Some(cat)) => default_rules(cat),
        (None, None) => Vec::new(),
    };
    let request = NewScan {
        rules,
        priority: config.priority.unwrap_or_default(),
        max_pages: config.max_pages,
        max_depth: config.max_depth,
        category,
        accept: config.accept,
        budget: config.budget,
        links: config.links.map(Into::into).unwrap_or_default(),
        include: config.include.unwrap_or_default(),
        exclude: config.exclude.unwrap_or_default(),
        render: config.render.unwrap_or(false),
        render_options: config.render_options,
    };
    let scan = scans::start_scan(&state, &auth.account, &site_id, request).await?;
    let view = view_of(&state, scan).await;
    let mut resp = reply(StatusCode::ACCEPTED, Meta::new(&id), &view);
    // Absolute (RFC 9110 allows relative, but clients and proxies handle an
    // absolute one everywhere): see `envelope::public_base` for the base.
    if let Ok(v) = HeaderValue::from_str(&RequestContext::absolute(&view.links.self_)) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// A site's scans, newest first, `limit` (1..=100, default 20) per page; pass
/// `meta.next_cursor` back as `cursor` for the next page.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/scans", tag = "scans",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("limit" = Option<u32>, Query, description = "Scans per page, 1 to 100 (default 20)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "meta.next_cursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The site's scans, newest first", body = ScanListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (limit or cursor)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_scans(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let mut limit = LIST_DEFAULT;
    let mut cursor = None;
    let mut problems = Problems::default();
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "limit" => match v
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=LIST_MAX).contains(n))
            {
                Some(n) => limit = n,
                None => problems.add("limit", format!("give a number from 1 to {LIST_MAX}")),
            },
            "cursor" => {
                if v.is_empty() || v.len() > 100 || v.contains('/') {
                    problems.add("cursor", BAD_CURSOR);
                } else {
                    cursor = Some(v.into_owned());
                }
            }
            _ => {}
        }
    }
    problems.finish()?;
    let page = scans::list_scans(
        state.store.as_ref(),
        &auth.account.id,
        &site_id,
        cursor.as_deref(),
        limit,
    )
    .await?;
    let mut meta = Meta::new(&id);
    meta.count = Some(page.items.len());
    meta.next_cursor = page.next_cursor;
    let reasons = scans::waiting_reasons(&state, &page.items).await;
    let items: Vec<ScanView> = page
        .items
        .into_iter()
        .zip(reasons)
        .map(|(scan, reason)| {
            let mut view = ScanView::from(scan);
            view.waiting_reason = reason;
            view
        })
        .collect();
    Ok(reply(StatusCode::OK, meta, items))
}

/// A scan: status, progress while running (its `phase`: `crawl`, `links`
/// with `links_checked` of `links_total`, `finish`), summary when completed;
/// while queued with no worker able to run it (a render scan and no
/// `worker --render` alive), `waiting_reason`.
#[utoipa::path(get, path = "/api/v1/scans/{scanId}", tag = "scans",
    security(("api_key" = [])),
    params(("scanId" = String, Path, description = "Scan id")),
    responses(
        (status = 200, description = "The scan", body = ScanEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_scan(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
) -> Result<Response, ApiError> {
    let scan = scans::scan(state.store.as_ref(), &auth.account.id, &scan_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        view_of(&state, scan).await,
    ))
}

/// The view of `scan` with its `waiting_reason`, when it has one.
async fn view_of(state: &AppState, scan: crate::store::Scan) -> ScanView {
    let reason = scans::waiting_reason(state, &scan).await;
    let mut view = ScanView::from(scan);
    view.waiting_reason = reason;
    view
}

/// Cancels a queued or running scan (a canceled one stays canceled). A scan
/// canceled while still queued is given back to the day's quota
/// (`quota_refunded: true`); one canceled while running still counts.
#[utoipa::path(post, path = "/api/v1/scans/{scanId}/cancel", tag = "scans",
    security(("api_key" = [])),
    params(("scanId" = String, Path, description = "Scan id")),
    responses(
        (status = 200, description = "The scan, canceled", body = ScanEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 409, description = "scan_not_cancelable: it already completed or failed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn cancel_scan(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
) -> Result<Response, ApiError> {
    let scan = scans::cancel_scan(state.store.as_ref(), &auth.account.id, &scan_id).await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), ScanView::from(scan)))
}

/// The report of a completed scan: DESIGN.md's JSON report as `data`, or with
/// `?format=` html, sarif, junit, csv or markdown the rendered file itself.
#[utoipa::path(get, path = "/api/v1/scans/{scanId}/report", tag = "scans",
    security(("api_key" = [])),
    params(
        ("scanId" = String, Path, description = "Scan id"),
        ("format" = Option<String>, Query, description = "json (default: the envelope) or html, sarif, junit, csv, markdown: the rendered file with its own Content-Type"),
    ),
    responses(
        (status = 200, description = "The report", body = ReportEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "scan_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed: unknown `format`", body = ErrorBody),
        (status = 409, description = "report_not_ready: the scan is queued, running, failed or canceled", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_report(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(scan_id): ApiPath,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    if let Some(format) = super::reports::format_param(query.as_deref())? {
        let mut report =
            scans::load_report(state.store.as_ref(), &auth.account.id, &scan_id).await?;
        // Render mode's pictures, embedded by the HTML report.
        if format == sitescan_engine::render::Format::Html {
            crate::ops::screenshots::attach(state.store.as_ref(), &scan_id, &mut report).await?;
        }
        return Ok(Download::new_off_async(report, format, &scan_id)
            .await?
            .into_response());
    }
    let bytes = scans::report_bytes(state.store.as_ref(), &auth.account.id, &scan_id).await?;
    let meta = serde_json::to_value(Meta::new(&id))
        .map_err(|e| ApiError::internal(format!("response metadata: {e}")))?;
    // Parsed and written on the blocking pool (seconds for a report of
    // thousands of pages, which would stall the async thread).
    let body = scans::off_async(move || {
        let report: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| crate::Error::Corrupt(e.to_string()))?;
        serde_json::to_vec(&serde_json::json!({ "data": report, "meta": meta }))
            .map_err(|e| crate::Error::Corrupt(e.to_string()))
    })
    .await
    .map_err(|e| ApiError::internal(format!("stored report of {scan_id} is corrupt: {e}")))?;
    Ok((
        StatusCode::OK,
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}
