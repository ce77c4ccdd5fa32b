//! `/sites`: register, list, read and remove the account's sites.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestId};
use super::error::ApiError;
use crate::ops::sites;
use crate::state::AppState;
use crate::views::{CreateSite, SiteDeleted, UpdateSite};

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sites", get(list_sites).post(create_site))
        .route(
            "/api/v1/sites/{siteId}",
            get(get_site).patch(update_site).delete(delete_site),
        )
}

/// Lists the sites of the caller's account, oldest first.
#[utoipa::path(get, path = "/api/v1/sites", tag = "sites",
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The account's sites", body = SiteListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn list_sites(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
) -> Result<Response, ApiError> {
    let sites = sites::list_sites(state.store.as_ref(), &auth.account.id).await?;
    let mut meta = Meta::new(&id);
    meta.count = Some(sites.len());
    Ok(reply(StatusCode::OK, meta, sites))
}

/// Registers a site.
#[utoipa::path(post, path = "/api/v1/sites", tag = "sites",
    security(("api_key" = [])),
    request_body = CreateSite,
    responses(
        (status = 201, description = "The site, registered", body = SiteEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: the URL is not absolute http(s), or is a private address", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn create_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiJson(body): ApiJson<CreateSite>,
) -> Result<Response, ApiError> {
    let site = sites::register_site(
        state.store.as_ref(),
        state.settings.allow_private,
        &auth.account.id,
        &body.url,
        body.name,
    )
    .await?;
    Ok(reply(StatusCode::CREATED, Meta::new(&id), site))
}

/// One site of the account.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "The site", body = SiteEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    let site = sites::site(state.store.as_ref(), &auth.account.id, &site_id).await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), site))
}

/// Changes a site's settings (its name, its regression threshold).
#[utoipa::path(patch, path = "/api/v1/sites/{siteId}", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    request_body = UpdateSite,
    responses(
        (status = 200, description = "The site, changed", body = SiteEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: an empty or too long name, or a threshold other than minor, moderate, serious or critical", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn update_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    ApiJson(body): ApiJson<UpdateSite>,
) -> Result<Response, ApiError> {
    let site = sites::update_site(
        state.store.as_ref(),
        &auth.account.id,
        &site_id,
        body.name,
        body.regression_threshold,
    )
    .await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), site))
}

/// Removes a site. Its past scans stay readable by id.
#[utoipa::path(delete, path = "/api/v1/sites/{siteId}", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "Removed", body = SiteDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn delete_site(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    sites::remove_site(state.store.as_ref(), &auth.account.id, &site_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        SiteDeleted {
            id: site_id,
            deleted: true,
        },
    ))
}
