//! Webhooks, deliveries and the outbox.

use super::*;

pub(super) static CLAIM_DUE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/claim_due.lua")));

/// Decodes a stored delivery. One written by a transition script carries the
/// scan's hash fields (`scan_fields`) instead of a body: the body is rendered
/// from them here with [`crate::webhooks::event_body`] (deterministic, so every
/// read gives the same bytes), and stored as such the first time the delivery
/// is saved after an attempt.
pub(super) fn delivery_from_stored(raw: &str) -> Result<Delivery> {
    let corrupt = |e: serde_json::Error| Error::Corrupt(format!("delivery: {e}"));
    let mut value: serde_json::Value = serde_json::from_str(raw).map_err(corrupt)?;
    if let Some(record) = value.as_object_mut() {
        if let Some(fields) = record.remove("scan_fields") {
            let fields: std::collections::BTreeMap<String, String> =
                serde_json::from_value(fields).map_err(corrupt)?;
            let flat: Vec<String> = fields.into_iter().flat_map(|(k, v)| [k, v]).collect();
            let scan = scan_from_fields(&flat)?;
            let event_id = record
                .get("event_id")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| Error::Corrupt("delivery without its event id".into()))?;
            let created: DateTime<Utc> = record
                .get("created_at")
                .cloned()
                .map(serde_json::from_value)
                .transpose()
                .map_err(corrupt)?
                .ok_or_else(|| Error::Corrupt("delivery without its time".into()))?;
            let body = crate::webhooks::event_body(event_id, created, &scan)?;
            record.insert("payload".into(), serde_json::Value::String(body));
        }
    }
    serde_json::from_value(value).map_err(corrupt)
}

impl RedisBackend {
    /// The deliveries `ids` (gone ones skipped), read with one `MGET`.
    pub(super) async fn load_deliveries(&self, ids: &[String]) -> Result<Vec<Delivery>> {
        let keys: Vec<String> = ids
            .iter()
            .map(|id| self.key_name(&["delivery", id]))
            .collect();
        let mut out = Vec::new();
        for raw in self.strings(&keys).await?.into_iter().flatten() {
            out.push(delivery_from_stored(&raw)?);
        }
        Ok(out)
    }

    pub(super) async fn load_delivery(&self, id: &str) -> Result<Option<Delivery>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .get(self.key_name(&["delivery", id]))
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(delivery_from_stored).transpose()
    }
}

pub(super) async fn create_webhook(this: &RedisBackend, webhook: Webhook) -> Result<Webhook> {
    if this.account(&webhook.account_id).await?.is_none() {
        return Err(not_found("account", &webhook.account_id));
    }
    let mut conn = this.c();
    let _: () = redis::pipe()
        .atomic()
        .set(this.key_name(&["webhook", &webhook.id]), json(&webhook)?)
        .zadd(
            this.key_name(&["account", &webhook.account_id, "webhooks"]),
            &webhook.id,
            0,
        )
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(webhook)
}

pub(super) async fn webhook(
    this: &RedisBackend,
    account_id: &str,
    id: &str,
) -> Result<Option<Webhook>> {
    Ok(this
        .webhook_by_id(id)
        .await?
        .filter(|w| w.account_id == account_id))
}

pub(super) async fn webhook_by_id(this: &RedisBackend, id: &str) -> Result<Option<Webhook>> {
    let mut conn = this.c();
    let raw: Option<String> = conn
        .get(this.key_name(&["webhook", id]))
        .await
        .map_err(redis_err)?;
    raw.as_deref().map(parse).transpose()
}

pub(super) async fn list_webhooks(this: &RedisBackend, account_id: &str) -> Result<Vec<Webhook>> {
    let ids = this.ids_of(&["account", account_id, "webhooks"]).await?;
    let keys: Vec<String> = ids
        .iter()
        .map(|id| this.key_name(&["webhook", id]))
        .collect();
    let mut out = Vec::new();
    for raw in this.strings(&keys).await?.into_iter().flatten() {
        out.push(parse(&raw)?);
    }
    Ok(out)
}

pub(super) async fn save_webhook(this: &RedisBackend, webhook: Webhook) -> Result<Webhook> {
    let mut conn = this.c();
    // SET XX: only replaces an existing webhook.
    let done: Option<String> = redis::cmd("SET")
        .arg(this.key_name(&["webhook", &webhook.id]))
        .arg(json(&webhook)?)
        .arg("XX")
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if done.is_none() {
        return Err(not_found("webhook", &webhook.id));
    }
    Ok(webhook)
}

pub(super) async fn delete_webhook(
    this: &RedisBackend,
    account_id: &str,
    id: &str,
) -> Result<bool> {
    if this.webhook(account_id, id).await?.is_none() {
        return Ok(false);
    }
    let mut conn = this.c();
    let _: () = redis::pipe()
        .atomic()
        .del(this.key_name(&["webhook", id]))
        .zrem(this.key_name(&["account", account_id, "webhooks"]), id)
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(true)
}

pub(super) async fn save_deliveries(this: &RedisBackend, deliveries: Vec<Delivery>) -> Result<()> {
    if deliveries.is_empty() {
        return Ok(());
    }
    let mut pipe = redis::pipe();
    pipe.atomic();
    for d in &deliveries {
        pipe.set(this.key_name(&["delivery", &d.id]), json(d)?)
            .ignore()
            .zadd(
                this.key_name(&["webhook", &d.webhook_id, "deliveries"]),
                &d.id,
                0,
            )
            .ignore();
        match (d.status, d.next_attempt_at) {
            (DeliveryStatus::Pending, Some(at)) => pipe
                .zadd(this.key_name(&["outbox"]), &d.id, at.timestamp_micros())
                .ignore(),
            _ => pipe.zrem(this.key_name(&["outbox"]), &d.id).ignore(),
        };
    }
    let mut conn = this.c();
    let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
    Ok(())
}

pub(super) async fn delivery(
    this: &RedisBackend,
    webhook_id: &str,
    id: &str,
) -> Result<Option<Delivery>> {
    Ok(this
        .load_delivery(id)
        .await?
        .filter(|d| d.webhook_id == webhook_id))
}

pub(super) async fn list_deliveries(
    this: &RedisBackend,
    webhook_id: &str,
    limit: usize,
) -> Result<Vec<Delivery>> {
    let mut conn = this.c();
    let ids: Vec<String> = conn
        .zrevrangebylex_limit(
            this.key_name(&["webhook", webhook_id, "deliveries"]),
            "+",
            "-",
            0,
            limit as isize,
        )
        .await
        .map_err(redis_err)?;
    this.load_deliveries(&ids).await
}

pub(super) async fn claim_due_deliveries(
    this: &RedisBackend,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<Delivery>> {
    let mut conn = this.c();
    let ids: Vec<String> = CLAIM_DUE
        .key(this.key_name(&["outbox"]))
        .arg(now.timestamp_micros())
        .arg(lease_until.timestamp_micros())
        .arg(limit)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    let mut out = Vec::new();
    for id in ids {
        match this.load_delivery(&id).await? {
            Some(mut d) => {
                d.next_attempt_at = Some(lease_until);
                out.push(d);
            }
            None => {
                let _: () = conn
                    .zrem(this.key_name(&["outbox"]), &id)
                    .await
                    .map_err(redis_err)?;
            }
        }
    }
    Ok(out)
}
