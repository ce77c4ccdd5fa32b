//! Link and resource checking: statuses for the `broken-links` and
//! `broken-resources` rules, and the network facts of subresources (size,
//! compression, cache headers, image dimensions) for the performance rules.
//!
//! Each URL is requested once per scan (results cached, concurrent callers of the
//! same URL wait for the one request). Links get `HEAD`, then `GET` only when the
//! answer to `HEAD` is one servers give when they mishandle `HEAD`
//! ([`HEAD_FALLBACK_STATUSES`], or a broken response), following redirects.
//!
//! A host is contacted by one request first; the others wait for its answer
//! ([`HostGate`]). A host whose DNS lookup or connection fails is not tried
//! again in the scan: that failure answers for all its URLs at once, before the
//! per-host pacing, so a dead host costs one attempt and no waiting. When most
//! hosts fail that way the network itself looks unreachable
//! ([`LinkChecker::network_verdict`]); the scan then counts their URLs as not
//! checked instead of reporting them broken.
//! Subresources get one `GET` ([`LinkChecker::inspect`]) whose body is read only as
//! far as the facts need: not at all when `Content-Length` gives the size, the
//! first bytes of an image for its dimensions, an uncompressed text resource
//! whole (up to the body cap) to measure what gzip would save. Its status also
//! answers `broken-resources`, so a resource is never requested twice. Requests go
//! through the scan's [`HostPool`] (per-host rate and concurrency) and the same
//! private-address guard as the crawl. A `429` is retried once after its
//! `Retry-After` (capped) and otherwise reported as rate limited, never as broken.
//! At most a budget of URLs ([`DEFAULT_MAX_LINK_CHECKS`]) is requested per scan;
//! the rest are skipped and counted ([`LinkChecker::over_budget`]). URLs the
//! scan's [`LinkScope`] leaves out (other sites, or everything) are never
//! requested, not even resolved, and are counted too ([`LinkChecker::unchecked`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT_ENCODING};
use reqwest::redirect::Policy;
use sitescan_rules::resources::{ImageDims, ResourceFacts, ResourceKind};
use sitescan_rules::site::LinkStatus;
use tokio::sync::OnceCell;
use url::Url;

use crate::config::{default_accept, LinkScope, ScanConfig, StatusRange};
use crate::crawl::credentials::Credentials;
use crate::crawl::fetch::{retry_after, Fetched};
use crate::crawl::host_limits::HostPool;
use crate::crawl::scope::Scope;
use crate::crawl::ssrf::{check_literal, CachingResolver};
use crate::error::{Error, Result};

/// Most URLs requested by link and resource checks in one scan; the rest are
/// reported as skipped in a note.
pub const DEFAULT_MAX_LINK_CHECKS: usize = 2000;

/// Longest `Retry-After` honoured before giving up as rate limited.
pub const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(30);

/// Bytes of an image read for its dimensions: enough for PNG, GIF, WebP and
/// AVIF headers, and for the start-of-frame of a JPEG behind a large EXIF block.
pub const IMAGE_HEAD_BYTES: usize = 256 * 1024;

/// Answers to `HEAD` after which the URL is asked again with `GET`: the ones
/// servers give when they do not implement `HEAD` or treat it as a suspicious
/// client (400 Bad Request, 403 Forbidden from bot filters, 405 Method Not
/// Allowed, 406 Not Acceptable, 500 from frameworks that crash on `HEAD`, 501
/// Not Implemented, and LinkedIn's 999). A 404 or 410 to `HEAD` is believed: a
/// missing page is missing, and asking again only doubled the requests to it.
pub const HEAD_FALLBACK_STATUSES: [u16; 7] = [400, 403, 405, 406, 500, 501, 999];

/// Answers to `HEAD` that say the server does not support it at all: later
/// URLs of that host get `GET` straight away.
const HEAD_UNSUPPORTED: [u16; 2] = [405, 501];

/// Hosts (at least) failing at DNS or connect before the network is judged
/// unreachable (see [`LinkChecker::network_verdict`]).
pub const NETWORK_DOWN_MIN_HOSTS: usize = 2;

/// Share of the contacted hosts, in percent, that must fail at DNS or connect
/// for the network to look unreachable.
pub const NETWORK_DOWN_PERCENT: usize = 80;

/// The encodings a browser asks for. Bodies are never decoded here (sizes are
/// counted on the wire and only uncompressed text is gzipped), so every
/// encoding a browser accepts may be offered.
const ACCEPT_ENCODINGS: &str = "gzip, deflate, br, zstd";

type FactsCell = Arc<OnceCell<Option<Arc<ResourceFacts>>>>;

/// How a host failed before any HTTP answer: the failures that answer for all
/// of the host's URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostFailure {
    /// Its name did not resolve.
    Dns,
    /// No connection (refused, unreachable network, connect timeout, TLS
    /// handshake).
    Connect,
}

/// What is known of one host (`host:port`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum HostState {
    /// Not contacted yet, or its last attempt ended without telling (a read
    /// timeout): the next request contacts it alone.
    #[default]
    Unknown,
    /// It answered HTTP at least once.
    Answered,
    /// DNS or connect failed: every URL of the host gets this reason.
    Failed(HostFailure, String),
}

/// One host's first contact: the first request goes alone (`first` held), the
/// others wait for its outcome, so a failing host gets exactly one request
/// however many of its URLs are checked at once.
#[derive(Default)]
struct HostGate {
    first: tokio::sync::Mutex<()>,
    state: Mutex<HostState>,
    /// `HEAD` is not implemented there (405/501): `GET` straight away.
    get_only: std::sync::atomic::AtomicBool,
}

impl HostGate {
    fn state(&self) -> HostState {
        lock(&self.state).clone()
    }
}

/// Why one request got no HTTP answer.
#[derive(Debug, Clone)]
struct Failure {
    reason: String,
    /// Set when the failure answers for the whole host.
    host: Option<HostFailure>,
    /// Timed out (asking again with `GET` would wait as long again).
    timeout: bool,
}

/// The checker's judgement of the network after the checks (see
/// [`LinkChecker::network_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkVerdict {
    /// Hosts the checks contacted (answered or failed at DNS/connect).
    pub hosts_tried: usize,
    /// Of them, hosts whose DNS lookup or connection failed.
    pub hosts_failed: usize,
    /// Of the failed, those that failed at DNS.
    pub hosts_failed_dns: usize,
    /// Whether most hosts failed so: the network looks unreachable.
    pub unreachable: bool,
}

/// Checks URLs with caching, politeness and a per-scan budget.
pub struct LinkChecker {
    client: reqwest::Client,
    hosts: Arc<HostPool>,
    cache: Mutex<HashMap<String, LinkStatus>>,
    facts: Mutex<HashMap<String, FactsCell>>,
    accept: Vec<StatusRange>,
    concurrency: usize,
    allow_private: bool,
    max_body: u64,
    max_checks: usize,
    requested: AtomicUsize,
    /// URLs turned away because the budget was spent. Not cached one by one:
    /// their status is always the same, and on a large site they are most URLs.
    over_budget: Mutex<UrlSet>,
    /// The client's resolver, warmed with every host before the checks start.
    resolver: Arc<CachingResolver>,
    /// Which URLs may be requested at all.
    links: LinkScope,
    /// The scanned site, for [`LinkScope::Internal`] (unset: no URL is internal).
    site: RwLock<Option<Scope>>,
    /// URLs left unchecked because of `links`.
    unchecked: Mutex<UrlSet>,
    /// Per `host:port`: first contact, failures, `HEAD` support.
    gates: Mutex<HashMap<String, Arc<HostGate>>>,
    /// The scan's credentials: sent with checks of their origin's URLs (a
    /// site's images behind its login), never elsewhere.
    auth: Option<Arc<Credentials>>,
    /// Their origin, for the redirect policy: a redirect that leaves it is
    /// not followed (reqwest would carry custom headers along).
    auth_origin: Arc<std::sync::OnceLock<url::Origin>>,
}

/// A set of URLs kept as 64-bit fingerprints, for counting distinct URLs and
/// recognising them again without holding their strings.
///
/// A scan of a large site meets far more URLs than it checks (every page's own
/// images, links to other sites); kept as strings, the ones only counted were a
/// few hundred bytes per page of a scan's peak memory. Two distinct URLs share a
/// fingerprint with probability 2⁻⁶⁴ per pair, which at worst makes a note's
/// count one lower.
#[derive(Debug, Default)]
struct UrlSet(HashSet<u64>);

impl UrlSet {
    /// SipHash with fixed keys (`DefaultHasher::new`): the same URL always gets
    /// the same fingerprint.
    fn fingerprint(url: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        url.hash(&mut h);
        h.finish()
    }

    /// Adds the URL; false when it was there already.
    fn insert(&mut self, url: &str) -> bool {
        self.0.insert(Self::fingerprint(url))
    }

    fn contains(&self, url: &str) -> bool {
        self.0.contains(&Self::fingerprint(url))
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Why [`LinkChecker::inspect`] did not fetch a URL.
fn skipped(reason: String) -> LinkStatus {
    LinkStatus::Skipped { reason }
}

impl LinkChecker {
    /// A checker with the scan's timeouts, user agent, redirect limit, body cap,
    /// accepted statuses and private-address policy, sharing the crawl's host
    /// pool, with the default budget of [`DEFAULT_MAX_LINK_CHECKS`].
    pub fn new(config: &ScanConfig, hosts: Arc<HostPool>) -> Result<LinkChecker> {
        let allow_private = config.allow_private;
        let max_redirects = config.max_redirects as usize;
        let auth_origin: Arc<std::sync::OnceLock<url::Origin>> = Arc::default();
        let origin = Arc::clone(&auth_origin);
        let policy = Policy::custom(move |attempt| {
            let leaves_auth_origin = origin.get().is_some_and(|o| {
                attempt.previous().last().is_some_and(|p| p.origin() == *o)
                    && attempt.url().origin() != *o
            });
            if leaves_auth_origin {
                // The request carried the scan's credentials: its answer (the
                // redirect) is the check's answer.
                attempt.stop()
            } else if attempt.previous().len() > max_redirects {
                attempt.error("too many redirects")
            } else if !allow_private && check_literal(attempt.url()).is_err() {
                attempt.error("redirect to a private address")
            } else {
                attempt.follow()
            }
        });
        // Decompression off: reqwest would strip `Content-Encoding` and
        // `Content-Length`, the facts the compression and weight rules need.
        let mut defaults = HeaderMap::new();
        defaults.insert(ACCEPT_ENCODING, HeaderValue::from_static(ACCEPT_ENCODINGS));
        let mut builder = reqwest::Client::builder()
            .redirect(policy)
            .no_gzip()
            .no_brotli()
            .no_zstd()
            .no_deflate()
            .default_headers(defaults)
            .no_proxy()
            .user_agent(config.user_agent.clone())
            .connect_timeout(Duration::from_millis(config.connect_timeout_ms))
            .timeout(Duration::from_millis(config.timeout_ms));
        // One lookup per host for the whole check (see `CachingResolver`).
        let resolver = Arc::new(CachingResolver::new(!allow_private));
        builder = builder.dns_resolver(Arc::clone(&resolver));
        let client = builder.build().map_err(|e| Error::Client(e.to_string()))?;
        Ok(LinkChecker {
            client,
            hosts,
            cache: Mutex::new(HashMap::new()),
            facts: Mutex::new(HashMap::new()),
            accept: if config.accept.is_empty() {
                default_accept()
            } else {
                config.accept.clone()
            },
            concurrency: config.concurrency.max(1),
            allow_private,
            max_body: config.max_body_bytes.max(1),
            max_checks: DEFAULT_MAX_LINK_CHECKS,
            requested: AtomicUsize::new(0),
            over_budget: Mutex::new(UrlSet::default()),
            resolver,
            links: config.links,
            site: RwLock::new(None),
            unchecked: Mutex::new(UrlSet::default()),
            gates: Mutex::new(HashMap::new()),
            auth: None,
            auth_origin,
        })
    }

    /// Sends `auth` with the checks of its origin's URLs, and never requests
    /// that origin's sign-out URLs.
    pub fn with_auth(mut self, auth: Option<Arc<Credentials>>) -> LinkChecker {
        if let Some(a) = &auth {
            let _ = self.auth_origin.set(a.origin_url().origin());
        }
        self.auth = auth;
        self
    }

    /// A request of `method` for `url`, with the credentials on their origin.
    fn request(&self, method: reqwest::Method, url: &Url) -> reqwest::RequestBuilder {
        let req = self.client.request(method, url.as_str());
        match &self.auth {
            Some(a) => a.apply(url, req),
            None => req,
        }
    }

    /// Replaces the accepted final statuses.
    pub fn with_accept(mut self, accept: Vec<StatusRange>) -> LinkChecker {
        self.accept = accept;
        self
    }

    /// Replaces the budget: URLs requested at most by this checker.
    pub fn with_max_checks(mut self, max: usize) -> LinkChecker {
        self.max_checks = max;
        self
    }

    /// The scanned site: what [`LinkScope::Internal`] checks (its hosts, as
    /// [`Scope::host_in_scope`] says). Set again when the start page moves the
    /// scan to another host.
    pub fn set_site(&self, scope: &Scope) {
        *self
            .site
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(scope.clone());
    }

    /// How many distinct URLs were left unchecked because the scan's
    /// [`LinkScope`] leaves them out.
    pub fn unchecked(&self) -> usize {
        lock(&self.unchecked).len()
    }

    /// Whether the scan's [`LinkScope`] lets this URL be requested.
    fn in_link_scope(&self, url: &Url) -> bool {
        match self.links {
            LinkScope::All => true,
            LinkScope::None => false,
            LinkScope::Internal => self
                .site
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .as_ref()
                .is_some_and(|site| site.host_in_scope(url)),
        }
    }

    /// The budget of URLs requested at most.
    pub fn max_checks(&self) -> usize {
        self.max_checks
    }

    /// How many URLs were left unchecked because the budget was spent.
    pub fn over_budget(&self) -> usize {
        lock(&self.over_budget).len()
    }

    /// Whether a final status counts as working.
    pub fn accepted(&self, status: u16) -> bool {
        self.accept.iter().any(|r| r.contains(status))
    }

    /// The link status a final status (0: no response) stands for.
    pub fn status_of(&self, status: u16) -> LinkStatus {
        match status {
            429 => LinkStatus::RateLimited,
            s if self.accepted(s) => LinkStatus::Ok { status: s },
            s => LinkStatus::Broken { status: s },
        }
    }

    /// The status known for this URL without a request (seeded, or checked
    /// before), as [`Self::check`] would answer it from its cache.
    pub fn cached(&self, url: &str) -> Option<LinkStatus> {
        if let Some(status) = lock(&self.cache).get(url) {
            return Some(status.clone());
        }
        lock(&self.over_budget)
            .contains(url)
            .then(|| skipped(self.budget_note()))
    }

    /// Records a status known from elsewhere (a page the crawl fetched).
    pub fn seed(&self, url: &str, status: LinkStatus) {
        lock(&self.cache).entry(url.to_string()).or_insert(status);
    }

    /// Forgets the subresource facts kept for pages still to come (the crawl is
    /// over: nothing asks [`Self::inspect`] again), keeping every URL's status.
    /// They were the largest per-subresource state of a scan.
    pub fn forget_facts(&self) {
        *lock(&self.facts) = HashMap::new();
    }

    /// Forgets every URL's status (the link checks are over and their answers
    /// were handed out). Asked again, a URL would be checked again, unless it
    /// was over the budget (the budget set still answers for it).
    pub fn forget_statuses(&self) {
        *lock(&self.cache) = HashMap::new();
    }

    /// Records the facts of a resource fetched by someone else (a stylesheet the
    /// crawl fetched for the CSS rules), so [`Self::inspect`] and the status
    /// checks reuse them instead of requesting it again.
    pub async fn seed_facts(&self, url: &Url, facts: ResourceFacts) {
        let facts = Arc::new(facts);
        self.seed(url.as_str(), self.status_from_facts(&facts));
        let cell = self.cell(url);
        let _ = cell.get_or_init(|| async { Some(facts) }).await;
    }

    fn cell(&self, url: &Url) -> FactsCell {
        Arc::clone(
            lock(&self.facts)
                .entry(url.to_string())
                .or_insert_with(|| Arc::new(OnceCell::new())),
        )
    }

    /// Takes one request from the budget for `url`; false (and the URL
    /// remembered as over budget) when it is spent.
    fn take_budget(&self, url: &Url) -> bool {
        if lock(&self.over_budget).contains(url.as_str()) {
            return false;
        }
        if self.requested.fetch_add(1, Ordering::SeqCst) < self.max_checks {
            true
        } else {
            lock(&self.over_budget).insert(url.as_str());
            false
        }
    }

    fn budget_note(&self) -> String {
        format!("more than {} URLs to check", self.max_checks)
    }

    /// Why a URL may not be requested at all (scheme, the scan's
    /// [`LinkScope`], private address).
    fn refusal(&self, url: &Url) -> Option<LinkStatus> {
        if !matches!(url.scheme(), "http" | "https") {
            return Some(skipped(format!("scheme {} is not checked", url.scheme())));
        }
        if self
            .auth
            .as_ref()
            .is_some_and(|a| a.applies(url) && a.is_sign_out(url))
        {
            return Some(skipped("a sign-out URL is not requested".into()));
        }
        if !self.in_link_scope(url) {
            lock(&self.unchecked).insert(url.as_str());
            let why = match self.links {
                LinkScope::None => "link checks are off (links: none)",
                _ => "on another site, and only the scanned site's links are checked (links: internal)",
            };
            return Some(skipped(why.to_string()));
        }
        if !self.allow_private {
            if let Err(refused) = check_literal(url) {
                return Some(skipped(format!("private address refused ({refused})")));
            }
        }
        None
    }

    /// The status of one URL, from the cache or the network (`HEAD`, then `GET`
    /// when the `HEAD` answer calls for it). A URL of a host that failed at DNS
    /// or connect gets that failure without a request (and without budget).
    pub async fn check(&self, url: &Url) -> LinkStatus {
        let key = url.to_string();
        if let Some(s) = lock(&self.cache).get(&key) {
            return s.clone();
        }
        let status = match self.refusal(url) {
            Some(refused) => refused,
            None => match self.host_failure(url) {
                Some(reason) => LinkStatus::Unreachable { reason },
                // Not cached: the budget set remembers it (see `over_budget`).
                None if !self.take_budget(url) => return skipped(self.budget_note()),
                None => self.fetch_status(url).await,
            },
        };
        lock(&self.cache).insert(key, status.clone());
        status
    }

    /// Checks every URL, `concurrency` at a time overall and politely per host;
    /// returns every URL's status (URLs beyond the budget are skipped). The host
    /// names are looked up together first, so slow DNS answers overlap instead of
    /// holding each check in turn.
    pub async fn check_all(&self, urls: Vec<Url>) -> BTreeMap<String, LinkStatus> {
        self.check_all_with(urls, &|_, _| {}).await
    }

    /// [`Self::check_all`], telling `progress` (URLs done, URLs in all) after
    /// each URL.
    pub async fn check_all_with(
        &self,
        urls: Vec<Url>,
        progress: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> BTreeMap<String, LinkStatus> {
        let hosts: std::collections::BTreeSet<String> = {
            let cache = lock(&self.cache);
            urls.iter()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .filter(|u| !cache.contains_key(u.as_str()) && self.in_link_scope(u))
                .filter_map(|u| match u.host() {
                    Some(url::Host::Domain(d)) => Some(d.to_string()),
                    _ => None,
                })
                .collect()
        };
        self.resolver.prefetch(hosts).await;
        let total = urls.len();
        let done = AtomicUsize::new(0);
        let done = &done;
        stream::iter(urls)
            .map(|u| async move {
                let status = self.check(&u).await;
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                (u.to_string(), status)
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .await
    }

    /// The gate of the URL's `host:port`.
    fn gate(&self, url: &Url) -> Arc<HostGate> {
        Arc::clone(lock(&self.gates).entry(gate_key(url)).or_default())
    }

    /// The failure of the URL's host, when its DNS lookup or connection failed
    /// earlier in the scan: the reason every URL of the host gets.
    pub fn host_failure(&self, url: &Url) -> Option<String> {
        let gate = lock(&self.gates).get(&gate_key(url)).cloned()?;
        match gate.state() {
            HostState::Failed(_, reason) => Some(reason),
            _ => None,
        }
    }

    /// What the checks found of the network: how many hosts they contacted and
    /// how many of those failed at DNS or connect. The network looks
    /// unreachable when at least [`NETWORK_DOWN_MIN_HOSTS`] hosts failed so and
    /// they are at least [`NETWORK_DOWN_PERCENT`] % of the hosts contacted (a
    /// scan on a machine without outside network, such as a locked-down CI
    /// runner: every other site fails the same way, while the scanned site,
    /// reached locally, answers).
    pub fn network_verdict(&self) -> NetworkVerdict {
        let (mut tried, mut failed, mut dns) = (0, 0, 0);
        for gate in lock(&self.gates).values() {
            match gate.state() {
                HostState::Unknown => {}
                HostState::Answered => tried += 1,
                HostState::Failed(kind, _) => {
                    tried += 1;
                    failed += 1;
                    if kind == HostFailure::Dns {
                        dns += 1;
                    }
                }
            }
        }
        NetworkVerdict {
            hosts_tried: tried,
            hosts_failed: failed,
            hosts_failed_dns: dns,
            unreachable: failed >= NETWORK_DOWN_MIN_HOSTS
                && failed * 100 >= tried * NETWORK_DOWN_PERCENT,
        }
    }

    /// The network facts of a subresource, fetched once per scan with one `GET`
    /// (concurrent callers wait for the same request). `None` when it is not
    /// requested: not `http(s)`, a private address, or the budget spent (its
    /// status says which).
    pub async fn inspect(&self, url: &Url, kind: ResourceKind) -> Option<Arc<ResourceFacts>> {
        if lock(&self.over_budget).contains(url.as_str()) {
            return None;
        }
        let cell = self.cell(url);
        let facts = cell
            .get_or_init(|| async {
                if let Some(refused) = self.refusal(url) {
                    self.seed(url.as_str(), refused);
                    return None;
                }
                // A dead host answers without a request or budget.
                if let Some(reason) = self.host_failure(url) {
                    return Some(Arc::new(self.failed_facts(url, reason)));
                }
                if !self.take_budget(url) {
                    return None;
                }
                let facts = self.fetch_facts(url, kind).await;
                let status = match &facts.error {
                    Some(e) if e.contains("private address") => skipped(e.clone()),
                    _ => self.status_from_facts(&facts),
                };
                lock(&self.cache).insert(url.to_string(), status);
                Some(Arc::new(facts))
            })
            .await
            .clone();
        if facts.is_none() && lock(&self.over_budget).contains(url.as_str()) {
            // Turned away for the budget: the budget set answers from now on.
            lock(&self.facts).remove(url.as_str());
        }
        facts
    }

    /// The facts of a resource whose host failed: no answer, the host's reason.
    fn failed_facts(&self, url: &Url, reason: String) -> ResourceFacts {
        lock(&self.cache).insert(
            url.to_string(),
            LinkStatus::Unreachable {
                reason: reason.clone(),
            },
        );
        ResourceFacts {
            final_url: url.to_string(),
            error: Some(reason),
            ..ResourceFacts::default()
        }
    }

    fn status_from_facts(&self, facts: &ResourceFacts) -> LinkStatus {
        match &facts.error {
            Some(e) => LinkStatus::Unreachable { reason: e.clone() },
            None => self.status_of(facts.status),
        }
    }

    async fn fetch_status(&self, url: &Url) -> LinkStatus {
        let mut waited = false;
        let gate = self.gate(url);
        loop {
            let head_first = !gate.get_only.load(Ordering::Relaxed);
            let first = if head_first {
                self.send(reqwest::Method::HEAD, url).await
            } else {
                self.send(reqwest::Method::GET, url).await
            };
            let again = head_first
                && match &first {
                    Ok((status, _)) => HEAD_FALLBACK_STATUSES.contains(status),
                    // A broken answer to HEAD (connection closed, bad framing)
                    // may be the server's way of refusing it; a host failure
                    // or a timeout would only repeat.
                    Err(f) => f.host.is_none() && !f.timeout && !f.reason.contains("private"),
                };
            let result = if again {
                if let Ok((status, _)) = &first {
                    if HEAD_UNSUPPORTED.contains(status) {
                        gate.get_only.store(true, Ordering::Relaxed);
                    }
                }
                self.send(reqwest::Method::GET, url).await
            } else {
                first
            };
            return match result {
                Ok((429, wait)) => match wait {
                    Some(w) if !waited && w <= MAX_RATE_LIMIT_WAIT => {
                        tracing::info!(url = %url, wait_ms = w.as_millis() as u64, "link check rate limited; waiting");
                        self.hosts.pause(url, w);
                        waited = true;
                        continue;
                    }
                    _ => LinkStatus::RateLimited,
                },
                Ok((status, _)) => self.status_of(status),
                Err(f) if f.reason.contains("private address") => {
                    LinkStatus::Skipped { reason: f.reason }
                }
                Err(f) => LinkStatus::Unreachable { reason: f.reason },
            };
        }
    }

    /// Sends one request through the host's gate and the politeness pool, and
    /// records what it says of the host. `Err` without a request when the host
    /// failed already (the caller, or another URL of the host, learns it while
    /// waiting for the first contact).
    async fn gated<T>(
        &self,
        url: &Url,
        request: impl std::future::Future<Output = reqwest::Result<T>>,
    ) -> std::result::Result<T, Failure> {
        let gate = self.gate(url);
        // The first contact goes alone; the rest wait for it (and its outcome).
        let mut first = None;
        if gate.state() == HostState::Unknown {
            first = Some(gate.first.lock().await);
        }
        match gate.state() {
            HostState::Failed(kind, reason) => {
                return Err(Failure {
                    reason,
                    host: Some(kind),
                    timeout: false,
                })
            }
            // Known to answer: no need to hold the others back.
            HostState::Answered => first = None,
            HostState::Unknown => {}
        }
        let permit = self.hosts.acquire(url).await;
        let result = request.await;
        drop(permit);
        let outcome = match result {
            Ok(value) => {
                *lock(&gate.state) = HostState::Answered;
                Ok(value)
            }
            Err(e) => {
                let failure = classify(url, &e);
                if let Some(kind) = failure.host {
                    tracing::info!(host = %gate_key(url), reason = %failure.reason, "host failed; its other URLs are not requested");
                    *lock(&gate.state) = HostState::Failed(kind, failure.reason.clone());
                }
                Err(failure)
            }
        };
        drop(first);
        outcome
    }

    /// One request; the body is not read. Returns the status and any
    /// `Retry-After`.
    async fn send(
        &self,
        method: reqwest::Method,
        url: &Url,
    ) -> std::result::Result<(u16, Option<Duration>), Failure> {
        let request = self.request(method, url).send();
        let resp = self.gated(url, request).await?;
        Ok((resp.status().as_u16(), retry_after(resp.headers())))
    }

    /// One `GET` (again once after a short `Retry-After` on 429), reading as
    /// much of the body as the facts need.
    async fn fetch_facts(&self, url: &Url, kind: ResourceKind) -> ResourceFacts {
        let mut waited = false;
        loop {
            let result = self
                .gated(url, self.request(reqwest::Method::GET, url).send())
                .await;
            let mut resp = match result {
                Ok(r) => r,
                Err(f) => {
                    return ResourceFacts {
                        final_url: url.to_string(),
                        error: Some(f.reason),
                        ..ResourceFacts::default()
                    }
                }
            };
            let status = resp.status().as_u16();
            if status == 429 && !waited {
                if let Some(w) = retry_after(resp.headers()).filter(|w| *w <= MAX_RATE_LIMIT_WAIT) {
                    tracing::info!(url = %url, wait_ms = w.as_millis() as u64, "resource rate limited; waiting");
                    self.hosts.pause(url, w);
                    waited = true;
                    continue;
                }
            }
            let mut facts = facts_from_headers(resp.url().as_str(), status, resp.headers());
            let content_length = header_u64(resp.headers(), "content-length");
            let ok = (200..300).contains(&status);
            let plain = facts.content_encoding.is_none();
            let keep_text = ok && plain && facts.is_text();
            let want_image = ok
                && plain
                && (kind == ResourceKind::Image
                    || facts
                        .content_type
                        .as_deref()
                        .is_some_and(|t| t.starts_with("image/")))
                && facts.content_type.as_deref() != Some("image/svg+xml");
            let count = ok && content_length.is_none();
            let mut kept: Vec<u8> = Vec::new();
            let mut read: u64 = 0;
            let mut capped = false;
            let mut body_error = None;
            loop {
                let need_image = want_image && kept.len() < IMAGE_HEAD_BYTES;
                if !(keep_text || need_image || count) {
                    break;
                }
                match resp.chunk().await {
                    Ok(Some(chunk)) => {
                        read += chunk.len() as u64;
                        if keep_text {
                            kept.extend_from_slice(&chunk);
                        } else if need_image {
                            let room = IMAGE_HEAD_BYTES - kept.len();
                            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                        }
                        if read >= self.max_body {
                            capped = true;
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        body_error = Some(error_chain(&e));
                        break;
                    }
                }
            }
            facts.transfer_bytes = content_length.or(ok.then_some(read));
            facts.transfer_capped = content_length.is_none() && capped;
            if keep_text && !capped && body_error.is_none() {
                facts.gzip_bytes = gzip_size(&kept);
            }
            if want_image {
                facts.image = image_dims(&kept);
            }
            if let Some(e) = body_error {
                tracing::debug!(url = %url, error = %e, "resource body cut short");
            }
            return facts;
        }
    }
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// Every value of a header joined with `, ` (how HTTP combines repeated fields).
fn header_joined(headers: &HeaderMap, name: &str) -> Option<String> {
    let values: Vec<String> = headers
        .get_all(name)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// The facts a response's status and headers give (sizes and dimensions are
/// filled in by whoever reads the body). `date` falls back to now, the moment of
/// the fetch, so `Expires` can always be measured.
fn facts_from_headers(final_url: &str, status: u16, headers: &HeaderMap) -> ResourceFacts {
    let get = |name: &str| header_joined(headers, name);
    ResourceFacts {
        final_url: final_url.to_string(),
        status,
        error: None,
        content_type: get("content-type").map(|ct| {
            ct.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        }),
        transfer_bytes: None,
        transfer_capped: false,
        content_encoding: get("content-encoding")
            .map(|e| e.to_ascii_lowercase())
            .filter(|e| e != "identity"),
        gzip_bytes: None,
        cache_control: get("cache-control"),
        expires: get("expires"),
        pragma: get("pragma"),
        date: get("date").or_else(|| Some(httpdate::fmt_http_date(std::time::SystemTime::now()))),
        etag: get("etag"),
        last_modified: get("last-modified"),
        image: None,
    }
}

/// The facts of a resource the crawl's own fetcher got (linked stylesheets,
/// which the CSS rules need decoded): the same fields as [`LinkChecker::inspect`]
/// records.
pub fn facts_from_fetched(fetched: &Fetched) -> ResourceFacts {
    let mut headers = HeaderMap::new();
    for h in &fetched.headers {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(h.name.as_bytes()),
            HeaderValue::from_str(&h.value),
        ) {
            headers.append(name, value);
        }
    }
    let mut facts = facts_from_headers(fetched.final_url.as_str(), fetched.status, &headers);
    if let Some(e) = &fetched.error {
        facts.error = Some(e.to_string());
        return facts;
    }
    let ok = (200..300).contains(&fetched.status);
    facts.transfer_bytes = fetched.content_length.or(ok.then_some(fetched.wire_bytes));
    facts.transfer_capped = fetched.content_length.is_none() && fetched.truncated;
    if ok && facts.content_encoding.is_none() && facts.is_text() && !fetched.truncated {
        facts.gzip_bytes = gzip_size(&fetched.body);
    }
    facts
}

/// Size of `bytes` once gzip-compressed at the default level.
fn gzip_size(bytes: &[u8]) -> Option<u64> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).ok()?;
    enc.finish().ok().map(|v| v.len() as u64)
}

/// Intrinsic dimensions from an image's first bytes (the `imagesize` crate
/// reads the headers of PNG, JPEG, GIF, WebP, AVIF, BMP, ICO and more).
fn image_dims(head: &[u8]) -> Option<ImageDims> {
    let size = imagesize::blob_size(head).ok()?;
    Some(ImageDims {
        width: u32::try_from(size.width).ok()?,
        height: u32::try_from(size.height).ok()?,
    })
}

/// The key of a URL's host for [`HostGate`]s: `host:port`.
fn gate_key(url: &Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or("").to_ascii_lowercase(),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// What a request error says: a message for people, and whether it answers
/// for the whole host (its name did not resolve, or no connection was made).
fn classify(url: &Url, e: &reqwest::Error) -> Failure {
    let chain = error_chain(e);
    let host = url.host_str().unwrap_or("");
    let private = chain.contains("private") || chain.contains("forbidden address");
    // hyper's connector names a failed lookup `dns error`; our resolver's
    // replayed errors keep that chain.
    let dns = !private && chain.contains("dns error");
    let (reason, kind) = if private {
        (format!("private address refused ({chain})"), None)
    } else if dns {
        let cause = innermost(e);
        (
            format!("DNS lookup of {host} failed ({cause})"),
            Some(HostFailure::Dns),
        )
    } else if e.is_connect() {
        let cause = if e.is_timeout() {
            "connect timed out".to_string()
        } else {
            innermost(e)
        };
        (
            format!(
                "connection to {host}:{} failed ({cause})",
                url.port_or_known_default().unwrap_or(0)
            ),
            Some(HostFailure::Connect),
        )
    } else if e.is_timeout() {
        ("timed out".to_string(), None)
    } else if e.is_redirect() {
        (format!("redirect problem ({chain})"), None)
    } else {
        (chain, None)
    };
    Failure {
        reason,
        host: kind,
        timeout: e.is_timeout(),
    }
}

/// The error with its chain of sources, `: `-joined.
fn error_chain(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

/// The last source of the chain: the system's own words (`Connection
/// refused (os error 111)`, `failed to lookup address information: ...`).
fn innermost(e: &reqwest::Error) -> String {
    let mut last: &dyn std::error::Error = e;
    while let Some(inner) = last.source() {
        last = inner;
    }
    last.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::http::{Method, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::any;
    use axum::Router;

    /// A loopback server: /ok 200, /gone 404, /no-head (405 to HEAD, 200 to GET),
    /// /busy (429 with Retry-After: 0, then 429 again), /moved → /ok; counts hits.
    async fn server() -> (String, Arc<AtomicUsize>) {
        let (base, hits, _) = logged_server().await;
        (base, hits)
    }

    /// Requests a test server received, as `METHOD /path` lines.
    type Log = Arc<Mutex<Vec<String>>>;

    /// [`server`], also logging each request's method and path.
    async fn logged_server() -> (String, Arc<AtomicUsize>, Log) {
        let hits = Arc::new(AtomicUsize::new(0));
        let log: Log = Arc::default();
        let h = Arc::clone(&hits);
        let l = Arc::clone(&log);
        let app =
            Router::new().route(
                "/{*path}",
                any(move |method: Method, uri: axum::http::Uri| {
                    let h = Arc::clone(&h);
                    let l = Arc::clone(&l);
                    async move {
                        h.fetch_add(1, Ordering::SeqCst);
                        lock(&l).push(format!("{method} {}", uri.path()));
                        match uri.path() {
                            "/ok" => StatusCode::OK.into_response(),
                            "/no-head" if method == Method::HEAD => {
                                StatusCode::METHOD_NOT_ALLOWED.into_response()
                            }
                            "/no-head" => StatusCode::OK.into_response(),
                            "/busy" => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")])
                                .into_response(),
                            "/moved" => (StatusCode::MOVED_PERMANENTLY, [("location", "/ok")])
                                .into_response(),
                            "/forbidden" => StatusCode::FORBIDDEN.into_response(),
                            "/app.js" => (
                                [
                                    ("content-type", "text/javascript"),
                                    ("cache-control", "public, max-age=600"),
                                    ("etag", "\"v1\""),
                                ],
                                "var answer = 42;\n".repeat(2000),
                            )
                                .into_response(),
                            "/app.min.js" => (
                                [
                                    ("content-type", "application/javascript"),
                                    ("content-encoding", "gzip"),
                                ],
                                vec![0u8; 700],
                            )
                                .into_response(),
                            "/photo.png" => (
                                [("content-type", "image/png")],
                                png_header(2000, 1500, 50_000),
                            )
                                .into_response(),
                            _ => StatusCode::NOT_FOUND.into_response(),
                        }
                    }
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}"), hits, log)
    }

    /// A TCP port that accepts connections and closes them at once (so a TLS
    /// handshake to it fails, a connect-level failure), counting them.
    async fn closing_port() -> (u16, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let a = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                a.fetch_add(1, Ordering::SeqCst);
                drop(conn);
            }
        });
        (port, accepted)
    }

    /// A PNG signature and IHDR chunk declaring `w`×`h`, padded to `len` bytes.
    fn png_header(w: u32, h: u32, len: usize) -> Vec<u8> {
        let mut v = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
        v.extend_from_slice(b"IHDR");
        v.extend_from_slice(&w.to_be_bytes());
        v.extend_from_slice(&h.to_be_bytes());
        v.extend_from_slice(&[8, 6, 0, 0, 0]);
        v.resize(len, 0);
        v
    }

    fn checker(allow_private: bool) -> LinkChecker {
        let config = ScanConfig {
            allow_private,
            rate_per_host: 1000.0,
            ..ScanConfig::default()
        };
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        LinkChecker::new(&config, hosts).unwrap()
    }

    #[tokio::test]
    async fn statuses_head_fallback_rate_limits_and_cache() {
        let (base, hits) = server().await;
        let c = checker(true);
        let u = |p: &str| Url::parse(&format!("{base}{p}")).unwrap();
        assert_eq!(c.check(&u("/ok")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(hits.load(Ordering::SeqCst), 1, "one HEAD");
        assert_eq!(c.check(&u("/ok")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(hits.load(Ordering::SeqCst), 1, "cached");
        assert_eq!(
            c.check(&u("/gone")).await,
            LinkStatus::Broken { status: 404 }
        );
        assert_eq!(hits.load(Ordering::SeqCst), 2, "a 404 to HEAD is believed");
        assert_eq!(
            c.check(&u("/no-head")).await,
            LinkStatus::Ok { status: 200 }
        );
        assert_eq!(hits.load(Ordering::SeqCst), 4, "405 to HEAD: GET");
        assert_eq!(c.check(&u("/moved")).await, LinkStatus::Ok { status: 200 });
        assert_eq!(c.check(&u("/busy")).await, LinkStatus::RateLimited);
    }

    /// HEAD alone where HEAD is answered; HEAD then GET where it is refused,
    /// and GET alone for the host's later URLs once it said 405.
    #[tokio::test]
    async fn get_follows_head_only_where_head_is_refused() {
        let (base, _, log) = logged_server().await;
        let c = checker(true);
        let u = |p: &str| Url::parse(&format!("{base}{p}")).unwrap();
        for p in ["/ok", "/gone", "/forbidden"] {
            c.check(&u(p)).await;
        }
        assert_eq!(
            *lock(&log),
            vec![
                "HEAD /ok",
                "HEAD /gone",
                "HEAD /forbidden",
                "GET /forbidden"
            ]
        );
        lock(&log).clear();
        let (other, _, other_log) = logged_server().await;
        let o = |p: &str| Url::parse(&format!("{other}{p}")).unwrap();
        assert_eq!(
            c.check(&o("/no-head")).await,
            LinkStatus::Ok { status: 200 }
        );
        assert_eq!(
            c.check(&o("/no-head/again")).await,
            LinkStatus::Broken { status: 404 }
        );
        assert_eq!(
            *lock(&other_log),
            vec!["HEAD /no-head", "GET /no-head", "GET /no-head/again"]
        );
        assert!(lock(&log).is_empty(), "the first host keeps HEAD");
        c.check(&u("/moved")).await;
        assert_eq!(*lock(&log), vec!["HEAD /moved", "HEAD /ok"]);
    }

    /// A host that fails at connect (here a TLS handshake cut off) gets one
    /// request however many of its URLs are checked at once, and no waiting
    /// on the per-host pace; a host whose name does not resolve is looked up
    /// for one request. Their URLs all get that one failure.
    #[tokio::test]
    async fn a_failed_host_is_tried_once_for_all_its_urls() {
        let (port, accepted) = closing_port().await;
        let (base, hits) = server().await;
        // One request a minute per host: a second request to a dead host
        // would wait a minute before failing.
        let config = ScanConfig {
            allow_private: true,
            rate_per_host: 1.0 / 60.0,
            concurrency: 8,
            ..ScanConfig::default()
        };
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        let c = LinkChecker::new(&config, hosts).unwrap();
        c.resolver
            .fix("dead.invalid", Err("no such host (test resolver)".into()));
        // The answering server under a name of its own: the pace is per host
        // name, and 127.0.0.1 is the dead port's.
        let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
        c.resolver.fix("alive.test", Ok(vec![addr]));
        let mut urls = Vec::new();
        for i in 0..5 {
            urls.push(Url::parse(&format!("https://127.0.0.1:{port}/{i}")).unwrap());
            urls.push(Url::parse(&format!("http://dead.invalid/{i}")).unwrap());
        }
        urls.push(Url::parse(&format!("http://alive.test:{}/ok", addr.port())).unwrap());
        let progress = Mutex::new(Vec::new());
        let got = tokio::time::timeout(
            Duration::from_secs(30),
            c.check_all_with(urls, &|done, total| lock(&progress).push((done, total))),
        )
        .await
        .expect("a dead host must not cost the per-host pace");
        assert_eq!(
            accepted.load(Ordering::SeqCst),
            1,
            "one connection to the dead port"
        );
        // Each name looked up once ahead of the checks, once for the one
        // request to it.
        assert_eq!(c.resolver.lookups(), 4);
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        let reasons = |host: &str| -> Vec<String> {
            got.iter()
                .filter(|(u, _)| u.contains(host))
                .map(|(_, s)| match s {
                    LinkStatus::Unreachable { reason } => reason.clone(),
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let tls = reasons(&format!("127.0.0.1:{port}"));
        assert_eq!(tls.len(), 5);
        assert!(tls.iter().all(|r| *r == tls[0]), "{tls:?}");
        assert!(
            tls[0].starts_with(&format!("connection to 127.0.0.1:{port} failed")),
            "{}",
            tls[0]
        );
        let dns = reasons("dead.invalid");
        assert_eq!(dns.len(), 5);
        assert!(dns.iter().all(|r| *r == dns[0]), "{dns:?}");
        assert_eq!(
            dns[0],
            "DNS lookup of dead.invalid failed (no such host (test resolver))"
        );
        let progress = lock(&progress);
        assert_eq!(progress.len(), 11);
        assert_eq!(progress.last(), Some(&(11, 11)));
        // Two of three hosts failed: not most of them.
        assert_eq!(
            c.network_verdict(),
            NetworkVerdict {
                hosts_tried: 3,
                hosts_failed: 2,
                hosts_failed_dns: 1,
                unreachable: false
            }
        );
    }

    /// Every host failing the same way: the network looks unreachable.
    #[tokio::test]
    async fn most_hosts_failing_means_the_network_is_unreachable() {
        let c = checker(true);
        for name in ["a.invalid", "b.invalid", "c.invalid"] {
            c.resolver
                .fix(name, Err("Temporary failure in name resolution".into()));
        }
        let (base, _) = server().await;
        let mut urls: Vec<Url> = ["a", "b", "c"]
            .iter()
            .map(|h| Url::parse(&format!("https://{h}.invalid/page")).unwrap())
            .collect();
        urls.push(Url::parse(&format!("{base}/ok")).unwrap());
        c.check_all(urls).await;
        let v = c.network_verdict();
        assert_eq!(
            (v.hosts_tried, v.hosts_failed, v.hosts_failed_dns),
            (4, 3, 3)
        );
        assert!(!v.unreachable, "3 of 4 is under 80 %");
        c.check_all(
            ["d", "e", "f", "g"]
                .iter()
                .map(|h| {
                    c.resolver
                        .fix(&format!("{h}.invalid"), Err("Temporary failure".into()));
                    Url::parse(&format!("https://{h}.invalid/")).unwrap()
                })
                .collect(),
        )
        .await;
        let v = c.network_verdict();
        assert_eq!((v.hosts_tried, v.hosts_failed), (8, 7));
        assert!(v.unreachable);
        assert!(c
            .host_failure(&Url::parse("https://a.invalid/other").unwrap())
            .is_some());
        assert_eq!(
            c.host_failure(&Url::parse(&format!("{base}/x")).unwrap()),
            None
        );
    }

    #[tokio::test]
    async fn a_url_over_the_budget_is_counted_once_and_never_requested() {
        let (base, hits) = server().await;
        let c = checker(true).with_max_checks(1);
        let ok = Url::parse(&format!("{base}/ok")).unwrap();
        let gone = Url::parse(&format!("{base}/gone")).unwrap();
        assert_eq!(c.check(&ok).await, LinkStatus::Ok { status: 200 });
        let requests = hits.load(Ordering::SeqCst);
        // Asked as a subresource, then as a link, then again: one URL over budget.
        assert!(c.inspect(&gone, ResourceKind::Script).await.is_none());
        assert!(matches!(c.check(&gone).await, LinkStatus::Skipped { .. }));
        assert!(matches!(
            c.cached(gone.as_str()),
            Some(LinkStatus::Skipped { .. })
        ));
        assert!(c.inspect(&gone, ResourceKind::Script).await.is_none());
        let got = c.check_all(vec![gone.clone(), ok.clone()]).await;
        assert!(matches!(got[gone.as_str()], LinkStatus::Skipped { .. }));
        assert_eq!(got[ok.as_str()], LinkStatus::Ok { status: 200 });
        assert_eq!(c.over_budget(), 1);
        assert_eq!(
            hits.load(Ordering::SeqCst),
            requests,
            "nothing more was requested"
        );
        // Answers handed out, statuses forgotten: the budget still answers for it.
        c.forget_statuses();
        assert_eq!(c.cached(ok.as_str()), None);
        assert!(matches!(
            c.cached(gone.as_str()),
            Some(LinkStatus::Skipped { .. })
        ));
    }

    #[tokio::test]
    async fn private_addresses_are_skipped_and_budget_is_kept() {
        let (base, hits) = server().await;
        let c = checker(false);
        let url = Url::parse(&format!("{base}/ok")).unwrap();
        assert!(matches!(c.check(&url).await, LinkStatus::Skipped { .. }));
        assert_eq!(hits.load(Ordering::SeqCst), 0, "never contacted");

        let c = checker(true).with_max_checks(2);
        let urls: Vec<Url> = ["/ok", "/gone", "/no-head"]
            .iter()
            .map(|p| Url::parse(&format!("{base}{p}")).unwrap())
            .collect();
        let got = c.check_all(urls).await;
        assert_eq!(c.over_budget(), 1);
        assert_eq!(got.len(), 3);
        assert_eq!(got[&format!("{base}/ok")], LinkStatus::Ok { status: 200 });
        assert_eq!(
            got[&format!("{base}/gone")],
            LinkStatus::Broken { status: 404 }
        );
        assert!(matches!(
            got[&format!("{base}/no-head")],
            LinkStatus::Skipped { .. }
        ));
    }

    #[tokio::test]
    async fn the_link_scope_keeps_requests_on_the_site_and_counts_the_rest() {
        let (site, site_hits) = server().await;
        let (other, other_hits) = server().await;
        let u = |base: &str, p: &str| Url::parse(&format!("{base}{p}")).unwrap();
        let scoped = |links: LinkScope| {
            let config = ScanConfig {
                allow_private: true,
                rate_per_host: 1000.0,
                links,
                ..ScanConfig::default()
            };
            let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
            let c = LinkChecker::new(&config, hosts).unwrap();
            c.set_site(&Scope::new(&u(&site, "/"), &config).unwrap());
            c
        };

        let c = scoped(LinkScope::Internal);
        let got = c
            .check_all(vec![u(&site, "/ok"), u(&other, "/ok"), u(&other, "/gone")])
            .await;
        assert_eq!(got[&format!("{site}/ok")], LinkStatus::Ok { status: 200 });
        assert!(matches!(
            &got[&format!("{other}/ok")],
            LinkStatus::Skipped { reason } if reason.contains("links: internal")
        ));
        assert!(c
            .inspect(&u(&other, "/app.js"), ResourceKind::Script)
            .await
            .is_none());
        assert!(c
            .inspect(&u(&site, "/app.js"), ResourceKind::Script)
            .await
            .is_some());
        assert_eq!(other_hits.load(Ordering::SeqCst), 0, "never contacted");
        assert_eq!(c.unchecked(), 3);
        assert_eq!(c.over_budget(), 0, "left-out URLs take no budget");

        let before = site_hits.load(Ordering::SeqCst);
        let c = scoped(LinkScope::None);
        assert!(matches!(
            c.check(&u(&site, "/ok")).await,
            LinkStatus::Skipped { reason } if reason.contains("links: none")
        ));
        assert_eq!(site_hits.load(Ordering::SeqCst), before);
        assert_eq!(c.unchecked(), 1);

        let c = scoped(LinkScope::All);
        assert_eq!(
            c.check(&u(&other, "/ok")).await,
            LinkStatus::Ok { status: 200 }
        );
        assert_eq!(c.unchecked(), 0);
    }

    #[tokio::test]
    async fn accepted_statuses_are_configurable() {
        let (base, _) = server().await;
        let url = Url::parse(&format!("{base}/forbidden")).unwrap();
        assert_eq!(
            checker(true).check(&url).await,
            LinkStatus::Broken { status: 403 }
        );
        let lenient = checker(true).with_accept(StatusRange::parse_list("200..=299,403").unwrap());
        assert_eq!(lenient.check(&url).await, LinkStatus::Ok { status: 403 });
    }

    #[tokio::test]
    async fn resources_are_fetched_once_with_their_facts() {
        let (base, hits) = server().await;
        let c = Arc::new(checker(true));
        let u = |p: &str| Url::parse(&format!("{base}{p}")).unwrap();
        // Many pages asking at once: one request.
        let js = u("/app.js");
        let all =
            futures::future::join_all((0..5).map(|_| c.inspect(&js, ResourceKind::Script))).await;
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        let facts = all[0].clone().unwrap();
        assert!(all.iter().all(|f| f.as_deref() == Some(&*facts)));
        assert_eq!(facts.status, 200);
        assert_eq!(facts.content_type.as_deref(), Some("text/javascript"));
        assert_eq!(facts.transfer_bytes, Some(34_000));
        assert_eq!(facts.content_encoding, None);
        assert!(facts.gzip_bytes.is_some_and(|g| g < 1_000), "{facts:?}");
        assert_eq!(facts.cache_control.as_deref(), Some("public, max-age=600"));
        assert_eq!(facts.etag.as_deref(), Some("\"v1\""));
        assert!(facts.date.is_some());

        let min = c
            .inspect(&u("/app.min.js"), ResourceKind::Script)
            .await
            .unwrap();
        assert_eq!(min.content_encoding.as_deref(), Some("gzip"));
        assert_eq!(min.transfer_bytes, Some(700));
        assert_eq!(min.gzip_bytes, None);

        let png = c
            .inspect(&u("/photo.png"), ResourceKind::Image)
            .await
            .unwrap();
        assert_eq!(
            png.image,
            Some(ImageDims {
                width: 2000,
                height: 1500
            })
        );
        assert_eq!(png.transfer_bytes, Some(50_000));

        // A missing resource: one GET (no HEAD), and its status is cached for
        // broken-resources.
        let gone = u("/gone");
        let before = hits.load(Ordering::SeqCst);
        let facts = c.inspect(&gone, ResourceKind::Image).await.unwrap();
        assert_eq!(facts.status, 404);
        assert_eq!(c.check(&gone).await, LinkStatus::Broken { status: 404 });
        assert_eq!(hits.load(Ordering::SeqCst), before + 1);

        // Forgotten facts leave the statuses: no request for the link checks.
        c.forget_facts();
        assert_eq!(
            c.cached(gone.as_str()),
            Some(LinkStatus::Broken { status: 404 })
        );
        assert_eq!(c.cached(u("/never-seen").as_str()), None);
        assert_eq!(c.check(&gone).await, LinkStatus::Broken { status: 404 });
        assert_eq!(hits.load(Ordering::SeqCst), before + 1);
    }

    #[tokio::test]
    async fn unreachable_hosts_are_reported() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let c = checker(true);
        let url = Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
        assert!(matches!(
            c.check(&url).await,
            LinkStatus::Unreachable { .. }
        ));
    }
}
