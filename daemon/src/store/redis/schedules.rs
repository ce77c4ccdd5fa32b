//! Schedules. Each is a hash `schedule:{id}`: `json` (its settings),
//! `account_id`, `next` (next run, µs since the epoch, empty while disabled),
//! `last_run` (µs) and `outcome` (the last run's outcome, JSON). Enabled
//! schedules sit in the sorted set `schedules:due` scored by `next`, so a
//! scheduler reads only what is due; `site:{id}:schedules` lists a site's.
//!
//! A run is claimed by `claim_schedule.lua`, which moves `next` only while it
//! still is the run's due time: however many API processes run a scheduler on
//! one Redis, one of them fires each run.

use std::collections::HashMap;

use super::*;
use crate::store::{RunOutcome, Schedule};

static CLAIM_SCHEDULE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/claim_schedule.lua")));
static UPDATE_SCHEDULE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/update_schedule.lua")));
static SCHEDULE_OUTCOME: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/schedule_outcome.lua")));

/// A time as the hash and the due set keep it: µs since the epoch.
fn micros(at: DateTime<Utc>) -> String {
    at.timestamp_micros().to_string()
}

/// The `next` field of a schedule: its next run while enabled, else empty.
fn next_field(s: &Schedule) -> String {
    match (s.enabled, s.next_run_at) {
        (true, Some(at)) => micros(at),
        _ => String::new(),
    }
}

fn time_field(fields: &HashMap<String, String>, name: &str) -> Result<Option<DateTime<Utc>>> {
    match fields.get(name).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => {
            let us: i64 = v
                .parse()
                .map_err(|_| Error::Corrupt(format!("schedule: bad {name} `{v}`")))?;
            DateTime::from_timestamp_micros(us)
                .map(Some)
                .ok_or_else(|| Error::Corrupt(format!("schedule: {name} out of range")))
        }
    }
}

/// Rebuilds a schedule from its hash; `None` when the hash is empty (gone).
fn from_fields(fields: HashMap<String, String>) -> Result<Option<Schedule>> {
    let Some(json) = fields.get("json") else {
        return Ok(None);
    };
    let mut s: Schedule = parse(json)?;
    s.next_run_at = time_field(&fields, "next")?;
    s.last_run_at = time_field(&fields, "last_run")?;
    s.last_outcome = match fields.get("outcome").filter(|v| !v.is_empty()) {
        Some(raw) => Some(parse::<RunOutcome>(raw)?),
        None => None,
    };
    Ok(Some(s))
}

impl RedisBackend {
    fn schedule_key(&self, id: &str) -> String {
        self.key_name(&["schedule", id])
    }

    fn schedules_due_key(&self) -> String {
        self.key_name(&["schedules", "due"])
    }

    /// The schedules of `ids` that exist, in one pipelined round trip.
    async fn load_schedules(&self, ids: &[String]) -> Result<Vec<Schedule>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.schedule_key(id));
        }
        let mut conn = self.c();
        let all: Vec<HashMap<String, String>> =
            pipe.query_async(&mut conn).await.map_err(redis_err)?;
        let mut out = Vec::new();
        for fields in all {
            if let Some(s) = from_fields(fields)? {
                out.push(s);
            }
        }
        Ok(out)
    }

    async fn schedule_by_id(&self, id: &str) -> Result<Option<Schedule>> {
        Ok(self
            .load_schedules(std::slice::from_ref(&id.to_string()))
            .await?
            .pop())
    }
}

pub(super) async fn create_schedule(this: &RedisBackend, schedule: Schedule) -> Result<Schedule> {
    if this.account(&schedule.account_id).await?.is_none() {
        return Err(not_found("account", &schedule.account_id));
    }
    let next = next_field(&schedule);
    let mut pipe = redis::pipe();
    pipe.atomic()
        .hset_multiple(
            this.schedule_key(&schedule.id),
            &[
                ("json", json(&schedule)?),
                ("account_id", schedule.account_id.clone()),
                ("next", next.clone()),
                ("last_run", String::new()),
                ("outcome", String::new()),
            ],
        )
        .ignore()
        .zadd(
            this.key_name(&["site", &schedule.site_id, "schedules"]),
            &schedule.id,
            0,
        )
        .ignore();
    if !next.is_empty() {
        pipe.zadd(this.schedules_due_key(), &schedule.id, &next)
            .ignore();
    }
    let mut conn = this.c();
    let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
    Ok(schedule)
}

pub(super) async fn schedule(
    this: &RedisBackend,
    account_id: &str,
    id: &str,
) -> Result<Option<Schedule>> {
    Ok(this
        .schedule_by_id(id)
        .await?
        .filter(|s| s.account_id == account_id))
}

pub(super) async fn list_schedules(
    this: &RedisBackend,
    account_id: &str,
    site_id: &str,
) -> Result<Vec<Schedule>> {
    let ids = this.ids_of(&["site", site_id, "schedules"]).await?;
    Ok(this
        .load_schedules(&ids)
        .await?
        .into_iter()
        .filter(|s| s.account_id == account_id)
        .collect())
}

pub(super) async fn update_schedule(this: &RedisBackend, schedule: Schedule) -> Result<Schedule> {
    let Some(old) = this.schedule_by_id(&schedule.id).await? else {
        return Err(not_found("schedule", &schedule.id));
    };
    // Never moved to another account or site by an update.
    let settings = Schedule {
        account_id: old.account_id,
        site_id: old.site_id,
        created_at: old.created_at,
        ..schedule
    };
    let mut conn = this.c();
    let done: i64 = UPDATE_SCHEDULE
        .key(this.schedule_key(&settings.id))
        .key(this.schedules_due_key())
        .arg(&settings.id)
        .arg(json(&settings)?)
        .arg(next_field(&settings))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if done == 0 {
        return Err(not_found("schedule", &settings.id));
    }
    this.schedule_by_id(&settings.id)
        .await?
        .ok_or_else(|| not_found("schedule", &settings.id))
}

pub(super) async fn delete_schedule(
    this: &RedisBackend,
    account_id: &str,
    id: &str,
) -> Result<bool> {
    let Some(old) = schedule(this, account_id, id).await? else {
        return Ok(false);
    };
    let mut conn = this.c();
    let _: () = redis::pipe()
        .atomic()
        .del(this.schedule_key(id))
        .zrem(this.key_name(&["site", &old.site_id, "schedules"]), id)
        .zrem(this.schedules_due_key(), id)
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(true)
}

pub(super) async fn due_schedules(
    this: &RedisBackend,
    now: DateTime<Utc>,
    limit: usize,
) -> Result<Vec<Schedule>> {
    let mut conn = this.c();
    let ids: Vec<String> = conn
        .zrangebyscore_limit(
            this.schedules_due_key(),
            "-inf",
            now.timestamp_micros(),
            0,
            isize::try_from(limit).unwrap_or(isize::MAX),
        )
        .await
        .map_err(redis_err)?;
    // The records are read after the index: one another process moved on (or
    // disabled) in between is no longer due.
    Ok(this
        .load_schedules(&ids)
        .await?
        .into_iter()
        .filter(|s| s.enabled && s.next_run_at.is_some_and(|t| t <= now))
        .collect())
}

pub(super) async fn claim_schedule_run(
    this: &RedisBackend,
    id: &str,
    due_at: DateTime<Utc>,
    next_run_at: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
) -> Result<Option<Schedule>> {
    let mut conn = this.c();
    let claimed: i64 = CLAIM_SCHEDULE
        .key(this.schedule_key(id))
        .key(this.schedules_due_key())
        .arg(id)
        .arg(micros(due_at))
        .arg(next_run_at.map(micros).unwrap_or_default())
        .arg(micros(at))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if claimed == 0 {
        return Ok(None);
    }
    this.schedule_by_id(id).await
}

pub(super) async fn record_schedule_outcome(
    this: &RedisBackend,
    id: &str,
    run_at: DateTime<Utc>,
    outcome: RunOutcome,
) -> Result<()> {
    let mut conn = this.c();
    let _: i64 = SCHEDULE_OUTCOME
        .key(this.schedule_key(id))
        .arg(micros(run_at))
        .arg(json(&outcome)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(())
}
