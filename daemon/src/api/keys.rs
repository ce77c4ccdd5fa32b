//! `GET /keys/current`: the calling key's record, usage and its account's plan
//! limits for today. Keys are created, listed and revoked in the dashboard
//! (Settings, then API Keys) and by `sitescan admin`; both go through
//! [`create_key`] and [`revoke_key`] here.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Utc};

use super::auth::Auth;
use super::envelope::{reply, Meta, RequestId};
use super::error::{ApiError, ErrorCode};
use super::views::{AccountView, KeyView};
use super::AppState;

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
    let now = Utc::now();
    // Re-read: the middleware recorded this request's use after loading the key.
    let key = state.store.key(&auth.key.id).await?.unwrap_or(auth.key);
    let plan = auth.account.plan;
    let account = AccountView {
        id: auth.account.id.clone(),
        name: auth.account.name.clone(),
        plan,
        scans_per_day: plan.scans_per_day(),
        scans_today: state
            .store
            .scans_created_on(&auth.account.id, now.date_naive())
            .await?,
        max_pages_per_scan: plan.max_pages(),
    };
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        KeyView::new(key, account),
    ))
}

/// Longest key name, in characters.
pub const MAX_KEY_NAME: usize = 100;
/// Longest key description, in characters.
pub const MAX_KEY_DESCRIPTION: usize = 500;

/// Creates a key of `account_id`: name 1 to [`MAX_KEY_NAME`] characters, an
/// optional description up to [`MAX_KEY_DESCRIPTION`] (blank: none), the
/// lifetime (default [`super::auth::DEFAULT_KEY_DAYS`] days, or never).
/// Returns the record and the secret, to show once. The one code path of the
/// dashboard and `sitescan admin key create`.
pub async fn create_key(
    store: &dyn crate::store::Store,
    account_id: &str,
    name: &str,
    description: Option<&str>,
    lifetime: super::auth::KeyLifetime,
    now: DateTime<Utc>,
) -> Result<(crate::store::ApiKey, String), ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_KEY_NAME {
        return Err(ApiError::validation(
            "name",
            format!("give 1 to {MAX_KEY_NAME} characters"),
        ));
    }
    let description = description.map(str::trim).filter(|d| !d.is_empty());
    if description.is_some_and(|d| d.chars().count() > MAX_KEY_DESCRIPTION) {
        return Err(ApiError::validation(
            "description",
            format!("at most {MAX_KEY_DESCRIPTION} characters"),
        ));
    }
    if let super::auth::KeyLifetime::For(d) = lifetime {
        if d <= chrono::Duration::zero() {
            return Err(ApiError::validation(
                "expires_in",
                "give a positive lifetime or never",
            ));
        }
    }
    if store.account(account_id).await?.is_none() {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no account `{account_id}`"),
        ));
    }
    let (key, secret, hash) = super::auth::new_key(
        account_id,
        name,
        description.map(str::to_string),
        lifetime,
        now,
    )?;
    let key = store.create_key(key, &hash).await?;
    Ok((key, secret))
}

/// Revokes a key of `account_id` (another account's key is a 404, as a
/// missing one); revoking twice keeps the first time.
pub async fn revoke_key(
    store: &dyn crate::store::Store,
    account_id: &str,
    key_id: &str,
    now: DateTime<Utc>,
) -> Result<crate::store::ApiKey, ApiError> {
    let missing = || {
        ApiError::new(
            ErrorCode::NotFound,
            format!("no key `{key_id}` in this account"),
        )
    };
    let key = store.key(key_id).await?.ok_or_else(missing)?;
    if key.account_id != account_id {
        return Err(missing());
    }
    Ok(store.revoke_key(key_id, now).await?)
}
