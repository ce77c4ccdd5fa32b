//! The in-process worker pool of the embedded service: N tasks, each taking a
//! job from the [`Queue`], moving the scan to `running` in the [`Store`],
//! running it through a [`ScanExecutor`] (the engine's `Scanner`), saving
//! progress as it goes and the report at the end, then acknowledging the job.
//!
//! Cancellation is seen through the store (`update_progress` returns the
//! scan's status, also polled on a timer), so it works the same whichever
//! process runs the scan. The worker heartbeats its job's lease while it runs
//! and stops when the lease is lost. On shutdown the workers stop taking jobs
//! and give the job in hand back to the queue (`release`): it runs again, from
//! the start, after the restart.
//!
//! [`spawn_loop`] is the one job loop: the embedded pool ([`spawn_pool`]) and
//! the fleet's Redis workers (`fleet::spawn_workers`) both run it, with
//! [`LoopSettings`] saying what differs (retries of failed runs, the grace
//! period at shutdown).

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use futures::stream::BoxStream;
use futures::StreamExt;
use sitescan_engine::auth::SiteAuth;
use sitescan_engine::config::StatusRange;
use sitescan_engine::{PageBudget, ReportSource, ScanConfig, SpooledReport};

use crate::ops::credentials::Scrubber;
use crate::secret_key::SecretKey;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{info, warn, Instrument};

use crate::queue::{Capabilities, Delivery, Lease, Queue, RENDER_PRESENCE_EVERY};
use crate::render_gate::RenderGate;
use crate::store::{
    AppliedConfig, CategoryResult, Progress, ReportFile, Scan, ScanOutcome, ScanStatus,
    ScanSummary, Store,
};

/// How often a running scan checks for a cancel when no progress comes.
pub const CANCEL_POLL: Duration = Duration::from_millis(500);
/// A scan charged this many attempts is failed at the next start instead of run
/// again: the first start counts, and so does each restart after a crash that
/// happened while one of its pages was in analysis. Restarts after a crash of
/// another scan's page, or after a shutdown, do not count.
pub const MAX_ATTEMPTS: u32 = 3;
/// A page in analysis at this many crashes stops its scan (the scan is failed,
/// naming the page): a page that aborts the process must not abort every
/// restart, nor interrupt every other tenant's scan again and again.
pub const MAX_PAGE_CRASHES: u32 = 2;
/// A scan interrupted this many times with none of its pages in analysis is
/// failed too: the safety net for a crash outside page analysis (while
/// fetching, or in the site-wide rules), which cannot be told from another
/// scan's crash and must not loop forever either.
pub const MAX_UNATTRIBUTED_INTERRUPTIONS: u32 = 10;
/// Progress is written to the store at most this often.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// What a running scan reports.
#[derive(Debug)]
pub enum ExecEvent {
    /// Pages done and queued so far.
    Progress(Progress),
    /// The page `url` is about to be analysed; its analysis waits until `ready`
    /// is sent or dropped (after the page is recorded as in analysis).
    Analyzing {
        /// The page.
        url: String,
        /// Answer (or drop) to let the analysis run.
        ready: tokio::sync::oneshot::Sender<()>,
    },
    /// The analysis of the page ended.
    Analyzed(String),
    /// The scan finished with this report (its findings spooled on disk).
    Finished(Box<SpooledReport>),
    /// The scan could not run; the message is for the caller.
    Failed(String),
}

/// What a scan takes beside its stored config, read when it starts.
#[derive(Debug, Default)]
pub struct ScanInputs {
    /// The site's credentials, opened at scan time.
    pub auth: Option<SiteAuth>,
    /// The site's triage marks (fingerprints whose findings leave the scores).
    pub marks: sitescan_engine::Marks,
}

/// Runs one scan. Dropping the returned stream cancels the scan.
pub trait ScanExecutor: Send + Sync + 'static {
    /// Starts scanning `url` with `config`.
    fn execute(&self, url: &str, config: ScanConfig) -> BoxStream<'static, ExecEvent>;

    /// Starts scanning `url` with `config` and what the scan takes beside it
    /// (`inputs`: the site's credentials and triage marks, read at scan time
    /// and never part of `config`, which is stored). The default fails a scan
    /// that has credentials rather than scanning without them, and ignores
    /// marks (an executor that does not score findings).
    fn execute_with(
        &self,
        url: &str,
        config: ScanConfig,
        inputs: ScanInputs,
    ) -> BoxStream<'static, ExecEvent> {
        match inputs.auth {
            None => self.execute(url, config),
            Some(_) => futures::stream::once(async {
                ExecEvent::Failed("this scanner cannot sign in to sites".to_string())
            })
            .boxed(),
        }
    }
}

/// Settings of the worker pool.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Scans run at once.
    pub workers: usize,
    /// Allow scanning loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most a scan's page budget may be (`serve`'s budget flags): a scan's
    /// applied budget is held under it again when it runs.
    pub page_budget: PageBudget,
    /// Requests per second to one host (`serve --rate`; the engine's default
    /// is polite to the scanned site).
    pub rate_per_host: f64,
    /// The workers render (a browser is installed): they take render scans,
    /// and the API accepts them (`serve` finds the browser at start-up).
    pub render: bool,
    /// Opens site credentials (`SITESCAN_SECRET_KEY`); `None`: the API
    /// refuses credentials, and a scan of a site with some fails.
    pub secret_key: Option<SecretKey>,
}

impl WorkerSettings {
    /// What a scan run by these workers is held to.
    pub fn limits(&self) -> ScanLimits {
        ScanLimits {
            allow_private: self.allow_private,
            page_budget: self.page_budget,
            rate_per_host: self.rate_per_host,
            secret_key: self.secret_key,
        }
    }
}

/// What the operator holds every scan of a worker to, whatever it asked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanLimits {
    /// Allow scanning loopback and private addresses (tests, development).
    pub allow_private: bool,
    /// The most each limit of a scan's page budget may be.
    pub page_budget: PageBudget,
    /// Requests per second to one host.
    pub rate_per_host: f64,
    /// Opens the credentials of the sites scanned (see
    /// `ops::credentials::scan_credentials`).
    pub secret_key: Option<SecretKey>,
}

/// The engine configuration for a scan as applied by the API, held under the
/// worker's limits (a worker may be started with a lower page budget ceiling
/// than the API that accepted the scan).
pub fn engine_config(applied: &AppliedConfig, limits: ScanLimits) -> ScanConfig {
    let allow_private = limits.allow_private;
    let defaults = ScanConfig::default();
    // The API validated `accept`; a stored value that no longer parses falls
    // back to the default rather than failing the scan.
    let accept = match applied.accept.as_deref().map(|a| {
        a.iter()
            .map(|r| r.parse::<StatusRange>())
            .collect::<Result<Vec<_>, _>>()
    }) {
        None => defaults.accept.clone(),
        Some(Ok(ranges)) if !ranges.is_empty() => ranges,
        Some(Ok(_)) => defaults.accept.clone(),
        Some(Err(e)) => {
            warn!(error = %e, "stored accept ranges do not parse; using the default");
            defaults.accept.clone()
        }
    };
    ScanConfig {
        rules: applied.rules.clone(),
        priority: applied.priority,
        max_pages: applied.max_pages,
        max_depth: applied.max_depth,
        allow_private,
        accept,
        budget: applied.budget.min(&limits.page_budget),
        links: applied.links,
        rate_per_host: limits.rate_per_host,
        include: applied.include.clone(),
        exclude: applied.exclude.clone(),
        render: applied.render,
        render_options: applied.render_options.clone().unwrap_or_default(),
        ..defaults
    }
}

/// The short results of a report (in memory or spooled).
pub fn summarize(source: &dyn ReportSource) -> ScanSummary {
    let report = source.head();
    ScanSummary {
        pages_fetched: report.stats.pages_fetched,
        findings: source
            .finding_count()
            .saturating_sub(report.summary.values().map(|s| s.marked.unwrap_or(0)).sum()),
        truncated: report.stats.truncated,
        regressions: None,
        categories: report
            .summary
            .iter()
            .map(|(cat, s)| {
                (
                    cat.as_str().to_string(),
                    CategoryResult {
                        score: s.score,
                        critical: s.critical,
                        serious: s.serious,
                        moderate: s.moderate,
                        minor: s.minor,
                        cant_tell: s.cant_tell,
                        marked: s.marked.unwrap_or(0),
                    },
                )
            })
            .collect(),
    }
}

/// How the job loop treats a backend's jobs: the one loop ([`spawn_loop`])
/// serves the embedded service ([`spawn_pool`]) and the fleet's workers
/// (`fleet::spawn_workers`); these settings are all that differs.
#[derive(Debug, Clone)]
pub struct LoopSettings {
    /// Scans run at once (worker slots).
    pub slots: usize,
    /// What every scan is held to.
    pub limits: ScanLimits,
    /// A scan charged more attempts than this is given up (dead-lettered and failed).
    pub max_attempts: u32,
    /// A failed run goes back to the queue while its scan has attempts left
    /// (the fleet: another worker may succeed); otherwise the scan fails at once.
    pub retry_failed: bool,
    /// On shutdown, how long a scan in hand may still run before it is handed back.
    pub grace: Duration,
    /// Handing a job back marks its scan `queued` again (the fleet); otherwise
    /// it stays `running` and the next start resumes it as interrupted.
    pub requeue_on_handback: bool,
    /// How long the writes that settle a job (its outcome, the ack) are
    /// retried through backend outages before the job is left to be reclaimed.
    pub persist_for: Duration,
    /// What the slots can run: with `render`, render jobs too, and the loop
    /// announces itself as a render consumer while it runs.
    pub can: Capabilities,
    /// With `can.render`: the gate that takes render jobs only while the
    /// browser works ([`RenderGate`]: the fleet's workers, which hand a render
    /// scan their browser failed back to other render workers). `None`: the
    /// slots take render jobs whenever `can.render` (the embedded service,
    /// whose API reports its own browser's health).
    pub render_gate: Option<Arc<RenderGate>>,
}

impl LoopSettings {
    /// What the slots can run now: no render jobs while the render gate is
    /// closed.
    fn can_now(&self) -> Capabilities {
        Capabilities {
            render: self.can.render && self.render_gate.as_ref().is_none_or(|g| g.is_open()),
        }
    }
}

/// Starts `settings.workers` worker tasks of the embedded service. They stop
/// taking jobs when `shutdown` turns true and hand the scan in hand back at
/// once; the returned set ends when they have.
pub fn spawn_pool(
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    executor: Arc<dyn ScanExecutor>,
    settings: WorkerSettings,
    shutdown: watch::Receiver<bool>,
) -> JoinSet<()> {
    let settings = LoopSettings {
        slots: settings.workers,
        limits: settings.limits(),
        max_attempts: MAX_ATTEMPTS,
        retry_failed: false,
        grace: Duration::ZERO,
        requeue_on_handback: false,
        persist_for: Duration::from_secs(5),
        can: Capabilities {
            render: settings.render,
        },
        render_gate: None,
    };
    let mut set = JoinSet::new();
    spawn_loop(&mut set, store, queue, executor, settings, shutdown);
    set
}

/// Backoff between retries of a failing backend call: 100 ms doubling to 5 s.
#[derive(Debug)]
struct Backoff(Duration);

impl Backoff {
    fn new() -> Self {
        Backoff(Duration::from_millis(100))
    }
    async fn wait(&mut self) {
        tokio::time::sleep(self.0).await;
        self.0 = (self.0 * 2).min(Duration::from_secs(5));
    }
}

/// Retries `op` with backoff until it succeeds or `give_up` passes. A lost
/// lease is final: the job is someone else's now.
async fn persist<T, F, Fut>(what: &str, give_up: Duration, mut op: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = crate::Result<T>>,
{
    let start = std::time::Instant::now();
    let mut backoff = Backoff::new();
    loop {
        match op().await {
            Ok(v) => return Some(v),
            Err(e @ crate::Error::LeaseLost { .. }) => {
                warn!(error = %e, "{what}: skipped");
                return None;
            }
            Err(e) if start.elapsed() < give_up => {
                warn!(error = %e, "{what} failed; retrying");
                backoff.wait().await;
            }
            Err(e) => {
                warn!(error = %e, "{what} failed; giving up (the job will be delivered again)");
                return None;
            }
        }
    }
}

/// What every slot of a loop shares.
struct Slot {
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    executor: Arc<dyn ScanExecutor>,
    settings: LoopSettings,
}

/// Adds `settings.slots` job-loop tasks to `set`: each takes a job from
/// `queue` (waiting without polling), runs it under its lease and settles
/// it. They stop taking jobs when `shutdown` turns true and end once their
/// scan in hand is finished or handed back.
pub fn spawn_loop(
    set: &mut JoinSet<()>,
    store: Arc<dyn Store>,
    queue: Arc<dyn Queue>,
    executor: Arc<dyn ScanExecutor>,
    settings: LoopSettings,
    shutdown: watch::Receiver<bool>,
) {
    if settings.can.render {
        match &settings.render_gate {
            Some(gate) => set.spawn(crate::render_gate::watch_gate(
                gate.clone(),
                queue.clone(),
                shutdown.clone(),
            )),
            None => set.spawn(announce_render(queue.clone(), shutdown.clone())),
        };
    }
    let slot = Arc::new(Slot {
        store,
        queue,
        executor,
        settings,
    });
    for n in 0..slot.settings.slots.max(1) {
        let slot = slot.clone();
        let mut shutdown = shutdown.clone();
        set.spawn(async move {
            let mut backoff = Backoff::new();
            loop {
                if *shutdown.borrow() {
                    break;
                }
                let delivery = tokio::select! {
                    d = slot.queue.dequeue(Duration::from_secs(5), slot.settings.can_now()) => d,
                    _ = shutdown.changed() => continue,
                };
                match delivery {
                    Ok(Some(delivery)) => {
                        backoff = Backoff::new();
                        let span = tracing::info_span!(
                            "scan",
                            scan_id = %delivery.job.scan_id,
                            slot = n,
                            attempt = delivery.attempt
                        );
                        run_job(&slot, delivery, shutdown.clone())
                            .instrument(span)
                            .await;
                    }
                    Ok(None) => backoff = Backoff::new(),
                    Err(e) => {
                        warn!(error = %e, "could not take a job (is the backend reachable?); retrying");
                        backoff.wait().await;
                    }
                }
            }
        });
    }
}

/// Announces the loop's render consumers every [`RENDER_PRESENCE_EVERY`]
/// until `shutdown`, then withdraws them (the API tells render scans that
/// nobody can run them from this).
async fn announce_render(queue: Arc<dyn Queue>, mut shutdown: watch::Receiver<bool>) {
    let mut every = tokio::time::interval(RENDER_PRESENCE_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        if *shutdown.borrow() {
            break;
        }
        tokio::select! {
            _ = every.tick() => {
                if let Err(e) = queue.announce_render().await {
                    warn!(error = %e, "could not announce this worker as able to render; retrying");
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

/// Gives a job up: moves it to the dead-letter record, then marks its scan
/// failed with the reason (in this order: whoever sees `failed` can rely on
/// the job being dead-lettered; a crash in between only repeats it). Nothing
/// happens when the lease moved on: the job is someone else's.
async fn give_up(slot: &Slot, lease: &Lease, reason: String) {
    warn!(%reason, "giving up on the scan: the job is dead-lettered");
    let persist_for = slot.settings.persist_for;
    let dead = persist("dead-lettering the job", persist_for, || {
        slot.queue.dead_letter(lease, &reason)
    })
    .await;
    if dead.is_none() {
        return;
    }
    let outcome = ScanOutcome::Failed { error: reason };
    // The store writes the `scan.failed` event with the status.
    persist("marking the scan failed", persist_for, || {
        slot.store
            .finish_scan(&lease.scan_id, outcome.clone(), Utc::now())
    })
    .await;
}

/// Runs one delivered job to its end: settled (acknowledged, re-queued or
/// dead-lettered), handed back at shutdown, or left alone when its lease is lost.
async fn run_job(slot: &Slot, delivery: Delivery, mut shutdown: watch::Receiver<bool>) {
    let (store, queue, settings) = (&*slot.store, &*slot.queue, &slot.settings);
    let lease = &delivery.lease;
    let id = delivery.job.scan_id.clone();
    let max = settings.max_attempts;
    // A render job taken just before the render gate closed goes back
    // untouched (no attempt charged), for a worker whose browser works.
    if delivery.job.render && !settings.can_now().render {
        info!("this worker's browser does not work now: handing the render scan back");
        if let Err(e) = queue.hand_back(lease).await {
            warn!(error = %e, "could not hand the job back; it is delivered again later");
        }
        return;
    }
    // A render scan's browser is watched while it runs (see
    // `render_gate`): the gate's closures before it, and the browsers that
    // died in use before it.
    let gate = settings
        .render_gate
        .as_ref()
        .filter(|_| delivery.job.render);
    let gate_at_start = gate.map(|g| (g.closures(), g.crashes()));
    // Attempts are the scan's own (`begin`): failed runs and crashes while one
    // of its pages was in analysis. A job delivered again after its worker
    // died on another scan's page costs its scan nothing.
    let (scan, charged) = match begin(store, &id, max).await {
        Ok(Begin::Run(scan, charged)) => (*scan, charged),
        Ok(Begin::Gone) => {
            info!("scan is canceled or gone; dropping the job");
            persist("acknowledging the job", settings.persist_for, || {
                queue.ack(lease)
            })
            .await;
            return;
        }
        Ok(Begin::Stop(reason)) => return give_up(slot, lease, reason).await,
        Ok(Begin::Exhausted(attempts)) => {
            let reason = match queue.last_failure(&id).await.ok().flatten() {
                Some(last) => format!("gave up after {max} attempts: {last}"),
                None => format!(
                    "the scan was interrupted {} times while analysing its pages (worker \
                     crash) and is not retried again",
                    attempts.saturating_sub(1)
                ),
            };
            return give_up(slot, lease, reason).await;
        }
        Err(e) => {
            warn!(error = %e, "could not start the scan; handing the job back");
            let _ = queue.release(lease, &e.to_string()).await;
            return;
        }
    };
    info!(url = %scan.url, "scan started");
    // The heartbeat runs in a task of its own: the scan's future may hold its
    // task for a while (parsing a large page), and a late beat would lose the
    // job to the reclaimer.
    let (lost_tx, mut lost) = tokio::sync::oneshot::channel::<()>();
    let _beat = AbortOnDrop(tokio::spawn(heartbeat(
        slot.queue.clone(),
        lease.clone(),
        lost_tx,
    )));
    let run = execute(store, &*slot.executor, &scan, settings.limits);
    tokio::pin!(run);
    let mut deadline = shutdown
        .borrow()
        .then(|| tokio::time::Instant::now() + settings.grace);
    let mut crash_check = tokio::time::interval(crate::render_gate::CRASH_CHECK_EVERY);
    crash_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The render gate closed while the scan ran: it stops, and goes back.
    let mut gate_closed = false;
    let outcome = loop {
        let grace_over = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            o = &mut run => break o,
            _ = crash_check.tick(), if gate.is_some() => {
                if let (Some(g), Some((closures, _))) = (gate, gate_at_start) {
                    g.watch_crashes(false).await;
                    if g.closures() != closures {
                        gate_closed = true;
                        break None;
                    }
                }
            }
            _ = &mut lost => {
                warn!("lease lost: the job was delivered to another worker (this one missed its heartbeats); leaving it to them");
                return;
            }
            changed = shutdown.changed(), if deadline.is_none() => {
                if changed.is_err() || *shutdown.borrow() {
                    info!(grace_secs = settings.grace.as_secs_f64(), "shutting down: the scan in hand may finish within the grace period");
                    deadline = Some(tokio::time::Instant::now() + settings.grace);
                }
            }
            _ = grace_over => {
                info!("handing the job back: it runs again from the start");
                // No crash: nothing may be charged to the pages left in analysis.
                clear_analysis(store, &id).await;
                if settings.requeue_on_handback {
                    if let Err(e) = store.requeue_scan(&id).await {
                        warn!(error = %e, "could not mark the scan queued again");
                    }
                }
                if let Err(e) = queue.release(lease, "").await {
                    warn!(error = %e, "could not hand the job back; it is delivered again later");
                }
                return;
            }
        }
    };
    // A worker that was frozen (or cut off) past its visibility timeout must
    // not settle a job that another worker now runs: check the lease before
    // writing anything. (`finish_scan` is idempotent besides, so a race in
    // the instant between this check and the write still records one result.)
    if let Err(e @ crate::Error::LeaseLost { .. }) = queue.heartbeat(lease).await {
        warn!(error = %e, "lease lost while the scan ran: its result is not written");
        return;
    }
    clear_analysis(store, &id).await;
    let persist_for = settings.persist_for;
    // A render scan that ran on a browser found broken (it cannot start, or
    // it keeps crashing: see `render_gate`): the worker stops taking render
    // jobs, and the scan goes back to the queue for another render worker,
    // at no cost to it, instead of failing (or completing unrendered) here.
    if let (Some(g), Some((closures, crashes))) = (gate, gate_at_start) {
        let failed = matches!(outcome, Some(ScanOutcome::Failed { .. }));
        let crashed = g.crashes() > crashes;
        if !gate_closed {
            if failed {
                if let sitescan_engine::browser::BrowserHealth::Failing { error: why, .. } =
                    sitescan_engine::browser::health()
                {
                    g.close(&why);
                }
            }
            g.watch_crashes(crashed).await;
        }
        // Closed meanwhile (by this scan or another slot's): a scan that
        // failed, or whose browser crashed, ran on the broken browser.
        if g.closures() != closures && (gate_closed || failed || crashed) {
            let why = match &outcome {
                Some(ScanOutcome::Failed { error }) => error.as_str(),
                _ if gate_closed => "stopped: the browser was found broken while it ran",
                _ => "the browser crashed while it ran",
            };
            warn!(
                error = why,
                refunded = charged,
                "the render scan ran on this worker's broken browser; it goes back to the queue, its attempt given back"
            );
            persist("marking the scan queued again", persist_for, || {
                store.hand_back_scan(&id, charged)
            })
            .await;
            persist("handing the job back", persist_for, || {
                queue.hand_back(lease)
            })
            .await;
            return;
        }
    }
    match outcome {
        Some(ScanOutcome::Failed { error }) if settings.retry_failed && scan.attempts < max => {
            warn!(%error, "attempt failed; the job goes back to the queue");
            persist("marking the scan queued again", persist_for, || {
                store.requeue_scan(&id)
            })
            .await;
            persist("handing the job back", persist_for, || {
                queue.release(lease, &error)
            })
            .await;
            return;
        }
        Some(ScanOutcome::Failed { error }) if settings.retry_failed => {
            return give_up(
                slot,
                lease,
                format!("gave up after {max} attempts: {error}"),
            )
            .await;
        }
        Some(outcome) => {
            let saved = persist("saving the scan's outcome", persist_for, || {
                store.finish_scan(&id, outcome.clone(), Utc::now())
            })
            .await;
            match saved {
                Some(done) => {
                    info!(status = done.status.as_str(), "scan finished");
                    if done.status == ScanStatus::Completed {
                        // After the completion is saved: a regression is only
                        // announced for a scan whose summary says so.
                        if let Err(e) = crate::ops::regressions::announce(store, &done).await {
                            warn!(error = %e, "could not queue the scan.regressed event");
                        }
                    }
                }
                None => return,
            }
        }
        None => info!("scan canceled"),
    }
    persist("acknowledging the job", persist_for, || queue.ack(lease)).await;
}

/// Aborts a task when dropped (the heartbeat of a job no longer run).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Heartbeats `lease` every [`Queue::heartbeat_every`]; tells `lost` (and
/// ends) when the lease moved on. Other failures (the backend briefly
/// unreachable) are retried at the next beat.
async fn heartbeat(queue: Arc<dyn Queue>, lease: Lease, lost: tokio::sync::oneshot::Sender<()>) {
    let mut beat = tokio::time::interval(queue.heartbeat_every());
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    beat.tick().await;
    loop {
        beat.tick().await;
        match queue.heartbeat(&lease).await {
            Ok(()) => {}
            Err(crate::Error::LeaseLost { .. }) => {
                let _ = lost.send(());
                return;
            }
            Err(e) => warn!(error = %e, "heartbeat failed; retrying"),
        }
    }
}

/// How a worker may go on with a delivered job.
#[derive(Debug)]
pub(crate) enum Begin {
    /// Run the scan (now `running`); true when this start charged it an
    /// attempt (false when it resumed after someone else's crash).
    Run(Box<Scan>, bool),
    /// Fail the scan with this error instead of running it.
    Stop(String),
    /// The scan has used its attempts (this many, over the limit): fail it.
    Exhausted(u32),
    /// The scan is terminal or gone: drop the job.
    Gone,
}

/// Takes a delivered scan: a scan that was `running` was interrupted (its
/// process died, or shut down), and the interruption is charged first
/// ([`Store::charge_interruption`]): to the scan whose pages were in analysis
/// (an attempt, and a crash per page; a page at [`MAX_PAGE_CRASHES`] stops the
/// scan, naming it), and not to the scans merely interrupted (resumed with
/// their attempts unchanged, up to [`MAX_UNATTRIBUTED_INTERRUPTIONS`]). Past
/// `max_attempts` the scan is [`Begin::Exhausted`].
///
/// On the embedded service a crash restarts every scan of the process; on
/// Redis only the dead worker's jobs are reclaimed. Either way the record of
/// pages in analysis tells the scan that crashed from the ones interrupted.
pub(crate) async fn begin(store: &dyn Store, id: &str, max_attempts: u32) -> crate::Result<Begin> {
    let Some(before) = store.scan_by_id(id).await? else {
        return Ok(Begin::Gone);
    };
    if before.status.is_terminal() {
        // Canceled while its process was down: forget what it was analysing.
        clear_analysis(store, id).await;
        return Ok(Begin::Gone);
    }
    let started = if before.status == ScanStatus::Running {
        let charge = store.charge_interruption(id).await?;
        if let Some((page, _)) = charge.pages.iter().find(|(_, n)| *n >= MAX_PAGE_CRASHES) {
            return Ok(Begin::Stop(format!(
                "the page {page} crashed the scanner {MAX_PAGE_CRASHES} times (the process died \
                 while analysing it); the scan was stopped"
            )));
        }
        if charge.pages.is_empty() {
            if charge.unattributed >= MAX_UNATTRIBUTED_INTERRUPTIONS {
                return Ok(Begin::Stop(format!(
                    "the scan was interrupted {} times outside page analysis (worker crash or \
                     restart) and is not retried again",
                    charge.unattributed
                )));
            }
            store.resume_scan(id, Utc::now()).await?
        } else {
            store.start_scan(id, Utc::now()).await?
        }
    } else {
        store.start_scan(id, Utc::now()).await?
    };
    match started {
        None => Ok(Begin::Gone),
        Some(scan) if scan.attempts > max_attempts => Ok(Begin::Exhausted(scan.attempts)),
        Some(scan) => {
            let charged = scan.attempts > before.attempts;
            Ok(Begin::Run(Box::new(scan), charged))
        }
    }
}

/// Forgets the pages of scan `id` in analysis (the scan stopped without a crash).
pub(crate) async fn clear_analysis(store: &dyn Store, id: &str) {
    if let Err(e) = store.set_pages_in_analysis(id, &[]).await {
        warn!(error = %e, "could not clear the pages in analysis");
    }
}

/// Renders the compact JSON report of `source` into a [`ReportFile`]
/// (blocking file I/O).
fn render_report(source: &dyn ReportSource) -> crate::Result<ReportFile> {
    use std::io::Write;
    let mut file = ReportFile::new()?;
    {
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, file.writer());
        sitescan_engine::render::render_json_compact_to(source, &mut out)?;
        out.flush()?;
    }
    Ok(file)
}

/// Drives the executor's stream; `None` when the scan was canceled meanwhile.
pub async fn execute(
    store: &dyn Store,
    executor: &dyn ScanExecutor,
    scan: &Scan,
    limits: ScanLimits,
) -> Option<ScanOutcome> {
    let config = engine_config(&scan.config, limits);
    // Opened here, at scan time, and handed to the engine beside the config:
    // credentials are never in the scan's record or its queue job.
    let auth = match crate::ops::credentials::scan_credentials(
        store,
        limits.secret_key.as_ref(),
        &scan.site_id,
    )
    .await
    {
        Ok(auth) => auth,
        Err(e) => {
            warn!(error = %e, "the site's credentials could not be opened");
            return Some(ScanOutcome::Failed {
                error: format!("the site's credentials could not be used: {e}"),
            });
        }
    };
    let scrubber = auth.as_ref().map(Scrubber::new);
    // The marks current when the scan starts are the ones its scores leave out.
    let marks =
        match crate::ops::marks::marks_for_scan(store, &scan.account_id, &scan.site_id).await {
            Ok(m) => m,
            Err(e) => {
                warn!(error = %e, "could not read the site's marks; scanning without them");
                sitescan_engine::Marks::new()
            }
        };
    let mut events = executor.execute_with(&scan.url, config, ScanInputs { auth, marks });
    let mut last_write = tokio::time::Instant::now() - PROGRESS_EVERY;
    // A change of phase is written at once, whatever the interval: a poller
    // must not miss the start of the link phase (or see `crawl` at 100 %).
    let mut last_phase = None;
    let mut poll = tokio::time::interval(CANCEL_POLL);
    // Pages in analysis now, as last recorded in the store.
    let mut analysing: Vec<String> = Vec::new();
    loop {
        let event = tokio::select! {
            e = events.next() => e,
            _ = poll.tick() => {
                match store.scan_by_id(&scan.id).await {
                    Ok(Some(s)) if s.status == ScanStatus::Canceled => return None,
                    _ => continue,
                }
            }
        };
        match event {
            Some(ExecEvent::Progress(p)) => {
                if last_write.elapsed() >= PROGRESS_EVERY || last_phase != Some(p.phase) {
                    last_write = tokio::time::Instant::now();
                    last_phase = Some(p.phase);
                    if let Ok(ScanStatus::Canceled) = store.update_progress(&scan.id, p).await {
                        return None;
                    }
                }
            }
            Some(ExecEvent::Analyzing { url, ready }) => {
                analysing.push(url);
                // Recorded before the page's rules run (they wait for `ready`):
                // if the page takes the process down, the restart knows which
                // scan to charge.
                if let Err(e) = store.set_pages_in_analysis(&scan.id, &analysing).await {
                    warn!(error = %e, "could not record the page in analysis");
                }
                let _ = ready.send(());
            }
            Some(ExecEvent::Analyzed(url)) => {
                if let Some(i) = analysing.iter().position(|u| *u == url) {
                    analysing.swap_remove(i);
                    if let Err(e) = store.set_pages_in_analysis(&scan.id, &analysing).await {
                        warn!(error = %e, "could not record the end of a page's analysis");
                    }
                }
            }
            Some(ExecEvent::Finished(mut report)) => {
                report.head_mut().scan_id = Some(scan.id.clone());
                // Render mode's pictures go to the store with the report, in
                // the step that completes the scan (the report's JSON names
                // them by id), so they never outlive it.
                let shots = std::mem::take(&mut report.head_mut().screenshots);
                let mut summary = summarize(&*report);
                let report: Arc<SpooledReport> = Arc::from(report);
                summary.regressions =
                    crate::ops::regressions::compare_finished(store, scan, report.clone()).await;
                if let (Some(scrubber), Some(r)) = (&scrubber, summary.regressions.as_mut()) {
                    for f in r.new.items.iter_mut().chain(r.fixed.items.iter_mut()) {
                        for text in [&mut f.page_url, &mut f.selector, &mut f.message] {
                            *text = scrubber.scrub(text);
                        }
                    }
                }
                let scrub = scrubber.clone();
                // Rendered once, from the spool into a temporary file, off the
                // async threads; the store copies the file in chunks, so the
                // report is never whole in memory.
                let rendered = tokio::task::spawn_blocking(move || {
                    let rendered = render_report(&*report)?;
                    // The secrets are taken out of the report before it is
                    // stored (a page may echo a header or cookie it got).
                    match scrub {
                        Some(scrubber) => scrubber.scrub_report(rendered),
                        None => Ok(rendered),
                    }
                })
                .await;
                return Some(match rendered {
                    Ok(Ok(report)) => ScanOutcome::Completed {
                        summary,
                        report,
                        screenshots: shots,
                    },
                    Ok(Err(e)) => ScanOutcome::Failed {
                        error: format!("the report could not be written: {e}"),
                    },
                    Err(e) => ScanOutcome::Failed {
                        error: format!("the report could not be written: {e}"),
                    },
                });
            }
            Some(ExecEvent::Failed(error)) => {
                let error = match &scrubber {
                    Some(scrubber) => scrubber.scrub(&error),
                    None => error,
                };
                return Some(ScanOutcome::Failed { error });
            }
            None => {
                return Some(ScanOutcome::Failed {
                    error: "the scan ended without a report".to_string(),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use chrono::Utc;
    use futures::stream;

    use super::*;
    use crate::store::embedded::Embedded;
    use crate::store::{fixture, Plan};

    /// Sets its flag when dropped: proves the worker dropped (canceled) the scan.
    struct DropFlag(Arc<AtomicBool>);
    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// Reports progress every 20 ms and never finishes, or fails at once.
    struct Fake {
        dropped: Arc<AtomicBool>,
        fail: bool,
    }

    impl ScanExecutor for Fake {
        fn execute(&self, _: &str, _: ScanConfig) -> BoxStream<'static, ExecEvent> {
            if self.fail {
                return stream::once(async { ExecEvent::Failed("boom: host unreachable".into()) })
                    .boxed();
            }
            let guard = DropFlag(self.dropped.clone());
            stream::unfold((guard, 0u64), |(guard, n)| async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let p = Progress {
                    pages_done: n,
                    pages_queued: 5,
                    ..Progress::default()
                };
                Some((ExecEvent::Progress(p), (guard, n + 1)))
            })
            .boxed()
        }
    }

    async fn queued_scan(backend: &Embedded) -> Scan {
        let (_, site) = fixture::tenant(backend, Plan::Enterprise, "https://example.com/")
            .await
            .unwrap();
        fixture::queued_scan(backend, backend, &site).await.unwrap()
    }

    async fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !f() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn status(backend: &Embedded, id: &str) -> Scan {
        backend.scan_by_id(id).await.unwrap().unwrap()
    }

    fn pool(backend: &Arc<Embedded>, fake: Fake) -> (watch::Sender<bool>, JoinSet<()>) {
        let (tx, rx) = watch::channel(false);
        let set = spawn_pool(
            backend.clone(),
            backend.clone(),
            Arc::new(fake),
            WorkerSettings {
                workers: 1,
                allow_private: false,
                page_budget: PageBudget::DEFAULT,
                rate_per_host: sitescan_engine::config::DEFAULT_RATE_PER_HOST,
                render: false,
                secret_key: None,
            },
            rx,
        );
        (tx, set)
    }

    #[test]
    fn a_scans_budget_is_held_under_the_workers_ceiling() {
        let applied = AppliedConfig {
            rules: vec!["seo".into()],
            priority: sitescan_engine::Priority::Normal,
            max_pages: 5,
            max_depth: 2,
            plan_max_pages: None,
            accept: None,
            budget: PageBudget {
                time: Duration::from_secs(60),
                max_links: 10,
                ..PageBudget::DEFAULT
            },
            links: Default::default(),
            include: Vec::new(),
            exclude: Vec::new(),
            render: false,
            render_options: None,
        };
        let ceiling = PageBudget {
            time: Duration::from_secs(2),
            max_links: 500,
            ..PageBudget::DEFAULT
        };
        let config = engine_config(
            &applied,
            ScanLimits {
                allow_private: false,
                page_budget: ceiling,
                rate_per_host: sitescan_engine::config::DEFAULT_RATE_PER_HOST,
                secret_key: None,
            },
        );
        assert_eq!(config.budget.time, Duration::from_secs(2));
        assert_eq!(config.budget.max_links, 10);
        assert_eq!(config.budget.max_nodes, PageBudget::DEFAULT.max_nodes);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancel_drops_the_running_scan_and_acknowledges_the_job() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        let dropped = Arc::new(AtomicBool::new(false));
        let (_stop, _set) = pool(
            &backend,
            Fake {
                dropped: dropped.clone(),
                fail: false,
            },
        );
        loop {
            let s = status(&backend, &scan.id).await;
            if s.status == ScanStatus::Running && s.progress.is_some_and(|p| p.pages_done > 0) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        backend
            .cancel_scan(&scan.account_id, &scan.id, Utc::now())
            .await
            .unwrap();
        wait_for("the scan stream to be dropped", || {
            dropped.load(Ordering::SeqCst)
        })
        .await;
        assert_eq!(
            status(&backend, &scan.id).await.status,
            ScanStatus::Canceled
        );
        // Acknowledged: nothing comes back on recovery.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(backend.recover().await.unwrap(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_scan_records_why() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        let (_stop, _set) = pool(
            &backend,
            Fake {
                dropped: Arc::new(AtomicBool::new(false)),
                fail: true,
            },
        );
        let mut done = status(&backend, &scan.id).await;
        for _ in 0..500 {
            if done.status.is_terminal() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            done = status(&backend, &scan.id).await;
        }
        assert_eq!(done.status, ScanStatus::Failed);
        assert_eq!(done.error.as_deref(), Some("boom: host unreachable"));
        assert!(done.finished_at.is_some());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scan_interrupted_too_often_is_failed_not_retried() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        // The first start, then crashes each while a different page of this
        // scan was in analysis: each restart is charged an attempt.
        assert!(matches!(
            begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap(),
            Begin::Run(..)
        ));
        for n in 1..MAX_ATTEMPTS {
            let page = vec![format!("https://example.com/{n}")];
            backend
                .set_pages_in_analysis(&scan.id, &page)
                .await
                .unwrap();
            match begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap() {
                Begin::Run(s, _) => assert_eq!(s.attempts, n + 1),
                other => panic!("{other:?}"),
            }
        }
        let last = vec!["https://example.com/last".to_string()];
        backend
            .set_pages_in_analysis(&scan.id, &last)
            .await
            .unwrap();
        let dropped = Arc::new(AtomicBool::new(false));
        let (_stop, _set) = pool(
            &backend,
            Fake {
                dropped: dropped.clone(),
                fail: false,
            },
        );
        let mut done = status(&backend, &scan.id).await;
        for _ in 0..500 {
            if done.status.is_terminal() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            done = status(&backend, &scan.id).await;
        }
        assert_eq!(done.status, ScanStatus::Failed);
        assert_eq!(
            done.error.as_deref(),
            Some(
                "the scan was interrupted 3 times while analysing its pages (worker crash) \
                 and is not retried again"
            )
        );
        assert!(!dropped.load(Ordering::SeqCst), "never executed");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_in_analysis_at_two_crashes_stops_its_scan() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        assert!(matches!(
            begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap(),
            Begin::Run(..)
        ));
        let pages = vec![
            "https://example.com/fine".to_string(),
            "https://example.com/deep".to_string(),
        ];
        backend
            .set_pages_in_analysis(&scan.id, &pages)
            .await
            .unwrap();
        match begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap() {
            Begin::Run(s, _) => assert_eq!(s.attempts, 2),
            other => panic!("{other:?}"),
        }
        backend
            .set_pages_in_analysis(&scan.id, &pages[1..])
            .await
            .unwrap();
        match begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap() {
            Begin::Stop(error) => assert_eq!(
                error,
                "the page https://example.com/deep crashed the scanner 2 times (the process \
                 died while analysing it); the scan was stopped"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scan_merely_interrupted_keeps_its_attempts() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        assert!(matches!(
            begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap(),
            Begin::Run(..)
        ));
        // Analysis ended before the crash: nothing is left to charge.
        let page = vec!["https://example.com/".to_string()];
        backend
            .set_pages_in_analysis(&scan.id, &page)
            .await
            .unwrap();
        backend.set_pages_in_analysis(&scan.id, &[]).await.unwrap();
        for n in 1..MAX_UNATTRIBUTED_INTERRUPTIONS {
            match begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap() {
                Begin::Run(s, _) => {
                    assert_eq!(s.attempts, 1, "interruption {n}");
                    assert_eq!(s.status, ScanStatus::Running);
                }
                other => panic!("{other:?}"),
            }
        }
        match begin(&*backend, &scan.id, MAX_ATTEMPTS).await.unwrap() {
            Begin::Stop(error) => assert_eq!(
                error,
                "the scan was interrupted 10 times outside page analysis (worker crash or \
                 restart) and is not retried again"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_gives_the_scan_back_to_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let scan = queued_scan(&backend).await;
        let dropped = Arc::new(AtomicBool::new(false));
        let (stop, mut set) = pool(
            &backend,
            Fake {
                dropped: dropped.clone(),
                fail: false,
            },
        );
        // Running, and its executor has reported: its stream (and the flag
        // in it) exists. A stop that came between the two would drop nothing.
        loop {
            let s = status(&backend, &scan.id).await;
            if s.status == ScanStatus::Running && s.progress.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop.send(true).unwrap();
        tokio::time::timeout(Duration::from_secs(5), async {
            while set.join_next().await.is_some() {}
        })
        .await
        .unwrap();
        assert!(dropped.load(Ordering::SeqCst));
        assert_eq!(status(&backend, &scan.id).await.status, ScanStatus::Running);
        // Released: ready again, nothing left in flight.
        assert_eq!(backend.recover().await.unwrap(), 0);
        assert_eq!(backend.ready_len().await.unwrap(), 1);
    }

    /// A render scan whose browser crashes twice (the count its gate reads)
    /// and then runs until dropped.
    struct Crashing {
        crashes: Arc<std::sync::atomic::AtomicUsize>,
        dropped: Arc<AtomicBool>,
    }

    impl ScanExecutor for Crashing {
        fn execute(&self, _: &str, _: ScanConfig) -> BoxStream<'static, ExecEvent> {
            self.crashes.fetch_add(2, Ordering::SeqCst);
            Fake {
                dropped: self.dropped.clone(),
                fail: false,
            }
            .execute("", ScanConfig::default())
        }
    }

    /// A render scan under way when its browser keeps crashing, and a fresh
    /// browser fails the probe too: the gate closes, the scan is stopped and
    /// handed back, queued, with its attempt given back and its delivery not
    /// counted (the embedded backend; `fleet::a_render_worker_whose_browser_
    /// crashes_on_every_context_hands_the_scan_back_uncharged` runs it on
    /// Redis with real processes).
    #[tokio::test]
    async fn a_crash_loop_stops_the_render_scan_and_hands_it_back_uncharged() {
        use futures::FutureExt;
        use std::sync::atomic::AtomicUsize;
        let dir = tempfile::tempdir().unwrap();
        let backend = Arc::new(Embedded::open(dir.path()).unwrap());
        let (_, site) = fixture::tenant(&*backend, Plan::Enterprise, "https://example.com/")
            .await
            .unwrap();
        let mut scan = fixture::scan(
            &crate::store::new_id("scan").unwrap(),
            &site.id,
            &site.account_id,
            &site.url,
        );
        scan.config.render = true;
        let scan = backend
            .create_scan_if_quota(scan, Utc::now().date_naive(), None)
            .await
            .unwrap();
        backend.enqueue(crate::queue::Job::of(&scan)).await.unwrap();
        let (works, probes, crashes) = (
            Arc::new(AtomicBool::new(true)),
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicUsize::new(0)),
        );
        let probe: crate::render_gate::Probe = {
            let (works, probes) = (works.clone(), probes.clone());
            Arc::new(move || {
                let (works, probes) = (works.clone(), probes.clone());
                async move {
                    probes.fetch_add(1, Ordering::SeqCst);
                    match works.load(Ordering::SeqCst) {
                        true => Ok(()),
                        false => Err("the browser exited or crashed".to_string()),
                    }
                }
                .boxed()
            })
        };
        let gate = {
            let crashes = crashes.clone();
            RenderGate::with(
                probe,
                Arc::new(move || crashes.load(Ordering::SeqCst) as u64),
            )
        };
        assert!(gate.try_open().await);
        // From now on a fresh browser fails too.
        works.store(false, Ordering::SeqCst);
        let dropped = Arc::new(AtomicBool::new(false));
        let (stop, rx) = watch::channel(false);
        let mut set = JoinSet::new();
        spawn_loop(
            &mut set,
            backend.clone(),
            backend.clone(),
            Arc::new(Crashing {
                crashes: crashes.clone(),
                dropped: dropped.clone(),
            }),
            LoopSettings {
                slots: 1,
                limits: ScanLimits {
                    allow_private: false,
                    page_budget: PageBudget::DEFAULT,
                    rate_per_host: sitescan_engine::config::DEFAULT_RATE_PER_HOST,
                    secret_key: None,
                },
                max_attempts: MAX_ATTEMPTS,
                retry_failed: true,
                grace: Duration::ZERO,
                requeue_on_handback: true,
                persist_for: Duration::from_secs(5),
                can: Capabilities::RENDER,
                render_gate: Some(gate.clone()),
            },
            rx,
        );
        wait_for("the scan to be handed back", || {
            dropped.load(Ordering::SeqCst)
        })
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let back = loop {
            let s = status(&backend, &scan.id).await;
            if s.status == ScanStatus::Queued && backend.ready_len().await.unwrap() == 1 {
                break s;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "not handed back: {s:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert_eq!((back.attempts, back.error), (0, None));
        assert!(!gate.is_open());
        assert_eq!(gate.closures(), 1);
        assert_eq!(
            probes.load(Ordering::SeqCst),
            2,
            "the opening and the confirmation"
        );
        stop.send(true).unwrap();
        tokio::time::timeout(Duration::from_secs(10), async {
            while set.join_next().await.is_some() {}
        })
        .await
        .unwrap();
        // The closed gate's loop never took it again; its next delivery is
        // its first.
        let again = backend
            .dequeue(Duration::from_millis(100), Capabilities::RENDER)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (again.job.scan_id.as_str(), again.attempt),
            (scan.id.as_str(), 1)
        );
    }
}
