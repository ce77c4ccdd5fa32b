//! Triage marks: one table keyed `site_id/fingerprint` (ids and fingerprints
//! never contain `/`), so a site's marks are one range scan in fingerprint
//! order. The cap per site is checked in the same write transaction as the
//! insert; redb serializes writes, so racing writers cannot pass it.

use super::*;
use crate::store::{MarkPut, SiteMark};

/// `site_id/fingerprint` -> the mark (JSON).
pub(crate) const MARKS: TableDefinition<&str, &[u8]> = TableDefinition::new("marks");

/// Creates the table (at open), so reads never meet a missing table.
pub(super) fn create_tables(txn: &redb::WriteTransaction) -> Result<()> {
    txn.open_table(MARKS).map_err(Error::storage)?;
    Ok(())
}

fn key(site_id: &str, fingerprint: &str) -> String {
    format!("{site_id}/{fingerprint}")
}

/// The range of a site's keys.
fn site_range(site_id: &str) -> (String, String) {
    // '0' sorts right after '/'.
    (format!("{site_id}/"), format!("{site_id}0"))
}

pub(super) async fn put_mark(this: &Embedded, mark: SiteMark, max: usize) -> Result<MarkPut> {
    this.write(move |txn| {
        let mut t = txn.open_table(MARKS).map_err(Error::storage)?;
        let k = key(&mark.site_id, &mark.fingerprint);
        let existing: Option<SiteMark> = get(&t, &k)?;
        let outcome = match existing {
            Some(old) if old.account_id != mark.account_id => {
                // Site ids are unique across accounts; a stored mark of
                // another account under this site id is not this caller's.
                return Err(not_found("site", &mark.site_id));
            }
            Some(_) => MarkPut::Updated,
            None => {
                let (start, end) = site_range(&mark.site_id);
                let count = t
                    .range::<&str>(start.as_str()..end.as_str())
                    .map_err(Error::storage)?
                    .count();
                if count >= max {
                    return Ok(MarkPut::Full);
                }
                MarkPut::Created
            }
        };
        t.insert(k.as_str(), encode(&mark)?.as_slice())
            .map_err(Error::storage)?;
        Ok(outcome)
    })
    .await
}

pub(super) async fn mark(
    this: &Embedded,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<Option<SiteMark>> {
    let (account_id, k) = (account_id.to_string(), key(site_id, fingerprint));
    this.read(move |txn| {
        let t = txn.open_table(MARKS).map_err(Error::storage)?;
        let m: Option<SiteMark> = get(&t, &k)?;
        Ok(m.filter(|m| m.account_id == account_id))
    })
    .await
}

pub(super) async fn list_marks(
    this: &Embedded,
    account_id: &str,
    site_id: &str,
) -> Result<Vec<SiteMark>> {
    let (account_id, (start, end)) = (account_id.to_string(), site_range(site_id));
    this.read(move |txn| {
        let t = txn.open_table(MARKS).map_err(Error::storage)?;
        let mut out = Vec::new();
        for entry in t
            .range::<&str>(start.as_str()..end.as_str())
            .map_err(Error::storage)?
        {
            let (_, v) = entry.map_err(Error::storage)?;
            let m: SiteMark = decode(v.value())?;
            if m.account_id == account_id {
                out.push(m);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn delete_mark(
    this: &Embedded,
    account_id: &str,
    site_id: &str,
    fingerprint: &str,
) -> Result<bool> {
    let (account_id, k) = (account_id.to_string(), key(site_id, fingerprint));
    this.write(move |txn| {
        let mut t = txn.open_table(MARKS).map_err(Error::storage)?;
        let m: Option<SiteMark> = get(&t, &k)?;
        if m.is_none_or(|m| m.account_id != account_id) {
            return Ok(false);
        }
        t.remove(k.as_str()).map_err(Error::storage)?;
        Ok(true)
    })
    .await
}

/// Removes every mark of `site_id`, in one transaction.
pub(super) async fn delete_site_marks(this: &Embedded, site_id: &str) -> Result<()> {
    let (start, end) = site_range(site_id);
    this.write(move |txn| {
        let mut t = txn.open_table(MARKS).map_err(Error::storage)?;
        let keys: Vec<String> = t
            .range::<&str>(start.as_str()..end.as_str())
            .map_err(Error::storage)?
            .map(|entry| entry.map(|(k, _)| k.value().to_string()))
            .collect::<std::result::Result<_, _>>()
            .map_err(Error::storage)?;
        for k in &keys {
            t.remove(k.as_str()).map_err(Error::storage)?;
        }
        Ok(())
    })
    .await
}
