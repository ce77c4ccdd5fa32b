//! The webhook resources as the API shows and accepts them: the webhook (its
//! secret only in the answers of creation and rotation), a delivery with its
//! attempt log, and the bodies of `POST` and `PATCH /webhooks`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::{Delivery, DeliveryAttempt, DeliveryStatus, Webhook};

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
    /// Event types: `scan.queued`, `scan.started`, `scan.completed`, `scan.failed`, `scan.canceled`, `scan.regressed`.
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
