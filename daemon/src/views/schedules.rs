//! The schedule resource as the API shows and accepts it: the schedule with
//! its next and last run, and the bodies of `POST /sites/{siteId}/schedules`
//! and `PATCH /schedules/{scheduleId}`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::ScanRequestConfig;
use crate::store::{RunOutcome, Schedule};

/// Links of a schedule.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleLinks {
    /// This schedule.
    #[serde(rename = "self")]
    pub self_: String,
    /// The scanned site.
    pub site: String,
    /// The site's scans (those of this schedule carry its `schedule_id`).
    pub scans: String,
}

/// A scheduled scan as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleView {
    /// `sch_...`.
    pub id: String,
    /// The scanned site.
    pub site_id: String,
    /// The cron expression as given, or `hourly`, `daily`, `weekly`.
    #[schema(example = "0 6 * * 1-5")]
    pub cron: String,
    /// IANA time zone the expression is read in.
    #[schema(example = "Europe/Berlin")]
    pub timezone: String,
    /// The `config` each scan is started with (as `POST
    /// /sites/{siteId}/scans` takes it; members left out are absent).
    #[schema(value_type = ScanRequestConfig)]
    pub config: serde_json::Value,
    /// Whether it runs.
    pub enabled: bool,
    /// When it runs next (UTC); `null` while disabled.
    pub next_run_at: Option<DateTime<Utc>>,
    /// When it last ran (UTC), whatever came of it.
    pub last_run_at: Option<DateTime<Utc>>,
    /// What its last run did: `started` (with the `scan_id`),
    /// `skipped_quota` (the plan's scans for that UTC day were used up) or
    /// `error` (with the reason). `null` before the first run.
    pub last_outcome: Option<RunOutcome>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its settings last changed.
    pub updated_at: DateTime<Utc>,
    /// Where to go next.
    pub links: ScheduleLinks,
}

impl From<Schedule> for ScheduleView {
    fn from(s: Schedule) -> Self {
        ScheduleView {
            links: ScheduleLinks {
                self_: format!("/api/v1/schedules/{}", s.id),
                site: format!("/api/v1/sites/{}", s.site_id),
                scans: format!("/api/v1/sites/{}/scans", s.site_id),
            },
            id: s.id,
            site_id: s.site_id,
            cron: s.cron,
            timezone: s.timezone,
            config: s.config,
            enabled: s.enabled,
            next_run_at: s.next_run_at,
            last_run_at: s.last_run_at,
            last_outcome: s.last_outcome,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// Body of `POST /sites/{siteId}/schedules`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSchedule {
    /// When to scan: a cron expression of 5 fields (minute hour
    /// day-of-month month day-of-week) or 6 (seconds first), or `hourly`
    /// (`0 * * * *`), `daily` (`0 0 * * *`: midnight) or `weekly` (`0 0 * * 1`:
    /// Monday midnight), read in `timezone`.
    #[schema(example = "0 6 * * 1-5", max_length = 200)]
    pub cron: String,
    /// IANA time zone name (default `UTC`).
    #[serde(default)]
    #[schema(example = "Europe/Berlin", max_length = 64)]
    pub timezone: Option<String>,
    /// The scan each run starts: the same `config` as `POST
    /// /sites/{siteId}/scans`, checked the same way (`rules` required).
    pub config: ScanRequestConfig,
    /// Whether it runs (default true).
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// Body of `PATCH /schedules/{scheduleId}`: the members given are changed.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateSchedule {
    /// A new cron expression (or `hourly`, `daily`, `weekly`).
    #[serde(default)]
    #[schema(example = "30 2 * * *", max_length = 200)]
    pub cron: Option<String>,
    /// A new IANA time zone.
    #[serde(default)]
    #[schema(example = "America/New_York", max_length = 64)]
    pub timezone: Option<String>,
    /// A new scan `config` (replaces the old one whole).
    #[serde(default)]
    pub config: Option<ScanRequestConfig>,
    /// Enable or disable it.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// Answer of `DELETE /schedules/{scheduleId}`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ScheduleDeleted {
    /// The removed schedule.
    pub id: String,
    /// Always true.
    pub deleted: bool,
}
