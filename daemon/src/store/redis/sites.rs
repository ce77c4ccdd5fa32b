//! Sites (`site:*`, `account:{id}:sites`).

use super::*;

pub(super) static CREATE_SITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/create_site.lua")));

pub(super) static DELETE_SITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/delete_site.lua")));

pub(super) async fn create_site(this: &RedisBackend, site: Site) -> Result<Site> {
    let mut conn = this.c();
    let created: i64 = CREATE_SITE
        .key(this.key_name(&["account", &site.account_id]))
        .key(this.key_name(&["site", &site.id]))
        .key(this.key_name(&["account", &site.account_id, "sites"]))
        .arg(&site.id)
        .arg(&site.account_id)
        .arg(json(&site)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if created == 0 {
        return Err(not_found("account", &site.account_id));
    }
    Ok(site)
}

pub(super) async fn site(this: &RedisBackend, account_id: &str, id: &str) -> Result<Option<Site>> {
    Ok(this
        .load_site(id)
        .await?
        .filter(|s| s.account_id == account_id))
}

pub(super) async fn list_sites(this: &RedisBackend, account_id: &str) -> Result<Vec<Site>> {
    let ids = this.ids_of(&["account", account_id, "sites"]).await?;
    this.load_sites(&ids).await
}

pub(super) async fn delete_site(this: &RedisBackend, account_id: &str, id: &str) -> Result<bool> {
    let mut conn = this.c();
    let deleted: i64 = DELETE_SITE
        .key(this.key_name(&["site", id]))
        .key(this.key_name(&["account", account_id, "sites"]))
        .arg(id)
        .arg(account_id)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(deleted == 1)
}

pub(super) static UPDATE_SITE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/update_site.lua")));

pub(super) async fn update_site(this: &RedisBackend, site: Site) -> Result<Option<Site>> {
    let mut conn = this.c();
    // One script: a site deleted meanwhile is not written back.
    let updated: i64 = UPDATE_SITE
        .key(this.key_name(&["site", &site.id]))
        .arg(&site.account_id)
        .arg(json(&site)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok((updated == 1).then_some(site))
}

impl RedisBackend {
    pub(super) async fn load_site(&self, id: &str) -> Result<Option<Site>> {
        let mut conn = self.c();
        let raw: Option<String> = conn
            .hget(self.key_name(&["site", id]), "json")
            .await
            .map_err(redis_err)?;
        raw.as_deref().map(parse).transpose()
    }
}

impl RedisBackend {
    /// The sites of `ids` that exist, in one pipelined round trip.
    pub(super) async fn load_sites(&self, ids: &[String]) -> Result<Vec<Site>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hget(self.key_name(&["site", id]), "json");
        }
        let mut conn = self.c();
        let raws: Vec<Option<String>> = pipe.query_async(&mut conn).await.map_err(redis_err)?;
        raws.iter().flatten().map(|raw| parse(raw)).collect()
    }
}
