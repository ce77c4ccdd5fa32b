//! The API's `Idempotency-Key` records.

use super::*;

/// The [`IDEMPOTENCY_ORDER`] key of a record.
pub(super) fn idempotency_order_key(
    account_id: &str,
    key_hash: &str,
    record: &IdempotencyRecord,
) -> String {
    let us = record.created_at.timestamp_micros().max(0) as u64;
    format!("{account_id}/{us:016x}/{key_hash}")
}

pub(super) async fn claim_idempotency_key(
    this: &Embedded,
    account_id: &str,
    key_hash: &str,
    record: IdempotencyRecord,
    at: DateTime<Utc>,
) -> Result<IdempotencyClaim> {
    let (account_id, key_hash) = (account_id.to_string(), key_hash.to_string());
    this.write(move |txn| {
        let claim = {
            let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
            let mut order = txn.open_table(IDEMPOTENCY_ORDER).map_err(Error::storage)?;
            // The account's keys, oldest first (at most the cap plus one).
            let (start, end) = (format!("{account_id}/"), format!("{account_id}0"));
            let mut kept: Vec<(String, i64)> = Vec::new();
            for entry in order
                .range::<&str>(start.as_str()..end.as_str())
                .map_err(Error::storage)?
            {
                let (k, _) = entry.map_err(Error::storage)?;
                let k = k.value().to_string();
                let us = k
                    .split('/')
                    .nth(1)
                    .and_then(|h| i64::from_str_radix(h, 16).ok())
                    .unwrap_or(0);
                kept.push((k, us));
            }
            let cutoff = (at - IDEMPOTENCY_TTL).timestamp_micros();
            let expired = kept.iter().take_while(|(_, us)| *us < cutoff).count();
            fn forget(
                order: &mut redb::Table<&str, ()>,
                records: &mut redb::Table<&str, &[u8]>,
                account_id: &str,
                k: &str,
            ) -> Result<()> {
                order.remove(k).map_err(Error::storage)?;
                if let Some(hash) = k.rsplit('/').next() {
                    records
                        .remove(format!("{account_id}/{hash}").as_str())
                        .map_err(Error::storage)?;
                }
                Ok(())
            }
            for (k, _) in &kept[..expired] {
                forget(&mut order, &mut records, &account_id, k)?;
            }
            let kept = &kept[expired..];
            let id = format!("{account_id}/{key_hash}");
            let existing: Option<IdempotencyRecord> = get(&records, &id)?;
            match existing {
                Some(r) if r.response.is_some() || r.lease_until > at => {
                    IdempotencyClaim::Existing(r)
                }
                stale => {
                    let stale_key =
                        stale.map(|r| idempotency_order_key(&account_id, &key_hash, &r));
                    let others: Vec<&String> = kept
                        .iter()
                        .map(|(k, _)| k)
                        .filter(|k| Some(*k) != stale_key.as_ref())
                        .collect();
                    if let Some(k) = &stale_key {
                        forget(&mut order, &mut records, &account_id, k)?;
                    }
                    // Room for this one under the cap: the oldest go.
                    let over = (others.len() + 1).saturating_sub(MAX_IDEMPOTENCY_KEYS);
                    for k in others.iter().take(over) {
                        forget(&mut order, &mut records, &account_id, k)?;
                    }
                    records
                        .insert(id.as_str(), encode(&record)?.as_slice())
                        .map_err(Error::storage)?;
                    order
                        .insert(
                            idempotency_order_key(&account_id, &key_hash, &record).as_str(),
                            (),
                        )
                        .map_err(Error::storage)?;
                    IdempotencyClaim::Claimed
                }
            }
        };
        Ok(claim)
    })
    .await
}

pub(super) async fn complete_idempotency_key(
    this: &Embedded,
    account_id: &str,
    key_hash: &str,
    record: IdempotencyRecord,
) -> Result<()> {
    let id = format!("{account_id}/{key_hash}");
    this.write(move |txn| {
        {
            let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
            let held: Option<IdempotencyRecord> = get(&records, &id)?;
            // Only the claim it answers (same first use), never one that
            // replaced it after the lease passed.
            if held.is_some_and(|h| h.created_at == record.created_at) {
                records
                    .insert(id.as_str(), encode(&record)?.as_slice())
                    .map_err(Error::storage)?;
            }
        }
        Ok(())
    })
    .await
}

pub(super) async fn release_idempotency_key(
    this: &Embedded,
    account_id: &str,
    key_hash: &str,
) -> Result<()> {
    let (account_id, key_hash) = (account_id.to_string(), key_hash.to_string());
    this.write(move |txn| {
        {
            let mut records = txn.open_table(IDEMPOTENCY).map_err(Error::storage)?;
            let id = format!("{account_id}/{key_hash}");
            let held: Option<IdempotencyRecord> = get(&records, &id)?;
            if let Some(r) = held {
                records.remove(id.as_str()).map_err(Error::storage)?;
                let mut order = txn.open_table(IDEMPOTENCY_ORDER).map_err(Error::storage)?;
                order
                    .remove(idempotency_order_key(&account_id, &key_hash, &r).as_str())
                    .map_err(Error::storage)?;
            }
        }
        Ok(())
    })
    .await
}
