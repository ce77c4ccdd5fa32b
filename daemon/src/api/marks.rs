//! Triage marks: mark a site's finding (by fingerprint) `ignored` or
//! `false_positive`, list, read and remove the marks. What a mark does to
//! scans is `crate::ops::marks`'.

use axum::extract::{Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestContext, RequestId};
use super::error::{ApiError, Problems};
use crate::ops::marks::{self, BAD_MARK_CURSOR};
use crate::state::AppState;
pub use crate::views::marks::{MarkDeleted, MarkLinks, MarkView, PutMark};

/// Marks per page of a list, by default and at most.
pub const LIST_DEFAULT: usize = 100;
/// See [`LIST_DEFAULT`].
pub const LIST_MAX: usize = 1000;

/// The envelope of one mark (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkEnvelope {
    /// The mark.
    pub data: MarkView,
    /// Request metadata.
    pub meta: Meta,
}

/// The envelope of a list of marks (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkListEnvelope {
    /// The marks, by fingerprint.
    pub data: Vec<MarkView>,
    /// Request metadata: `count`, and `next_cursor` when more follow.
    pub meta: Meta,
}

/// The envelope of a removal (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MarkDeletedEnvelope {
    /// What was removed.
    pub data: MarkDeleted,
    /// Request metadata.
    pub meta: Meta,
}

/// The two path parameters of a mark: site id and fingerprint.
#[derive(Debug)]
pub struct MarkPath {
    site_id: String,
    fingerprint: String,
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for MarkPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map(|Path((site_id, fingerprint))| MarkPath {
                site_id,
                fingerprint,
            })
            .map_err(|e| ApiError::validation("path", e.body_text()))
    }
}

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sites/{siteId}/marks", get(list_marks))
        .route(
            "/api/v1/sites/{siteId}/marks/{fingerprint}",
            get(get_mark).put(put_mark).delete(delete_mark),
        )
}

/// Marks a finding of the site, by fingerprint, `ignored` (a real problem
/// the site accepts) or `false_positive` (the rule was wrong), with an
/// optional `note`. Scans started afterwards leave it out of their scores,
/// counts, gates and regressions, and show it in their reports with its
/// `mark`. `201` when the fingerprint was not marked, `200` when its mark
/// was replaced.
#[utoipa::path(put, path = "/api/v1/sites/{siteId}/marks/{fingerprint}", tag = "marks",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("fingerprint" = String, Path, description = "The finding's fingerprint: 32 lowercase hex digits"),
    ),
    request_body = PutMark,
    responses(
        (status = 200, description = "The mark, replaced", body = MarkEnvelope),
        (status = 201, description = "The mark, created; Location names it", body = MarkEnvelope,
            headers(("Location" = String, description = "Absolute URL of the mark"))),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: a malformed `fingerprint`, an unknown `status`, a `note` over 2000 characters, too many marks on the site", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn put_mark(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    path: MarkPath,
    ApiJson(body): ApiJson<PutMark>,
) -> Result<Response, ApiError> {
    let (mark, created) = marks::put_mark(
        state.store.as_ref(),
        &auth.account.id,
        &path.site_id,
        &path.fingerprint,
        body,
        Some(format!("key {}", auth.key.name)),
    )
    .await?;
    let view = MarkView::from(mark);
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut resp = reply(status, Meta::new(&id), &view);
    if created {
        if let Ok(v) = HeaderValue::from_str(&RequestContext::absolute(&view.links.self_)) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
    }
    Ok(resp)
}

/// The site's marks by fingerprint, `limit` (1..=1000, default 100) per
/// page; pass `meta.next_cursor` back as `cursor` for the next page.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/marks", tag = "marks",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("limit" = Option<u32>, Query, description = "Marks per page, 1 to 1000 (default 100)", minimum = 1, maximum = 1000),
        ("cursor" = Option<String>, Query, description = "meta.next_cursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The site's marks, by fingerprint", body = MarkListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (limit or cursor)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_marks(
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
                if marks::is_fingerprint(&v) {
                    cursor = Some(v.into_owned());
                } else {
                    problems.add("cursor", BAD_MARK_CURSOR);
                }
            }
            _ => {}
        }
    }
    problems.finish()?;
    let page = marks::list_marks(
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
    let items: Vec<MarkView> = page.items.into_iter().map(MarkView::from).collect();
    Ok(reply(StatusCode::OK, meta, items))
}

/// The mark of one fingerprint on the site.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/marks/{fingerprint}", tag = "marks",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("fingerprint" = String, Path, description = "The finding's fingerprint: 32 lowercase hex digits"),
    ),
    responses(
        (status = 200, description = "The mark", body = MarkEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found, or mark_not_found when the fingerprint is not marked", body = ErrorBody),
        (status = 422, description = "validation_failed: a malformed `fingerprint`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_mark(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    path: MarkPath,
) -> Result<Response, ApiError> {
    let m = marks::mark(
        state.store.as_ref(),
        &auth.account.id,
        &path.site_id,
        &path.fingerprint,
    )
    .await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), MarkView::from(m)))
}

/// Removes the mark of one fingerprint: scans started afterwards count the
/// finding again.
#[utoipa::path(delete, path = "/api/v1/sites/{siteId}/marks/{fingerprint}", tag = "marks",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("fingerprint" = String, Path, description = "The finding's fingerprint: 32 lowercase hex digits"),
    ),
    responses(
        (status = 200, description = "Removed", body = MarkDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found, or mark_not_found when the fingerprint is not marked", body = ErrorBody),
        (status = 422, description = "validation_failed: a malformed `fingerprint`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn delete_mark(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    path: MarkPath,
) -> Result<Response, ApiError> {
    marks::remove_mark(
        state.store.as_ref(),
        &auth.account.id,
        &path.site_id,
        &path.fingerprint,
    )
    .await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        MarkDeleted {
            fingerprint: path.fingerprint,
            deleted: true,
        },
    ))
}
