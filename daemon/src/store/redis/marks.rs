//! Triage marks: a site's marks are one hash `site:{id}:marks`, fingerprint ->
//! the mark (JSON). `put_mark.lua` checks the per-site cap and writes in one
//! step on the server, so racing writers cannot pass the cap.

use std::collections::HashMap;

use super::*;
use crate::store::{MarkPut, SiteMark};

static PUT_MARK: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("lua/put_mark.lua")));

impl RedisBackend {
    fn marks_key(&self, site_id: &str) -> String {
        self.key_name(&["site", site_id, "marks"])
    }
}

pub(super) async fn put_mark(this: &RedisBackend, mark: SiteMark, max: usize) -> Result<MarkPut> {
    // A stored mark of another account under this site id is not the
    // caller's to replace (site ids are unique across accounts).
    if let Some(old) = stored(this, &mark.site_id, &mark.fingerprint).await? {
        if old.account_id != mark.account_id {
            return Err(not_found("site", &mark.site_id));
        }
    }
    let mut conn = this.c();
    let outcome: i64 = PUT_MARK
        .key(this.marks_key(&mark.site_id))
        .arg(&mark.fingerprint)
        .arg(json(&mark)?)
        .arg(max)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(match outcome {
        1 => MarkPut::Created,
        0 => MarkPut::Updated,
        _ => MarkPut::Full,
    })
}

async fn stored(this: &RedisBackend, site_id: &str, fingerprint: &str) -> Result<Option<SiteMark>> {
    let mut conn = this.c();
    let raw: Option<String> = conn
        .hget(this.marks_key(site_id), fingerprint)
        .await
        .map_err(redis_err)?;
    raw.map(|r| parse::<SiteMark>(&r)).transpose()
}

pub(super) async fn mark(
    this: &RedisBackend,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<Option<SiteMark>> {
    Ok(stored(this, site_id, fingerprint)
        .await?
        .filter(|m| m.account_id == account_id))
}

pub(super) async fn list_marks(
    this: &RedisBackend,
    account_id: &str,
    site_id: &str,
) -> Result<Vec<SiteMark>> {
    let mut conn = this.c();
    let all: HashMap<String, String> = conn
        .hgetall(this.marks_key(site_id))
        .await
        .map_err(redis_err)?;
    let mut out = Vec::with_capacity(all.len());
    for raw in all.values() {
        let m: SiteMark = parse(raw)?;
        if m.account_id == account_id {
            out.push(m);
        }
    }
    out.sort_by(|a, b| a.fingerprint.cmp(&b.fingerprint));
    Ok(out)
}

pub(super) async fn delete_mark(
    this: &RedisBackend,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<bool> {
    if mark(this, account_id, site_id, fingerprint)
        .await?
        .is_none()
    {
        return Ok(false);
    }
    let mut conn = this.c();
    let removed: u64 = conn
        .hdel(this.marks_key(site_id), fingerprint)
        .await
        .map_err(redis_err)?;
    Ok(removed > 0)
}

/// Removes every mark of `site_id` (one hash).
pub(super) async fn delete_site_marks(this: &RedisBackend, site_id: &str) -> Result<()> {
    let mut conn = this.c();
    let _: u64 = conn.del(this.marks_key(site_id)).await.map_err(redis_err)?;
    Ok(())
}
