//! `/webhooks`: register endpoints for scan events, change, rotate their
//! secret, remove them, and read and replay their delivery log. Delivery
//! itself is `crate::webhooks`.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::{request::Parts, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestId};
use super::error::{ApiError, ErrorCode};
use crate::error::Error;
use crate::ops::webhooks;
pub use crate::ops::webhooks::{DELIVERIES_LISTED, MAX_WEBHOOKS};
use crate::state::AppState;
pub use crate::views::webhooks::{
    CreateWebhook, DeliveryView, UpdateWebhook, WebhookDeleted, WebhookView,
};

/// The routes of this module (authenticated by the caller's layer).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/webhooks", get(list_webhooks).post(create_webhook))
        .route(
            "/api/v1/webhooks/{webhookId}",
            get(get_webhook)
                .patch(update_webhook)
                .delete(delete_webhook),
        )
        .route(
            "/api/v1/webhooks/{webhookId}/rotate-secret",
            post(rotate_secret),
        )
        .route(
            "/api/v1/webhooks/{webhookId}/deliveries",
            get(list_deliveries),
        )
        .route(
            "/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
            post(redeliver),
        )
}

/// The account's webhooks, oldest first.
#[utoipa::path(get, path = "/api/v1/webhooks", tag = "webhooks",
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The account's webhooks", body = WebhookListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn list_webhooks(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
) -> Result<Response, ApiError> {
    let hooks: Vec<WebhookView> = webhooks::list_webhooks(state.store.as_ref(), &auth.account.id)
        .await?
        .into_iter()
        .map(WebhookView::from)
        .collect();
    let mut meta = Meta::new(&id);
    meta.count = Some(hooks.len());
    Ok(reply(StatusCode::OK, meta, hooks))
}

/// Registers a webhook; the answer's `data.secret` is the signing secret, shown once.
#[utoipa::path(post, path = "/api/v1/webhooks", tag = "webhooks",
    security(("api_key" = [])),
    request_body = CreateWebhook,
    responses(
        (status = 201, description = "The webhook, with its secret", body = WebhookEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "site_not_found (site_id)", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed: URL not https (or private), unknown event, too many webhooks", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn create_webhook(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiJson(body): ApiJson<CreateWebhook>,
) -> Result<Response, ApiError> {
    let hook = webhooks::register_webhook(
        state.store.as_ref(),
        state.settings.allow_private,
        &auth.account.id,
        body,
    )
    .await?;
    let secret = hook.secret.clone();
    let mut view = WebhookView::from(hook);
    view.secret = Some(secret);
    Ok(reply(StatusCode::CREATED, Meta::new(&id), view))
}

/// One webhook of the account (without its secret).
#[utoipa::path(get, path = "/api/v1/webhooks/{webhookId}", tag = "webhooks",
    security(("api_key" = [])),
    params(("webhookId" = String, Path, description = "Webhook id")),
    responses(
        (status = 200, description = "The webhook", body = WebhookEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (malformed path parameter)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn get_webhook(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(hook_id): ApiPath,
) -> Result<Response, ApiError> {
    let hook = webhooks::webhook(state.store.as_ref(), &auth.account.id, &hook_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        WebhookView::from(hook),
    ))
}

/// Changes a webhook: URL, events, description, enabled (enabling clears the
/// reason it was disabled for).
#[utoipa::path(patch, path = "/api/v1/webhooks/{webhookId}", tag = "webhooks",
    security(("api_key" = [])),
    params(("webhookId" = String, Path, description = "Webhook id")),
    request_body = UpdateWebhook,
    responses(
        (status = 200, description = "The webhook, changed", body = WebhookEnvelope),
        (status = 400, description = "invalid_json", body = ErrorBody),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found", body = ErrorBody),
        (status = 413, description = "payload_too_large", body = ErrorBody),
        (status = 415, description = "unsupported_media_type", body = ErrorBody),
        (status = 422, description = "validation_failed", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn update_webhook(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(hook_id): ApiPath,
    ApiJson(body): ApiJson<UpdateWebhook>,
) -> Result<Response, ApiError> {
    let hook = webhooks::change_webhook(
        state.store.as_ref(),
        state.settings.allow_private,
        &auth.account.id,
        &hook_id,
        body,
    )
    .await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        WebhookView::from(hook),
    ))
}

/// Removes a webhook; its pending deliveries are dropped.
#[utoipa::path(delete, path = "/api/v1/webhooks/{webhookId}", tag = "webhooks",
    security(("api_key" = [])),
    params(("webhookId" = String, Path, description = "Webhook id")),
    responses(
        (status = 200, description = "Removed", body = WebhookDeletedEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (malformed path parameter)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn delete_webhook(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(hook_id): ApiPath,
) -> Result<Response, ApiError> {
    webhooks::remove_webhook(state.store.as_ref(), &auth.account.id, &hook_id).await?;
    Ok(reply(
        StatusCode::OK,
        Meta::new(&id),
        WebhookDeleted {
            id: hook_id,
            deleted: true,
        },
    ))
}

/// Makes a new signing secret, returned once as `data.secret`; the previous one
/// keeps signing deliveries (a second `v1=`) for 24 hours.
#[utoipa::path(post, path = "/api/v1/webhooks/{webhookId}/rotate-secret", tag = "webhooks",
    security(("api_key" = [])),
    params(("webhookId" = String, Path, description = "Webhook id")),
    responses(
        (status = 200, description = "The webhook, with its new secret", body = WebhookEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (malformed path parameter)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn rotate_secret(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(hook_id): ApiPath,
) -> Result<Response, ApiError> {
    let (hook, fresh) =
        webhooks::rotate_secret(state.store.as_ref(), &auth.account.id, &hook_id).await?;
    let mut view = WebhookView::from(hook);
    view.secret = Some(fresh);
    Ok(reply(StatusCode::OK, Meta::new(&id), view))
}

/// The webhook's newest deliveries (at most 100), newest first: status,
/// attempts, last response code and latency, next attempt.
#[utoipa::path(get, path = "/api/v1/webhooks/{webhookId}/deliveries", tag = "webhooks",
    security(("api_key" = [])),
    params(("webhookId" = String, Path, description = "Webhook id")),
    responses(
        (status = 200, description = "The delivery log", body = DeliveryListEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (malformed path parameter)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn list_deliveries(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath(hook_id): ApiPath,
) -> Result<Response, ApiError> {
    let items: Vec<DeliveryView> =
        webhooks::list_deliveries(state.store.as_ref(), &auth.account.id, &hook_id)
            .await?
            .into_iter()
            .map(DeliveryView::from)
            .collect();
    let mut meta = Meta::new(&id);
    meta.count = Some(items.len());
    Ok(reply(StatusCode::OK, meta, items))
}

/// Two path parameters; a malformed one is `validation_failed`.
#[derive(Debug)]
pub struct ApiPath2(pub String, pub String);

impl<S: Send + Sync> FromRequestParts<S> for ApiPath2 {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map(|Path((a, b))| ApiPath2(a, b))
            .map_err(|e| ApiError::validation("path", e.body_text()))
    }
}

/// Sends a delivery's event again, as a new delivery (same event id and body,
/// fresh attempts, due now).
#[utoipa::path(post, path = "/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", tag = "webhooks",
    security(("api_key" = [])),
    params(
        ("webhookId" = String, Path, description = "Webhook id"),
        ("deliveryId" = String, Path, description = "Delivery id"),
    ),
    responses(
        (status = 202, description = "The new delivery, pending", body = DeliveryEnvelope),
        (status = 401, description = "missing_api_key, invalid_api_key or api_key_expired", body = ErrorBody),
        (status = 403, description = "plan_not_allowed", body = ErrorBody),
        (status = 404, description = "webhook_not_found or delivery_not_found", body = ErrorBody),
        (status = 422, description = "validation_failed (malformed path parameter)", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ))]
pub(crate) async fn redeliver(
    State(state): State<AppState>,
    auth: Auth,
    id: RequestId,
    ApiPath2(hook_id, delivery_id): ApiPath2,
) -> Result<Response, ApiError> {
    let fresh = webhooks::redeliver_delivery(
        state.store.as_ref(),
        &auth.account.id,
        &hook_id,
        &delivery_id,
    )
    .await
    .map_err(|e| match e {
        Error::NotFound {
            kind: "delivery", ..
        } => ApiError::new(
            ErrorCode::DeliveryNotFound,
            format!("no delivery `{delivery_id}` for webhook `{hook_id}`"),
        ),
        other => other.into(),
    })?;
    Ok(reply(
        StatusCode::ACCEPTED,
        Meta::new(&id),
        DeliveryView::from(fresh),
    ))
}
