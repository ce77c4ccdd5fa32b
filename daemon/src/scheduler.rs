//! The scheduler: a task of every `sitescan serve` process (embedded or
//! `--redis`) that fires scheduled scans. Each tick it calls
//! [`crate::ops::schedules::run_due`] with the clock's time; the store's
//! atomic claim of each run makes one process fire it however many run on
//! one Redis, so the task needs no leader election and any process keeps the
//! schedules running while the others are down.

use std::time::Duration;

use chrono::Utc;
use tokio::sync::watch;

use crate::ops::schedules::{run_due, DEFAULT_MIN_INTERVAL};
use crate::state::AppState;

/// How often the scheduler looks for due runs, by default: a run fires at
/// most this late.
pub const DEFAULT_TICK: Duration = Duration::from_millis(500);

/// Settings of scheduled scans.
#[derive(Debug, Clone, Copy)]
pub struct SchedulerSettings {
    /// The shortest time allowed between two runs of one schedule (a cron
    /// expression running more often is refused with 422).
    pub min_interval: Duration,
    /// How often due runs are looked for.
    pub tick: Duration,
}

impl Default for SchedulerSettings {
    fn default() -> Self {
        SchedulerSettings {
            min_interval: DEFAULT_MIN_INTERVAL,
            tick: DEFAULT_TICK,
        }
    }
}

/// Runs the scheduler until `stop` turns true (or its sender is dropped).
/// A failing tick (the store unreachable) is logged and the next one tries
/// again; it never ends the task.
pub fn spawn_scheduler(
    state: AppState,
    settings: SchedulerSettings,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(settings.tick.max(Duration::from_millis(10)));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => {}
                changed = stop.changed() => {
                    if changed.is_err() || *stop.borrow() {
                        return;
                    }
                    continue;
                }
            }
            if *stop.borrow() {
                return;
            }
            if let Err(e) = run_due(&state, Utc::now()).await {
                tracing::warn!(error = %e, "scheduler tick failed; retrying at the next tick");
            }
        }
    })
}
