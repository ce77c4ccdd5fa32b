//! Every request a rendered page makes is ours to allow.
//!
//! Each tab pauses every http(s) request at the `Fetch` domain's request
//! stage: navigations of the page and its frames, redirects (each hop is a new
//! paused request), subresources, `fetch`/XHR, beacons. For each one
//! [`PageJob::route`] decides:
//!
//! - the page's own document is served from the answer the static fetcher
//!   already got (one fetch per URL); any later main-frame navigation is
//!   refused (the crawl, not the page, decides what is loaded next);
//! - a frame's document is a navigation: it must be in the scan's scope and
//!   allowed by robots.txt;
//! - a request to the scanned site (its host and port) must be allowed by
//!   robots.txt, waits for the site's per-host rate limit, and reaches private
//!   addresses only when the scan allows them;
//! - a request to any other host always goes through the SSRF guard, whatever
//!   the scan allows: `allow_private` says the scanned site lives on a private
//!   network, not that its pages' scripts may reach the rest of it.
//!
//! What is allowed is fetched by us (reqwest with the guarded resolver: the
//! address checked is the address connected to) and handed to the page with
//! `Fetch.fulfillRequest`; what is refused fails with `BlockedByClient`.
//! Requests per page and bytes per page are bounded.
//!
//! A tab fetches at most eight requests at once, and the ones
//! waiting for a slot get it in the order of the priority the browser gave
//! them (`initialPriority`), then in arrival order, as the browser's own
//! network stack would: a stylesheet the page imports while its scripts and
//! images fill the slots goes first, instead of waiting behind them and
//! delaying the page's first paint.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{json, Value};
use sitescan_rules::vitals::{ResourceTally, MAX_RESOURCE_TYPES};
use sitescan_rules::Header;
use tokio::sync::{oneshot, watch};
use tokio::time::Instant;
use url::Url;

use super::cdp::Connection;
use crate::config::ScanConfig;
use crate::crawl::credentials::Credentials;
use crate::crawl::host_limits::HostPool;
use crate::crawl::scope::Scope;
use crate::crawl::ssrf::{check_literal, GuardedResolver, PrivateAddressRefused};
use crate::error::{Error, Result};

/// Requests one page may make; later ones are refused.
pub const MAX_REQUESTS_PER_PAGE: usize = 1000;
/// Response bytes one page may load in all (its own document aside).
pub const MAX_BYTES_PER_PAGE: u64 = 64 * 1024 * 1024;
/// Requests of one tab fetched at once.
const FETCHES_PER_TAB: usize = 8;
/// Refusals kept per page for the caller.
const MAX_REFUSALS_KEPT: usize = 200;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The scan-wide part of the interceptor: the two HTTP clients and the
/// scan's per-host pool.
pub struct Policy {
    /// For the scanned site: guarded unless the scan allows private addresses.
    site_client: reqwest::Client,
    /// For every other host: always guarded.
    guarded_client: reqwest::Client,
    hosts: Arc<HostPool>,
    allow_private: bool,
    max_body: u64,
    /// The scan's credentials: their headers and basic authentication are
    /// added to each request on their origin (never to another), and that
    /// origin's sign-out URLs are refused.
    auth: Option<Arc<Credentials>>,
    /// The scan's throttling preset: each response fulfilled is held for its
    /// latency and transfer time (see [`super::metrics`]).
    throttle: Option<super::metrics::Preset>,
}

fn client(config: &ScanConfig, guard: bool) -> Result<reqwest::Client> {
    // Redirects are the browser's to follow: each hop comes back to us as a
    // new paused request. No proxy: it would resolve names past the guard.
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(config.user_agent.clone())
        .connect_timeout(Duration::from_millis(config.connect_timeout_ms))
        .timeout(Duration::from_millis(config.timeout_ms));
    if guard {
        builder = builder.dns_resolver(Arc::new(GuardedResolver));
    }
    for pem in &config.ca_certs {
        for cert in reqwest::Certificate::from_pem_bundle(pem.as_bytes())
            .map_err(|e| Error::Config(format!("ca_certs: not PEM certificates: {e}")))?
        {
            builder = builder.add_root_certificate(cert);
        }
    }
    if config.tls_insecure {
        builder = builder.danger_accept_invalid_certs(true);
    }
    builder.build().map_err(|e| Error::Client(e.to_string()))
}

impl Policy {
    /// The interceptor's policy for a scan with `config`, sharing its host pool.
    pub fn new(config: &ScanConfig, hosts: Arc<HostPool>) -> Result<Policy> {
        Ok(Policy {
            site_client: client(config, !config.allow_private)?,
            guarded_client: client(config, true)?,
            hosts,
            allow_private: config.allow_private,
            max_body: config.max_body_bytes,
            auth: None,
            throttle: super::metrics::preset(config.render_options.throttle),
        })
    }

    /// The same policy with the scan's credentials.
    pub fn with_auth(mut self, auth: Option<Arc<Credentials>>) -> Policy {
        self.auth = auth;
        self
    }
}

/// The answer the static fetcher got for the page, served to the browser as
/// the page's document.
#[derive(Debug, Clone)]
pub struct MainDocument {
    /// The URL the browser navigates to (the fetch's final URL).
    pub url: Url,
    /// Its status.
    pub status: u16,
    /// Its headers.
    pub headers: Vec<Header>,
    /// Its body, decoded from any `Content-Encoding`.
    pub body: Vec<u8>,
}

/// A request the interceptor refused, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The URL asked for.
    pub url: String,
    /// The protocol's resource type (`Document`, `Image`, `Fetch`, ...).
    pub resource_type: String,
    /// Why: `scheme`, `navigation`, `scope`, `robots`, `private`, `budget`,
    /// `sign_out` (a scan with credentials never signs itself out).
    pub reason: &'static str,
}

/// Whether a robots.txt allows a URL (the scan's robots map).
pub type RobotsCheck = Arc<dyn Fn(&Url) -> bool + Send + Sync>;

/// One page being rendered: what the interceptor needs to judge its requests.
pub struct PageJob {
    /// The page's own document.
    pub doc: MainDocument,
    /// The scan's scope.
    pub scope: Arc<Scope>,
    /// robots.txt of the scan (`true`: allowed).
    pub robots: RobotsCheck,
    served: AtomicBool,
    /// Sign-in mode: main-frame navigations to this origin are fetched (the
    /// steps go to pages and submit forms), not refused.
    sign_in: Option<url::Origin>,
    requests: AtomicUsize,
    bytes: AtomicU64,
    refused: Mutex<Vec<Refusal>>,
    /// Requests and bytes by resource type (for the page's Web Vitals).
    by_type: Mutex<Vec<ResourceTally>>,
    /// Set once the page is judged and its controls are activated
    /// ([`super::activate`]): every later request is refused unrecorded.
    frozen: AtomicBool,
}

/// What to do with one paused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Serve the page's own document.
    Document,
    /// Fetch it; `site`: it is on the scanned site (its client and rate limit).
    Fetch {
        /// On the scanned site.
        site: bool,
    },
    /// Refuse it, for this reason (see [`Refusal::reason`]).
    Refuse(&'static str),
}

impl PageJob {
    /// A job for `doc` under the scan's scope and robots.txt.
    pub fn new(doc: MainDocument, scope: Arc<Scope>, robots: RobotsCheck) -> PageJob {
        PageJob {
            doc,
            scope,
            robots,
            served: AtomicBool::new(false),
            sign_in: None,
            requests: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            refused: Mutex::new(Vec::new()),
            by_type: Mutex::new(Vec::new()),
            frozen: AtomicBool::new(false),
        }
    }

    /// Refuses every request from now on, without recording it: what the
    /// page asks for while its controls are activated is not part of the
    /// page as loaded, and is never sent (no side effects on the site).
    pub fn freeze(&self) {
        self.frozen.store(true, Ordering::SeqCst);
    }

    /// [`PageJob::freeze`] was called.
    pub fn is_frozen(&self) -> bool {
        self.frozen.load(Ordering::SeqCst)
    }

    /// A job for the browser sign-in: no document of its own, main-frame
    /// navigations within `origin` fetched (see [`PageJob::route`]).
    pub fn sign_in(origin: url::Origin, scope: Arc<Scope>, robots: RobotsCheck) -> PageJob {
        let blank = MainDocument {
            url: Url::parse("about:blank").expect("about:blank is a URL"),
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
        };
        let mut job = PageJob::new(blank, scope, robots);
        job.sign_in = Some(origin);
        job
    }

    /// Counts one request of `resource_type` and the body bytes the page was
    /// served for it.
    fn tally(&self, resource_type: &str, bytes: u64) {
        let mut t = lock(&self.by_type);
        if let Some(row) = t.iter_mut().find(|r| r.kind == resource_type) {
            row.requests += 1;
            row.bytes += bytes;
        } else if t.len() < MAX_RESOURCE_TYPES {
            t.push(ResourceTally {
                kind: resource_type.chars().take(32).collect(),
                requests: 1,
                bytes,
            });
        }
    }

    /// Requests and bytes by resource type so far, most bytes first.
    pub fn by_type(&self) -> Vec<ResourceTally> {
        let mut t = lock(&self.by_type).clone();
        t.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.kind.cmp(&b.kind)));
        t
    }

    /// The requests refused so far.
    pub fn refusals(&self) -> Vec<Refusal> {
        lock(&self.refused).clone()
    }

    /// Requests paused so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Decides what happens to a request for `url` of `resource_type`;
    /// `main_frame`: it is a navigation of the tab's own frame.
    pub fn route(
        &self,
        policy: &Policy,
        url: &Url,
        resource_type: &str,
        main_frame: bool,
    ) -> Route {
        if !matches!(url.scheme(), "http" | "https") {
            return Route::Refuse("scheme");
        }
        if self.requests.fetch_add(1, Ordering::Relaxed) >= MAX_REQUESTS_PER_PAGE {
            return Route::Refuse("budget");
        }
        let navigation = resource_type == "Document";
        if let Some(auth) = &policy.auth {
            if auth.applies(url) && auth.is_sign_out(url) {
                return Route::Refuse("sign_out");
            }
        }
        if navigation && main_frame && self.sign_in.as_ref() == Some(&url.origin()) {
            // The sign-in steps' own pages and form posts; robots.txt does
            // not apply to a sign-in the user configured.
            return Route::Fetch { site: true };
        }
        if navigation && main_frame {
            if url_eq(url, &self.doc.url) && !self.served.swap(true, Ordering::SeqCst) {
                return Route::Document;
            }
            return Route::Refuse("navigation");
        }
        if navigation && self.scope.check(url).is_err() {
            return Route::Refuse("scope");
        }
        let site = self.scope.host_in_scope(url);
        if site && !(self.robots)(url) {
            return Route::Refuse("robots");
        }
        if (!site || !policy.allow_private) && check_literal(url).is_err() {
            return Route::Refuse("private");
        }
        Route::Fetch { site }
    }

    fn refuse(&self, url: &str, resource_type: &str, reason: &'static str) {
        tracing::debug!(url, resource_type, reason, "browser request refused");
        let mut r = lock(&self.refused);
        if r.len() < MAX_REFUSALS_KEPT {
            r.push(Refusal {
                url: url.to_string(),
                resource_type: resource_type.to_string(),
                reason,
            });
        }
    }
}

/// The rank of a protocol `ResourcePriority` (higher goes first).
fn priority_rank(p: &str) -> u8 {
    match p {
        "VeryHigh" => 5,
        "High" => 4,
        "Medium" => 3,
        "Low" => 2,
        "VeryLow" => 1,
        _ => 0,
    }
}

/// A counting gate whose waiters are let through by priority, then in
/// arrival order (a semaphore lets them through in arrival order only).
struct Gate {
    inner: Mutex<GateState>,
}

struct GateState {
    free: usize,
    next: u64,
    /// Waiting: (priority, reversed arrival, where to send the slot).
    waiting: std::collections::BinaryHeap<Waiter>,
}

struct Waiter {
    priority: u8,
    seq: u64,
    tx: oneshot::Sender<GatePermit>,
}

impl PartialEq for Waiter {
    fn eq(&self, other: &Self) -> bool {
        (self.priority, self.seq) == (other.priority, other.seq)
    }
}
impl Eq for Waiter {}
impl PartialOrd for Waiter {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Waiter {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // The max-heap pops the highest priority, and among equals the
        // earliest arrival.
        self.priority
            .cmp(&other.priority)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A slot of a [`Gate`], handed to the next waiter (or given back) when
/// dropped.
struct GatePermit {
    gate: Option<Arc<Gate>>,
}

impl Gate {
    fn new(slots: usize) -> Arc<Gate> {
        Arc::new(Gate {
            inner: Mutex::new(GateState {
                free: slots,
                next: 0,
                waiting: std::collections::BinaryHeap::new(),
            }),
        })
    }

    /// Waits for a slot; `priority`: higher is let through first.
    async fn acquire(gate: &Arc<Gate>, priority: u8) -> GatePermit {
        let rx = {
            let mut st = lock(&gate.inner);
            if st.free > 0 {
                st.free -= 1;
                return GatePermit {
                    gate: Some(Arc::clone(gate)),
                };
            }
            let (tx, rx) = oneshot::channel();
            let seq = st.next;
            st.next += 1;
            st.waiting.push(Waiter { priority, seq, tx });
            rx
        };
        // The sender is only dropped unsent with the gate itself; a slot
        // without a gate then is no slot to give back.
        rx.await.unwrap_or(GatePermit { gate: None })
    }

    /// A slot was given back: the first waiter still waiting gets it.
    fn release(self: &Arc<Gate>) {
        let mut st = lock(&self.inner);
        while let Some(w) = st.waiting.pop() {
            match w.tx.send(GatePermit {
                gate: Some(Arc::clone(self)),
            }) {
                Ok(()) => return,
                // That waiter is gone: the slot goes to the next one (the
                // permit coming back is disarmed, not released twice).
                Err(mut p) => p.gate = None,
            }
        }
        st.free += 1;
    }
}

impl Drop for GatePermit {
    fn drop(&mut self) {
        if let Some(g) = self.gate.take() {
            g.release();
        }
    }
}

/// Whether two URLs name the same document (fragments aside).
fn url_eq(a: &Url, b: &Url) -> bool {
    let mut a = a.clone();
    let mut b = b.clone();
    a.set_fragment(None);
    b.set_fragment(None);
    a == b
}

/// A tab's interception state, shared by its event pump and its renders.
pub(crate) struct TabState {
    /// The page being rendered; `None` between pages (every request refused).
    pub job: Mutex<Option<Arc<PageJob>>>,
    /// Requests being fetched or served now.
    pub inflight: AtomicUsize,
    /// When a request last started or ended.
    pub last_change: Mutex<Instant>,
    /// The loader id of the last main-frame `load`.
    pub loaded: watch::Sender<Option<String>>,
    fetches: Arc<Gate>,
}

impl TabState {
    pub(crate) fn new() -> TabState {
        TabState {
            job: Mutex::new(None),
            inflight: AtomicUsize::new(0),
            last_change: Mutex::new(Instant::now()),
            loaded: watch::channel(None).0,
            fetches: Gate::new(FETCHES_PER_TAB),
        }
    }

    fn touch(&self) {
        *lock(&self.last_change) = Instant::now();
    }
}

/// Counts a request in flight until dropped.
struct InFlight<'a>(&'a TabState);

impl<'a> InFlight<'a> {
    fn new(state: &'a TabState) -> Self {
        state.inflight.fetch_add(1, Ordering::SeqCst);
        state.touch();
        InFlight(state)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.inflight.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

/// Everything needed to answer the paused requests of one tab.
pub(crate) struct Interceptor {
    pub conn: Arc<Connection>,
    pub session: String,
    /// The tab's target id, which is also its main frame's id.
    pub target: String,
    pub state: Arc<TabState>,
    pub policy: Arc<Policy>,
    pub call_timeout: Duration,
}

impl Interceptor {
    /// Under a throttling preset, holds a response of `bytes` for the
    /// preset's latency and transfer time before the page gets it (responses
    /// fulfilled here never pass the browser's own network throttling).
    async fn hold(&self, bytes: usize) {
        if let Some(p) = &self.policy.throttle {
            tokio::time::sleep(p.delay(bytes as u64)).await;
        }
    }

    /// Answers one `Fetch.requestPaused` event.
    pub(crate) async fn on_paused(self: Arc<Self>, params: Value) {
        let Some(id) = params.get("requestId").and_then(Value::as_str) else {
            return;
        };
        let id = id.to_string();
        let _flight = InFlight::new(&self.state);
        let raw_url = params
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let resource_type = params
            .get("resourceType")
            .and_then(Value::as_str)
            .unwrap_or("Other");
        let main_frame = params.get("frameId").and_then(Value::as_str) == Some(&self.target);
        let job = lock(&self.state.job).clone();
        if job.as_ref().is_some_and(|j| j.is_frozen()) {
            let (method, params) = fail(&id, "BlockedByClient");
            let _ = self
                .conn
                .call(Some(&self.session), method, params, self.call_timeout)
                .await;
            return;
        }
        let verdict = match (&job, Url::parse(raw_url)) {
            (None, _) => Route::Refuse("navigation"),
            (Some(_), Err(_)) => Route::Refuse("scheme"),
            (Some(job), Ok(url)) => job.route(&self.policy, &url, resource_type, main_frame),
        };
        let answer = match (verdict, job) {
            (Route::Refuse(reason), job) => {
                if let Some(job) = job {
                    job.refuse(raw_url, resource_type, reason);
                    job.tally(resource_type, 0);
                }
                fail(&id, "BlockedByClient")
            }
            (Route::Document, Some(job)) => {
                job.tally(resource_type, job.doc.body.len() as u64);
                self.hold(job.doc.body.len()).await;
                fulfill(
                    &id,
                    job.doc.status,
                    job.doc
                        .headers
                        .iter()
                        .map(|h| (h.name.clone(), h.value.clone())),
                    &job.doc.body,
                )
            }
            (Route::Fetch { site }, Some(job)) => {
                let priority = params
                    .pointer("/request/initialPriority")
                    .and_then(Value::as_str)
                    .map_or(0, priority_rank);
                let queued = Instant::now();
                let permit = Gate::acquire(&self.state.fetches, priority).await;
                let started = Instant::now();
                let got = self.fetch(&job, &params, site).await;
                drop(permit);
                tracing::trace!(
                    url = raw_url,
                    resource_type,
                    priority,
                    queued_ms = (started - queued).as_millis() as u64,
                    fetch_ms = started.elapsed().as_millis() as u64,
                    "fetched for the page"
                );
                job.tally(
                    resource_type,
                    got.as_ref().map_or(0, |(_, _, body)| body.len() as u64),
                );
                match got {
                    Ok((status, headers, body)) => {
                        self.hold(body.len()).await;
                        fulfill(&id, status, headers.into_iter(), &body)
                    }
                    Err(Failure::Private) => {
                        job.refuse(raw_url, resource_type, "private");
                        fail(&id, "AddressUnreachable")
                    }
                    Err(Failure::Budget) => {
                        job.refuse(raw_url, resource_type, "budget");
                        fail(&id, "BlockedByClient")
                    }
                    Err(Failure::Net(reason)) => fail(&id, reason),
                }
            }
            (_, None) => fail(&id, "BlockedByClient"),
        };
        let (method, body) = answer;
        if let Err(e) = self
            .conn
            .call(Some(&self.session), method, body, self.call_timeout)
            .await
        {
            tracing::debug!(error = %e, "could not answer a paused request");
        }
    }

    async fn fetch(
        &self,
        job: &PageJob,
        params: &Value,
        site: bool,
    ) -> std::result::Result<(u16, Vec<(String, String)>, Vec<u8>), Failure> {
        let req = params.get("request").cloned().unwrap_or(Value::Null);
        let url = req.get("url").and_then(Value::as_str).unwrap_or("");
        let Ok(url) = Url::parse(url) else {
            return Err(Failure::Net("Failed"));
        };
        let method = req
            .get("method")
            .and_then(Value::as_str)
            .and_then(|m| reqwest::Method::from_bytes(m.as_bytes()).ok())
            .unwrap_or(reqwest::Method::GET);
        let client = if site {
            &self.policy.site_client
        } else {
            &self.policy.guarded_client
        };
        let mut headers = request_headers(req.get("headers"));
        // The browser adds cookies after the request is paused, so they are
        // not among its headers: the scan's context holds them (set by the
        // site's responses we fulfilled, or by its scripts), and we send
        // them to the scanned site. Never to another host (no third-party
        // cookies), never across scans (a context per scan).
        // With credentials, the context holds the session: its cookies go
        // to the credentials' origin only, never to another port of the host.
        let cookies_allowed = site && self.policy.auth.as_ref().is_none_or(|a| a.applies(&url));
        if cookies_allowed && !headers.contains_key(reqwest::header::COOKIE) {
            if let Some(cookie) = self.cookies_for(&url).await {
                headers.insert(reqwest::header::COOKIE, cookie);
            }
        }
        if let Some(auth) = &self.policy.auth {
            // Headers and basic authentication, on the origin only (the
            // session's cookies came from the context above).
            let mut current: Option<HeaderName> = None;
            for (name, value) in auth.headers_for(&url) {
                if let Some(name) = name {
                    // Ours replace the page's own of the same name.
                    headers.remove(&name);
                    current = Some(name);
                }
                if let Some(name) = current.as_ref().filter(|n| **n != reqwest::header::COOKIE) {
                    headers.append(name.clone(), value);
                }
            }
        }
        let mut builder = client.request(method, url.as_str()).headers(headers);
        if let Some(body) = request_body(&req) {
            builder = builder.body(body);
        }
        let permit = if site {
            Some(self.policy.hosts.acquire(&url).await)
        } else {
            None
        };
        let sent = builder.send().await;
        drop(permit);
        let mut resp = match sent {
            Ok(r) => r,
            Err(e) => return Err(classify(&e)),
        };
        let status = resp.status().as_u16();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .filter(|(name, _)| {
                !matches!(
                    name.as_str(),
                    "content-encoding" | "content-length" | "transfer-encoding" | "connection"
                )
            })
            .filter_map(|(n, v)| Some((n.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let mut body = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    let total = job.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed)
                        + chunk.len() as u64;
                    if body.len() as u64 + chunk.len() as u64 > self.policy.max_body
                        || total > MAX_BYTES_PER_PAGE
                    {
                        return Err(Failure::Budget);
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(classify(&e)),
            }
        }
        Ok((status, headers, body))
    }
}

impl Interceptor {
    /// The `Cookie` header the scan's browser context holds for `url`.
    async fn cookies_for(&self, url: &Url) -> Option<HeaderValue> {
        let got = self
            .conn
            .call(
                Some(&self.session),
                "Network.getCookies",
                json!({"urls": [url.as_str()]}),
                self.call_timeout,
            )
            .await
            .ok()?;
        let pairs: Vec<String> = got
            .get("cookies")?
            .as_array()?
            .iter()
            .take(MAX_COOKIES)
            .filter_map(|c| {
                Some(format!(
                    "{}={}",
                    c.get("name")?.as_str()?,
                    c.get("value")?.as_str()?
                ))
            })
            .collect();
        if pairs.is_empty() {
            return None;
        }
        HeaderValue::from_str(&pairs.join("; ")).ok()
    }
}

/// Cookies sent with one request at most (a browser's per-domain limit is
/// about 180).
const MAX_COOKIES: usize = 200;

/// Why a fetch for the page failed.
enum Failure {
    /// The SSRF guard refused the address.
    Private,
    /// Over the page's request or byte budget.
    Budget,
    /// A network failure, as the protocol's `ErrorReason`.
    Net(&'static str),
}

fn classify(e: &reqwest::Error) -> Failure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.downcast_ref::<PrivateAddressRefused>().is_some() {
            return Failure::Private;
        }
        source = s.source();
    }
    if e.is_timeout() {
        Failure::Net("TimedOut")
    } else if e.is_connect() {
        Failure::Net("ConnectionRefused")
    } else {
        Failure::Net("Failed")
    }
}

/// The page's request headers as we send them: hop-by-hop headers, the
/// encodings (ours) and conditional headers (the browser's cache is off, so a
/// 304 would have nothing to revalidate) left out.
fn request_headers(headers: Option<&Value>) -> HeaderMap {
    let mut out = HeaderMap::new();
    let Some(obj) = headers.and_then(Value::as_object) else {
        return out;
    };
    for (name, value) in obj {
        let lower = name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "host"
                | "connection"
                | "content-length"
                | "accept-encoding"
                | "user-agent"
                | "keep-alive"
                | "te"
                | "trailer"
                | "transfer-encoding"
                | "upgrade"
                | "proxy-authorization"
                | "proxy-connection"
                | "if-none-match"
                | "if-modified-since"
                | "if-match"
                | "if-unmodified-since"
                | "if-range"
        ) {
            continue;
        }
        let (Ok(n), Some(Ok(v))) = (
            HeaderName::from_bytes(lower.as_bytes()),
            value.as_str().map(HeaderValue::from_str),
        ) else {
            continue;
        };
        out.append(n, v);
    }
    out
}

/// The request body a paused request carries, if any.
fn request_body(req: &Value) -> Option<Vec<u8>> {
    if let Some(entries) = req.get("postDataEntries").and_then(Value::as_array) {
        let mut out = Vec::new();
        for e in entries {
            if let Some(b) = e.get("bytes").and_then(Value::as_str) {
                out.extend(base64::engine::general_purpose::STANDARD.decode(b).ok()?);
            }
        }
        return Some(out);
    }
    req.get("postData")
        .and_then(Value::as_str)
        .map(|s| s.as_bytes().to_vec())
}

fn fail(id: &str, reason: &str) -> (&'static str, Value) {
    (
        "Fetch.failRequest",
        json!({"requestId": id, "errorReason": reason}),
    )
}

fn fulfill(
    id: &str,
    status: u16,
    headers: impl Iterator<Item = (String, String)>,
    body: &[u8],
) -> (&'static str, Value) {
    let headers: Vec<Value> = headers
        .filter(|(n, _)| {
            !matches!(
                n.to_ascii_lowercase().as_str(),
                "content-encoding" | "content-length" | "transfer-encoding" | "connection"
            )
        })
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect();
    (
        "Fetch.fulfillRequest",
        json!({
            "requestId": id,
            "responseCode": status,
            "responseHeaders": headers,
            "body": base64::engine::general_purpose::STANDARD.encode(body),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(allow_private: bool) -> (PageJob, Policy) {
        let config = ScanConfig {
            allow_private,
            ..ScanConfig::default()
        };
        let start = Url::parse("http://127.0.0.1:8000/").unwrap();
        let scope = Arc::new(Scope::new(&start, &config).unwrap());
        let doc = MainDocument {
            url: start,
            status: 200,
            headers: Vec::new(),
            body: Vec::new(),
        };
        let robots: RobotsCheck = Arc::new(|u: &Url| !u.path().starts_with("/private"));
        let hosts = Arc::new(HostPool::new(100.0, 4));
        (
            PageJob::new(doc, scope, robots),
            Policy::new(&config, hosts).unwrap(),
        )
    }

    #[test]
    fn routes_follow_scope_robots_and_the_guard() {
        let (job, policy) = job(true);
        let u = |s: &str| Url::parse(s).unwrap();
        let r = |s: &str, ty: &str, main: bool| job.route(&policy, &u(s), ty, main);
        assert_eq!(
            r("http://127.0.0.1:8000/", "Document", true),
            Route::Document
        );
        // Served once; a second main-frame navigation is the page leaving.
        assert_eq!(
            r("http://127.0.0.1:8000/", "Document", true),
            Route::Refuse("navigation")
        );
        assert_eq!(
            r("http://127.0.0.1:8000/other", "Document", true),
            Route::Refuse("navigation")
        );
        assert_eq!(
            r("http://127.0.0.1:8000/frame", "Document", false),
            Route::Fetch { site: true }
        );
        assert_eq!(
            r("http://127.0.0.1:9000/frame", "Document", false),
            Route::Refuse("scope")
        );
        assert_eq!(
            r("http://127.0.0.1:8000/private/x", "Fetch", false),
            Route::Refuse("robots")
        );
        assert_eq!(
            r("http://127.0.0.1:8000/a.png", "Image", false),
            Route::Fetch { site: true }
        );
        // Private addresses off the site are refused even though the scan
        // allows private addresses (its site is on one).
        for other in [
            "http://127.0.0.1:9000/x",
            "http://10.0.0.1/x",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::1]:8000/x",
        ] {
            assert_eq!(
                r(other, "Fetch", false),
                Route::Refuse("private"),
                "{other}"
            );
        }
        // Names off the site go to the guarded client (checked at resolve).
        assert_eq!(
            r("https://cdn.example/x.js", "Script", false),
            Route::Fetch { site: false }
        );
        assert_eq!(
            r("ftp://127.0.0.1:8000/x", "Other", false),
            Route::Refuse("scheme")
        );
        let (job, policy) = job_guarded();
        assert_eq!(
            job.route(&policy, &u("http://127.0.0.1:8000/a.png"), "Image", false),
            Route::Refuse("private")
        );
    }

    fn job_guarded() -> (PageJob, Policy) {
        job(false)
    }

    #[tokio::test]
    async fn waiting_fetches_get_a_slot_by_priority_then_arrival() {
        let gate = Gate::new(1);
        let held = Gate::acquire(&gate, 0).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiters = Vec::new();
        // Arrival order: an image, a script, a stylesheet, another script,
        // a waiter that gives up, another stylesheet.
        for (name, priority) in [
            ("image", priority_rank("Low")),
            ("script", priority_rank("High")),
            ("style", priority_rank("VeryHigh")),
            ("script2", priority_rank("High")),
            ("gone", priority_rank("VeryHigh")),
            ("style2", priority_rank("VeryHigh")),
        ] {
            let (gate, order) = (Arc::clone(&gate), Arc::clone(&order));
            waiters.push(tokio::spawn(async move {
                let _slot = Gate::acquire(&gate, priority).await;
                lock(&order).push(name);
            }));
            // Each is queued before the next arrives.
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
        }
        let gone = waiters.remove(4);
        gone.abort();
        let _ = gone.await;
        drop(held);
        for w in waiters {
            w.await.unwrap();
        }
        assert_eq!(
            *lock(&order),
            vec!["style", "style2", "script", "script2", "image"]
        );
        // Every slot came back: one free, nobody waiting.
        let st = lock(&gate.inner);
        assert_eq!((st.free, st.waiting.len()), (1, 0));
    }

    #[test]
    fn requests_past_the_budget_are_refused() {
        let (job, policy) = job(true);
        let url = Url::parse("http://127.0.0.1:8000/a.png").unwrap();
        for _ in 0..MAX_REQUESTS_PER_PAGE {
            assert_eq!(
                job.route(&policy, &url, "Image", false),
                Route::Fetch { site: true }
            );
        }
        assert_eq!(
            job.route(&policy, &url, "Image", false),
            Route::Refuse("budget")
        );
    }
}
