//! The API's `Idempotency-Key` records (`idem:*`).

use super::*;

pub(super) static CLAIM_IDEMPOTENCY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/claim_idempotency.lua")));

pub(super) static COMPLETE_IDEMPOTENCY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/complete_idempotency.lua")));

pub(super) async fn claim_idempotency_key(
    this: &RedisBackend,
    account_id: &str,
    key_hash: &str,
    record: IdempotencyRecord,
    at: DateTime<Utc>,
) -> Result<IdempotencyClaim> {
    let (index, key, prefix) = this.idempotency_keys(account_id, key_hash);
    let ttl = IDEMPOTENCY_TTL;
    let mut conn = this.c();
    let found: Option<String> = CLAIM_IDEMPOTENCY
        .key(index)
        .key(key)
        .arg(at.timestamp_micros())
        .arg(ttl.num_microseconds().unwrap_or(i64::MAX))
        .arg(MAX_IDEMPOTENCY_KEYS)
        .arg(json(&record)?)
        .arg(key_hash)
        .arg(ttl.num_milliseconds())
        .arg(prefix)
        .arg(record.lease_until.timestamp_micros())
        .arg(json(&record.created_at)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    match found {
        Some(raw) => Ok(IdempotencyClaim::Existing(parse(&raw)?)),
        None => Ok(IdempotencyClaim::Claimed),
    }
}

pub(super) async fn complete_idempotency_key(
    this: &RedisBackend,
    account_id: &str,
    key_hash: &str,
    record: IdempotencyRecord,
) -> Result<()> {
    let (_, key, _) = this.idempotency_keys(account_id, key_hash);
    let mut conn = this.c();
    let _: i64 = COMPLETE_IDEMPOTENCY
        .key(key)
        .arg(json(&record)?)
        .arg(json(&record.created_at)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(())
}

pub(super) async fn release_idempotency_key(
    this: &RedisBackend,
    account_id: &str,
    key_hash: &str,
) -> Result<()> {
    let (index, key, _) = this.idempotency_keys(account_id, key_hash);
    let mut conn = this.c();
    let _: () = redis::pipe()
        .atomic()
        .del(&key)
        .ignore()
        .zrem(&index, key_hash)
        .ignore()
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(())
}

impl RedisBackend {
    /// The index and record keys of an account's idempotency key.
    pub(super) fn idempotency_keys(
        &self,
        account_id: &str,
        key_hash: &str,
    ) -> (String, String, String) {
        let prefix = self.key_name(&["idem", account_id, ""]);
        (
            self.key_name(&["idem", account_id]),
            format!("{prefix}{key_hash}"),
            prefix,
        )
    }
}
