//! `Idempotency-Key` on every authenticated `POST` (as Stripe's API has it):
//! a client that sends a request again after a timeout or a dropped
//! connection, with the same key, gets the first answer again instead of a
//! second scan (and a second charge to its daily quota).
//!
//! - The key is any 1 to 255 visible ASCII characters (a UUID v4 is a good
//!   choice), scoped to the account: two keys of one account share it.
//! - The first request with a key claims it ([`Store::claim_idempotency_key`],
//!   atomic in both backends). When it answers with a success (2xx), that
//!   answer (status, `Location`, body) is kept for [`IDEMPOTENCY_TTL`] and
//!   every later request with the same key and the same method, path and body
//!   (byte for byte) gets it back, marked `Idempotent-Replayed: true`, without
//!   running again.
//! - The same key with another method, path or body: 422
//!   `idempotency_key_reused`. While the first request is still being served:
//!   409 `idempotency_key_in_use` with `Retry-After: 1`.
//! - An error answer is not kept: the key is freed, and the request may be
//!   sent again (fixed, or after the quota resets) with the same key.
//! - Bounded: [`MAX_IDEMPOTENCY_KEYS`] per account (the oldest forgotten
//!   first) and 24 hours each. A process that dies while serving a request
//!   frees its key after [`IDEMPOTENCY_LEASE`].
//!
//! [`Store::claim_idempotency_key`]: crate::store::Store::claim_idempotency_key
//! [`IDEMPOTENCY_TTL`]: crate::store::IDEMPOTENCY_TTL
//! [`IDEMPOTENCY_LEASE`]: crate::store::IDEMPOTENCY_LEASE
//! [`MAX_IDEMPOTENCY_KEYS`]: crate::store::MAX_IDEMPOTENCY_KEYS

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;

use super::auth::Auth;
use super::error::{ApiError, ErrorCode};
use super::{AppState, MAX_BODY_BYTES};
use crate::secrets::{hash_parts, hash_secret};
use crate::store::{IdempotencyClaim, IdempotencyRecord, KeptResponse, IDEMPOTENCY_LEASE};

/// The request header.
pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";
/// The header marking a replayed answer.
pub const REPLAYED_HEADER: &str = "idempotent-replayed";
/// Longest key, in characters.
pub const MAX_KEY_CHARS: usize = 255;
/// Largest answer kept for replay (a scan or site is a few KiB).
const MAX_KEPT_BODY: usize = 256 * 1024;

/// Whether `key` is 1 to [`MAX_KEY_CHARS`] visible ASCII characters.
pub fn valid_key(key: &str) -> bool {
    (1..=MAX_KEY_CHARS).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

/// The middleware: see the module docs. Runs inside authentication (it needs
/// the account) on every authenticated route; anything but a `POST` with the
/// header passes through untouched.
pub async fn idempotency(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let Some(raw) = req.headers().get(IDEMPOTENCY_HEADER) else {
        return next.run(req).await;
    };
    let key = match raw.to_str() {
        Ok(k) if valid_key(k) => k.to_string(),
        _ => {
            return ApiError::validation(
                "Idempotency-Key",
                format!(
                "give 1 to {MAX_KEY_CHARS} visible ASCII characters (a UUID v4 is a good choice)"
            ),
            )
            .into_response()
        }
    };
    let Some(auth) = req.extensions().get::<Auth>().cloned() else {
        return ApiError::internal("idempotency layer outside authentication").into_response();
    };
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(_) => {
            return ApiError::new(
                ErrorCode::PayloadTooLarge,
                "the body is over the 64 KiB limit",
            )
            .into_response()
        }
    };
    let target = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let fingerprint = hash_parts(&[
        parts.method.as_str().as_bytes(),
        b" ",
        target.as_bytes(),
        b"\n",
        &bytes,
    ]);
    let now = Utc::now();
    let record = IdempotencyRecord {
        fingerprint,
        created_at: now,
        lease_until: now + IDEMPOTENCY_LEASE,
        response: None,
    };
    // The key itself is the client's; only its hash names it in the store.
    let key_hash = hash_secret(key);
    let account = auth.account.id.clone();
    match state
        .store
        .claim_idempotency_key(&account, &key_hash, record.clone(), now)
        .await
    {
        Err(e) => return ApiError::from(e).into_response(),
        Ok(IdempotencyClaim::Existing(held)) if held.fingerprint != record.fingerprint => {
            return ApiError::new(
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was used with a different request (method, path or body) in the last 24 hours; send a new key for a new request",
            )
            .into_response()
        }
        Ok(IdempotencyClaim::Existing(held)) => {
            return match held.response {
                Some(kept) => replay(kept),
                None => ApiError::new(
                    ErrorCode::IdempotencyKeyInUse,
                    "a request with this Idempotency-Key is still being served; retry shortly to get its answer",
                )
                .retry_after(1)
                .into_response(),
            }
        }
        Ok(IdempotencyClaim::Claimed) => {}
    }
    let resp = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if !resp.status().is_success() {
        release(&state, &account, &key_hash).await;
        return resp;
    }
    let (rparts, rbody) = resp.into_parts();
    let body = match axum::body::to_bytes(rbody, MAX_KEPT_BODY).await {
        Ok(b) => b,
        Err(e) => {
            release(&state, &account, &key_hash).await;
            return ApiError::internal(format!("answer of an idempotent request unreadable: {e}"))
                .into_response();
        }
    };
    let kept = KeptResponse {
        status: rparts.status.as_u16(),
        location: rparts
            .headers
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let answered = IdempotencyRecord {
        response: Some(kept),
        ..record
    };
    if let Err(e) = state
        .store
        .complete_idempotency_key(&account, &key_hash, answered)
        .await
    {
        // The request did what it did; a retry would do it again, which is
        // what a client without the key would get. Logged, not failed.
        tracing::warn!(error = %e, "could not keep the answer of an idempotent request");
        release(&state, &account, &key_hash).await;
    }
    Response::from_parts(rparts, Body::from(body))
}

/// Frees a claimed key (logged when the store fails: the lease frees it then).
async fn release(state: &AppState, account: &str, key_hash: &str) {
    if let Err(e) = state.store.release_idempotency_key(account, key_hash).await {
        tracing::warn!(error = %e, "could not free an idempotency key; its lease will");
    }
}

/// The kept answer, again.
fn replay(kept: KeptResponse) -> Response {
    let status = StatusCode::from_u16(kept.status).unwrap_or(StatusCode::OK);
    let mut resp = (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        kept.body,
    )
        .into_response();
    if let Some(loc) = kept.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        resp.headers_mut().insert(header::LOCATION, loc);
    }
    resp.headers_mut()
        .insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_of_bounded_length() {
        assert!(valid_key("0f8fad5b-d9cb-469f-a165-70867728950e"));
        assert!(valid_key(&"k".repeat(MAX_KEY_CHARS)));
        assert!(!valid_key(""));
        assert!(!valid_key(&"k".repeat(MAX_KEY_CHARS + 1)));
        assert!(!valid_key("has space"));
        assert!(!valid_key("tab\there"));
    }
}
