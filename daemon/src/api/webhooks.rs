//! `/webhooks`: register endpoints for scan events, change, rotate their
//! secret, remove them, and read and replay their delivery log. Delivery
//! itself is `crate::webhooks`.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::{request::Parts, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Auth;
use super::envelope::{reply, ApiJson, ApiPath, Meta, RequestId};
use super::error::{ApiError, ErrorCode, Problems};
use super::AppState;
use crate::store::{new_id, Delivery, DeliveryAttempt, DeliveryStatus, Webhook};
use crate::webhooks::{check_target, new_secret, EVENT_TYPES, ROTATION_OVERLAP};

/// Deliveries listed per request.
pub const DELIVERIES_LISTED: usize = 100;
/// Webhooks an account may register.
pub const MAX_WEBHOOKS: usize = 20;

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

/// A webhook as the API shows it. `secret` is present only in the answers of
/// creation and rotation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebhookView {
    /// `wh_...`.
    pub id: String,
    /// Where events are POSTed.
    pub url: String,
    /// Event types sent.
    pub events: Vec<String>,
    /// Only this site's scans, when set.
    pub site_id: Option<String>,
    /// Free text.
    pub description: Option<String>,
    /// Whether events are delivered.
    pub enabled: bool,
    /// Why the service disabled it (410 Gone, failing for days).
    pub disabled_reason: Option<String>,
    /// Until when the secret before the last rotation still signs deliveries.
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    /// First failed attempt since the last success.
    pub failing_since: Option<DateTime<Utc>>,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// The signing secret (`whsec_...`): shown once, at creation and rotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

impl From<Webhook> for WebhookView {
    fn from(w: Webhook) -> Self {
        WebhookView {
            id: w.id,
            url: w.url,
            events: w.events,
            site_id: w.site_id,
            description: w.description,
            enabled: w.enabled,
            disabled_reason: w.disabled_reason,
            previous_secret_expires_at: w.previous_secret_expires_at,
            failing_since: w.failing_since,
            created_at: w.created_at,
            updated_at: w.updated_at,
            secret: None,
        }
    }
}

/// Body of `POST /webhooks`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// https URL receiving the events (http and private addresses only with `serve --allow-private`).
    #[schema(max_length = 2048, example = "https://hooks.example.com/sitescan")]
    pub url: String,
    /// Event types: `scan.queued`, `scan.started`, `scan.completed`, `scan.failed`, `scan.canceled`.
    #[schema(min_items = 1, example = json!(["scan.completed", "scan.failed"]))]
    pub events: Vec<String>,
    /// Only events of this site's scans.
    #[serde(default)]
    pub site_id: Option<String>,
    /// Free text, at most 500 characters.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

/// Body of `PATCH /webhooks/{webhookId}`: the fields to change.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhook {
    /// New target URL.
    #[serde(default)]
    pub url: Option<String>,
    /// New event types.
    #[serde(default)]
    pub events: Option<Vec<String>>,
    /// Enable (clearing the disabled reason) or disable.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// New description, at most 500 characters.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub description: Option<String>,
}

/// Answer of a deletion.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WebhookDeleted {
    /// The webhook's id.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}

/// One delivery in the log.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DeliveryView {
    /// `dlv_...`.
    pub id: String,
    /// The webhook.
    pub webhook_id: String,
    /// The event (`Sitescan-Event-Id`).
    pub event_id: String,
    /// The event type.
    pub event_type: String,
    /// `pending`, `succeeded` or `failed`.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// HTTP status of the last attempt, if it got one.
    pub response_status: Option<u16>,
    /// Milliseconds of the last attempt.
    pub latency_ms: Option<u64>,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When the event was queued for this webhook.
    pub created_at: DateTime<Utc>,
    /// Every attempt, oldest first.
    pub attempt_log: Vec<DeliveryAttempt>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        let last = d.attempt_log.last();
        DeliveryView {
            response_status: last.and_then(|a| a.response_status),
            latency_ms: last.map(|a| a.latency_ms),
            id: d.id,
            webhook_id: d.webhook_id,
            event_id: d.event_id,
            event_type: d.event_type,
            status: d.status,
            attempts: d.attempts,
            next_attempt_at: d.next_attempt_at,
            created_at: d.created_at,
            attempt_log: d.attempt_log,
        }
    }
}

fn webhook_not_found(id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::WebhookNotFound,
        format!("no webhook `{id}` in this account; GET /api/v1/webhooks lists them"),
    )
}

fn validate_events(events: &[String]) -> Result<Vec<String>, ApiError> {
    if events.is_empty() {
        return Err(ApiError::validation(
            "events",
            format!("give at least one of {}", EVENT_TYPES.join(", ")),
        ));
    }
    let mut out: Vec<String> = Vec::new();
    let mut problems = Problems::default();
    for (i, e) in events.iter().enumerate() {
        if !EVENT_TYPES.contains(&e.as_str()) {
            problems.add(
                format!("events[{i}]"),
                format!("unknown event `{e}`; use {}", EVENT_TYPES.join(", ")),
            );
        } else if !out.contains(e) {
            out.push(e.clone());
        }
    }
    problems.finish().map(|()| out)
}

fn validate_description(d: Option<String>) -> Result<Option<String>, ApiError> {
    match d {
        Some(d) if d.chars().count() > 500 => Err(ApiError::validation(
            "description",
            "at most 500 characters",
        )),
        other => Ok(other),
    }
}

fn validate_url(raw: &str, allow_private: bool) -> Result<String, ApiError> {
    check_target(raw, allow_private)
        .map(|u| u.to_string())
        .map_err(|problem| ApiError::validation("url", problem))
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
    let hooks: Vec<WebhookView> = state
        .store
        .list_webhooks(&auth.account.id)
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
    let hook = register_webhook(&state, &auth.account.id, body).await?;
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
    let hook = state
        .store
        .webhook(&auth.account.id, &hook_id)
        .await?
        .ok_or_else(|| webhook_not_found(&hook_id))?;
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
    let hook = change_webhook(&state, &auth.account.id, &hook_id, body).await?;
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
    remove_webhook(&state, &auth.account.id, &hook_id).await?;
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
    let mut hook = state
        .store
        .webhook(&auth.account.id, &hook_id)
        .await?
        .ok_or_else(|| webhook_not_found(&hook_id))?;
    let now = Utc::now();
    let fresh = new_secret()?;
    hook.previous_secret = Some(std::mem::replace(&mut hook.secret, fresh.clone()));
    hook.previous_secret_expires_at = Some(
        now + chrono::Duration::from_std(ROTATION_OVERLAP).unwrap_or(chrono::Duration::hours(24)),
    );
    hook.updated_at = now;
    let hook = state.store.save_webhook(hook).await?;
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
    state
        .store
        .webhook(&auth.account.id, &hook_id)
        .await?
        .ok_or_else(|| webhook_not_found(&hook_id))?;
    let items: Vec<DeliveryView> = state
        .store
        .list_deliveries(&hook_id, DELIVERIES_LISTED)
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
    let fresh = redeliver_delivery(&state, &auth.account.id, &hook_id, &delivery_id).await?;
    Ok(reply(
        StatusCode::ACCEPTED,
        Meta::new(&id),
        DeliveryView::from(fresh),
    ))
}

/// Registers a webhook of `account_id` (its secret is in the record returned,
/// to show once): the one code path of `POST /webhooks` and the dashboard.
pub(crate) async fn register_webhook(
    state: &AppState,
    account_id: &str,
    body: CreateWebhook,
) -> Result<Webhook, ApiError> {
    // Every field is checked before answering: all problems at once.
    let mut problems = Problems::default();
    let url = problems.take("url", validate_url(&body.url, state.settings.allow_private));
    let events = problems.take("events", validate_events(&body.events));
    let description = problems.take("description", validate_description(body.description));
    problems.finish()?;
    let (Some(url), Some(events), Some(description)) = (url, events, description) else {
        return Err(ApiError::internal(
            "webhook fields vanished after validation",
        ));
    };
    if let Some(site_id) = &body.site_id {
        state
            .store
            .site(account_id, site_id)
            .await?
            .ok_or_else(|| ApiError::site_not_found(site_id))?;
    }
    if state.store.list_webhooks(account_id).await?.len() >= MAX_WEBHOOKS {
        return Err(ApiError::validation(
            "url",
            format!("an account has at most {MAX_WEBHOOKS} webhooks; delete one first"),
        ));
    }
    let now = Utc::now();
    let hook = Webhook {
        id: new_id("wh")?,
        account_id: account_id.to_string(),
        url,
        events,
        site_id: body.site_id,
        description,
        enabled: true,
        disabled_reason: None,
        secret: new_secret()?,
        previous_secret: None,
        previous_secret_expires_at: None,
        failing_since: None,
        created_at: now,
        updated_at: now,
    };
    Ok(state.store.create_webhook(hook).await?)
}

/// Changes a webhook of `account_id` (enabling clears the disabled reason):
/// the one code path of `PATCH /webhooks/{webhookId}` and the dashboard.
pub(crate) async fn change_webhook(
    state: &AppState,
    account_id: &str,
    hook_id: &str,
    body: UpdateWebhook,
) -> Result<Webhook, ApiError> {
    let mut hook = state
        .store
        .webhook(account_id, hook_id)
        .await?
        .ok_or_else(|| webhook_not_found(hook_id))?;
    let mut problems = Problems::default();
    if let Some(url) = &body.url {
        if let Some(url) = problems.take("url", validate_url(url, state.settings.allow_private)) {
            hook.url = url;
        }
    }
    if let Some(events) = &body.events {
        if let Some(events) = problems.take("events", validate_events(events)) {
            hook.events = events;
        }
    }
    if body.description.is_some() {
        if let Some(d) = problems.take("description", validate_description(body.description)) {
            hook.description = d;
        }
    }
    problems.finish()?;
    if let Some(enabled) = body.enabled {
        if enabled && !hook.enabled {
            hook.disabled_reason = None;
            hook.failing_since = None;
        }
        hook.enabled = enabled;
    }
    hook.updated_at = Utc::now();
    Ok(state.store.save_webhook(hook).await?)
}

/// Removes a webhook of `account_id` (`webhook_not_found` when none): the one
/// code path of `DELETE /webhooks/{webhookId}` and the dashboard.
pub(crate) async fn remove_webhook(
    state: &AppState,
    account_id: &str,
    hook_id: &str,
) -> Result<(), ApiError> {
    if !state.store.delete_webhook(account_id, hook_id).await? {
        return Err(webhook_not_found(hook_id));
    }
    Ok(())
}

/// Queues a delivery's event again as a new delivery (same event id and body,
/// fresh attempts, due now): the one code path of the redeliver endpoint and
/// the dashboard.
pub(crate) async fn redeliver_delivery(
    state: &AppState,
    account_id: &str,
    hook_id: &str,
    delivery_id: &str,
) -> Result<Delivery, ApiError> {
    state
        .store
        .webhook(account_id, hook_id)
        .await?
        .ok_or_else(|| webhook_not_found(hook_id))?;
    let old = state
        .store
        .delivery(hook_id, delivery_id)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::DeliveryNotFound,
                format!("no delivery `{delivery_id}` for webhook `{hook_id}`"),
            )
        })?;
    let now = Utc::now();
    let fresh = Delivery {
        id: new_id("dlv")?,
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: Some(now),
        created_at: now,
        attempt_log: Vec::new(),
        ..old
    };
    state.store.save_deliveries(vec![fresh.clone()]).await?;
    Ok(fresh)
}
