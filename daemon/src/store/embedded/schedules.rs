//! Schedules, with their per-site index and their due index (enabled
//! schedules keyed by `next_run_at`, so the scheduler reads only what is due).
//! A run is claimed by comparing and moving `next_run_at` in one write
//! transaction; redb serializes write transactions, so of two claims of the
//! same run one sees the moved time and gets nothing.

use super::*;
use crate::store::{RunOutcome, Schedule};

/// Schedules by id (JSON).
pub(crate) const SCHEDULES: TableDefinition<&str, &[u8]> = TableDefinition::new("schedules");
/// `site_id/schedule_id` -> () (a site's schedules, in creation order).
pub(crate) const SITE_SCHEDULES: TableDefinition<&str, ()> = TableDefinition::new("site_schedules");
/// `{µs since the epoch, 20 digits}/{schedule_id}` -> () for each enabled
/// schedule with a next run: sorts by due time.
pub(crate) const SCHEDULES_DUE: TableDefinition<&str, ()> = TableDefinition::new("schedules_due");

/// Creates the tables (at open), so reads never meet a missing table.
pub(super) fn create_tables(txn: &redb::WriteTransaction) -> Result<()> {
    txn.open_table(SCHEDULES).map_err(Error::storage)?;
    txn.open_table(SITE_SCHEDULES).map_err(Error::storage)?;
    txn.open_table(SCHEDULES_DUE).map_err(Error::storage)?;
    Ok(())
}

/// The due-index key of a schedule, when it has a next run and is enabled.
fn due_key(s: &Schedule) -> Option<String> {
    match (s.enabled, s.next_run_at) {
        (true, Some(at)) => Some(format!("{:020}/{}", at.timestamp_micros().max(0), s.id)),
        _ => None,
    }
}

/// Writes `new` over `old` (if any): the record and its due-index entry.
fn put(txn: &redb::WriteTransaction, old: Option<&Schedule>, new: &Schedule) -> Result<()> {
    let mut due = txn.open_table(SCHEDULES_DUE).map_err(Error::storage)?;
    if let Some(k) = old.and_then(due_key) {
        due.remove(k.as_str()).map_err(Error::storage)?;
    }
    if let Some(k) = due_key(new) {
        due.insert(k.as_str(), ()).map_err(Error::storage)?;
    }
    let mut t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
    t.insert(new.id.as_str(), encode(new)?.as_slice())
        .map_err(Error::storage)?;
    Ok(())
}

/// The stored schedule `id`, read inside a write transaction.
fn stored(txn: &redb::WriteTransaction, id: &str) -> Result<Option<Schedule>> {
    let t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
    get(&t, id)
}

pub(super) async fn create_schedule(this: &Embedded, schedule: Schedule) -> Result<Schedule> {
    this.write(move |txn| {
        {
            let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            if accounts
                .get(schedule.account_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("account", &schedule.account_id));
            }
        }
        put(txn, None, &schedule)?;
        let mut index = txn.open_table(SITE_SCHEDULES).map_err(Error::storage)?;
        index
            .insert(format!("{}/{}", schedule.site_id, schedule.id).as_str(), ())
            .map_err(Error::storage)?;
        Ok(schedule)
    })
    .await
}

pub(super) async fn schedule(
    this: &Embedded,
    account_id: &str,
    id: &str,
) -> Result<Option<Schedule>> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.read(move |txn| {
        let t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
        let s: Option<Schedule> = get(&t, &id)?;
        Ok(s.filter(|s| s.account_id == account_id))
    })
    .await
}

pub(super) async fn list_schedules(
    this: &Embedded,
    account_id: &str,
    site_id: &str,
) -> Result<Vec<Schedule>> {
    let (account_id, site_id) = (account_id.to_string(), site_id.to_string());
    this.read(move |txn| {
        let index = txn.open_table(SITE_SCHEDULES).map_err(Error::storage)?;
        let t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
        let mut out = Vec::new();
        for id in children(&index, &site_id)? {
            if let Some(s) = get::<Schedule>(&t, &id)? {
                if s.account_id == account_id {
                    out.push(s);
                }
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn update_schedule(this: &Embedded, schedule: Schedule) -> Result<Schedule> {
    this.write(move |txn| {
        let Some(old) = stored(txn, &schedule.id)? else {
            return Err(not_found("schedule", &schedule.id));
        };
        let new = Schedule {
            last_run_at: old.last_run_at,
            last_outcome: old.last_outcome.clone(),
            // Never moved to another account or site by an update.
            account_id: old.account_id.clone(),
            site_id: old.site_id.clone(),
            created_at: old.created_at,
            ..schedule
        };
        put(txn, Some(&old), &new)?;
        Ok(new)
    })
    .await
}

pub(super) async fn delete_schedule(this: &Embedded, account_id: &str, id: &str) -> Result<bool> {
    let (account_id, id) = (account_id.to_string(), id.to_string());
    this.write(move |txn| {
        let Some(old) = stored(txn, &id)?.filter(|s| s.account_id == account_id) else {
            return Ok(false);
        };
        if let Some(k) = due_key(&old) {
            let mut due = txn.open_table(SCHEDULES_DUE).map_err(Error::storage)?;
            due.remove(k.as_str()).map_err(Error::storage)?;
        }
        let mut t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
        t.remove(id.as_str()).map_err(Error::storage)?;
        let mut index = txn.open_table(SITE_SCHEDULES).map_err(Error::storage)?;
        index
            .remove(format!("{}/{}", old.site_id, id).as_str())
            .map_err(Error::storage)?;
        Ok(true)
    })
    .await
}

pub(super) async fn due_schedules(
    this: &Embedded,
    now: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<Schedule>> {
    // Every key of a time at or before `now` sorts before `{now + 1 µs}/`.
    let end = format!("{:020}/", now.timestamp_micros().max(0) + 1);
    this.read(move |txn| {
        let due = txn.open_table(SCHEDULES_DUE).map_err(Error::storage)?;
        let t = txn.open_table(SCHEDULES).map_err(Error::storage)?;
        let mut out = Vec::new();
        for entry in due.range::<&str>(..end.as_str()).map_err(Error::storage)? {
            if out.len() >= limit {
                break;
            }
            let (k, _) = entry.map_err(Error::storage)?;
            let Some((_, id)) = k.value().split_once('/') else {
                continue;
            };
            if let Some(s) = get::<Schedule>(&t, id)? {
                out.push(s);
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn claim_schedule_run(
    this: &Embedded,
    id: &str,
    due_at: DateTime<Utc>,
    next_run_at: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
) -> Result<Option<Schedule>> {
    let id = id.to_string();
    this.write(move |txn| {
        let Some(old) = stored(txn, &id)? else {
            return Ok(None);
        };
        let still_due = old.enabled
            && old.next_run_at.map(|t| t.timestamp_micros()) == Some(due_at.timestamp_micros());
        if !still_due {
            return Ok(None);
        }
        let new = Schedule {
            next_run_at,
            last_run_at: Some(at),
            last_outcome: None,
            ..old.clone()
        };
        put(txn, Some(&old), &new)?;
        Ok(Some(new))
    })
    .await
}

pub(super) async fn record_schedule_outcome(
    this: &Embedded,
    id: &str,
    run_at: DateTime<Utc>,
    outcome: RunOutcome,
) -> Result<()> {
    let id = id.to_string();
    this.write(move |txn| {
        let Some(old) = stored(txn, &id)? else {
            return Ok(());
        };
        if old.last_run_at.map(|t| t.timestamp_micros()) != Some(run_at.timestamp_micros()) {
            return Ok(());
        }
        let new = Schedule {
            last_outcome: Some(outcome),
            ..old.clone()
        };
        put(txn, Some(&old), &new)
    })
    .await
}
