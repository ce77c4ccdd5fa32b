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
//!   succeeds: a browser started and asked its version, a tiny `data:` page
//!   rendered in a fresh context and tab (its script run, its body laid
//!   out), then the browser stopped ([`sitescan_engine::browser::launch::probe`]).
//!   Only then does it announce itself as a render worker and read the
//!   render lane.
//! - **Closed when the browser cannot start**: a render scan that failed
//!   while the engine reports its browser failing to start
//!   ([`sitescan_engine::browser::health`]) closes the gate.
//! - **Closed on a crash loop**: a browser that starts but dies on every
//!   context or page never shows as failing to start (the engine restarts
//!   it each time). So while a render scan runs, and when it ends, the
//!   worker looks at the engine's count of browsers that died in use
//!   ([`sitescan_engine::browser::crashes`]): [`CRASH_LOOP_CRASHES`] crashes
//!   within [`CRASH_LOOP_WINDOW`], or a render scan that ended (failed, or
//!   completed with pages it could not render) with the browser crashing
//!   during it, make it suspect its browser ([`CrashLoop`]).
//!   It then runs the probe at once: when a fresh browser cannot render the
//!   probe page either, the gate closes. When it can, the crashes are taken
//!   for the pages' own (a page that crashes browsers must not take render
//!   workers out of the fleet one after another) and the scan goes on.
//! - **What closing does**: the worker withdraws its announcement, stops
//!   reading the render lane (and reclaiming from it), and hands the render
//!   scans it holds back to the queue rather than failing them, so another
//!   render worker runs them: a scan still running is stopped, one that
//!   failed (or whose browser crashed) is not recorded. A hand-back costs the
//!   scan nothing: the attempt its start charged is given back
//!   ([`crate::store::Store::hand_back_scan`]) and the delivery is not counted
//!   ([`crate::queue::Queue::hand_back`]), so a broken worker cannot use a
//!   scan's attempts up and have it dead-lettered. A render job it took just
//!   before the gate closed is handed back untouched.
//! - **Probed again with backoff**: [`FIRST_PROBE_RETRY`] after the failure,
//!   doubling to [`MAX_PROBE_RETRY`]; the first probe that works opens the
//!   gate again. Each change is logged (a closed gate at `error`).
//!
//! While no worker has an open gate, nobody announces render capability, and
//! the API says why a render scan waits (`waiting_reason`
//! `no_render_worker`).

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Browser crashes within [`CRASH_LOOP_WINDOW`] that make a worker suspect
/// its browser (and probe it): one crash may be a page's doing, two close
/// together are worth a probe.
pub const CRASH_LOOP_CRASHES: usize = 2;
/// How far back crashes count towards [`CRASH_LOOP_CRASHES`].
pub const CRASH_LOOP_WINDOW: Duration = Duration::from_secs(600);
/// How often a render scan in hand looks at its browser's crashes.
pub const CRASH_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Tells a browser that crashes again and again from one that crashed once,
/// from the engine's count of browsers that died in use (which only grows).
#[derive(Debug)]
pub struct CrashLoop {
    limit: usize,
    window: Duration,
    /// The count last looked at.
    seen: u64,
    /// When each crash still within the window was seen, oldest first (at
    /// most `limit`).
    at: VecDeque<Instant>,
}

impl CrashLoop {
    /// A detector that suspects a loop at `limit` crashes within `window`
    /// (at least one crash).
    pub fn new(limit: usize, window: Duration) -> CrashLoop {
        CrashLoop {
            limit: limit.max(1),
            window,
            seen: 0,
            at: VecDeque::new(),
        }
    }

    /// Looks at the crash count `total` at `now`: whether the crashes seen
    /// within the window reached the limit. A suspicion forgets them: the
    /// next one takes `limit` new crashes.
    pub fn observe(&mut self, total: u64, now: Instant) -> bool {
        let new = total.saturating_sub(self.seen);
        self.seen = self.seen.max(total);
        // Bounded: more than `limit` at once are as many as `limit`.
        for _ in 0..new.min(self.limit as u64) {
            self.at.push_back(now);
        }
        while self.at.len() > self.limit {
            self.at.pop_front();
        }
        while self
            .at
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) > self.window)
        {
            self.at.pop_front();
        }
        if self.at.len() >= self.limit {
            self.at.clear();
            return true;
        }
        false
    }

    /// Crashes seen within the window now.
    pub fn recent(&self) -> usize {
        self.at.len()
    }
}

/// The wait after `failures` failures in a row.
fn retry_after(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_PROBE_RETRY
        .saturating_mul(1u32 << doublings)
        .min(MAX_PROBE_RETRY)
}

/// Starts a browser, renders a page in it and stops it again: `Err` says
/// why it could not.
pub type Probe = Arc<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;
/// The count of this process's browsers that died in use (only grows).
pub type Crashes = Arc<dyn Fn() -> u64 + Send + Sync>;

#[derive(Debug)]
struct State {
    open: bool,
    failures: u32,
    /// When a closed gate may be probed.
    probe_at: Instant,
    /// Times the gate closed: a scan that started at another count ran
    /// while it closed.
    closures: u64,
    crash_loop: CrashLoop,
}

/// A render worker's gate on render jobs: open while its browser works. See
/// the module's docs.
pub struct RenderGate {
    state: Mutex<State>,
    probe: Probe,
    crashes: Crashes,
    /// A probe confirming a suspected crash loop is under way (one at a
    /// time, whichever slot suspected it).
    confirming: AtomicBool,
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
        Self::with(
            Self::browser_probe(),
            Arc::new(sitescan_engine::browser::crashes),
        )
    }

    /// The probe of [`RenderGate::browser`].
    fn browser_probe() -> Probe {
        Arc::new(|| {
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
                sitescan_engine::browser::launch::probe(&options)
                    .await
                    .map_err(|e| e.to_string())
            }
            .boxed()
        })
    }

    /// A closed gate (probed at once) with this probe, that never sees a
    /// crash.
    pub fn with_probe(probe: Probe) -> Arc<RenderGate> {
        Self::with(probe, Arc::new(|| 0))
    }

    /// A closed gate (probed at once) with this probe and this count of
    /// crashed browsers.
    pub fn with(probe: Probe, crashes: Crashes) -> Arc<RenderGate> {
        let mut crash_loop = CrashLoop::new(CRASH_LOOP_CRASHES, CRASH_LOOP_WINDOW);
        // Crashes before the gate was made are not this worker's to judge.
        crash_loop.seen = crashes();
        Arc::new(RenderGate {
            state: Mutex::new(State {
                open: false,
                failures: 0,
                probe_at: Instant::now(),
                closures: 0,
                crash_loop,
            }),
            probe,
            crashes,
            confirming: AtomicBool::new(false),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the worker takes render jobs now.
    pub fn is_open(&self) -> bool {
        self.lock().open
    }

    /// Times the gate closed so far: a render scan that started at another
    /// count ran while it closed (on a browser found broken).
    pub fn closures(&self) -> u64 {
        self.lock().closures
    }

    /// The count of this process's browsers that died in use now.
    pub fn crashes(&self) -> u64 {
        (self.crashes)()
    }

    /// Looks at the browser's crashes (a render scan calls it while it runs,
    /// and when it ends, with `scan_crashed` when the browser crashed
    /// while it ran). When they suggest a crash loop
    /// ([`CrashLoop`]) the probe runs at once: when it fails too, the gate
    /// closes and this returns true. When it works, the crashes are taken
    /// for the pages' own.
    pub async fn watch_crashes(&self, scan_crashed: bool) -> bool {
        let total = (self.crashes)();
        let (suspect, recent) = {
            let mut s = self.lock();
            if !s.open {
                return false;
            }
            let looped = s.crash_loop.observe(total, Instant::now());
            (looped || scan_crashed, s.crash_loop.recent())
        };
        if !suspect || self.confirming.swap(true, Ordering::SeqCst) {
            return false;
        }
        warn!(
            crashes = total,
            scan_crashed, "this worker's browser keeps crashing: probing a fresh one"
        );
        let probed = (self.probe)().await;
        self.confirming.store(false, Ordering::SeqCst);
        match probed {
            Ok(()) => {
                info!(
                    recent,
                    "a fresh browser renders the probe page: the crashes are taken for the pages' own; this worker goes on taking render scans"
                );
                false
            }
            Err(error) => {
                self.close(&format!(
                    "the browser keeps crashing ({total} browser(s) died in use), and a fresh one fails too: {error}"
                ));
                true
            }
        }
    }

    /// Closes the gate: the browser failed (`error` says how). The next probe
    /// is after the backoff.
    pub fn close(&self, error: &str) {
        let mut s = self.lock();
        s.failures += 1;
        s.closures += 1;
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
                // Crashes of the browser found broken are not held against
                // the one that works now.
                let total = (self.crashes)();
                s.crash_loop.observe(total, Instant::now());
                s.crash_loop.at.clear();
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
    fn a_crash_loop_is_the_limit_of_crashes_within_the_window() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut d = CrashLoop::new(2, Duration::from_secs(60));
        // Nothing new: nothing suspected.
        assert!(!d.observe(0, at(0)));
        // One crash is not a loop, however long it is looked at.
        assert!(!d.observe(1, at(1)));
        assert!(!d.observe(1, at(30)));
        assert_eq!(d.recent(), 1);
        // A second within the window is.
        assert!(d.observe(2, at(50)));
        // The suspicion forgot them: a third crash alone is not a loop.
        assert_eq!(d.recent(), 0);
        assert!(!d.observe(3, at(55)));
        // A crash that fell out of the window no longer counts.
        assert!(!d.observe(4, at(200)));
        assert_eq!(d.recent(), 1, "the crash at 55 s is out of the window");
        // Two at once (a scan whose browser died twice) are a loop at once.
        assert!(d.observe(6, at(201)));
        // A count that went back (never: it only grows) adds nothing.
        assert!(!d.observe(5, at(202)));
        assert_eq!(d.recent(), 0);
        // Many at once count as the limit, not more.
        assert!(d.observe(1_000_000, at(203)));
        assert_eq!(d.recent(), 0);
        // A limit of three takes three; a limit of zero is one.
        let mut three = CrashLoop::new(3, Duration::from_secs(60));
        assert!(!three.observe(2, at(0)));
        assert!(three.observe(3, at(59)));
        let mut one = CrashLoop::new(0, Duration::from_secs(60));
        assert!(!one.observe(0, at(0)));
        assert!(one.observe(1, at(1)));
    }

    #[test]
    fn the_defaults_suspect_two_crashes_within_ten_minutes() {
        let t0 = Instant::now();
        let mut d = CrashLoop::new(CRASH_LOOP_CRASHES, CRASH_LOOP_WINDOW);
        assert!(!d.observe(1, t0));
        assert!(d.observe(2, t0 + CRASH_LOOP_WINDOW));
        assert!(!d.observe(3, t0 + CRASH_LOOP_WINDOW * 3));
        assert!(!d.observe(4, t0 + CRASH_LOOP_WINDOW * 4 + Duration::from_secs(1)));
    }

    /// A gate whose crashes and probe the test sets.
    fn crashing_gate(
        works: Arc<AtomicBool>,
        probes: Arc<AtomicUsize>,
        crashes: Arc<AtomicUsize>,
    ) -> Arc<RenderGate> {
        let probe = gate(works, probes).probe.clone();
        RenderGate::with(
            probe,
            Arc::new(move || crashes.load(Ordering::SeqCst) as u64),
        )
    }

    #[tokio::test]
    async fn a_crash_loop_closes_the_gate_only_when_a_fresh_browser_fails_too() {
        let (works, probes, crashes) = (
            Arc::new(AtomicBool::new(true)),
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicUsize::new(5)),
        );
        let g = crashing_gate(works.clone(), probes.clone(), crashes.clone());
        // Crashes before the gate was made are not counted.
        assert!(g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 1);
        assert!(!g.watch_crashes(false).await);
        assert_eq!(probes.load(Ordering::SeqCst), 1, "no crash: no probe");
        // One crash: no probe.
        crashes.store(6, Ordering::SeqCst);
        assert!(!g.watch_crashes(false).await);
        assert_eq!(probes.load(Ordering::SeqCst), 1);
        // A second: a probe, which works: the crashes were the pages' own,
        // and the gate stays open.
        crashes.store(7, Ordering::SeqCst);
        assert!(!g.watch_crashes(false).await);
        assert_eq!(probes.load(Ordering::SeqCst), 2);
        assert!(g.is_open());
        assert_eq!(g.closures(), 0);
        // A scan that ended with its browser crashing: a probe at once.
        crashes.store(8, Ordering::SeqCst);
        assert!(!g.watch_crashes(true).await);
        assert_eq!(probes.load(Ordering::SeqCst), 3);
        assert!(g.is_open());
        // Two more, and a fresh browser fails too: closed, counted, backoff.
        works.store(false, Ordering::SeqCst);
        crashes.store(10, Ordering::SeqCst);
        assert!(g.watch_crashes(false).await);
        assert_eq!(probes.load(Ordering::SeqCst), 4);
        assert!(!g.is_open());
        assert_eq!(g.closures(), 1);
        assert!(!g.try_open().await, "within the backoff");
        assert_eq!(probes.load(Ordering::SeqCst), 4);
        // Closed: crashes are not watched (nothing runs).
        crashes.store(20, Ordering::SeqCst);
        assert!(!g.watch_crashes(true).await);
        assert_eq!(probes.load(Ordering::SeqCst), 4);
        // Reopened by a probe that works: the crashes of the broken browser
        // are not held against it; one new crash is not a loop.
        works.store(true, Ordering::SeqCst);
        g.lock().probe_at = Instant::now();
        assert!(g.try_open().await);
        assert_eq!(probes.load(Ordering::SeqCst), 5);
        crashes.store(21, Ordering::SeqCst);
        assert!(!g.watch_crashes(false).await);
        assert_eq!(probes.load(Ordering::SeqCst), 5);
        assert_eq!(g.closures(), 1);
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
