//! Accounts and API keys (the key records, the hash index, the day's usage).

use super::*;

pub(super) async fn create_account(this: &Embedded, account: Account) -> Result<Account> {
    this.write(move |txn| {
        {
            let mut t = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            t.insert(account.id.as_str(), encode(&account)?.as_slice())
                .map_err(Error::storage)?;
        }
        Ok(account)
    })
    .await
}

pub(super) async fn account(this: &Embedded, id: &str) -> Result<Option<Account>> {
    let id = id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn create_key(this: &Embedded, key: ApiKey, secret_hash: &str) -> Result<ApiKey> {
    let hash = secret_hash.to_string();
    this.write(move |txn| {
        {
            let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            if accounts
                .get(key.account_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("account", &key.account_id));
            }
            let mut keys = txn.open_table(KEYS).map_err(Error::storage)?;
            keys.insert(key.id.as_str(), encode(&key)?.as_slice())
                .map_err(Error::storage)?;
            let mut hashes = txn.open_table(KEY_HASHES).map_err(Error::storage)?;
            hashes
                .insert(hash.as_str(), key.id.as_str())
                .map_err(Error::storage)?;
        }
        Ok(key)
    })
    .await
}

pub(super) async fn key_by_hash(this: &Embedded, secret_hash: &str) -> Result<Option<ApiKey>> {
    let hash = secret_hash.to_string();
    this.read(move |txn| {
        let hashes = txn.open_table(KEY_HASHES).map_err(Error::storage)?;
        let Some(id) = hashes.get(hash.as_str()).map_err(Error::storage)? else {
            return Ok(None);
        };
        let keys = txn.open_table(KEYS).map_err(Error::storage)?;
        get(&keys, id.value())
    })
    .await
}

pub(super) async fn key(this: &Embedded, id: &str) -> Result<Option<ApiKey>> {
    let id = id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(KEYS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn list_keys(this: &Embedded, account_id: Option<&str>) -> Result<Vec<ApiKey>> {
    let account_id = account_id.map(str::to_string);
    this.read(move |txn| {
        let t = txn.open_table(KEYS).map_err(Error::storage)?;
        let mut out = Vec::new();
        for entry in t.iter().map_err(Error::storage)? {
            let (_, v) = entry.map_err(Error::storage)?;
            let key: ApiKey = decode(v.value())?;
            if account_id.as_deref().is_none_or(|a| a == key.account_id) {
                out.push(key);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn revoke_key(this: &Embedded, id: &str, at: DateTime<Utc>) -> Result<ApiKey> {
    let id = id.to_string();
    this.write(move |txn| {
        let key = {
            let mut t = txn.open_table(KEYS).map_err(Error::storage)?;
            let mut key: ApiKey = get(&t, &id)?.ok_or_else(|| not_found("key", &id))?;
            if key.revoked_at.is_none() {
                key.revoked_at = Some(at);
                t.insert(id.as_str(), encode(&key)?.as_slice())
                    .map_err(Error::storage)?;
            }
            key
        };
        Ok(key)
    })
    .await
}

pub(super) async fn record_key_use(this: &Embedded, id: &str, at: DateTime<Utc>) -> Result<()> {
    let id = id.to_string();
    this.write(move |txn| {
        {
            let mut t = txn.open_table(KEYS).map_err(Error::storage)?;
            let mut key: ApiKey = get(&t, &id)?.ok_or_else(|| not_found("key", &id))?;
            key.last_used_at = Some(at);
            *key.usage.entry(day_key(at)).or_insert(0) += 1;
            t.insert(id.as_str(), encode(&key)?.as_slice())
                .map_err(Error::storage)?;
        }
        Ok(())
    })
    .await
}
