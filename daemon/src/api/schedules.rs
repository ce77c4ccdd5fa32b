//! Scheduled scans: create and list a site's schedules, read, change and
//! remove one. The runs themselves are `crate::scheduler`'s.

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestContext, RequestId};
use super::error::{ApiError, Problems};
use crate::ops::schedules::{self, BAD_SCHEDULE_CURSOR};
use crate::state::AppState;
pub use crate::views::schedules::{
    CreateSchedule, ScheduleDeleted, ScheduleLinks, ScheduleView, UpdateSchedule,
};

/// Schedules per page of a list, by default and at most.
pub const LIST_DEFAULT: usize = 20;
/// See [`LIST_DEFAULT`].
pub const LIST_MAX: usize = 100;

/// The envelope of one schedule (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleEnvelope {
    /// The schedule.
    pub data: ScheduleView,
    /// Request metadata.
    pub meta: Meta,
}

/// The envelope of a list of schedules (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleListEnvelope {
    /// The schedules, newest first.
    pub data: Vec<ScheduleView>,
    /// Request metadata: `count`, and `next_cursor` when more follow.
    pub meta: Meta,
}

/// The envelope of a removal (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleDeletedEnvelope {
    /// What was removed.
    pub data: ScheduleDeleted,
    /// Request metadata.
    pub meta: Meta,
}

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/sites/{siteId}/schedules",
            get(list_schedules).post(create_schedule),
        )
        .route(
            "/api/v1/schedules/{scheduleId}",
            get(get_schedule)
                .patch(update_schedule)
                .delete(delete_schedule),
        )
}

/// Creates a schedule: `cron` (5 fields, 6 with seconds first, or `hourly`,
/// `daily`, `weekly`) read in `timezone` (IANA, default `UTC`), and the
/// `config` each run's scan is started with. Runs count against the plan's
/// daily scans like any other.
#[utoipa::path(post, path = "/api/v1/sites/{siteId}/schedules", tag = "schedules",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    request_body = CreateSchedule,
    responses(
        (status = 201, description = "The schedule, created; Location names it", body = ScheduleEnvelope,
            headers(("Location" = String, description = "Absolute URL of the schedule"))),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: bad `cron` or `timezone`, runs closer than the service allows, a bad `config` member (named as for a scan), too many schedules", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn create_schedule(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    ApiJson(body): ApiJson<CreateSchedule>,
) -> Result<Response, ApiError> {
    let schedule = schedules::create_schedule(
        state.store.as_ref(),
        &state.settings,
        &auth.account,
        &site_id,
        body,
    )
    .await?;
    let view = ScheduleView::from(schedule);
    let mut resp = reply(StatusCode::CREATED, Meta::new(&id), &view);
    if let Ok(v) = HeaderValue::from_str(&RequestContext::absolute(&view.links.self_)) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    Ok(resp)
}

/// A site's schedules, newest first, `limit` (1..=100, default 20) per page;
/// pass `meta.next_cursor` back as `cursor` for the next page.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/schedules", tag = "schedules",
    security(("api_key" = [])),
    params(
        ("siteId" = String, Path, description = "Site id"),
        ("limit" = Option<u32>, Query, description = "Schedules per page, 1 to 100 (default 20)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "meta.next_cursor of the previous page"),
    ),
    responses(
        (status = 200, description = "The site's schedules, newest first", body = ScheduleListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (limit or cursor)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_schedules(
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
                if v.is_empty() || v.len() > 100 {
                    problems.add("cursor", BAD_SCHEDULE_CURSOR);
                } else {
                    cursor = Some(v.into_owned());
                }
            }
            _ => {}
        }
    }
    problems.finish()?;
    let page = schedules::list_schedules(
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
    let items: Vec<ScheduleView> = page.items.into_iter().map(ScheduleView::from).collect();
    Ok(reply(StatusCode::OK, meta, items))
}

/// One schedule: its cadence, config, next run and what its last run did.
#[utoipa::path(get, path = "/api/v1/schedules/{scheduleId}", tag = "schedules",
    security(("api_key" = [])),
    params(("scheduleId" = String, Path, description = "Schedule id")),
    responses(
        (status = 200, description = "The schedule", body = ScheduleEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "schedule_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_schedule(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(schedule_id): ApiPath,
) -> Result<Response, ApiError> {
    let s = schedules::schedule(state.store.as_ref(), &auth.account.id, &schedule_id).await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), ScheduleView::from(s)))
}

/// Changes a schedule: the members given (`cron`, `timezone`, `config`,
/// `enabled`), checked as at creation. The next run is computed again from
/// now; disabling clears it.
#[utoipa::path(patch, path = "/api/v1/schedules/{scheduleId}", tag = "schedules",
    security(("api_key" = [])),
    params(("scheduleId" = String, Path, description = "Schedule id")),
    request_body = UpdateSchedule,
    responses(
        (status = 200, description = "The schedule, changed", body = ScheduleEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "schedule_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn update_schedule(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(schedule_id): ApiPath,
    ApiJson(body): ApiJson<UpdateSchedule>,
) -> Result<Response, ApiError> {
    let s = schedules::change_schedule(
        state.store.as_ref(),
        &state.settings,
        &auth.account,
        &schedule_id,
        body,
    )
    .await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), ScheduleView::from(s)))
}

/// Removes a schedule. The scans it started stay.
#[utoipa::path(delete, path = "/api/v1/schedules/{scheduleId}", tag = "schedules",
    security(("api_key" = [])),
    params(("scheduleId" = String, Path, description = "Schedule id")),
    responses(
        (status = 200, description = "Removed", body = ScheduleDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "schedule_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn delete_schedule(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(schedule_id): ApiPath,
) -> Result<Response, ApiError> {
    schedules::remove_schedule(state.store.as_ref(), &auth.account.id, &schedule_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        ScheduleDeleted {
            id: schedule_id,
            deleted: true,
        },
    ))
}
