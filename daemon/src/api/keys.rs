//! `GET /keys/current`: the calling key's record, usage and its account's plan
//! limits for today. Keys are created, listed and revoked in the dashboard
//! (Settings, then API Keys) and by `sitescan admin`, through
//! [`crate::ops::keys`].

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use chrono::Utc;

use super::auth::Auth;
use super::envelope::{reply, Meta, RequestId};
use super::error::ApiError;
use crate::ops::keys;
use crate::state::AppState;
use crate::views::{AccountView, KeyView};

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/keys/current", get(current_key))
}

/// The calling key: name, expiry, last use, requests per day, plan limits.
#[utoipa::path(get, path = "/api/v1/keys/current", tag = "keys",
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The calling key", body = KeyEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait before retrying"))),
    ))]
pub(crate) async fn current_key(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
) -> Result<Response, ApiError> {
    // Re-read: the middleware recorded this request's use after loading the key.
    let (key, scans_today) = keys::current_key(state.store.as_ref(), auth.key, Utc::now()).await?;
    let plan = auth.account.plan;
    let account = AccountView {
        id: auth.account.id.clone(),
        name: auth.account.name.clone(),
        plan,
        scans_per_day: plan.scans_per_day(),
        scans_today,
        max_pages_per_scan: plan.max_pages(),
    };
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        KeyView::new(key, account),
    ))
}
