//! Whether a fleet worker's browser works, and so whether the worker takes
//! render jobs ([`RenderGate`]).
//!
//! `sitescan worker --render` says it renders. A worker whose browser cannot
//! start (a broken install, a sandbox that cannot run, a binary that exits at
//! once) or that the engine gave up restarting would otherwise go on taking
//! render jobs and failing each one, burning the scans' attempts while
//! healthy render workers wait. So the worker's render capability is a gate:
//!
//! - **Closed at start-up**: the worker takes static jobs only until a probe
//!   (a browser started and asked its version, then stopped) succeeds. Only
//!   then does it announce itself as a render worker and read the render lane.
//! - **Closed on failure**: a render scan that failed while the engine reports
//!   its browser failing to start ([`sitescan_engine::browser::health`])
//!   closes the gate. The worker withdraws its announcement, stops reading the
//!   render lane (and reclaiming from it), and hands the scan back to the
//!   queue rather than failing it, so another render worker runs it. A render
//!   job it took just before the gate closed is handed back untouched.
//! - **Probed again with backoff**: [`FIRST_PROBE_RETRY`] after the failure,
//!   doubling to [`MAX_PROBE_RETRY`]; the first probe that works opens the
//!   gate again. Each change is logged (a closed gate at `error`).
//!
//! While no worker has an open gate, nobody announces render capability, and
//! the API says why a render scan waits (`waiting_reason`
//! `no_render_worker`).

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::watch;
use tracing::{error, info, warn};

use crate::queue::{Queue, RENDER_PRESENCE_EVERY};

/// First wait after a failed probe (or a render scan that found the browser
/// failing) before the browser is probed again.
pub const FIRST_PROBE_RETRY: Duration = Duration::from_secs(10);
/// Longest wait between two probes of a browser that keeps failing.
pub const MAX_PROBE_RETRY: Duration = Duration::from_secs(300);

/// The wait after `failures` failures in a row.
fn retry_after(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_PROBE_RETRY
        .saturating_mul(1u32 << doublings)
        .min(MAX_PROBE_RETRY)
}

/// Starts a browser and stops it again: `Err` says why it could not start.
pub type Probe = Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

#[derive(Debug)]
struct State {
    open: bool,
    failures: u32,
    /// When a closed gate may be probed.
    probe_at: Instant,
}

/// A render worker's gate on render jobs: open while its browser works. See
/// the module's docs.
pub struct RenderGate {
    state: Mutex<State>,
    probe: Probe,
}

impl fmt::Debug for RenderGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RenderGate")
            .field("state", &*self.lock())
            .finish_non_exhaustive()
    }
}

impl RenderGate {
    /// A closed gate (probed at once) whose probe starts this process's
    /// browser as render scans would (`SITESCAN_CHROMIUM`, else `chromium` on
    /// the `PATH`) and stops it.
    pub fn browser() -> Arc<RenderGate> {
        Self::with_probe(Arc::new(|| {
            async {
                // While the engine waits out its own backoff after failed
                // starts, a render scan would fail at once whatever this
                // probe finds: the probe waits for it too.
                if let sitescan_engine::browser::BrowserHealth::Failing { retry_in, .. } =
                    sitescan_engine::browser::health()
                {
                    tokio::time::sleep(retry_in).await;
                }
                let options = sitescan_engine::browser::LaunchOptions::from_env();
                sitescan_engine::browser::launch::start(&options)
                    .await
                    // Dropping the process kills it: it only had to answer.
                    .map(drop)
                    .map_err(|e| e.to_string())
            }
            .boxed()
        }))
    }

    /// A closed gate (probed at once) with this probe.
    pub fn with_probe(probe: Probe) -> Arc<RenderGate> {
        Arc::new(RenderGate {
            state: Mutex::new(State {
                open: false,
                failures: 0,
                probe_at: Instant::now(),
            }),
            probe,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the worker takes render jobs now.
    pub fn is_open(&self) -> bool {
        self.lock().open
    }

    /// Closes the gate: the browser failed (`error` says how). The next probe
    /// is after the backoff.
    pub fn close(&self, error: &str) {
        let mut s = self.lock();
        s.failures += 1;
        let wait = retry_after(s.failures);
        s.probe_at = Instant::now() + wait;
        let was_open = std::mem::replace(&mut s.open, false);
        drop(s);
        if was_open {
            error!(
                %error,
                retry_in_s = wait.as_secs(),
                "this worker's browser does not work: it stops taking render scans (other render workers get them) and tries its browser again later"
            );
        }
    }

    /// Probes the browser when the gate is closed and its backoff is over;
    /// opens the gate when the probe works. Returns whether it is open.
    pub async fn try_open(&self) -> bool {
        {
            let s = self.lock();
            if s.open {
                return true;
            }
            if Instant::now() < s.probe_at {
                return false;
            }
        }
        let probed = (self.probe)().await;
        let mut s = self.lock();
        match probed {
            Ok(()) => {
                if s.failures > 0 {
                    info!(
                        failures = s.failures,
                        "this worker's browser starts again: it takes render scans"
                    );
                } else {
                    info!("this worker's browser starts: it takes render scans");
                }
                s.open = true;
                s.failures = 0;
            }
            Err(error) => {
                s.failures += 1;
                let wait = retry_after(s.failures);
                s.probe_at = Instant::now() + wait;
                error!(
                    %error,
                    failures = s.failures,
                    retry_in_s = wait.as_secs(),
                    "this worker's browser cannot start: it takes no render scans (other render workers get them) until it can; trying again later"
                );
            }
        }
        s.open
    }
}

/// Keeps a render worker's announcement in step with its gate until
/// `shutdown`: every [`RENDER_PRESENCE_EVERY`] it probes a closed gate whose
/// backoff is over, announces the worker while the gate is open and
/// withdraws it once the gate closes; at the end it withdraws it.
pub async fn watch_gate(
    gate: Arc<RenderGate>,
    queue: Arc<dyn Queue>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut every = tokio::time::interval(RENDER_PRESENCE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut announced = false;
    loop {
        if *shutdown.borrow() {
            break;
        }
        tokio::select! {
            _ = every.tick() => {
                if gate.try_open().await {
                    match queue.announce_render().await {
                        Ok(()) => announced = true,
                        Err(e) => warn!(error = %e, "could not announce this worker as able to render; retrying"),
                    }
                } else if announced {
                    match queue.withdraw_render().await {
                        Ok(()) => announced = false,
                        Err(e) => warn!(error = %e, "could not withdraw this worker's render announcement; retrying"),
                    }
                }
            }
            changed = shutdown.changed() => {
                if changed.is_err() {
                    break;
                }
            }
        }
    }
    if let Err(e) = queue.withdraw_render().await {
        warn!(error = %e, "could not withdraw this worker's render announcement (it lapses by itself)");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    fn gate(works: Arc<AtomicBool>, probes: Arc<AtomicUsize>) -> Arc<RenderGate> {
        RenderGate::with_probe(Arc::new(move || {
            let (works, probes) = (works.clone(), probes.clone());
            async move {
                probes.fetch_add(1, Ordering::SeqCst);
                if works.load(Ordering::SeqCst) {
                    Ok(())
                } else {
                    Err("exit status 1".to_string())
                }
            }
            .boxed()
        }))
    }

    #[test]
    fn the_wait_doubles_up_to_its_ceiling() {
        assert_eq!(retry_after(1), FIRST_PROBE_RETRY);
        assert_eq!(retry_after(2), FIRST_PROBE_RETRY * 2);
        assert_eq!(retry_after(3), FIRST_PROBE_RETRY * 4);
        assert_eq!(retry_after(40), MAX_PROBE_RETRY);
    }

    #[tokio::test]
    async fn a_gate_opens_only_once_a_probe_works_and_waits_its_backoff_between_probes() {
        let (works, probes) = (Arc::new(AtomicBool::new(false)), Arc::default());
        let g = gate(works.clone(), Arc::clone(&probes));
        assert!(!g.is_open(), "closed until probed");
        assert!(!g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 1);
        // Within the backoff: no probe, still closed, even once it would work.
        works.store(true, Ordering::SeqCst);
        assert!(!g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 1);
        // The backoff over: the probe works and the gate opens.
        g.lock().probe_at = Instant::now();
        assert!(g.try_open().await);
        assert!(g.is_open());
        assert_eq!(probes.load(Ordering::SeqCst), 2);
        // Open: no probe.
        assert!(g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 2);
        // A failure closes it for the first backoff.
        g.close("the browser could not start");
        assert!(!g.is_open());
        assert!(!g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 2);
        let wait = g.lock().probe_at.saturating_duration_since(Instant::now());
        assert!(wait > FIRST_PROBE_RETRY - Duration::from_secs(1) && wait <= FIRST_PROBE_RETRY);
    }
}
