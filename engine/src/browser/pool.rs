//! The process's browser and a scan's tabs.
//!
//! One browser per process, started on first use. It is replaced when it
//! crashed (its pipe closed), when a tab could not be closed (it may be hung
//! for good), or after [`super::LaunchOptions::recycle_after`] pages; scans
//! still using the old one move to the new one at their next page, and the
//! old process is killed when the last of them lets go of it.
//!
//! Each scan has a [`RenderSession`]: a browser context of its own (cookies,
//! storage and cache are never shared between scans or tenants) and tabs, at
//! most the scan's concurrency, kept between pages. A tab whose render did not
//! finish in time is closed, never reused.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

use super::cdp::{Connection, Wait, World};
use super::interact;
use super::intercept::{
    Interceptor, MainDocument, PageJob, Policy, Refusal, RobotsCheck, TabState,
};
use super::launch::{self, LaunchOptions, Process};
use super::snapshot::{self, Ready};
use super::BrowserError;
use crate::config::{RenderOptions, ScanConfig};
use crate::crawl::credentials::Credentials;
use crate::crawl::fetch::Fetched;
use crate::crawl::host_limits::HostPool;
use crate::crawl::scope::Scope;
use sitescan_rules::interaction::Interaction;

/// Runs in every document before its own scripts: no service workers (their
/// requests would not pass the tab's interceptor), no popups.
const INIT_SCRIPT: &str = "(() => {
  try { Object.defineProperty(Navigator.prototype, 'serviceWorker', { get() { return undefined; } }); } catch (e) {}
  try { window.open = function () { return null; }; } catch (e) {}
})();";

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One running browser.
pub struct Browser {
    process: Process,
    options: LaunchOptions,
    pages: AtomicUsize,
    broken: AtomicBool,
    /// Its death is counted in [`crashes`] (once).
    counted: AtomicBool,
}

impl Browser {
    /// Counts this browser in [`crashes`] when it died in use (its process
    /// ended or its pipe closed while the pool still held it) or was given
    /// up as hung: once per browser. A browser retired after its pages is
    /// not a crash.
    fn count_if_dead(&self) {
        let dead =
            self.conn().is_closed() || self.process.exited() || self.broken.load(Ordering::SeqCst);
        if dead && !self.counted.swap(true, Ordering::SeqCst) {
            let n = CRASHES.fetch_add(1, Ordering::SeqCst) + 1;
            tracing::warn!(
                pages = self.pages.load(Ordering::SeqCst),
                crashes = n,
                "the browser died in use (crashed, killed, or hung)"
            );
        }
    }

    fn conn(&self) -> &Arc<Connection> {
        &self.process.conn
    }

    /// Whether new pages may still go to this browser.
    fn usable(&self) -> bool {
        !self.conn().is_closed()
            && !self.process.exited()
            && !self.broken.load(Ordering::SeqCst)
            && self.pages.load(Ordering::SeqCst) < self.options.recycle_after
    }

    /// Connections the sink refused so far (requests no tab intercepted).
    pub fn leaks(&self) -> u64 {
        self.process.leaks.load(Ordering::Relaxed)
    }
}

/// First wait, after a browser failed to start, before another start is
/// tried; it doubles with each failure in a row up to
/// [`MAX_RESTART_BACKOFF`]. Until then a render scan fails at once with
/// [`BrowserError::Unavailable`] instead of starting the browser again: a
/// browser that cannot start is never retried in a tight loop.
pub const FIRST_RESTART_BACKOFF: Duration = Duration::from_secs(1);
/// Longest wait between two starts of a browser that keeps failing.
pub const MAX_RESTART_BACKOFF: Duration = Duration::from_secs(30);

/// The wait after `failures` failed starts in a row.
fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_RESTART_BACKOFF
        .saturating_mul(1u32 << doublings)
        .min(MAX_RESTART_BACKOFF)
}

/// Starts that failed in a row, and when the next may be tried.
#[derive(Debug, Clone)]
struct Failing {
    error: BrowserError,
    failures: u32,
    retry_at: Instant,
}

/// The process's browser, or why there is none.
#[derive(Default)]
struct Slot {
    browser: Option<Arc<Browser>>,
    failing: Option<Failing>,
}

static CURRENT: OnceLock<tokio::sync::Mutex<Slot>> = OnceLock::new();

/// What [`health`] reads without waiting for a start in progress: the last
/// browser started and the failures since.
static HEALTH: Mutex<(Option<std::sync::Weak<Browser>>, Option<Failing>)> =
    Mutex::new((None, None));

/// Browsers this process started (for tests of recycling).
static LAUNCHES: AtomicUsize = AtomicUsize::new(0);

/// Browsers of this process that died in use ([`crashes`]).
static CRASHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many of this process's browsers died in use so far: crashed, were
/// killed, or hung and were given up, as opposed to retired after
/// [`LaunchOptions::recycle_after`] pages. Each counts once, when the pool
/// replaces it or when this is asked (the browser now running is looked at).
/// Only grows: a caller that samples it sees the crashes since its last
/// look, e.g. to tell a browser that crashes on every page (the pool
/// restarts it each time, so it never shows as failing to start) from a
/// healthy one.
pub fn crashes() -> u64 {
    let current = lock(&HEALTH).0.as_ref().and_then(std::sync::Weak::upgrade);
    if let Some(b) = current {
        b.count_if_dead();
    }
    CRASHES.load(Ordering::SeqCst)
}

/// How many browsers this process has started.
pub fn launches() -> usize {
    LAUNCHES.load(Ordering::SeqCst)
}

/// The state of this process's browser, for a service's readiness answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BrowserHealth {
    /// No render scan has needed the browser yet.
    NotStarted,
    /// The browser is running.
    Running,
    /// The browser exited (crashed, killed, or replaced); the next render
    /// scan starts a new one.
    Exited,
    /// The last start failed: render scans fail with `error` until a start
    /// works again. The next start is tried by the first render scan after
    /// `retry_in`.
    Failing {
        /// Why the browser could not start (names what to install).
        error: String,
        /// Starts that failed in a row.
        failures: u32,
        /// Time until the next start may be tried (zero: the next render
        /// scan tries).
        retry_in: Duration,
    },
}

/// The state of this process's browser: running, failing to start (and
/// why), or not started yet. Cheap; never starts a browser.
pub fn health() -> BrowserHealth {
    let h = lock(&HEALTH);
    if let Some(f) = &h.1 {
        return BrowserHealth::Failing {
            error: f.error.to_string(),
            failures: f.failures,
            retry_in: f.retry_at.saturating_duration_since(Instant::now()),
        };
    }
    match &h.0 {
        None => BrowserHealth::NotStarted,
        Some(weak) => match weak.upgrade() {
            Some(b) if !b.conn().is_closed() && !b.process.exited() => BrowserHealth::Running,
            _ => BrowserHealth::Exited,
        },
    }
}

/// The process's browser, started (or replaced) when needed. A start that
/// fails is not tried again before its backoff ([`FIRST_RESTART_BACKOFF`])
/// has passed; meanwhile the failure is answered at once
/// ([`BrowserError::Unavailable`]).
async fn browser() -> Result<Arc<Browser>, BrowserError> {
    let mut slot = CURRENT
        .get_or_init(|| tokio::sync::Mutex::new(Slot::default()))
        .lock()
        .await;
    if let Some(b) = slot.browser.as_ref() {
        if b.usable() {
            return Ok(Arc::clone(b));
        }
        b.count_if_dead();
        tracing::info!(
            pages = b.pages.load(Ordering::SeqCst),
            exited = b.conn().is_closed() || b.process.exited(),
            "replacing the browser"
        );
    }
    if let Some(f) = &slot.failing {
        let now = Instant::now();
        if now < f.retry_at {
            return Err(BrowserError::Unavailable {
                error: f.error.to_string(),
                failures: f.failures,
                retry_in_s: f.retry_at.duration_since(now).as_secs_f64().ceil() as u64,
            });
        }
    }
    // A dead or retired browser is let go of now (its process is killed
    // once the scans still holding it let go too).
    slot.browser = None;
    let options = launch::options();
    match launch::start(&options).await {
        Ok(process) => {
            LAUNCHES.fetch_add(1, Ordering::SeqCst);
            let b = Arc::new(Browser {
                process,
                options,
                pages: AtomicUsize::new(0),
                broken: AtomicBool::new(false),
                counted: AtomicBool::new(false),
            });
            if let Some(f) = slot.failing.take() {
                tracing::info!(
                    failures = f.failures,
                    "the browser starts again: render scans run"
                );
            }
            slot.browser = Some(Arc::clone(&b));
            *lock(&HEALTH) = (Some(Arc::downgrade(&b)), None);
            Ok(b)
        }
        Err(error) => {
            let failures = slot.failing.as_ref().map_or(0, |f| f.failures) + 1;
            let wait = backoff(failures);
            tracing::warn!(
                %error,
                failures,
                retry_in_ms = wait.as_millis() as u64,
                "the browser could not start: render scans fail until it can"
            );
            let failing = Failing {
                error: error.clone(),
                failures,
                retry_at: Instant::now() + wait,
            };
            slot.failing = Some(failing.clone());
            lock(&HEALTH).1 = Some(failing);
            Err(error)
        }
    }
}

/// A browser context of one scan.
struct Context {
    browser: Arc<Browser>,
    id: String,
}

impl Drop for Context {
    fn drop(&mut self) {
        let conn = Arc::clone(self.browser.conn());
        let id = self.id.clone();
        let timeout = self.browser.options.call_timeout;
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = conn
                    .call(
                        None,
                        "Target.disposeBrowserContext",
                        json!({"browserContextId": id}),
                        timeout,
                    )
                    .await;
            });
        }
    }
}

/// A tab of a scan's context, with its event pump.
struct Tab {
    ctx: Arc<Context>,
    target: String,
    session: String,
    state: Arc<TabState>,
    pump: tokio::task::AbortHandle,
}

impl Drop for Tab {
    fn drop(&mut self) {
        self.pump.abort();
        let browser = Arc::clone(&self.ctx.browser);
        browser.conn().unsubscribe(&self.session);
        let target = self.target.clone();
        // The task holds the context until the tab is closed. The context's
        // own drop disposes of it on a task spawned after this one, which a
        // multi-threaded runtime runs first (a worker's newest task goes
        // first); disposed first, the context takes its tabs along, the
        // close finds no target, and the browser was replaced after every
        // render scan for nothing.
        let ctx = Arc::clone(&self.ctx);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let closed = browser
                    .conn()
                    .call(
                        None,
                        "Target.closeTarget",
                        json!({"targetId": target}),
                        browser.options.call_timeout,
                    )
                    .await;
                if let Err(e) = closed {
                    // A tab the browser cannot close: the browser is replaced.
                    tracing::warn!(error = %e, "a tab could not be closed; the browser will be replaced");
                    browser.broken.store(true, Ordering::SeqCst);
                }
                drop(ctx);
            });
        }
    }
}

/// The DOM of a rendered page, and what its requests came to.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The serialized DOM.
    pub html: String,
    /// Whether the wait's condition held before `max_wait_ms`.
    pub ready: Ready,
    /// Requests the interceptor refused.
    pub refusals: Vec<Refusal>,
    /// Requests the page made.
    pub requests: usize,
    /// What the browser measured ([`super::facts`]).
    pub facts: Option<sitescan_rules::rendered::RenderedFacts>,
    /// The serialized DOM was longer than the scan's `max_body_bytes` and is
    /// cut there (as a fetched body is).
    pub truncated: bool,
    /// The keyboard walk, when the session walks pages
    /// ([`RenderSession::start`]'s `interaction`).
    pub interaction: Option<Interaction>,
    /// The page's lab Web Vitals ([`super::metrics`]), with its requests and
    /// bytes by type; FCP and LCP still from the browser's time origin
    /// until [`super::metrics::finish`].
    pub vitals: Option<Box<sitescan_rules::vitals::WebVitals>>,
}

/// Render mode of one scan: its browser context and tabs.
pub struct RenderSession {
    policy: Arc<Policy>,
    options: RenderOptions,
    call_timeout: Duration,
    tabs: Arc<Semaphore>,
    ctx: tokio::sync::Mutex<Option<Arc<Context>>>,
    idle: Arc<Mutex<Vec<Tab>>>,
    user_agent: String,
    /// Walk each page's keyboard ([`interact`]) after it is serialized.
    interaction: bool,
    /// Lay each page out in narrow viewports ([`super::reflow`]).
    narrow: bool,
    /// Measure the backdrop of text over images ([`super::backdrop`]).
    backdrop: bool,
    /// Show each page's links hovered and focused ([`super::states`]).
    states: bool,
    /// The scan's cap on a page body, which the serialized DOM keeps too.
    max_body: u64,
    /// The scan's credentials: their session's cookies are put into each
    /// context this session creates (a browser replaced midway keeps the
    /// session).
    auth: Option<Arc<Credentials>>,
}

impl RenderSession {
    /// Starts render mode for a scan with `config` sharing the scan's host
    /// pool: the browser is started now (a missing browser fails here, before
    /// any page) and the scan's context created. `interaction`: walk each
    /// page's keyboard (a selected rule needs
    /// [`sitescan_rules::Need::Interaction`]).
    pub async fn start(
        config: &ScanConfig,
        hosts: Arc<HostPool>,
        interaction: bool,
    ) -> crate::Result<RenderSession> {
        Self::start_with_auth(config, hosts, interaction, None).await
    }

    /// [`RenderSession::start`] for a scan with credentials: the interceptor
    /// adds them to requests on their origin, and the context gets their
    /// session's cookies.
    pub async fn start_with_auth(
        config: &ScanConfig,
        hosts: Arc<HostPool>,
        interaction: bool,
        auth: Option<Arc<Credentials>>,
    ) -> crate::Result<RenderSession> {
        let policy = Policy::new(config, hosts)?.with_auth(auth.clone());
        let session = RenderSession {
            policy: Arc::new(policy),
            options: config.render_options.clone(),
            call_timeout: launch::options().call_timeout,
            tabs: Arc::new(Semaphore::new(config.concurrency.max(1))),
            ctx: tokio::sync::Mutex::new(None),
            idle: Arc::new(Mutex::new(Vec::new())),
            user_agent: config.user_agent.clone(),
            interaction,
            narrow: false,
            backdrop: false,
            states: false,
            max_body: config.max_body_bytes,
            auth,
        };
        session
            .context()
            .await
            .map_err(|e| crate::Error::Browser(e.to_string()))?;
        Ok(session)
    }

    /// Also lays each page out in narrow viewports ([`super::reflow`]) when
    /// `on` (a selected rule needs [`sitescan_rules::Need::NarrowViewport`]).
    pub fn with_narrow_viewport(mut self, on: bool) -> RenderSession {
        self.narrow = on;
        self
    }

    /// The device every tab of the scan is emulated as (its viewport).
    fn device(&self) -> super::metrics::DeviceMetrics {
        super::metrics::DeviceMetrics::of(&self.options)
    }

    /// Also measures the backdrop of text over images and gradients
    /// ([`super::backdrop`]) when `on` (a selected rule needs
    /// [`sitescan_rules::Need::MeasuredBackdrop`]).
    pub fn with_measured_backdrop(mut self, on: bool) -> RenderSession {
        self.backdrop = on;
        self
    }

    /// Also shows each page's links hovered and focused
    /// ([`super::states`]) when `on` (a selected rule needs
    /// [`sitescan_rules::Need::LinkStates`]).
    pub fn with_link_states(mut self, on: bool) -> RenderSession {
        self.states = on;
        self
    }

    /// The scan's context, in a usable browser (a new context in a new
    /// browser when the old one crashed or is due for recycling).
    async fn context(&self) -> Result<Arc<Context>, BrowserError> {
        let mut slot = self.ctx.lock().await;
        if let Some(c) = slot.as_ref() {
            if c.browser.usable() {
                return Ok(Arc::clone(c));
            }
        }
        lock(&self.idle).clear();
        *slot = None;
        let new_context = |b: Arc<Browser>| async move {
            let r = b
                .conn()
                .call(
                    None,
                    "Target.createBrowserContext",
                    json!({}),
                    self.call_timeout,
                )
                .await;
            (b, r)
        };
        let (mut current, mut r) = new_context(browser().await?).await;
        // The browser died after it was judged usable, before its death was
        // seen (a wrapper script can hold its pipe open a moment longer): the
        // scan asks for a new one once, which starts it or says why not.
        if matches!(r, Err(BrowserError::Crashed)) {
            current.broken.store(true, Ordering::SeqCst);
            (current, r) = new_context(browser().await?).await;
        }
        let browser = current;
        let r = r?;
        let id = r
            .get("browserContextId")
            .and_then(Value::as_str)
            .ok_or_else(|| BrowserError::Protocol("no browser context id".into()))?
            .to_string();
        let c = Arc::new(Context { browser, id });
        self.seed_cookies(&c).await?;
        *slot = Some(Arc::clone(&c));
        Ok(c)
    }

    /// Puts the session's cookies (the credentials' jar) into a context,
    /// scoped to the credentials' origin's host.
    async fn seed_cookies(&self, ctx: &Context) -> Result<(), BrowserError> {
        let Some(auth) = &self.auth else {
            return Ok(());
        };
        let url = auth.origin_url().as_str();
        let cookies: Vec<Value> = auth
            .cookies()
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value, "url": url}))
            .collect();
        if cookies.is_empty() {
            return Ok(());
        }
        ctx.browser
            .conn()
            .call(
                None,
                "Storage.setCookies",
                json!({"cookies": cookies, "browserContextId": ctx.id}),
                self.call_timeout,
            )
            .await?;
        Ok(())
    }

    /// Puts the session's cookies into the current context again (after a
    /// sign-in form filled the jar).
    pub async fn refresh_cookies(&self) -> Result<(), BrowserError> {
        let ctx = self.context().await?;
        self.seed_cookies(&ctx).await
    }

    /// Runs the credentials' sign-in steps in a tab of the scan's context
    /// ([`super::sign_in`]), then copies the context's cookies for the
    /// credentials' host into their jar, so the pages the crawler fetches
    /// carry the session too. `start`: the scan's start URL. `Err` is the
    /// message of [`crate::Error::Login`].
    pub async fn sign_in(
        &self,
        start: &Url,
        scope: Arc<Scope>,
        robots: RobotsCheck,
    ) -> Result<(), String> {
        let Some(auth) = &self.auth else {
            return Ok(());
        };
        let steps = &auth.auth().login_steps;
        if steps.is_empty() {
            return Ok(());
        }
        let browser_failed = |e: BrowserError| format!("the browser failed: {e}");
        let _permit = self
            .tabs
            .acquire()
            .await
            .map_err(|_| browser_failed(BrowserError::Crashed))?;
        let ctx = self.context().await.map_err(browser_failed)?;
        let tab = self.open_tab(&ctx).await.map_err(browser_failed)?;
        let job = Arc::new(PageJob::sign_in(auth.origin_url().origin(), scope, robots));
        *lock(&tab.state.job) = Some(job);
        let conn = Arc::clone(ctx.browser.conn());
        let step_tab = super::sign_in::StepTab {
            conn: &conn,
            session: &tab.session,
            state: &tab.state,
            call_timeout: self.call_timeout,
        };
        let ran = super::sign_in::run_steps(&step_tab, start, steps).await;
        *lock(&tab.state.job) = None;
        ran?;
        let got = conn
            .call(
                None,
                "Storage.getCookies",
                json!({"browserContextId": ctx.id}),
                self.call_timeout,
            )
            .await
            .map_err(browser_failed)?;
        let host = auth
            .origin_url()
            .host_str()
            .unwrap_or("")
            .to_ascii_lowercase();
        let cookies = got
            .get("cookies")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter(|c| {
                c.get("domain")
                    .and_then(Value::as_str)
                    .is_some_and(|d| d.trim_start_matches('.').eq_ignore_ascii_case(&host))
            })
            .filter_map(|c| {
                Some((
                    c.get("name")?.as_str()?.to_string(),
                    c.get("value")?.as_str()?.to_string(),
                ))
            });
        auth.add_cookies(cookies);
        // The tab is closed (dropped): the next page starts from a clean tab.
        drop(tab);
        Ok(())
    }

    async fn open_tab(&self, ctx: &Arc<Context>) -> Result<Tab, BrowserError> {
        let conn = Arc::clone(ctx.browser.conn());
        let t = self.call_timeout;
        let (target, session) = conn.open_tab(&ctx.id, t).await?;
        let mut events = conn.subscribe(&session);
        let state = Arc::new(TabState::new());
        let interceptor = Arc::new(Interceptor {
            conn: Arc::clone(&conn),
            session: session.clone(),
            target: target.clone(),
            state: Arc::clone(&state),
            policy: Arc::clone(&self.policy),
            call_timeout: t,
        });
        let pump = tokio::spawn(async move {
            while let Some(ev) = events.recv().await {
                match ev.method.as_str() {
                    "Fetch.requestPaused" => {
                        tokio::spawn(Arc::clone(&interceptor).on_paused(ev.params));
                    }
                    "Page.lifecycleEvent" => {
                        let p = &ev.params;
                        if p.get("name").and_then(Value::as_str) == Some("load")
                            && p.get("frameId").and_then(Value::as_str) == Some(&interceptor.target)
                        {
                            let loader = p.get("loaderId").and_then(Value::as_str);
                            interceptor
                                .state
                                .loaded
                                .send_replace(loader.map(str::to_string));
                        }
                    }
                    "Page.javascriptDialogOpening" => {
                        // alert() and friends would block the page: dismissed.
                        let i = Arc::clone(&interceptor);
                        tokio::spawn(async move {
                            let _ = i
                                .conn
                                .call(
                                    Some(&i.session),
                                    "Page.handleJavaScriptDialog",
                                    json!({"accept": false}),
                                    i.call_timeout,
                                )
                                .await;
                        });
                    }
                    _ => {}
                }
            }
        })
        .abort_handle();
        let tab = Tab {
            ctx: Arc::clone(ctx),
            target,
            session: session.clone(),
            state,
            pump,
        };
        let s = Some(session.as_str());
        for (method, params) in [
            ("Page.enable", json!({})),
            ("Page.setLifecycleEventsEnabled", json!({"enabled": true})),
            ("Network.enable", json!({})),
            ("Network.setCacheDisabled", json!({"cacheDisabled": true})),
            ("Network.setBypassServiceWorker", json!({"bypass": true})),
            // Focus and blur events, `:focus-visible` and key presses behave
            // as in a focused window although no window has focus.
            (
                "Emulation.setFocusEmulationEnabled",
                json!({"enabled": true}),
            ),
            (
                "Emulation.setUserAgentOverride",
                json!({"userAgent": self.user_agent}),
            ),
            (
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": INIT_SCRIPT}),
            ),
            (
                "Fetch.enable",
                json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
            ),
        ] {
            conn.call(s, method, params, t).await?;
        }
        if self.interaction {
            conn.call(
                s,
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": interact::PROBE}),
                t,
            )
            .await?;
        }
        super::metrics::prepare_tab(&conn, &session, self.options.throttle, self.device(), t)
            .await?;
        Ok(tab)
    }

    /// Renders the page the static fetcher got: the browser is served `doc`
    /// as the page's document, every other request goes through the
    /// interceptor under `scope` and `robots`.
    pub async fn render(
        &self,
        doc: MainDocument,
        scope: Arc<Scope>,
        robots: RobotsCheck,
    ) -> Result<Rendered, BrowserError> {
        self.render_held(doc, scope, robots, false)
            .await
            .map(|(r, _)| r)
    }

    /// [`RenderSession::render`], and with `hold` the tab still on the page
    /// (for [`super::screenshot`], after the rules ran): it keeps its place
    /// among the scan's tabs until [`HeldTab::release`].
    async fn render_held(
        &self,
        doc: MainDocument,
        scope: Arc<Scope>,
        robots: RobotsCheck,
        hold: bool,
    ) -> Result<(Rendered, Option<HeldTab>), BrowserError> {
        let permit = Arc::clone(&self.tabs)
            .acquire_owned()
            .await
            .map_err(|_| BrowserError::Crashed)?;
        let ctx = self.context().await?;
        let reused = {
            let mut idle = lock(&self.idle);
            let at = idle.iter().position(|t| Arc::ptr_eq(&t.ctx, &ctx));
            at.map(|i| idle.swap_remove(i))
        };
        let tab = match reused {
            Some(t) => t,
            None => self.open_tab(&ctx).await?,
        };
        let job = Arc::new(PageJob::new(doc, scope, robots));
        // Bounded as a whole: the wait, then the calls around it.
        let mut limit = Duration::from_millis(self.options.max_wait_ms) + self.call_timeout * 3;
        if self.interaction {
            limit += interact::TIME_BUDGET
                + super::shortcuts::TIME_BUDGET
                + super::activate::TIME_BUDGET
                + self.call_timeout * 5;
        }
        if self.narrow {
            limit += super::reflow::budget(self.call_timeout);
        }
        if self.backdrop {
            limit += super::backdrop::budget(self.call_timeout);
        }
        if self.states {
            limit += super::states::budget(self.call_timeout);
        }
        let outcome =
            tokio::time::timeout(limit, self.render_in(&tab, Arc::clone(&job), hold)).await;
        ctx.browser.pages.fetch_add(1, Ordering::SeqCst);
        *lock(&tab.state.job) = None;
        match outcome {
            Ok(Ok(page)) => {
                let rendered = Rendered {
                    html: page.html,
                    ready: page.ready,
                    facts: Some(page.facts),
                    refusals: job.refusals(),
                    requests: job.requests(),
                    truncated: page.truncated,
                    interaction: page.interaction,
                    vitals: Some(Box::new(sitescan_rules::vitals::WebVitals {
                        resources: job.by_type(),
                        ..page.vitals
                    })),
                };
                let held = if hold {
                    Some(HeldTab {
                        tab: Some(tab),
                        idle: Arc::clone(&self.idle),
                        _permit: permit,
                        call_timeout: self.call_timeout,
                        restore: page.changed.then(|| Restore::of(job, &self.options)),
                    })
                } else {
                    lock(&self.idle).push(tab);
                    None
                };
                Ok((rendered, held))
            }
            // The tab is closed (dropped), never reused.
            Ok(Err(e)) => Err(e),
            Err(_) => Err(BrowserError::Timeout {
                method: "render".into(),
                ms: limit.as_millis() as u64,
            }),
        }
    }

    async fn render_in(
        &self,
        tab: &Tab,
        job: Arc<PageJob>,
        hold: bool,
    ) -> Result<TabPage, BrowserError> {
        let conn = Arc::clone(tab.ctx.browser.conn());
        let s = Some(tab.session.as_str());
        let t = self.call_timeout;
        let url = job.doc.url.to_string();
        let page_job = Arc::clone(&job);
        *lock(&tab.state.job) = Some(job);
        let started = Instant::now();
        let ready = load(tab, &url, &self.options, started, t).await?;
        let mut phases = Phases::new(started);
        phases.lap(Phase::Load);
        // Stamps, snapshot, then the DOM carrying the stamps (super::facts).
        super::metrics::mark(&conn, &tab.session, &tab.target, t).await;
        let super::facts::Snapshot {
            mut facts, backend, ..
        } = super::facts::capture(&conn, &tab.session, t).await;
        phases.lap(Phase::Snapshot);
        let mut vitals =
            super::metrics::collect(&conn, &tab.session, &tab.target, self.options.throttle, t)
                .await;
        let device = self.device();
        vitals.viewport = Some(sitescan_rules::vitals::LabViewport {
            width: device.width,
            height: device.height,
            scale: device.scale,
            mobile: device.mobile,
        });
        phases.lap(Phase::Vitals);
        let (html, truncated) = serialize_capped(&conn, &tab.session, self.max_body, t).await?;
        phases.lap(Phase::Serialize);
        if self.backdrop && facts.is_present() {
            super::backdrop::measure(&conn, &tab.session, &tab.target, &mut facts, t).await?;
        }
        phases.lap(Phase::Backdrop);
        if self.narrow && facts.is_present() {
            let narrow =
                super::reflow::measure(&conn, &tab.session, &tab.target, self.device(), t).await?;
            facts.narrow = Some(Box::new(narrow));
        }
        phases.lap(Phase::Reflow);
        if self.states && facts.is_present() {
            match super::states::measure(&conn, &tab.session, &tab.target, &backend, &mut facts, t)
                .await
            {
                Ok(()) => {}
                Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => return Err(e),
                // The links keep no states: the rule reads the stylesheets.
                Err(e) => tracing::debug!(error = %e, "the links' states were not taken"),
            }
        }
        phases.lap(Phase::States);
        // Whether activating the page's controls ran its code (the page may
        // no longer be as it was judged).
        let mut changed = false;
        let interaction = if self.interaction {
            let mut first_press = None;
            let mut walked =
                interact::walk_page(&conn, &tab.session, &tab.target, t, &mut first_press).await;
            // A walk that failed on its own (not a hung or crashed tab) is
            // tried once more: an answer lost under load would otherwise
            // leave the whole page "not checked" for the keyboard rules.
            if let Err(e) = &walked {
                if !matches!(e, BrowserError::Timeout { .. } | BrowserError::Crashed) {
                    tracing::debug!(error = %e, "the keyboard walk failed; walking again");
                    first_press = None;
                    walked =
                        interact::walk_page(&conn, &tab.session, &tab.target, t, &mut first_press)
                            .await;
                }
            }
            phases.split(Phase::WalkSetup, first_press, Phase::Walk);
            match walked {
                Ok(mut walk) => {
                    super::metrics::collect_inp(&conn, &tab.session, &tab.target, &mut vitals, t)
                        .await;
                    phases.lap(Phase::Vitals);
                    // Last: sending keys and activating controls run the
                    // page's code, with its requests refused. A page kept
                    // for its pictures gets them too (its findings are the
                    // same as without pictures); when that ran page code,
                    // the held tab loads the page again before its pictures
                    // (HeldTab::restore), so they show it as it was judged.
                    page_job.freeze();
                    // The shortcuts first (super::shortcuts): the
                    // activations open menus and dialogs a user would not
                    // have opened before pressing a key.
                    let shortcuts =
                        super::shortcuts::find_shortcuts(&conn, &tab.session, &tab.target, t).await;
                    phases.lap(Phase::Shortcuts);
                    match shortcuts {
                        Ok(found) => {
                            tracing::debug!(
                                url,
                                keys = found.shortcuts.keys_tried,
                                changed = found.changed,
                                shortcuts = ?found
                                    .shortcuts
                                    .found
                                    .iter()
                                    .map(|s| (s.name(), s.mechanism.as_ref().map(|m| m.label.as_str()), s.searched))
                                    .collect::<Vec<_>>(),
                                "character key shortcuts"
                            );
                            changed |= found.changed;
                            walk.shortcuts = Some(found.shortcuts);
                        }
                        Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => {
                            return Err(e)
                        }
                        Err(e) => {
                            // How far it got is not known: the page may
                            // have run code.
                            changed = true;
                            tracing::debug!(error = %e, "the shortcut search failed");
                        }
                    }
                    let activated =
                        super::activate::activate_controls(&conn, &tab.session, &tab.target, t)
                            .await;
                    phases.lap(Phase::Activate);
                    match activated {
                        Ok(a) => {
                            tracing::debug!(controls = a.controls, "activations");
                            changed |= a.controls > 0;
                            walk.activations = a.activations;
                        }
                        Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => {
                            return Err(e)
                        }
                        Err(e) => {
                            // How far it got is not known: the page may
                            // have run code.
                            changed = true;
                            tracing::debug!(error = %e, "the activations failed");
                        }
                    }
                    Some(walk)
                }
                // A hung or crashed tab fails the page (the tab is closed).
                Err(e @ (BrowserError::Timeout { .. } | BrowserError::Crashed)) => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "the keyboard walk failed");
                    Some(Interaction::default())
                }
            }
        } else {
            None
        };
        // Leave the page, so its timers and requests stop before the next one
        // (a held tab leaves it at its release).
        *lock(&tab.state.job) = None;
        if !hold {
            conn.call(s, "Page.navigate", json!({"url": "about:blank"}), t)
                .await?;
        }
        phases.lap(Phase::Leave);
        phases.log(&url);
        Ok(TabPage {
            html,
            ready,
            truncated,
            interaction,
            facts,
            vitals,
            changed,
        })
    }

    /// Renders the page `fetched` holds and puts the serialized DOM in its
    /// body (as UTF-8 with a byte order mark, which decoding honours before
    /// any declared charset).
    /// When the scan takes screenshots, the tab stays on the page (the
    /// [`HeldTab`]) until the pictures are taken.
    pub async fn render_fetched(
        &self,
        fetched: &mut Fetched,
        scope: Arc<Scope>,
        robots: RobotsCheck,
    ) -> Result<(Rendered, Option<HeldTab>), BrowserError> {
        let doc = MainDocument {
            url: fetched.final_url.clone(),
            status: fetched.status,
            headers: fetched.headers.clone(),
            body: std::mem::take(&mut fetched.body),
        };
        let hold = self.options.screenshots.on();
        let (rendered, held) = self.render_held(doc, scope, robots, hold).await?;
        let mut body = Vec::with_capacity(rendered.html.len() + 3);
        body.extend_from_slice(b"\xEF\xBB\xBF");
        body.extend_from_slice(rendered.html.as_bytes());
        fetched.body = body;
        Ok((rendered, held))
    }

    /// A scope for the page at `url` when the crawl has none yet (the start
    /// page, whose redirects may have moved the site).
    pub fn scope_at(url: &Url, config: &ScanConfig) -> Option<Arc<Scope>> {
        Scope::new(url, config).ok().map(Arc::new)
    }

    /// The browser this scan renders in now, if one is running.
    pub async fn browser(&self) -> Option<Arc<Browser>> {
        self.ctx
            .lock()
            .await
            .as_ref()
            .map(|c| Arc::clone(&c.browser))
    }
}

/// A tab still on the page it rendered, holding its place among the scan's
/// tabs: the screenshots are taken in it after the page's rules ran
/// ([`super::screenshot`]). [`HeldTab::release`] leaves the page and gives the
/// tab back; dropped unreleased (a failed analysis), the tab is closed.
pub struct HeldTab {
    tab: Option<Tab>,
    idle: Arc<Mutex<Vec<Tab>>>,
    _permit: OwnedSemaphorePermit,
    call_timeout: Duration,
    /// Set when sending keys or activating the page's controls ran its code after it was
    /// judged: what loading it again takes ([`HeldTab::restore`]).
    restore: Option<Restore>,
}

/// What a held page needs to be loaded again as it was judged: its document
/// (served from memory, as the first time), the scan's scope and robots.txt,
/// and the wait.
struct Restore {
    doc: MainDocument,
    scope: Arc<Scope>,
    robots: RobotsCheck,
    options: RenderOptions,
}

impl Restore {
    /// The restore of the page `job` rendered. The job is done with (its
    /// tallies are in the page's [`Rendered`]): its document is taken back
    /// without a copy unless a request of the page still holds the job.
    fn of(job: Arc<PageJob>, options: &RenderOptions) -> Restore {
        let (doc, scope, robots) = match Arc::try_unwrap(job) {
            Ok(j) => (j.doc, j.scope, j.robots),
            Err(j) => (j.doc.clone(), Arc::clone(&j.scope), Arc::clone(&j.robots)),
        };
        Restore {
            doc,
            scope,
            robots,
            options: options.clone(),
        }
    }
}

impl std::fmt::Debug for HeldTab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeldTab").finish_non_exhaustive()
    }
}

impl HeldTab {
    /// The tab's protocol connection, session id and target (its main
    /// frame's id).
    pub(crate) fn session(&self) -> Option<(&Arc<Connection>, &str, &str)> {
        let tab = self.tab.as_ref()?;
        Some((
            tab.ctx.browser.conn(),
            tab.session.as_str(),
            tab.target.as_str(),
        ))
    }

    /// The protocol calls' timeout.
    pub(crate) fn call_timeout(&self) -> Duration {
        self.call_timeout
    }

    /// Brings the page back to the state it was judged in, when activating
    /// its controls ran its code ([`super::activate`]): the tab leaves the
    /// page and loads it again. A page without candidate controls was not
    /// touched after it was judged and is not loaded again. Bounded by the
    /// scan's `max_wait_ms` and the protocol calls' timeouts; an error
    /// leaves the page as activation left it (take no pictures of it).
    ///
    /// The load has a job of its own, never frozen, and the judged page's
    /// frozen job is never installed again: what activation asked for stays
    /// refused and unsent. The main document is served from memory, as the
    /// first time (the site is not asked for the page again). Its
    /// subresources, the page's own requests, are fetched again under the
    /// same guard, scope, robots.txt, per-host rate limit and page budgets
    /// as when it was judged: the browser's cache is off (each page loads as
    /// a first visit), and keeping every response of every page until its
    /// pictures would hold up to [`super::intercept::MAX_BYTES_PER_PAGE`] per
    /// tab, for the few pages that need it. Nothing of this load is
    /// recorded for the page (its requests, refusals and tallies were
    /// reported from the judged load).
    pub async fn restore(&mut self) -> Result<(), BrowserError> {
        let (Some(r), Some(tab)) = (self.restore.take(), self.tab.as_ref()) else {
            return Ok(());
        };
        let t = self.call_timeout;
        // Leaving, navigating (once more when aborted), the wait's
        // evaluations, coming to the front: each call within its timeout.
        let limit = Duration::from_millis(r.options.max_wait_ms) + t * 5;
        let outcome = tokio::time::timeout(limit, reload(tab, r, t)).await;
        // Held, the page gets nothing more (as after its render).
        *lock(&tab.state.job) = None;
        match outcome {
            Ok(r) => r,
            Err(_) => Err(BrowserError::Timeout {
                method: "restore".into(),
                ms: limit.as_millis() as u64,
            }),
        }
    }

    /// Leaves the page (its timers and requests stop) and gives the tab back
    /// to the scan; a tab that does not leave is closed.
    pub async fn release(mut self) {
        let Some(tab) = self.tab.take() else {
            return;
        };
        let left = tab
            .ctx
            .browser
            .conn()
            .call(
                Some(&tab.session),
                "Page.navigate",
                json!({"url": "about:blank"}),
                self.call_timeout,
            )
            .await;
        // A browser due for replacement gets no tab back: the scan's next
        // context is in the new one, and this tab would keep the old alive.
        if left.is_ok() && tab.ctx.browser.usable() {
            lock(&self.idle).push(tab);
        }
    }
}

/// Loads the held page of `tab` again from `r` ([`HeldTab::restore`]).
async fn reload(tab: &Tab, r: Restore, t: Duration) -> Result<(), BrowserError> {
    let conn = Arc::clone(tab.ctx.browser.conn());
    // Through a blank page: navigating to the page's own URL again would
    // only scroll when it differs from where the page is now by its fragment
    // alone (a skip link's activation sets one), not load a new document.
    // The tab has no job meanwhile: whatever the leaving page still sends is
    // refused.
    conn.call(
        Some(&tab.session),
        "Page.navigate",
        json!({"url": "about:blank"}),
        t,
    )
    .await?;
    let url = r.doc.url.to_string();
    *lock(&tab.state.job) = Some(Arc::new(PageJob::new(r.doc, r.scope, r.robots)));
    let ready = load(tab, &url, &r.options, Instant::now(), t).await?;
    // Its tab to the front: a document just committed in a tab behind
    // another of the browser's was measured to take seconds per
    // `Page.captureScreenshot` while the scan's other tabs were busy (a
    // page rendered the first time has long painted by its pictures).
    conn.call(Some(&tab.session), "Page.bringToFront", json!({}), t)
        .await?;
    tracing::debug!(url, ?ready, "a held page loaded again for its pictures");
    Ok(())
}

/// The steps of one render, in the order [`Phases`] reports them.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// From the navigation to ready (the wait included).
    Load,
    /// Stamping the elements and `DOMSnapshot.captureSnapshot`
    /// ([`super::facts`]).
    Snapshot,
    /// Serializing the DOM.
    Serialize,
    /// Screenshots of text backdrops the snapshot could not blend
    /// ([`super::backdrop`]).
    Backdrop,
    /// The narrow-viewport layouts ([`super::reflow`]).
    Reflow,
    /// The links shown hovered and focused ([`super::states`]).
    States,
    /// The keyboard walk up to its first key press: the watcher, its
    /// candidates, the cheap walk's checks ([`interact`]).
    WalkSetup,
    /// The keyboard walk from its first key press.
    Walk,
    /// Sending printable keys and trying controls for the character key
    /// shortcuts ([`super::shortcuts`]).
    Shortcuts,
    /// Activating the page's scripted controls ([`super::activate`]).
    Activate,
    /// Reading the Web Vitals ([`super::metrics`]), both read-outs.
    Vitals,
    /// Navigating to `about:blank`.
    Leave,
}

/// Where one render's time went: milliseconds per [`Phase`], logged as one
/// debug line per page (`RUST_LOG=sitescan_engine::browser=debug`).
struct Phases {
    at: Instant,
    ms: [u64; 12],
}

impl Phases {
    fn new(started: Instant) -> Phases {
        Phases {
            at: started,
            ms: [0; 12],
        }
    }

    /// The time since the last lap goes to `phase`.
    fn lap(&mut self, phase: Phase) {
        let now = Instant::now();
        self.ms[phase as usize] += now.duration_since(self.at).as_millis() as u64;
        self.at = now;
    }

    /// The time since the last lap goes to `before` up to `at` (when there
    /// is such a moment) and to `after` from there.
    fn split(&mut self, before: Phase, at: Option<Instant>, after: Phase) {
        match at {
            Some(at) if at >= self.at => {
                self.ms[before as usize] += at.duration_since(self.at).as_millis() as u64;
                self.at = at;
                self.lap(after);
            }
            _ => self.lap(before),
        }
    }

    fn log(&self, url: &str) {
        let [load, snapshot, serialize, backdrop, reflow, states, walk_setup, walk, shortcuts, activate, vitals, leave] =
            self.ms;
        tracing::debug!(
            url,
            load,
            snapshot,
            serialize,
            backdrop,
            reflow,
            states,
            walk_setup,
            walk,
            shortcuts,
            activate,
            vitals,
            leave,
            total = self.ms.iter().sum::<u64>(),
            "render phases (ms)"
        );
    }
}

/// Navigates `tab` to `url`, whose requests its job judges, and waits until
/// the page is ready under `options` (the wait counted from `started`).
async fn load(
    tab: &Tab,
    url: &str,
    options: &RenderOptions,
    started: Instant,
    t: Duration,
) -> Result<Ready, BrowserError> {
    let conn = Arc::clone(tab.ctx.browser.conn());
    let s = Some(tab.session.as_str());
    tab.state.loaded.send_replace(None);
    let mut nav = conn
        .call(s, "Page.navigate", json!({"url": url}), t)
        .await?;
    // `net::ERR_ABORTED` means another navigation of the tab took over
    // ours: one the last page started late (the default action of a key
    // or click of the keyboard walk landing after it), never this page.
    // The tab is ours again once that one is done, so ask once more.
    if nav.get("errorText").and_then(Value::as_str) == Some("net::ERR_ABORTED") {
        tracing::debug!(url, "navigation aborted by another; navigating again");
        tokio::time::sleep(Duration::from_millis(100)).await;
        tab.state.loaded.send_replace(None);
        nav = conn
            .call(s, "Page.navigate", json!({"url": url}), t)
            .await?;
    }
    if let Some(err) = nav.get("errorText").and_then(Value::as_str) {
        return Err(BrowserError::Navigation(err.to_string()));
    }
    let loader = nav
        .get("loaderId")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let eval = |expr: String| {
        let conn = Arc::clone(&conn);
        let session = tab.session.clone();
        async move {
            conn.evaluate(&session, World::Page, &expr, Wait::Value, t)
                .await
        }
    };
    snapshot::wait_ready(&tab.state, &loader, options, started, eval).await
}

/// What one tab took from a page.
struct TabPage {
    html: String,
    ready: Ready,
    truncated: bool,
    interaction: Option<Interaction>,
    facts: sitescan_rules::rendered::RenderedFacts,
    vitals: sitescan_rules::vitals::WebVitals,
    /// Sending keys or activating controls ran its code after it was judged.
    changed: bool,
}

/// Serializes the page, cut in the page at `max` UTF-16 units (so the
/// answer stays near the cap, whatever DOM a script built) and here at `max`
/// bytes on a character boundary; whether it was cut.
async fn serialize_capped(
    conn: &Connection,
    session: &str,
    max: u64,
    timeout: Duration,
) -> Result<(String, bool), BrowserError> {
    let expr = format!(
        "(() => {{ const s = {}; return s.length > {max} ? [true, s.slice(0, {max})] : [false, s]; }})()",
        snapshot::SERIALIZE
    );
    let v = conn
        .evaluate(session, World::Page, &expr, Wait::Value, timeout)
        .await?;
    let cut_there = v.get(0).and_then(Value::as_bool) == Some(true);
    let mut html = v.get(1).and_then(Value::as_str).unwrap_or("").to_string();
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let cut_here = html.len() > max;
    if cut_here {
        let mut at = max;
        while !html.is_char_boundary(at) {
            at -= 1;
        }
        html.truncate(at);
    }
    Ok((html, cut_there || cut_here))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RenderWait;
    use sitescan_rules::Header;

    /// The tests here share the process's browser and count its launches:
    /// one at a time.
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    /// Points the process's browser at the tests' options: no sandbox (they
    /// run as root in a container), recycled after `recycle_after` pages,
    /// calls of at most 5 s.
    fn configure_test_browser(recycle_after: usize) {
        launch::configure(LaunchOptions {
            sandbox: false,
            recycle_after,
            call_timeout: Duration::from_secs(5),
            ..LaunchOptions::from_env()
        });
    }

    /// A render scan's configuration for the tests: private addresses
    /// allowed, ready at `load` with no quiet wait.
    fn quick_render_config() -> ScanConfig {
        ScanConfig {
            allow_private: true,
            render: true,
            render_options: RenderOptions {
                wait: RenderWait::Load,
                quiet_ms: 0,
                ..RenderOptions::default()
            },
            ..ScanConfig::default()
        }
    }

    /// A page served from memory at `url` (never connected to), as HTML.
    fn served(url: &Url, body: Vec<u8>) -> MainDocument {
        MainDocument {
            url: url.clone(),
            status: 200,
            headers: vec![Header {
                name: "content-type".into(),
                value: "text/html".into(),
            }],
            body,
        }
    }

    #[test]
    fn a_failed_start_is_tried_again_after_a_doubling_wait_up_to_a_cap() {
        let secs: Vec<u64> = (1..=8).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(backoff(u32::MAX), MAX_RESTART_BACKOFF);
        let e = BrowserError::Unavailable {
            error: BrowserError::Missing(String::new()).to_string(),
            failures: 3,
            retry_in_s: 4,
        };
        assert!(e.is_start_failure());
        assert!(!BrowserError::Crashed.is_start_failure());
        assert_eq!(
            e.to_string(),
            "render mode needs Chromium: install Debian's `chromium` package (apt-get install chromium) or set SITESCAN_CHROMIUM to the browser's path (it failed to start 3 time(s) in a row; the next start is tried in 4 s)"
        );
    }

    /// Needs Debian's `chromium` (a missing browser fails the test). The
    /// sandbox is off: the tests run as root in a container.
    #[tokio::test]
    async fn the_browser_is_recycled_after_n_pages_and_restarted_after_a_crash() {
        let _one = ONE_AT_A_TIME.lock().await;
        configure_test_browser(2);
        let config = quick_render_config();
        let session = RenderSession::start(&config, Arc::new(HostPool::new(100.0, 4)), false)
            .await
            .unwrap();
        // Never connected to: the document is served from memory.
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let scope = Arc::new(Scope::new(&url, &config).unwrap());
        let robots: RobotsCheck = Arc::new(|_: &Url| true);
        let doc = |n: usize| {
            served(
                &url,
                format!(
                "<p id=n></p><script>document.getElementById('n').textContent = 'page {n}'</script>"
            )
                .into_bytes(),
            )
        };
        let render = |n: usize| {
            let (scope, robots) = (Arc::clone(&scope), Arc::clone(&robots));
            let doc = doc(n);
            let session = &session;
            async move {
                let r = session.render(doc, scope, robots).await.unwrap();
                // Stamped for the browser's facts (taken off when parsed).
                assert!(
                    r.html.contains(&format!(
                        "<p id=\"n\" data-sitescan-node=\"3\">page {n}</p>"
                    )),
                    "{}",
                    r.html
                );
                let facts = r.facts.unwrap();
                assert!(facts.is_present(), "{:?}", facts.note);
                assert_eq!(facts.elements.len(), 5, "html, head, body, p, script");
            }
        };
        // Page 0 may go to a browser another test left with room for one
        // more page, or to a fresh one: counted from after it, pages 1 to 4
        // need two more browsers whichever it was (0 and 1 share one, or 1
        // and 2 do; then the next two share the next).
        render(0).await;
        let before = launches();
        let crashed_before = crashes();
        for n in 1..5 {
            render(n).await;
        }
        assert_eq!(launches() - before, 2);
        assert_eq!(crashes(), crashed_before, "a retired browser is no crash");

        let browser = session.browser().await.unwrap();
        let _ = browser
            .conn()
            .call(None, "Browser.crash", json!({}), Duration::from_secs(2))
            .await;
        for _ in 0..100 {
            if browser.conn().is_closed() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(browser.conn().is_closed(), "the crash closed the pipe");
        assert_eq!(crashes() - crashed_before, 1, "seen before a restart");
        render(9).await;
        assert_eq!(launches() - before, 3, "restarted after the crash");
        assert_eq!(crashes() - crashed_before, 1, "counted once");
    }

    /// A scan's end closes its tabs before it disposes of its context: the
    /// browser stays fit for the next scan, which gets the same one.
    /// Dropped on a worker of a multi-threaded runtime, as in a scan: there
    /// the task spawned last (the context's disposal) runs first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_finished_scan_leaves_its_browser_to_the_next() {
        let _one = ONE_AT_A_TIME.lock().await;
        configure_test_browser(3);
        let config = quick_render_config();
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let scope = Arc::new(Scope::new(&url, &config).unwrap());
        let robots: RobotsCheck = Arc::new(|_: &Url| true);
        let doc = || served(&url, b"<p>one page</p>".to_vec());
        let first = RenderSession::start(&config, Arc::new(HostPool::new(100.0, 4)), false)
            .await
            .unwrap();
        // Two tabs at once, so the scan ends with two to close.
        let (a, b) = tokio::join!(
            first.render(doc(), Arc::clone(&scope), Arc::clone(&robots)),
            first.render(doc(), Arc::clone(&scope), Arc::clone(&robots)),
        );
        a.unwrap();
        b.unwrap();
        let browser = first.browser().await.unwrap();
        let context = first.ctx.lock().await.as_ref().unwrap().id.clone();
        tokio::spawn(async move { drop(first) }).await.unwrap();
        // Closing and disposing run on spawned tasks: wait for the context
        // to be gone, which is the last of them.
        let mut gone = false;
        for _ in 0..100 {
            let contexts = browser
                .conn()
                .call(
                    None,
                    "Target.getBrowserContexts",
                    json!({}),
                    Duration::from_secs(5),
                )
                .await
                .unwrap();
            if !contexts["browserContextIds"]
                .as_array()
                .is_some_and(|ids| ids.iter().any(|id| id.as_str() == Some(&context)))
            {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(gone, "the scan's context was disposed of");
        assert!(
            !browser.broken.load(Ordering::SeqCst),
            "no tab failed to close"
        );
        let before = launches();
        let second = RenderSession::start(&config, Arc::new(HostPool::new(100.0, 4)), false)
            .await
            .unwrap();
        second.render(doc(), scope, robots).await.unwrap();
        assert_eq!(
            launches(),
            before,
            "the next scan renders in the same browser"
        );
        assert!(Arc::ptr_eq(&second.browser().await.unwrap(), &browser));
    }

    /// The probe renders a page in a browser that works, and says why not
    /// for one that exits at once. Needs Debian's `chromium`.
    #[tokio::test]
    async fn the_probe_renders_a_page_or_says_why_it_cannot() {
        let options = LaunchOptions {
            sandbox: false,
            call_timeout: Duration::from_secs(10),
            ..LaunchOptions::from_env()
        };
        launch::probe(&options).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("chromium");
        std::fs::write(&broken, "#!/bin/sh\necho 'broken on purpose' >&2\nexit 1\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let e = launch::probe(&LaunchOptions {
            binary: Some(broken),
            ..options
        })
        .await
        .unwrap_err();
        assert!(matches!(e, BrowserError::Launch(_)), "{e:?}");
        assert!(e.to_string().contains("broken on purpose"), "{e}");
    }

    /// The keyboard walk of ACT's a1b64e and oj04fd examples (and a keydown
    /// trap), each page served from memory to a session that walks.
    #[tokio::test]
    async fn the_keyboard_walk_finds_traps_and_invisible_focus() {
        let _one = ONE_AT_A_TIME.lock().await;
        // As the recycling test has it, so that the browser either test
        // leaves is due for replacement when the other counts launches.
        configure_test_browser(2);
        let config = quick_render_config();
        let session = RenderSession::start(&config, Arc::new(HostPool::new(100.0, 4)), true)
            .await
            .unwrap();
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let scope = Arc::new(Scope::new(&url, &config).unwrap());
        let robots: RobotsCheck = Arc::new(|_: &Url| true);
        let walk = |body: &str| {
            let doc = served(
                &url,
                format!(
                    "<!doctype html><html><head><title>t</title></head><body>{body}</body></html>"
                )
                .into_bytes(),
            );
            let (scope, robots) = (Arc::clone(&scope), Arc::clone(&robots));
            let session = &session;
            async move {
                let r = session.render(doc, scope, robots).await.unwrap();
                r.interaction.unwrap()
            }
        };
        // (label, leaves the page, focus changed something)
        type Row = (String, Option<bool>, Option<bool>);
        let rows = |i: &Interaction| -> Vec<Row> {
            i.elements
                .iter()
                .map(|e| {
                    (
                        e.label.clone(),
                        e.leaves_page,
                        e.focus_style
                            .as_ref()
                            .map(|s| !s.changed.is_empty() || s.elsewhere),
                    )
                })
                .collect()
        };
        let row = |l: &str, f, s| (l.to_string(), f, s);

        let plain = walk(r##"<a href="#" id=l1>Link 1</a> <button id=b1>Button1</button>"##).await;
        assert!(plain.complete);
        assert!(!plain.script_moves_focus);
        assert_eq!(
            rows(&plain),
            [
                row("a#l1", Some(true), Some(true)),
                row("button#b1", Some(true), Some(true))
            ]
        );

        let one = walk(
            r##"<a href="#" id=l1>Link 1</a>
<button id=b1 onblur="setTimeout(() => this.focus(), 10)">Button1</button>
<a href="#" id=l2>Link 2</a>"##,
        )
        .await;
        assert!(one.script_moves_focus);
        let trapped: Vec<&str> = one
            .elements
            .iter()
            .filter(|e| e.trapped())
            .map(|e| e.label.as_str())
            .collect();
        assert_eq!(trapped, ["button#b1"]);

        let between = walk(
            r##"<button id=b1 onblur="setTimeout(() => this.focus(), 10)">Button 1</button>
<button id=b2>Button 2</button>
<button id=b3 onblur="setTimeout(() => this.focus(), 10)">Button 3</button>"##,
        )
        .await;
        let trapped: Vec<&str> = between
            .elements
            .iter()
            .filter(|e| e.trapped())
            .map(|e| e.label.as_str())
            .collect();
        // Buttons 1 and 3 each take focus back whenever it leaves them: the
        // walk may not get to press keys from the one that loses.
        assert!(!trapped.is_empty(), "{between:?}");
        assert!(
            trapped
                .iter()
                .all(|l| ["button#b1", "button#b3"].contains(l)),
            "{between:?}"
        );
        assert!(between.elements.iter().all(|e| !e.escapes()), "{between:?}");

        let keydown = walk(r##"<a href="/a" id=l1>A</a><div id=w tabindex=0>widget</div><a href="/b" id=l2>B</a>
<script>document.getElementById('w').addEventListener('keydown', (e) => { if (e.key === 'Tab') e.preventDefault(); });</script>"##)
        .await;
        assert!(!keydown.script_moves_focus);
        let trapped: Vec<&str> = keydown
            .elements
            .iter()
            .filter(|e| e.trapped())
            .map(|e| e.label.as_str())
            .collect();
        assert_eq!(trapped, ["div#w"]);

        // Key-down listeners that trap without cancelling at once, or only
        // for the browser's own keys: the cheap walk must give way.
        for script in [
            "document.addEventListener('keydown', (e) => { const w = document.activeElement; if (e.key === 'Tab' && w.id === 'w') setTimeout(() => w.focus(), 5); });",
            "document.addEventListener('keydown', (e) => { if (e.key === 'Tab' && document.activeElement.id === 'w') e.preventDefault(); });",
            "document.addEventListener('keydown', (e) => { if (e.isTrusted && e.key === 'Tab' && document.activeElement.id === 'w') e.preventDefault(); });",
            "document.addEventListener('keydown', (e) => { const w = document.activeElement; if (e.key === 'Tab' && w.id === 'w') setTimeout(() => w.focus(), 5); });",
        ] {
            let page = walk(&format!(
                r##"<a href="/a" id=l1>A</a><div id=w tabindex=0>widget</div><a href="/b" id=l2>B</a><script>{script}</script>"##
            ))
            .await;
            let trapped: Vec<&str> = page
                .elements
                .iter()
                .filter(|e| e.trapped())
                .map(|e| e.label.as_str())
                .collect();
            assert_eq!(trapped, ["div#w"], "{script}: {page:?}");
        }

        // The same page judged by the cheap walk (no script; a key-down
        // listener with nothing to do for Tab) and by the full one (a key-up
        // listener): the same elements, the same looks, two presses against
        // one per element and one to leave.
        let links: String = (0..16)
            .map(|i| format!("<p><a href=\"#l{i}\">Link {i}</a></p>"))
            .collect();
        let body = format!(
            r##"<style>.x:focus {{ outline: none }}</style><a href="/" id=a class=x>A</a><a href="/b" id=b>B</a>
<style>#c:focus-visible {{ outline: none; box-shadow: 0 0 0 3px blue; transition: box-shadow .5s }}</style><a href="/c" id=c>C</a>
<button id=d>D</button><input id=e aria-label=E>{links}"##
        );
        let full = walk(&format!(
            "{body}<script>document.addEventListener('keyup', () => {{}});</script>"
        ))
        .await;
        assert_eq!(full.presses, 22, "{full:?}");
        assert_eq!(full.elements.len(), 21);
        assert!(full.complete);
        for script in [
            "",
            "<script>document.addEventListener('keydown', (e) => { if (e.key === '/') e.preventDefault(); });</script>",
        ] {
            let cheap = walk(&format!("{body}{script}")).await;
            assert_eq!(cheap.presses, 2, "{script}: {cheap:?}");
            assert_eq!(cheap.elements, full.elements, "{script}");
            assert!(cheap.complete && !cheap.script_moves_focus);
        }
        assert_eq!(
            rows(&full)[..3],
            [
                row("a#a", Some(true), Some(false)),
                row("a#b", Some(true), Some(true)),
                row("a#c", Some(true), Some(true)),
            ]
        );

        // The cheap walk goes in bounded calls, on from where each stopped:
        // one element a call gives the same walk as one call for all.
        let limits = |l: Option<(u64, u64)>| {
            *super::super::interact::TEST_LIMITS
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = l;
        };
        limits(Some((60_000, 0)));
        let chunked = walk(&body).await;
        limits(None);
        assert_eq!(chunked.presses, 2, "{chunked:?}");
        assert_eq!(chunked.elements, full.elements);
        assert!(chunked.complete);
        // Out of time after its first call (one element): that element is
        // judged, the other 20 are listed as not judged, and the walk is
        // incomplete (the rule then says so once for the page).
        limits(Some((0, 0)));
        let cut = walk(&body).await;
        limits(None);
        assert!(!cut.complete, "{cut:?}");
        assert_eq!(cut.presses, 1, "{cut:?}");
        assert_eq!(
            cut.elements
                .iter()
                .map(|e| e.label.as_str())
                .collect::<Vec<_>>(),
            full.elements
                .iter()
                .map(|e| e.label.as_str())
                .collect::<Vec<_>>()
        );
        assert_eq!(cut.elements[0], full.elements[0]);
        assert!(
            cut.elements[1..]
                .iter()
                .all(|e| e.leaves_page.is_none() && !e.tab_reached && e.focus_style.is_none()),
            "{cut:?}"
        );

        // Scroll containers with nothing focusable inside are tab stops of
        // their own (a code block wider than its column); an outer one
        // holding another is not, nor one holding a link. The cheap walk
        // takes them in their document place, as Tab does.
        let scrollers = r##"<style>pre { overflow: auto; width: 120px } #tall { overflow: auto; height: 40px; width: 300px }</style>
<a href="/a" id=a>A</a><pre id=p1>a_code_line_much_wider_than_its_box_of_one_hundred_and_twenty_pixels</pre>
<a href="/b" id=b>B</a><div id=tall><p>one</p><p>two</p><pre id=p2>another_code_line_much_wider_than_its_box_of_pixels</pre><p>three</p></div>
<div id=hold style="overflow: auto; width: 80px"><a href="/c" id=c>C_link_wider_than_its_box_of_80_pixels</a></div><pre id=p3>last_code_line_much_wider_than_its_box_of_pixels</pre>"##;
        let full = walk(&format!(
            "{scrollers}<script>document.addEventListener('keyup', () => {{}});</script>"
        ))
        .await;
        let cheap = walk(scrollers).await;
        let labels = |i: &Interaction| -> Vec<String> {
            i.elements.iter().map(|e| e.label.clone()).collect()
        };
        assert_eq!(
            labels(&full),
            ["a#a", "pre#p1", "a#b", "pre#p2", "a#c", "pre#p3"],
            "{full:?}"
        );
        // The full walk goes in batches sized by the candidates (three
        // links), then on from where each batch stopped.
        assert_eq!(full.presses, 12, "{full:?}");
        assert_eq!(cheap.presses, 2, "{cheap:?}");
        assert_eq!(cheap.elements, full.elements);
        assert!(cheap.complete && full.complete);
        assert!(cheap.elements.iter().all(|e| e.escapes()), "{cheap:?}");

        // A named radio group is one tab stop (its checked button, else its
        // first); a radio without a name is a stop of its own. The cheap walk
        // takes the same stops as Tab.
        let radios = r##"<a href="/a" id=a>A</a>
<input type=radio name=os id=r1 aria-label=Unix><input type=radio name=os id=r2 aria-label=Windows checked><input type=radio name=os id=r3 aria-label=Mac>
<a href="/b" id=b>B</a><form><input type=radio name=os id=f1 aria-label=One><input type=radio name=os id=f2 aria-label=Two></form>
<input type=radio id=lone aria-label=Lone><a href="/c" id=c>C</a>"##;
        let full = walk(&format!(
            "{radios}<script>document.addEventListener('keyup', () => {{}});</script>"
        ))
        .await;
        let cheap = walk(radios).await;
        assert_eq!(
            labels(&full),
            [
                "a#a",
                "input#r2",
                "a#b",
                "input#f1",
                "input#lone",
                "a#c",
                "input#r1",
                "input#r3",
                "input#f2"
            ],
            "{full:?}"
        );
        // The buttons Tab does not stop at were walked from, not reached.
        assert!(
            full.elements[6..]
                .iter()
                .all(|e| !e.tab_reached && e.escapes()),
            "{full:?}"
        );
        assert_eq!(cheap.presses, 2, "{cheap:?}");
        assert_eq!(cheap.elements, full.elements);
        assert!(cheap.complete && full.complete);

        let invisible = walk(r##"<style>.x:focus { outline: none }</style><a href="/" id=a class=x>A</a><a href="/b" id=b>B</a>
<style>#c:focus-visible { outline: none; box-shadow: 0 0 0 3px blue; transition: box-shadow .5s }</style><a href="/c" id=c>C</a>
<style>.ind.on { background: yellow }</style><span id=i class=ind>*</span><a href="/d" id=d class=x onfocus="i.classList.add('on')" onblur="i.classList.remove('on')">D</a>"##)
        .await;
        assert_eq!(
            rows(&invisible)
                .into_iter()
                .map(|r| (r.0, r.2))
                .collect::<Vec<_>>(),
            [
                ("a#a".to_string(), Some(false)),
                ("a#b".to_string(), Some(true)),
                ("a#c".to_string(), Some(true)),
                ("a#d".to_string(), Some(true)),
            ]
        );
    }

    /// A control the shortcut search clicked and set back that leaves an
    /// inline style behind: put back when the element's computed style is
    /// the same either way, so the held page is not loaded again for its
    /// pictures; kept (and the page loaded again) when it is not, or when it
    /// cannot be told ([`super::restyle`]).
    #[tokio::test]
    async fn a_style_left_without_effect_by_the_shortcut_search_costs_no_second_load() {
        let _one = ONE_AT_A_TIME.lock().await;
        // As the recycling test has it (see the keyboard walk's test).
        configure_test_browser(2);
        let config = quick_render_config();
        let session = RenderSession::start(&config, Arc::new(HostPool::new(100.0, 4)), true)
            .await
            .unwrap();
        let url = Url::parse("http://127.0.0.1:9/").unwrap();
        let scope = Arc::new(Scope::new(&url, &config).unwrap());
        let robots: RobotsCheck = Arc::new(|_: &Url| true);
        // A page whose "/" focuses its search box (a shortcut that leaves
        // the page as judged, so the search tries its controls) and whose
        // menu checkbox runs `change` when clicked and set back; whether the
        // held tab loads the page again.
        let reloads = |css: &str, change: &str| {
            let doc = served(&url, format!(
                    r#"<!doctype html><html><head><title>t</title><style>{css}</style></head><body>
<main><h1>Docs</h1><input id=q type=search aria-label=Search> <label><input type=checkbox id=menu> Menu</label></main>
<script>const b = document.body, m = document.getElementById('menu');
document.addEventListener('keydown', (e) => {{ if (e.key === '/' && document.activeElement === b) {{ e.preventDefault(); document.getElementById('q').focus(); }} }});
m.addEventListener('change', () => {{ {change} }});</script></body></html>"#
                )
                .into_bytes());
            let (scope, robots) = (Arc::clone(&scope), Arc::clone(&robots));
            let session = &session;
            async move {
                let (r, held) = session.render_held(doc, scope, robots, true).await.unwrap();
                let found = r.interaction.unwrap().shortcuts.unwrap().found;
                assert_eq!(found.len(), 1, "the search ran: {found:?}");
                let held = held.unwrap();
                let again = held.restore.is_some();
                held.release().await;
                again
            }
        };
        let overflow = "b.style.overflow = m.checked ? 'hidden' : 'visible';";
        // Python's documentation: `overflow: visible` on a body that had no
        // style.
        assert!(!reloads("", overflow).await);
        // An empty style attribute left behind; a custom property set and
        // set back to the value of the sheet.
        assert!(!reloads("", "b.style.overflow = m.checked ? 'hidden' : '';").await);
        assert!(
            !reloads(
                "body { --accent: blue } main { color: var(--accent) }",
                "b.style.setProperty('--accent', m.checked ? 'red' : 'blue');"
            )
            .await
        );
        // Real: a background left red, a custom property left other than
        // the sheet's (its users are other elements).
        assert!(reloads("", "b.style.background = m.checked ? 'yellow' : 'red';").await);
        assert!(
            reloads(
                "body { --accent: blue } main { color: var(--accent) }",
                "b.style.setProperty('--accent', m.checked ? 'blue' : 'red');"
            )
            .await
        );
        // ARIA states the page did not have, which no style rule names (as
        // Python's menu leaves them).
        let aria = "const w = document.querySelector('main'); w.setAttribute('aria-expanded', String(m.checked)); w.setAttribute('aria-hidden', String(!m.checked)); m.parentElement.setAttribute('aria-pressed', String(m.checked));";
        assert!(!reloads("", aria).await);
        assert!(!reloads("[aria-busy] { color: red }", &format!("{overflow} {aria}")).await);
        // Not known: a style rule names a changed attribute (it may show on
        // other elements, or in a pseudo-element); a transition under way
        // (each value reads the same at its start).
        assert!(reloads("body[style] main { outline: 2px solid }", overflow).await);
        assert!(reloads("[aria-hidden=true] h1 { color: red }", aria).await);
        assert!(reloads("label::after { content: attr(aria-pressed) }", aria).await);
        assert!(
            reloads(
                "@import url('data:text/css,main%5Baria-hidden%5D h1%7Bcolor:red%7D');",
                aria
            )
            .await
        );
        assert!(
            reloads(
                "body { background: white; transition: background-color 10s }",
                "b.style.background = m.checked ? 'red' : 'blue';"
            )
            .await
        );
    }
}
