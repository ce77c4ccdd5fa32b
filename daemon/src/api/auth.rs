//! Authentication and the per-key request rate limit.
//!
//! [`authenticate`] is a middleware on every `/api/v1` route but the OpenAPI
//! document: it checks the key of `X-API-Key` or `Authorization: Bearer`
//! ([`presented_key`]; missing, unknown or revoked, expired, plan without API
//! access), applies the key's token bucket (governor, keyed by key
//! id), records the use, puts an [`Auth`] in the request and adds the
//! `RateLimit-*` headers to the answer. Handlers take [`Auth`] as an extractor,
//! so none can forget it.
//!
//! Keys are `key_` + 48 hex digits (24 bytes from the OS RNG); only their
//! SHA-256 is stored.

use std::time::Duration;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::{request::Parts, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use governor::clock::{Clock, DefaultClock};

use super::error::{ApiError, ErrorCode};
use super::AppState;
use crate::secrets::hash_secret;
use crate::store::{Account, ApiKey};

/// The header carrying the key.
pub const API_KEY_HEADER: &str = "x-api-key";
pub use crate::ops::keys::{
    generate_secret, new_key, KeyLifetime, DEFAULT_KEY_DAYS, DEFAULT_KEY_LIFETIME, KEY_PREFIX,
    KEY_RANDOM_BYTES,
};
pub use crate::state::{non_zero, RateLimit};

/// Who is calling: set by [`authenticate`].
#[derive(Debug, Clone)]
pub struct Auth {
    /// The key used (as stored, before this request's use was recorded).
    pub key: ApiKey,
    /// Its account.
    pub account: Account,
}

impl<S: Send + Sync> FromRequestParts<S> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Auth>()
            .cloned()
            .ok_or_else(|| ApiError::internal("authentication middleware missing on route"))
    }
}

/// The middleware: see the module docs.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let secret = match presented_key(req.headers()) {
        Ok(secret) => secret,
        Err(e) => return e.into_response(),
    };
    let auth = match check_key(&state, secret).await {
        Ok(auth) => auth,
        Err(e) => return e.into_response(),
    };
    let limit = &state.rate_limit;
    let per_minute = limit.per_minute;
    // The bucket holds `per_minute` requests and gains one back every
    // 60/`per_minute` s (governor's GCRA). The headers say exactly that:
    // `RateLimit-Remaining` requests may be sent now, and after
    // `RateLimit-Reset` seconds the bucket is full again (`Limit` remaining)
    // if none is sent meanwhile. `Retry-After` (429 only) is the wait for the
    // next single request, which is shorter.
    let headers = match limit.limiter.check_key(&auth.key.id) {
        Ok(snapshot) => {
            let remaining = snapshot.remaining_burst_capacity().min(per_minute);
            let to_full = limit.replenish() * (per_minute - remaining);
            [per_minute as u64, remaining as u64, ceil_secs(to_full)]
        }
        Err(not_until) => {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let secs = ceil_secs(wait).max(1);
            let to_full = wait + limit.replenish() * (per_minute - 1);
            let mut resp = ApiError::new(
                ErrorCode::RateLimited,
                format!(
                    "more than {per_minute} requests a minute with this key; retry in {secs} s"
                ),
            )
            .retry_after(secs)
            .into_response();
            set_rate_headers(
                &mut resp,
                [per_minute as u64, 0, ceil_secs(to_full).max(secs)],
            );
            return resp;
        }
    };
    if let Err(e) = state.store.record_key_use(&auth.key.id, Utc::now()).await {
        tracing::warn!(error = %e, "could not record key use");
    }
    req.extensions_mut().insert(auth);
    let mut resp = next.run(req).await;
    set_rate_headers(&mut resp, headers);
    resp
}

/// Whole seconds, rounded up (a client that waits that long is never early).
fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

fn set_rate_headers(resp: &mut Response, [limit, remaining, reset]: [u64; 3]) {
    let h = resp.headers_mut();
    h.insert("ratelimit-limit", HeaderValue::from(limit));
    h.insert("ratelimit-remaining", HeaderValue::from(remaining));
    h.insert("ratelimit-reset", HeaderValue::from(reset));
    // draft-ietf-httpapi-ratelimit-headers: `limit` requests per 60 s window.
    if let Ok(v) = HeaderValue::from_str(&format!("{limit};w=60")) {
        h.insert("ratelimit-policy", v);
    }
}

/// The key the request presents: `X-API-Key: key_...` or `Authorization:
/// Bearer key_...` (RFC 6750; the scheme is case-insensitive). Both may be
/// sent if they carry the same key; two different keys are refused with 400
/// `conflicting_api_keys` rather than picking one, since a client sending
/// both has a bug worth seeing. `Authorization` with another scheme (Basic)
/// is `invalid_api_key`, saying to use Bearer.
pub fn presented_key(headers: &axum::http::HeaderMap) -> Result<String, ApiError> {
    let invalid = |why: &str| ApiError::new(ErrorCode::InvalidApiKey, why.to_string());
    let header_key = match headers.get(API_KEY_HEADER) {
        None => None,
        Some(v) => Some(
            v.to_str()
                .map_err(|_| invalid("the API key is not valid (unknown or revoked)"))?
                .trim()
                .to_string(),
        ),
    };
    let bearer = match headers.get(axum::http::header::AUTHORIZATION) {
        None => None,
        Some(v) => {
            let v = v
                .to_str()
                .map_err(|_| invalid("the Authorization header is not valid text"))?
                .trim();
            let (scheme, token) = v.split_once(' ').unwrap_or((v, ""));
            if !scheme.eq_ignore_ascii_case("bearer") {
                return Err(invalid(
                    "the Authorization header must be `Bearer key_...` (or send the key in X-API-Key)",
                ));
            }
            Some(token.trim().to_string())
        }
    };
    match (header_key, bearer) {
        (None, None) => Err(ApiError::new(
            ErrorCode::MissingApiKey,
            "send your API key in the X-API-Key header or as Authorization: Bearer <key>",
        )),
        (Some(k), None) | (None, Some(k)) => Ok(k),
        (Some(a), Some(b)) if a == b => Ok(a),
        (Some(_), Some(_)) => Err(ApiError::new(
            ErrorCode::ConflictingApiKeys,
            "X-API-Key and Authorization: Bearer carry different keys; send one key, in either header",
        )),
    }
}

async fn check_key(state: &AppState, secret: String) -> Result<Auth, ApiError> {
    let invalid = || {
        ApiError::new(
            ErrorCode::InvalidApiKey,
            "the API key is not valid (unknown or revoked)",
        )
    };
    let secret = secret.as_str();
    if !secret.starts_with(KEY_PREFIX) {
        return Err(invalid());
    }
    let key = state
        .store
        .key_by_hash(&hash_secret(secret))
        .await?
        .ok_or_else(invalid)?;
    if key.revoked_at.is_some() {
        return Err(invalid());
    }
    if let Some(expired) = key.expires_at.filter(|at| *at <= Utc::now()) {
        return Err(ApiError::new(
            ErrorCode::ApiKeyExpired,
            format!(
                "the API key expired at {}; create a new key",
                expired.to_rfc3339()
            ),
        ));
    }
    let account = state
        .store
        .account(&key.account_id)
        .await?
        .ok_or_else(invalid)?;
    if !account.plan.api_access() {
        return Err(ApiError::new(
            ErrorCode::PlanNotAllowed,
            format!(
                "the {} plan has no API access; upgrade to professional or enterprise",
                account.plan.as_str()
            ),
        ));
    }
    Ok(Auth { key, account })
}
