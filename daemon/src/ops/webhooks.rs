//! Webhooks: what a webhook may be (an https target the private-address
//! predicate allows, known event types, a short description), registering,
//! changing, removing them, rotating their secret, and their delivery log.
//! Delivery itself is `crate::webhooks`.

use chrono::Utc;

use crate::error::{Error, Problems, Result};
use crate::store::{new_id, Delivery, DeliveryStatus, Store, Webhook};
use crate::views::webhooks::{CreateWebhook, UpdateWebhook};
use crate::webhooks::{check_target, new_secret, EVENT_TYPES, ROTATION_OVERLAP};

/// Deliveries listed per request.
pub const DELIVERIES_LISTED: usize = 100;
/// Webhooks an account may register.
pub const MAX_WEBHOOKS: usize = 20;

fn validate_events(events: &[String]) -> Result<Vec<String>> {
    if events.is_empty() {
        return Err(Error::invalid(
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

fn validate_description(d: Option<String>) -> Result<Option<String>> {
    match d {
        Some(d) if d.chars().count() > 500 => {
            Err(Error::invalid("description", "at most 500 characters"))
        }
        other => Ok(other),
    }
}

fn validate_url(raw: &str, allow_private: bool) -> Result<String> {
    check_target(raw, allow_private)
        .map(|u| u.to_string())
        .map_err(|problem| Error::invalid("url", problem))
}

/// The account's webhooks, oldest first.
pub async fn list_webhooks(store: &dyn Store, account_id: &str) -> Result<Vec<Webhook>> {
    store.list_webhooks(account_id).await
}

/// One webhook of the account (`webhook` not found when it is none of its).
pub async fn webhook(store: &dyn Store, account_id: &str, hook_id: &str) -> Result<Webhook> {
    store
        .webhook(account_id, hook_id)
        .await?
        .ok_or_else(|| Error::not_found("webhook", hook_id))
}

/// Makes a new signing secret for a webhook of the account and returns the
/// record and the secret (shown once); the previous secret keeps signing
/// deliveries (a second `v1=`) for [`ROTATION_OVERLAP`].
pub async fn rotate_secret(
    store: &dyn Store,
    account_id: &str,
    hook_id: &str,
) -> Result<(Webhook, String)> {
    let mut hook = webhook(store, account_id, hook_id).await?;
    let now = Utc::now();
    let fresh = new_secret()?;
    hook.previous_secret = Some(std::mem::replace(&mut hook.secret, fresh.clone()));
    hook.previous_secret_expires_at = Some(
        now + chrono::Duration::from_std(ROTATION_OVERLAP).unwrap_or(chrono::Duration::hours(24)),
    );
    hook.updated_at = now;
    let hook = store.save_webhook(hook).await?;
    Ok((hook, fresh))
}

/// The newest [`DELIVERIES_LISTED`] deliveries of a webhook of the account,
/// newest first.
pub async fn list_deliveries(
    store: &dyn Store,
    account_id: &str,
    hook_id: &str,
) -> Result<Vec<Delivery>> {
    webhook(store, account_id, hook_id).await?;
    store.list_deliveries(hook_id, DELIVERIES_LISTED).await
}

/// Registers a webhook of `account_id` (its secret is in the record returned,
/// to show once).
pub async fn register_webhook(
    store: &dyn Store,
    allow_private: bool,
    account_id: &str,
    body: CreateWebhook,
) -> Result<Webhook> {
    // Every field is checked before answering: all problems at once.
    let mut problems = Problems::default();
    let url = problems.take("url", validate_url(&body.url, allow_private));
    let events = problems.take("events", validate_events(&body.events));
    let description = problems.take("description", validate_description(body.description));
    problems.finish()?;
    let (Some(url), Some(events), Some(description)) = (url, events, description) else {
        return Err(Error::Storage(
            "webhook fields vanished after validation".to_string(),
        ));
    };
    if let Some(site_id) = &body.site_id {
        store
            .site(account_id, site_id)
            .await?
            .ok_or_else(|| Error::not_found("site", site_id))?;
    }
    if store.list_webhooks(account_id).await?.len() >= MAX_WEBHOOKS {
        return Err(Error::invalid(
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
    store.create_webhook(hook).await
}

/// Changes a webhook of `account_id` (enabling clears the disabled reason).
pub async fn change_webhook(
    store: &dyn Store,
    allow_private: bool,
    account_id: &str,
    hook_id: &str,
    body: UpdateWebhook,
) -> Result<Webhook> {
    let mut hook = store
        .webhook(account_id, hook_id)
        .await?
        .ok_or_else(|| Error::not_found("webhook", hook_id))?;
    let mut problems = Problems::default();
    if let Some(url) = &body.url {
        if let Some(url) = problems.take("url", validate_url(url, allow_private)) {
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
    store.save_webhook(hook).await
}

/// Removes a webhook of `account_id` (`webhook` not found when none);
/// its pending deliveries are dropped.
pub async fn remove_webhook(store: &dyn Store, account_id: &str, hook_id: &str) -> Result<()> {
    if !store.delete_webhook(account_id, hook_id).await? {
        return Err(Error::not_found("webhook", hook_id));
    }
    Ok(())
}

/// Queues a delivery's event again as a new delivery (same event id and body,
/// fresh attempts, due now); `delivery` not found when the webhook has none
/// with this id.
pub async fn redeliver_delivery(
    store: &dyn Store,
    account_id: &str,
    hook_id: &str,
    delivery_id: &str,
) -> Result<Delivery> {
    store
        .webhook(account_id, hook_id)
        .await?
        .ok_or_else(|| Error::not_found("webhook", hook_id))?;
    let old = store
        .delivery(hook_id, delivery_id)
        .await?
        .ok_or_else(|| Error::not_found("delivery", delivery_id))?;
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
    store.save_deliveries(vec![fresh.clone()]).await?;
    Ok(fresh)
}
