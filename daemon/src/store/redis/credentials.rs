//! Site credentials, sealed (see `crate::secret_key`): `credentials:{site}`
//! (string, JSON) and the set `credentials` of the sites that have them.

use super::*;
use crate::store::StoredCredentials;

pub(super) static PUT_CREDENTIALS: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/put_credentials.lua")));

pub(super) async fn put_credentials(this: &RedisBackend, creds: StoredCredentials) -> Result<bool> {
    let mut conn = this.c();
    // One script: the site's account is checked where the write happens, so
    // credentials never land on a site removed meanwhile or of another account.
    let saved: i64 = PUT_CREDENTIALS
        .key(this.key_name(&["site", &creds.site_id]))
        .key(this.key_name(&["credentials", &creds.site_id]))
        .key(this.key_name(&["credentials"]))
        .arg(&creds.account_id)
        .arg(json(&creds)?)
        .arg(&creds.site_id)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(saved == 1)
}

pub(super) async fn credentials(
    this: &RedisBackend,
    site_id: &str,
) -> Result<Option<StoredCredentials>> {
    let mut conn = this.c();
    let raw: Option<String> = conn
        .get(this.key_name(&["credentials", site_id]))
        .await
        .map_err(redis_err)?;
    raw.as_deref().map(parse).transpose()
}

pub(super) async fn delete_credentials(this: &RedisBackend, site_id: &str) -> Result<bool> {
    let mut conn = this.c();
    let (deleted, _): (i64, i64) = redis::pipe()
        .atomic()
        .del(this.key_name(&["credentials", site_id]))
        .srem(this.key_name(&["credentials"]), site_id)
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(deleted == 1)
}

pub(super) async fn any_credentials(this: &RedisBackend) -> Result<bool> {
    let mut conn = this.c();
    let n: u64 = conn
        .scard(this.key_name(&["credentials"]))
        .await
        .map_err(redis_err)?;
    Ok(n > 0)
}
