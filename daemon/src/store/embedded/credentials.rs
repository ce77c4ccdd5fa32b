//! Site credentials, sealed (see `crate::secret_key`): one record per site.

use super::*;
use crate::store::StoredCredentials;

/// Site id -> [`StoredCredentials`] (JSON; the secrets in it sealed).
pub(crate) const CREDENTIALS: TableDefinition<&str, &[u8]> = TableDefinition::new("credentials");

/// Creates the table (at open), so reads never meet a missing table.
pub(super) fn create_tables(txn: &redb::WriteTransaction) -> Result<()> {
    txn.open_table(CREDENTIALS).map_err(Error::storage)?;
    Ok(())
}

pub(super) async fn put_credentials(this: &Embedded, creds: StoredCredentials) -> Result<bool> {
    this.write(move |txn| {
        // The site's account is checked in the same transaction as the write:
        // credentials never land on a site removed meanwhile, nor on another
        // account's.
        let sites = txn.open_table(SITES).map_err(Error::storage)?;
        let site: Option<Site> = get(&sites, &creds.site_id)?;
        if site.is_none_or(|s| s.account_id != creds.account_id) {
            return Ok(false);
        }
        let mut t = txn.open_table(CREDENTIALS).map_err(Error::storage)?;
        t.insert(creds.site_id.as_str(), encode(&creds)?.as_slice())
            .map_err(Error::storage)?;
        Ok(true)
    })
    .await
}

pub(super) async fn credentials(
    this: &Embedded,
    site_id: &str,
) -> Result<Option<StoredCredentials>> {
    let site_id = site_id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(CREDENTIALS).map_err(Error::storage)?;
        get(&t, &site_id)
    })
    .await
}

pub(super) async fn delete_credentials(this: &Embedded, site_id: &str) -> Result<bool> {
    let site_id = site_id.to_string();
    this.write(move |txn| {
        let mut t = txn.open_table(CREDENTIALS).map_err(Error::storage)?;
        let removed = t
            .remove(site_id.as_str())
            .map_err(Error::storage)?
            .is_some();
        Ok(removed)
    })
    .await
}

pub(super) async fn any_credentials(this: &Embedded) -> Result<bool> {
    this.read(move |txn| {
        let t = txn.open_table(CREDENTIALS).map_err(Error::storage)?;
        Ok(!t.is_empty().map_err(Error::storage)?)
    })
    .await
}
