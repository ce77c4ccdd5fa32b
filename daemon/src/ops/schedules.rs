//! Scheduled scans: what a schedule may be (a cron expression in an IANA time
//! zone, at least the service's minimum interval between runs, and a scan
//! `config` checked exactly as starting a scan checks it), creating, changing,
//! listing and removing schedules, and making their runs ([`run_due`], which
//! the scheduler task calls every tick).
//!
//! A run is fired by the process that claims it in the store
//! ([`Store::claim_schedule_run`], atomic on both backends), so with several
//! API processes on one Redis each run starts one scan. The next run is
//! computed from the time of the claim, never by replaying the runs missed
//! while no scheduler ran: after any downtime a schedule fires once, then
//! keeps its cadence. A run is at most once: a process killed between the
//! claim and the scan's creation loses that run (recorded as no outcome).

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, SubsecRound, Utc};
use chrono_tz::Tz;
use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;

use super::scans::{applied_config, start_scan_for, NewScan};
use crate::error::{Error, Problems, Result};
use crate::state::{ApiSettings, AppState};
use crate::store::{new_id, Account, Page, RunOutcome, RunStatus, Schedule, Store};
use crate::views::schedules::{CreateSchedule, UpdateSchedule};
use crate::views::ScanRequestConfig;

/// Schedules a site may have.
pub const MAX_SCHEDULES_PER_SITE: usize = 20;
/// Longest cron expression accepted, in bytes.
pub const MAX_CRON_LEN: usize = 200;
/// The minimum interval between runs when the operator sets none.
pub const DEFAULT_MIN_INTERVAL: Duration = Duration::from_secs(60);
/// Runs looked at to measure a cron expression's shortest interval.
const INTERVAL_SAMPLE: usize = 64;
/// Schedules fired per store read in [`run_due`] (it reads again while full).
const DUE_BATCH: usize = 100;

/// The shorthands accepted for `cron`, and what they mean (read in the
/// schedule's time zone).
pub const SHORTHANDS: [(&str, &str); 3] = [
    ("hourly", "0 * * * *"),
    ("daily", "0 0 * * *"),
    ("weekly", "0 0 * * 1"),
];

/// A parsed cron expression and its time zone: when a schedule runs.
#[derive(Debug, Clone)]
pub struct Cadence {
    cron: Cron,
    zone: Tz,
}

impl Cadence {
    /// Parses `cron` (5 fields, or 6 with seconds first, or a shorthand of
    /// [`SHORTHANDS`]) and the IANA time zone `zone`; both are checked and
    /// every problem named (`cron`, `timezone`).
    pub fn parse(cron: &str, zone: &str) -> Result<Cadence> {
        let mut problems = Problems::default();
        let parsed = problems.take("cron", parse_cron(cron));
        let zone = problems.take("timezone", parse_zone(zone));
        problems.finish()?;
        match (parsed, zone) {
            (Some(cron), Some(zone)) => Ok(Cadence { cron, zone }),
            _ => Err(Error::Storage("cron vanished after validation".into())),
        }
    }

    /// The first run strictly after `at`, in UTC; `None` when the expression
    /// has no more runs (it names a date that never comes).
    pub fn next_after(&self, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.cron
            .find_next_occurrence(&at.with_timezone(&self.zone), false)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

/// Parses `cron` (5 fields, or 6 with seconds first, or a shorthand of
/// [`SHORTHANDS`]); problems are named `field`.
fn parse_cron(cron: &str) -> Result<Cron> {
    let trimmed = cron.trim();
    if trimmed.is_empty() || cron.len() > MAX_CRON_LEN {
        return Err(Error::invalid(
            "cron",
            format!("give a cron expression of 1 to {MAX_CRON_LEN} characters, e.g. \"0 6 * * 1-5\", or hourly, daily, weekly"),
        ));
    }
    let expanded = SHORTHANDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(trimmed))
        .map_or(trimmed, |(_, expr)| expr);
    CronParser::builder()
        .seconds(Seconds::Optional)
        .year(Year::Disallowed)
        .build()
        .parse(expanded)
        .map_err(|e| {
            Error::invalid(
                "cron",
                format!("not a cron expression ({e}); give 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, e.g. \"0 6 * * 1-5\", or hourly, daily, weekly"),
            )
        })
}

/// Parses an IANA time zone name.
fn parse_zone(zone: &str) -> Result<Tz> {
    if zone.is_empty() || zone.len() > 64 {
        return Err(Error::invalid(
            "timezone",
            "give an IANA time zone name such as \"Europe/Berlin\" or \"UTC\"",
        ));
    }
    Tz::from_str(zone).map_err(|_| {
        Error::invalid(
            "timezone",
            format!("unknown time zone `{zone}`: give an IANA name such as \"Europe/Berlin\", \"America/New_York\" or \"UTC\""),
        )
    })
}

/// Checks a schedule's `cron` and `timezone` together: both parse, the
/// expression has a next run, and its runs are at least `min_interval` apart
/// (measured over its next [`INTERVAL_SAMPLE`] runs from `now`). Every
/// problem is named.
pub fn cadence(
    cron: &str,
    zone: &str,
    min_interval: Duration,
    now: DateTime<Utc>,
) -> Result<Cadence> {
    let cadence = Cadence::parse(cron, zone)?;
    let Some(first) = cadence.next_after(now) else {
        return Err(Error::invalid(
            "cron",
            "never runs: the expression names no date that comes (e.g. 30 February)",
        ));
    };
    let min = chrono::Duration::from_std(min_interval).unwrap_or(chrono::Duration::MAX);
    let mut prev = first;
    for _ in 0..INTERVAL_SAMPLE {
        let Some(next) = cadence.next_after(prev) else {
            break;
        };
        if next - prev < min {
            return Err(Error::invalid(
                "cron",
                format!(
                    "runs {} s apart (at {prev} and {next}); this service allows at least {} s between runs",
                    (next - prev).num_seconds(),
                    min_interval.as_secs()
                ),
            ));
        }
        prev = next;
    }
    Ok(cadence)
}

/// The scan request a schedule's `config` makes: what `POST
/// /sites/{siteId}/scans` makes of the same body (rules required, no type
/// restriction).
pub fn new_scan(config: ScanRequestConfig) -> NewScan {
    NewScan {
        rules: config.rules.unwrap_or_default(),
        priority: config.priority.unwrap_or_default(),
        max_pages: config.max_pages,
        max_depth: config.max_depth,
        category: None,
        accept: config.accept,
        budget: config.budget,
        links: config.links.map(Into::into).unwrap_or_default(),
        include: config.include.unwrap_or_default(),
        exclude: config.exclude.unwrap_or_default(),
        render: config.render.unwrap_or(false),
        render_options: config.render_options,
    }
}

/// Checks a scan `config` as starting a scan would, and returns it as the
/// schedule stores it (members not given left out).
fn checked_config(
    settings: &ApiSettings,
    account: &Account,
    config: ScanRequestConfig,
) -> Result<serde_json::Value> {
    let stored = serde_json::to_value(&config)
        .map_err(|e| Error::Storage(format!("scan config as JSON: {e}")))?;
    applied_config(settings, account, new_scan(config))?;
    Ok(without_nulls(stored))
}

/// `value` without its `null` object members (at any depth of objects).
fn without_nulls(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        other => other,
    }
}

/// One schedule of the account (`schedule` not found when it is none of its).
pub async fn schedule(store: &dyn Store, account_id: &str, id: &str) -> Result<Schedule> {
    store
        .schedule(account_id, id)
        .await?
        .ok_or_else(|| Error::not_found("schedule", id))
}

/// The problem of a `cursor` the schedule list did not return.
pub const BAD_SCHEDULE_CURSOR: &str = "not a cursor this endpoint returned for this site; pass meta.next_cursor of the previous page, or leave cursor out for the first page";

/// A page of a site's schedules, newest first, `limit` of them after
/// `cursor` (the id of the last schedule of the previous page, which must be
/// one of this site's).
pub async fn list_schedules(
    store: &dyn Store,
    account_id: &str,
    site_id: &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<Schedule>> {
    store
        .site(account_id, site_id)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
    // A site has at most MAX_SCHEDULES_PER_SITE: read whole, paged here.
    let mut all = store.list_schedules(account_id, site_id).await?;
    all.reverse();
    let start = match cursor {
        None => 0,
        Some(c) => match all.iter().position(|s| s.id == c) {
            Some(i) => i + 1,
            None => return Err(Error::invalid("cursor", BAD_SCHEDULE_CURSOR)),
        },
    };
    let limit = limit.max(1);
    let rest: Vec<Schedule> = all.into_iter().skip(start).collect();
    let more = rest.len() > limit;
    let items: Vec<Schedule> = rest.into_iter().take(limit).collect();
    let next_cursor = if more {
        items.last().map(|s| s.id.clone())
    } else {
        None
    };
    Ok(Page { items, next_cursor })
}

/// Creates a schedule of a site of `account`: `cron` and `timezone` (default
/// `UTC`) checked by [`cadence`], `config` as starting a scan checks it, at
/// most [`MAX_SCHEDULES_PER_SITE`] per site. Every problem is named at once.
pub async fn create_schedule(
    store: &dyn Store,
    settings: &ApiSettings,
    account: &Account,
    site_id: &str,
    body: CreateSchedule,
) -> Result<Schedule> {
    let now = Utc::now();
    let zone = body.timezone.unwrap_or_else(|| "UTC".to_string());
    let mut problems = Problems::default();
    let cadence = problems.take(
        "cron",
        cadence(&body.cron, &zone, settings.schedule_min_interval, now),
    );
    let config = problems.take("config", checked_config(settings, account, body.config));
    problems.finish()?;
    let (Some(cadence), Some(config)) = (cadence, config) else {
        return Err(Error::Storage(
            "schedule fields vanished after validation".into(),
        ));
    };
    store
        .site(&account.id, site_id)
        .await?
        .ok_or_else(|| Error::not_found("site", site_id))?;
    if store.list_schedules(&account.id, site_id).await?.len() >= MAX_SCHEDULES_PER_SITE {
        return Err(Error::invalid(
            "site_id",
            format!("a site has at most {MAX_SCHEDULES_PER_SITE} schedules; remove one first"),
        ));
    }
    let enabled = body.enabled.unwrap_or(true);
    let schedule = Schedule {
        id: new_id("sch")?,
        account_id: account.id.clone(),
        site_id: site_id.to_string(),
        cron: body.cron.trim().to_string(),
        timezone: zone,
        config,
        enabled,
        next_run_at: if enabled {
            cadence.next_after(now)
        } else {
            None
        },
        last_run_at: None,
        last_outcome: None,
        created_at: now,
        updated_at: now,
    };
    store.create_schedule(schedule).await
}

/// Changes a schedule of `account`: the members of `body` given, checked as
/// at creation. The next run is computed again from now whenever the
/// schedule is (still) enabled, so a change never makes a run due in the past;
/// disabling clears it.
pub async fn change_schedule(
    store: &dyn Store,
    settings: &ApiSettings,
    account: &Account,
    id: &str,
    body: UpdateSchedule,
) -> Result<Schedule> {
    let mut current = schedule(store, &account.id, id).await?;
    let now = Utc::now();
    let cron = body.cron.unwrap_or_else(|| current.cron.clone());
    let zone = body.timezone.unwrap_or_else(|| current.timezone.clone());
    let mut problems = Problems::default();
    let cadence = problems.take(
        "cron",
        cadence(&cron, &zone, settings.schedule_min_interval, now),
    );
    let config = match body.config {
        Some(c) => problems.take("config", checked_config(settings, account, c)),
        None => Some(current.config.clone()),
    };
    problems.finish()?;
    let (Some(cadence), Some(config)) = (cadence, config) else {
        return Err(Error::Storage(
            "schedule fields vanished after validation".into(),
        ));
    };
    current.enabled = body.enabled.unwrap_or(current.enabled);
    current.cron = cron.trim().to_string();
    current.timezone = zone;
    current.config = config;
    current.next_run_at = if current.enabled {
        cadence.next_after(now)
    } else {
        None
    };
    current.updated_at = now;
    store.update_schedule(current).await
}

/// Removes a schedule of `account_id` (`schedule` not found when none).
/// The scans it started stay.
pub async fn remove_schedule(store: &dyn Store, account_id: &str, id: &str) -> Result<()> {
    if !store.delete_schedule(account_id, id).await? {
        return Err(Error::not_found("schedule", id));
    }
    Ok(())
}

/// Fires every run due at `now`: for each due schedule, claims the run
/// (moving its next run to the first one after `now`) and, when this process
/// won the claim, starts its scan under the plan's quota and records the
/// outcome. Returns the runs this call fired. The scheduler calls it every
/// tick with the clock's time; tests call it with any time.
pub async fn run_due(state: &AppState, now: DateTime<Utc>) -> Result<usize> {
    // Millisecond times: both backends keep them exactly.
    let now = now.trunc_subsecs(3);
    let mut fired = 0;
    loop {
        let due = state.store.due_schedules(now, DUE_BATCH).await?;
        let full = due.len() == DUE_BATCH;
        let mut claimed_any = false;
        for s in due {
            // A record read after another process moved it on is not due
            // (yet): claiming its new time now would fire that run early.
            let Some(due_at) = s.next_run_at.filter(|t| *t <= now) else {
                continue;
            };
            // From now, not from the missed run: runs missed during a
            // downtime are not replayed.
            let next = match Cadence::parse(&s.cron, &s.timezone) {
                Ok(c) => c.next_after(now),
                Err(e) => {
                    tracing::warn!(schedule = %s.id, error = %e, "stored cadence no longer parses");
                    None
                }
            };
            let Some(claimed) = state
                .store
                .claim_schedule_run(&s.id, due_at, next, now)
                .await?
            else {
                continue;
            };
            claimed_any = true;
            fired += 1;
            let outcome = fire(state, &claimed, due_at).await;
            tracing::info!(schedule = %claimed.id, status = ?outcome.status, scan = ?outcome.scan_id, "scheduled run");
            state
                .store
                .record_schedule_outcome(&claimed.id, now, outcome)
                .await?;
        }
        // Another batch only when this one was full and moved on (else the
        // same schedules would be read again).
        if !(full && claimed_any) {
            return Ok(fired);
        }
    }
}

/// Starts the scan of one claimed run (the run due at `run`); what came of it.
async fn fire(state: &AppState, s: &Schedule, run: DateTime<Utc>) -> RunOutcome {
    let error = |message: String| RunOutcome {
        status: RunStatus::Error,
        scan_id: None,
        error: Some(message),
    };
    let account = match state.store.account(&s.account_id).await {
        Ok(Some(a)) => a,
        Ok(None) => return error(format!("account `{}` not found", s.account_id)),
        Err(e) => return error(e.to_string()),
    };
    let config: ScanRequestConfig = match serde_json::from_value(s.config.clone()) {
        Ok(c) => c,
        Err(e) => return error(format!("the stored scan config is no longer valid: {e}")),
    };
    match start_scan_for(
        state,
        &account,
        &s.site_id,
        new_scan(config),
        Some((s.id.clone(), run)),
    )
    .await
    {
        Ok(scan) => RunOutcome {
            status: RunStatus::Started,
            scan_id: Some(scan.id),
            error: None,
        },
        Err(e @ Error::QuotaExceeded { .. }) => RunOutcome {
            status: RunStatus::SkippedQuota,
            scan_id: None,
            error: Some(e.to_string()),
        },
        Err(Error::NotFound { kind: "site", .. }) => {
            // The site was removed: the schedule stops (a disabled schedule
            // has no next run), and says why.
            let mut stopped = s.clone();
            stopped.enabled = false;
            stopped.next_run_at = None;
            stopped.updated_at = Utc::now();
            if let Err(e) = state.store.update_schedule(stopped).await {
                tracing::warn!(schedule = %s.id, error = %e, "could not disable the schedule of a removed site");
            }
            error(format!(
                "site `{}` was removed; the schedule is disabled",
                s.site_id
            ))
        }
        Err(e) => error(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn shorthands_and_zones() {
        let now = at("2026-03-10T12:00:00Z");
        let daily = cadence("daily", "Europe/Berlin", DEFAULT_MIN_INTERVAL, now).unwrap();
        // Midnight in Berlin (UTC+1 in March before the switch) is 23:00 UTC.
        assert_eq!(daily.next_after(now), Some(at("2026-03-10T23:00:00Z")));
        let weekly = cadence("weekly", "UTC", DEFAULT_MIN_INTERVAL, now).unwrap();
        // 2026-03-10 is a Tuesday: the next Monday is the 16th.
        assert_eq!(weekly.next_after(now), Some(at("2026-03-16T00:00:00Z")));
        let hourly = cadence("HOURLY", "UTC", DEFAULT_MIN_INTERVAL, now).unwrap();
        assert_eq!(hourly.next_after(now), Some(at("2026-03-10T13:00:00Z")));
    }

    /// What the docs page says of the syntax: names, either-day matching,
    /// `L` and `#`, Sunday as 0 or 7, 6 fields with seconds first.
    #[test]
    fn cron_syntax_as_documented() {
        let next = |cron: &str, from: &str| {
            Cadence::parse(cron, "UTC")
                .unwrap()
                .next_after(at(from))
                .unwrap()
        };
        // 2026-03-10 is a Tuesday.
        assert_eq!(
            next("0 0 * * MON", "2026-03-10T12:00:00Z"),
            at("2026-03-16T00:00:00Z")
        );
        assert_eq!(
            next("0 0 1 * MON", "2026-03-10T12:00:00Z"),
            at("2026-03-16T00:00:00Z")
        );
        assert_eq!(
            next("0 0 1 * MON", "2026-03-28T12:00:00Z"),
            at("2026-03-30T00:00:00Z")
        );
        assert_eq!(
            next("0 0 1 * MON", "2026-03-31T12:00:00Z"),
            at("2026-04-01T00:00:00Z")
        );
        assert_eq!(
            next("0 0 L * *", "2026-02-10T12:00:00Z"),
            at("2026-02-28T00:00:00Z")
        );
        assert_eq!(
            next("0 0 * * FRI#2", "2026-03-01T00:00:00Z"),
            at("2026-03-13T00:00:00Z")
        );
        assert_eq!(
            next("0 0 * * 0", "2026-03-10T12:00:00Z"),
            at("2026-03-15T00:00:00Z")
        );
        assert_eq!(
            next("0 0 * * 7", "2026-03-10T12:00:00Z"),
            at("2026-03-15T00:00:00Z")
        );
        assert_eq!(
            next("10-50/20 * * * *", "2026-03-10T12:00:00Z"),
            at("2026-03-10T12:10:00Z")
        );
        assert_eq!(
            next("30 0 12 * * *", "2026-03-10T12:00:00Z"),
            at("2026-03-10T12:00:30Z")
        );
        assert_eq!(
            next("0 0 1 JAN *", "2026-03-10T12:00:00Z"),
            at("2027-01-01T00:00:00Z")
        );
    }

    #[test]
    fn daylight_saving_is_followed() {
        // 06:00 in New York is 11:00 UTC in winter and 10:00 UTC in summer.
        let c = cadence(
            "0 6 * * *",
            "America/New_York",
            DEFAULT_MIN_INTERVAL,
            Utc::now(),
        )
        .unwrap();
        let winter = Utc.with_ymd_and_hms(2026, 1, 15, 0, 0, 0).unwrap();
        let summer = Utc.with_ymd_and_hms(2026, 7, 15, 0, 0, 0).unwrap();
        assert_eq!(c.next_after(winter), Some(at("2026-01-15T11:00:00Z")));
        assert_eq!(c.next_after(summer), Some(at("2026-07-15T10:00:00Z")));
    }

    #[test]
    fn bad_cron_zone_and_interval_name_their_field() {
        let now = Utc::now();
        let fields = |r: Result<Cadence>| match r {
            Err(Error::Invalid(p)) => p.list().iter().map(|f| f.field.clone()).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            fields(cadence("61 * * * *", "UTC", DEFAULT_MIN_INTERVAL, now)),
            ["cron"]
        );
        assert_eq!(
            fields(cadence("", "UTC", DEFAULT_MIN_INTERVAL, now)),
            ["cron"]
        );
        assert_eq!(
            fields(cadence(
                "* * * * * * 2030",
                "UTC",
                DEFAULT_MIN_INTERVAL,
                now
            )),
            ["cron"]
        );
        assert_eq!(
            fields(cadence("0 * * * *", "Mars/Base", DEFAULT_MIN_INTERVAL, now)),
            ["timezone"]
        );
        assert_eq!(
            fields(cadence("nope", "Nowhere", DEFAULT_MIN_INTERVAL, now)),
            ["cron", "timezone"]
        );
        // Every 10 seconds is under the default minute.
        assert_eq!(
            fields(cadence("*/10 * * * * *", "UTC", DEFAULT_MIN_INTERVAL, now)),
            ["cron"]
        );
        assert!(cadence("*/10 * * * * *", "UTC", Duration::from_secs(10), now).is_ok());
        // 30 February never comes.
        assert_eq!(
            fields(cadence("0 0 30 2 *", "UTC", DEFAULT_MIN_INTERVAL, now)),
            ["cron"]
        );
    }

    #[test]
    fn nulls_are_left_out_of_the_stored_config() {
        let config = ScanRequestConfig {
            rules: Some(vec!["wcag-aa".into()]),
            max_pages: Some(5),
            ..Default::default()
        };
        let v = without_nulls(serde_json::to_value(&config).unwrap());
        assert_eq!(v, serde_json::json!({"rules": ["wcag-aa"], "max_pages": 5}));
        let back: ScanRequestConfig = serde_json::from_value(v).unwrap();
        assert_eq!(back.max_pages, Some(5));
        // Render options read back as they were given.
        let given = serde_json::json!({"rules": ["wcag-aa"], "render": true,
            "render_options": {"wait": {"selector": "#app"}, "quiet_ms": 200}});
        let config: ScanRequestConfig = serde_json::from_value(given.clone()).unwrap();
        let stored = without_nulls(serde_json::to_value(&config).unwrap());
        assert_eq!(stored, given);
        let back: ScanRequestConfig = serde_json::from_value(stored).unwrap();
        assert_eq!(back.render_options, config.render_options);
    }
}

#[cfg(test)]
mod dst {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// A local time the spring change skips runs at the first time after the
    /// gap; one the autumn change repeats runs once, at its first occurrence.
    #[test]
    fn skipped_and_repeated_local_times() {
        let c = Cadence::parse("30 2 * * *", "Europe/Berlin").unwrap();
        // 2026-03-29: 02:00 CET jumps to 03:00 CEST.
        let spring = c.next_after(at("2026-03-28T12:00:00Z")).unwrap();
        assert_eq!(spring, at("2026-03-29T01:00:00Z"), "03:00 CEST");
        assert_eq!(c.next_after(spring), Some(at("2026-03-30T00:30:00Z")));
        // 2026-10-25: 03:00 CEST goes back to 02:00 CET; 02:30 comes twice.
        let autumn = c.next_after(at("2026-10-24T12:00:00Z")).unwrap();
        assert_eq!(autumn, at("2026-10-25T00:30:00Z"), "02:30 CEST");
        assert_eq!(
            c.next_after(autumn),
            Some(at("2026-10-26T01:30:00Z")),
            "next day, 02:30 CET"
        );
    }
}
