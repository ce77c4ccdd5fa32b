//! Sites, with their per-account index.

use super::*;

pub(super) async fn create_site(this: &Embedded, site: Site) -> Result<Site> {
    this.write(move |txn| {
        {
            let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            if accounts
                .get(site.account_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("account", &site.account_id));
            }
            let mut sites = txn.open_table(SITES).map_err(Error::storage)?;
            sites
                .insert(site.id.as_str(), encode(&site)?.as_slice())
                .map_err(Error::storage)?;
            let mut index = txn.open_table(ACCOUNT_SITES).map_err(Error::storage)?;
            index
                .insert(format!("{}/{}", site.account_id, site.id).as_str(), ())
                .map_err(Error::storage)?;
        }
        Ok(site)
    })
    .await
}

pub(super) async fn site(this: &Embedded, account_id: &str, id: &str) -> Result<Option<Site>> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.read(move |txn| {
        let t = txn.open_table(SITES).map_err(Error::storage)?;
        let site: Option<Site> = get(&t, &id)?;
        Ok(site.filter(|s| s.account_id == account_id))
    })
    .await
}

pub(super) async fn list_sites(this: &Embedded, account_id: &str) -> Result<Vec<Site>> {
    let account_id = account_id.to_string();
    this.read(move |txn| {
        let index = txn.open_table(ACCOUNT_SITES).map_err(Error::storage)?;
        let sites = txn.open_table(SITES).map_err(Error::storage)?;
        let mut out = Vec::new();
        for id in children(&index, &account_id)? {
            if let Some(site) = get::<Site>(&sites, &id)? {
                out.push(site);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn delete_site(this: &Embedded, account_id: &str, id: &str) -> Result<bool> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.write(move |txn| {
        let found = remove_owned(txn, SITES, ACCOUNT_SITES, &account_id, &id, |s: &Site| {
            &s.account_id
        })?;
        Ok(found)
    })
    .await
}

pub(super) async fn update_site(this: &Embedded, site: Site) -> Result<Option<Site>> {
    this.write(move |txn| {
        let mut sites = txn.open_table(SITES).map_err(Error::storage)?;
        let old: Option<Site> = get(&sites, &site.id)?;
        if old.is_none_or(|o| o.account_id != site.account_id) {
            return Ok(None);
        }
        sites
            .insert(site.id.as_str(), encode(&site)?.as_slice())
            .map_err(Error::storage)?;
        Ok(Some(site))
    })
    .await
}
