//! Webhooks and their outbox: the events every scan transition writes, deliveries and their due index.

use super::*;

/// The outbox key of a pending delivery: sorts by due time.
pub(super) fn due_key(d: &Delivery) -> Option<String> {
    match (d.status, d.next_attempt_at) {
        (DeliveryStatus::Pending, Some(at)) => {
            Some(format!("{:020}/{}", at.timestamp_micros().max(0), d.id))
        }
        _ => None,
    }
}

/// Saves deliveries (new or updated) in `txn`, with their delivery-log index
/// entry and their outbox entry (kept only while pending).
pub(super) fn put_deliveries(txn: &redb::WriteTransaction, deliveries: &[Delivery]) -> Result<()> {
    let mut t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
    let mut index = txn.open_table(WEBHOOK_DELIVERIES).map_err(Error::storage)?;
    let mut due = txn.open_table(OUTBOX_DUE).map_err(Error::storage)?;
    for d in deliveries {
        let old: Option<Delivery> = get(&t, &d.id)?;
        if let Some(k) = old.as_ref().and_then(due_key) {
            due.remove(k.as_str()).map_err(Error::storage)?;
        }
        if let Some(k) = due_key(d) {
            due.insert(k.as_str(), ()).map_err(Error::storage)?;
        }
        t.insert(d.id.as_str(), encode(d)?.as_slice())
            .map_err(Error::storage)?;
        index
            .insert(format!("{}/{}", d.webhook_id, d.id).as_str(), ())
            .map_err(Error::storage)?;
    }
    Ok(())
}

/// The outbox half of a scan transition, inside the transition's own write
/// transaction: one pending delivery of the event "`scan` reached its status"
/// at `at` for each webhook of the account that wants it. Both commit
/// together or not at all, so a visible status always has its event.
pub(super) fn write_event(
    txn: &redb::WriteTransaction,
    scan: &Scan,
    at: DateTime<Utc>,
) -> Result<()> {
    let hooks = {
        let index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
        let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
        let mut hooks = Vec::new();
        for id in children(&index, &scan.account_id)? {
            match get::<Webhook>(&t, &id) {
                Ok(Some(w)) => hooks.push(w),
                Ok(None) => {}
                // Undeliverable anyway: it must not block the scan's transition.
                Err(Error::Corrupt(e)) => {
                    tracing::warn!(webhook = %id, error = %e, "skipping a corrupt webhook record")
                }
                Err(e) => return Err(e),
            }
        }
        hooks
    };
    if hooks.is_empty() {
        return Ok(());
    }
    let event_id = new_id("evt")?;
    let deliveries = crate::webhooks::event_deliveries(&hooks, scan, &event_id, at)?;
    put_deliveries(txn, &deliveries)
}

pub(super) async fn create_webhook(this: &Embedded, webhook: Webhook) -> Result<Webhook> {
    this.write(move |txn| {
        {
            let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            if accounts
                .get(webhook.account_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("account", &webhook.account_id));
            }
            let mut t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
            t.insert(webhook.id.as_str(), encode(&webhook)?.as_slice())
                .map_err(Error::storage)?;
            let mut index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
            index
                .insert(
                    format!("{}/{}", webhook.account_id, webhook.id).as_str(),
                    (),
                )
                .map_err(Error::storage)?;
        }
        Ok(webhook)
    })
    .await
}

pub(super) async fn webhook(
    this: &Embedded,
    account_id: &str,
    id: &str,
) -> Result<Option<Webhook>> {
    let account_id = account_id.to_string();
    Ok(this
        .webhook_by_id(id)
        .await?
        .filter(|w| w.account_id == account_id))
}

pub(super) async fn webhook_by_id(this: &Embedded, id: &str) -> Result<Option<Webhook>> {
    let id = id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn list_webhooks(this: &Embedded, account_id: &str) -> Result<Vec<Webhook>> {
    let account_id = account_id.to_string();
    this.read(move |txn| {
        let index = txn.open_table(ACCOUNT_WEBHOOKS).map_err(Error::storage)?;
        let t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
        let mut out = Vec::new();
        for id in children(&index, &account_id)? {
            if let Some(w) = get::<Webhook>(&t, &id)? {
                out.push(w);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn save_webhook(this: &Embedded, webhook: Webhook) -> Result<Webhook> {
    this.write(move |txn| {
        {
            let mut t = txn.open_table(WEBHOOKS).map_err(Error::storage)?;
            if t.get(webhook.id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("webhook", &webhook.id));
            }
            t.insert(webhook.id.as_str(), encode(&webhook)?.as_slice())
                .map_err(Error::storage)?;
        }
        Ok(webhook)
    })
    .await
}

pub(super) async fn delete_webhook(this: &Embedded, account_id: &str, id: &str) -> Result<bool> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.write(move |txn| {
        let found = remove_owned(
            txn,
            WEBHOOKS,
            ACCOUNT_WEBHOOKS,
            &account_id,
            &id,
            |w: &Webhook| &w.account_id,
        )?;
        Ok(found)
    })
    .await
}

pub(super) async fn save_deliveries(this: &Embedded, deliveries: Vec<Delivery>) -> Result<()> {
    this.write(move |txn| {
        put_deliveries(txn, &deliveries)?;
        Ok(())
    })
    .await
}

pub(super) async fn delivery(
    this: &Embedded,
    webhook_id: &str,
    id: &str,
) -> Result<Option<Delivery>> {
    let (webhook_id, id) = (webhook_id.to_string(), id.to_string());
    this.read(move |txn| {
        let t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
        let d: Option<Delivery> = get(&t, &id)?;
        Ok(d.filter(|d| d.webhook_id == webhook_id))
    })
    .await
}

pub(super) async fn list_deliveries(
    this: &Embedded,
    webhook_id: &str,
    limit: usize,
) -> Result<Vec<Delivery>> {
    let webhook_id = webhook_id.to_string();
    this.read(move |txn| {
        let index = txn.open_table(WEBHOOK_DELIVERIES).map_err(Error::storage)?;
        let t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
        let mut out = Vec::new();
        for id in children(&index, &webhook_id)?.iter().rev().take(limit) {
            if let Some(d) = get::<Delivery>(&t, id)? {
                out.push(d);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn claim_due_deliveries(
    this: &Embedded,
    now: DateTime<Utc>,
    lease_until: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<Delivery>> {
    this.write(move |txn| {
        let mut claimed = Vec::new();
        {
            let mut t = txn.open_table(DELIVERIES).map_err(Error::storage)?;
            let mut due = txn.open_table(OUTBOX_DUE).map_err(Error::storage)?;
            let end = format!("{:020}0", now.timestamp_micros().max(0));
            let mut keys = Vec::new();
            for entry in due.range::<&str>(..end.as_str()).map_err(Error::storage)? {
                let (k, _) = entry.map_err(Error::storage)?;
                keys.push(k.value().to_string());
                if keys.len() >= limit {
                    break;
                }
            }
            for k in keys {
                due.remove(k.as_str()).map_err(Error::storage)?;
                let Some((_, id)) = k.split_once('/') else {
                    continue;
                };
                let Some(mut d) = get::<Delivery>(&t, id)? else {
                    continue;
                };
                d.next_attempt_at = Some(lease_until);
                if let Some(nk) = due_key(&d) {
                    due.insert(nk.as_str(), ()).map_err(Error::storage)?;
                }
                t.insert(d.id.as_str(), encode(&d)?.as_slice())
                    .map_err(Error::storage)?;
                claimed.push(d);
            }
        }
        Ok(claimed)
    })
    .await
}
