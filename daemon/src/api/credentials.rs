//! `/sites/{siteId}/credentials`: set, describe and remove what a site's
//! scans sign in with. Write-only: no answer ever carries a secret value
//! (`ops::credentials`).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use sitescan_engine::auth::SiteAuth;
use utoipa::ToSchema;

use super::auth::Auth;
use super::envelope::{parse_json, reply, ApiJson, ApiPath, Meta, RequestId};
use super::error::{ApiError, ErrorCode, ErrorDetail};
use crate::ops::credentials;
use crate::state::AppState;
use crate::store::CredentialsDescription;

/// The envelope of a credentials description (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CredentialsEnvelope {
    /// What is set, names only.
    pub data: CredentialsDescription,
    /// Request metadata.
    pub meta: Meta,
}

/// What a removal answers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CredentialsDeleted {
    /// The site whose credentials were removed.
    pub site_id: String,
    /// Always true.
    pub deleted: bool,
}

/// The envelope of a removal (for the OpenAPI document).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CredentialsDeletedEnvelope {
    /// What was removed.
    pub data: CredentialsDeleted,
    /// Request metadata.
    pub meta: Meta,
}

/// The request body of `PUT /sites/{siteId}/credentials`: the engine's
/// `SiteAuth` (the Site credentials docs page describes every field).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "headers": [{"name": "Authorization", "value": "Bearer …"}],
    "cookies": [{"name": "session", "value": "…"}],
    "basic": {"username": "ann", "password": "…"},
    "login_form": {"page": "/login", "action": "/login", "fields": {"user": "ann", "password": "…"},
        "success": {"cookie": "session"}},
    "login_steps": [{"step": "goto", "url": "/login"}, {"step": "fill", "selector": "#pw", "value": "…"},
        {"step": "click", "selector": "button[type=submit]"}, {"step": "wait_for", "selector": ".account"}],
    "sign_out_exclude": ["/logout"]
}))]
pub struct SetCredentials {
    /// Extra request headers: `[{name, value}]`.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub headers: Option<serde_json::Value>,
    /// Cookies: `[{name, value}]`.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub cookies: Option<serde_json::Value>,
    /// HTTP basic authentication: `{username, password}`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub basic: Option<serde_json::Value>,
    /// A sign-in form: `{page?, action, fields: {name: value}, success?: {cookie?, url?, contains?}}`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub login_form: Option<serde_json::Value>,
    /// Browser sign-in steps: `{step: goto, url}`, `{step: fill, selector, value}`,
    /// `{step: click, selector}`, `{step: wait_for, selector}`.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    pub login_steps: Option<serde_json::Value>,
    /// URL patterns never requested (absent: the default sign-out list).
    #[serde(default)]
    pub sign_out_exclude: Option<Vec<String>>,
}

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new().route(
        "/api/v1/sites/{siteId}/credentials",
        get(get_credentials)
            .put(put_credentials)
            .delete(delete_credentials),
    )
}

/// Sets (replacing) the credentials a site's scans sign in with. The answer
/// describes them by names only; no answer ever shows a value.
#[utoipa::path(put, path = "/api/v1/sites/{siteId}/credentials", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    request_body = SetCredentials,
    responses(
        (status = 200, description = "Saved; what is set, names only", body = CredentialsEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: a field has a wrong shape or value (a header name, a control character, a URL on another origin...); details name each, never echoing a value", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
        (status = 503, description = "secret_key_missing: the server has no secret key to encrypt credentials with", body = ErrorBody),
    ))]
pub(crate) async fn put_credentials(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
    ApiJson(body): ApiJson<serde_json::Value>,
) -> Result<Response, ApiError> {
    let bytes = serde_json::to_vec(&body).map_err(ApiError::internal)?;
    let site_auth: SiteAuth = parse_json(&bytes).map_err(without_values)?;
    let description = credentials::set_credentials(
        state.store.as_ref(),
        state.settings.secret_key.as_ref(),
        &auth.account.id,
        &site_id,
        site_auth,
    )
    .await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), description))
}

/// Describes the credentials of a site: the kinds set, header and cookie
/// names, the basic-auth user name, the login form's action and field names,
/// the login steps' kinds, when they were saved. Never a value.
#[utoipa::path(get, path = "/api/v1/sites/{siteId}/credentials", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "What is set, names only", body = CredentialsEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found, or credentials_not_found when the site has none", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn get_credentials(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    let description =
        credentials::credentials(state.store.as_ref(), &auth.account.id, &site_id).await?;
    Ok(reply(StatusCode::OK, Meta::new(&id), description))
}

/// Removes the credentials of a site: its next scans sign in with nothing.
#[utoipa::path(delete, path = "/api/v1/sites/{siteId}/credentials", tag = "sites",
    security(("api_key" = [])),
    params(("siteId" = String, Path, description = "Site id")),
    responses(
        (status = 200, description = "Removed", body = CredentialsDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found, or credentials_not_found when the site has none", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn delete_credentials(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(site_id): ApiPath,
) -> Result<Response, ApiError> {
    credentials::remove_credentials(state.store.as_ref(), &auth.account.id, &site_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        CredentialsDeleted {
            site_id,
            deleted: true,
        },
    ))
}

/// A body error with serde's echo of the offending value taken out
/// (`invalid type: string "hunter2", expected ...`): the value may be a
/// secret. What was expected stays.
fn without_values(e: ApiError) -> ApiError {
    if e.code != ErrorCode::ValidationFailed {
        return e;
    }
    let details: Vec<ErrorDetail> = e
        .details
        .iter()
        .map(|d| ErrorDetail {
            field: d.field.clone(),
            problem: redact_problem(&d.problem),
        })
        .collect();
    ApiError::validations(details).unwrap_or(e)
}

fn redact_problem(problem: &str) -> String {
    if problem.starts_with("invalid type") || problem.starts_with("invalid value") {
        match problem.find("expected ") {
            Some(i) => format!("wrong type or value: {}", &problem[i..]),
            None => "wrong type or value".to_string(),
        }
    } else {
        problem.to_string()
    }
}
