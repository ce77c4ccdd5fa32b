//! Accounts and API keys (`account:*`, `key:*`, `keyhash:*`, the key indexes).

use super::*;

pub(super) static CREATE_KEY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/create_key.lua")));

pub(super) static REVOKE_KEY: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/revoke_key.lua")));

pub(super) static RECORD_USE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/record_use.lua")));

pub(super) fn key_from_fields(fields: &[String], usage: Vec<(String, u64)>) -> Result<ApiKey> {
    let get = |name: &str| {
        fields
            .chunks(2)
            .find(|kv| kv.first().map(String::as_str) == Some(name))
            .and_then(|kv| kv.get(1))
            .filter(|v| !v.is_empty())
    };
    let base = get("json").ok_or_else(|| Error::Corrupt("key without its record".into()))?;
    let mut key: ApiKey = parse(base)?;
    if let Some(s) = get("revoked_at") {
        key.revoked_at = Some(parse(s)?);
    }
    if let Some(s) = get("last_used_at") {
        key.last_used_at = Some(parse(s)?);
    }
    for (day, n) in usage {
        key.usage.insert(day, n);
    }
    Ok(key)
}

pub(super) async fn create_account(this: &RedisBackend, account: Account) -> Result<Account> {
    let mut conn = this.c();
    let _: () = conn
        .set(this.key_name(&["account", &account.id]), json(&account)?)
        .await
        .map_err(redis_err)?;
    Ok(account)
}

pub(super) async fn account(this: &RedisBackend, id: &str) -> Result<Option<Account>> {
    let mut conn = this.c();
    let raw: Option<String> = conn
        .get(this.key_name(&["account", id]))
        .await
        .map_err(redis_err)?;
    raw.as_deref().map(parse).transpose()
}

pub(super) async fn create_key(
    this: &RedisBackend,
    key: ApiKey,
    secret_hash: &str,
) -> Result<ApiKey> {
    let mut conn = this.c();
    let created: i64 = CREATE_KEY
        .key(this.key_name(&["account", &key.account_id]))
        .key(this.key_name(&["key", &key.id]))
        .key(this.key_name(&["keyhash", secret_hash]))
        .key(this.key_name(&["keys"]))
        .key(this.key_name(&["account", &key.account_id, "keys"]))
        .arg(&key.id)
        .arg(&key.account_id)
        .arg(json(&key)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if created == 0 {
        return Err(not_found("account", &key.account_id));
    }
    Ok(key)
}

pub(super) async fn key_by_hash(this: &RedisBackend, secret_hash: &str) -> Result<Option<ApiKey>> {
    let mut conn = this.c();
    let id: Option<String> = conn
        .get(this.key_name(&["keyhash", secret_hash]))
        .await
        .map_err(redis_err)?;
    match id {
        Some(id) => this.load_key(&id).await,
        None => Ok(None),
    }
}

pub(super) async fn key(this: &RedisBackend, id: &str) -> Result<Option<ApiKey>> {
    this.load_key(id).await
}

pub(super) async fn list_keys(
    this: &RedisBackend,
    account_id: Option<&str>,
) -> Result<Vec<ApiKey>> {
    let ids = match account_id {
        Some(acc) => this.ids_of(&["account", acc, "keys"]).await?,
        None => this.ids_of(&["keys"]).await?,
    };
    this.load_keys(&ids).await
}

pub(super) async fn revoke_key(this: &RedisBackend, id: &str, at: DateTime<Utc>) -> Result<ApiKey> {
    let mut conn = this.c();
    let found: i64 = REVOKE_KEY
        .key(this.key_name(&["key", id]))
        .arg(json(&at)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if found == 0 {
        return Err(not_found("key", id));
    }
    this.load_key(id).await?.ok_or_else(|| not_found("key", id))
}

pub(super) async fn record_key_use(this: &RedisBackend, id: &str, at: DateTime<Utc>) -> Result<()> {
    let mut conn = this.c();
    let found: i64 = RECORD_USE
        .key(this.key_name(&["key", id]))
        .key(this.key_name(&["key", id, "usage"]))
        .arg(json(&at)?)
        .arg(day_key(at))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if found == 0 {
        return Err(not_found("key", id));
    }
    Ok(())
}

impl RedisBackend {
    pub(super) async fn load_key(&self, id: &str) -> Result<Option<ApiKey>> {
        let mut conn = self.c();
        let (fields, usage): (Vec<String>, Vec<(String, u64)>) = redis::pipe()
            .hgetall(self.key_name(&["key", id]))
            .hgetall(self.key_name(&["key", id, "usage"]))
            .query_async(&mut conn)
            .await
            .map_err(redis_err)?;
        if fields.is_empty() {
            return Ok(None);
        }
        key_from_fields(&fields, usage).map(Some)
    }
}

impl RedisBackend {
    /// The keys of `ids` (and their usage), in one pipelined round trip.
    pub(super) async fn load_keys(&self, ids: &[String]) -> Result<Vec<ApiKey>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.key_name(&["key", id]))
                .hgetall(self.key_name(&["key", id, "usage"]));
        }
        let mut conn = self.c();
        let replies: Vec<redis::Value> = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        let mut out = Vec::new();
        for pair in replies.chunks(2) {
            let bad = |e: redis::ParsingError| Error::Storage(format!("redis: {e}"));
            let fields: Vec<String> = redis::from_redis_value_ref(&pair[0]).map_err(bad)?;
            let usage: Vec<(String, u64)> = redis::from_redis_value_ref(&pair[1]).map_err(bad)?;
            if !fields.is_empty() {
                out.push(key_from_fields(&fields, usage)?);
            }
        }
        Ok(out)
    }
}
