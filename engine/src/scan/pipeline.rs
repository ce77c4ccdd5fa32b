//! The crawl loop of one scan.
//!
//! One coordinator (this module's [`run`]) owns the frontier, the set of URLs
//! already claimed and the counters; it starts fetch tasks on the tokio runtime up
//! to the concurrency limit and takes their results back one by one. Each fetch
//! task fetches its page politely (per-host rate limit, robots.txt, SSRF guard,
//! redirects hop by hop), fetches the page's stylesheets (cached per scan), and
//! hands the page to the rayon pool ([`super::dispatch`]). Nothing of the DOM
//! comes back: a report entry, findings, tallies, the site-rule summary and links.
//!
//! Order of a scan: robots.txt of the start host (a 5xx or a refusal of the start
//! URL stops the scan), the start page alone (its redirects may move the scan to
//! another host, e.g. `http://site` -> `https://www.site`), then the sitemaps
//! (`Sitemap:` lines and `/sitemap.xml`, indexes and gzip followed), then
//! breadth-first over links until the frontier is empty or `max_pages` is reached.
//!
//! Deterministic under a page limit: pages are fetched concurrently and finish
//! in whatever order the network allows, but the coordinator takes their
//! results in the order it started them (a reorder buffer, [`Crawl::commit`]).
//! Everything the crawl decides from a result (which links are queued, which
//! redirect targets a page may claim, the counters, the order of the summaries
//! and findings) therefore follows one fixed order: breadth-first by depth,
//! within a depth by the parent's own place and the link's position in the
//! parent document, sitemap URLs in document order after the start page's
//! links. The same site gives the same page set and the same report whatever
//! the concurrency and response times. Pages may finish ahead of the next one
//! to take by at most a window ([`REORDER_WINDOW_PER_SLOT`] per concurrency
//! slot), so one slow page holds back a bounded number of results.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::Utc;
use sitescan_rules::css::ImportWalk;
use sitescan_rules::links::{self, PageLinks};
use sitescan_rules::resources::{ResourceKind, Subresource};
use sitescan_rules::site::{
    CorsProbe, HttpProbe, PageSummary, RobotsFacts, SiteCheck, SiteInput, SitemapFile,
    SitemapSource, TlsFacts,
};
use sitescan_rules::{Finding, MissingStylesheet, Need, Page, RuleTally, Stylesheet};
use tokio::sync::{mpsc, OnceCell};
use tokio::task::JoinSet;
use tracing::Instrument;
use url::Url;

use super::dispatch::Dispatcher;
use super::intern::Interner;
use super::places::PlaceLog;
use crate::checks::links::{facts_from_fetched, LinkChecker, NetworkVerdict};
use crate::config::ScanConfig;
use crate::crawl::fetch::{decode_html, BodyPolicy, FetchError, Fetched, Fetcher, HopStop};
use crate::crawl::host_limits::HostPool;
use crate::crawl::robots::{agent_token, robots_url, Robots};
use crate::crawl::scope::{normalize, parse_start_url, OutOfScope, Scope};
use crate::crawl::sitemap;
use crate::error::{Error, Result};
use crate::report::group::Grouper;
use crate::report::spool::{FindingStore, SpooledFindings};
use crate::report::{score, CrawlStats, PageReport, Report, RuleSummary};
use crate::scan::events::{Inner, PageResult, Phase, Progress, ScanEvent};

/// Largest robots.txt read, decoded (Google reads 500 KiB and ignores the
/// rest); a longer file is read up to its last whole line within the cap.
const MAX_ROBOTS_BYTES: u64 = 500 * 1024;
/// Sitemap files fetched at most per scan (indexes included); children of an
/// index past it are counted in a note, not queued.
const MAX_SITEMAP_FILES: usize = 50;
/// Nesting of sitemap indexes followed.
const MAX_SITEMAP_DEPTH: u32 = 3;
/// Sitemap page URLs kept beyond `max_pages`: some turn out to be duplicates,
/// out of scope or disallowed. Past `max_pages` plus this (or twice
/// `max_pages`, when larger) entries are counted, not kept: the crawl could not
/// fetch them anyway.
const SITEMAP_URL_SLACK: usize = 1000;
/// Stylesheet text a scan keeps for its later pages, in all. A site's pages
/// share a few sheets, kept once; a site that gives every page sheets of their
/// own (or cache-busting URLs) would otherwise make a scan hold them all. Past
/// it a sheet serves the pages waiting for it and is then let go (a later page
/// linking it fetches it again).
const MAX_KEPT_STYLESHEET_BYTES: usize = 64 * 1024 * 1024;
/// Size cap of one stylesheet, decoded (a decompression bomb stops here). A
/// longer stylesheet is used up to the cap, as pages are; one cut short by the
/// network is not used at all.
const MAX_STYLESHEET_BYTES: u64 = 2 * 1024 * 1024;
/// Stylesheet text one page may use in all (linked and imported sheets): the
/// texts are shared with the scan's sheet cache, but a sheet let go from it
/// (see [`MAX_KEPT_STYLESHEET_BYTES`]) lives as long as its page, and the
/// cascade compiles what a page uses, so with `budget.max_stylesheets` sheets
/// of up to [`MAX_STYLESHEET_BYTES`] each it is this that bounds a page's
/// memory. Sheets past it are counted as not fetched, as sheets past the
/// count are.
const MAX_PAGE_STYLESHEET_BYTES: usize = 40 * 1024 * 1024;

/// Pages started ahead of the oldest unfinished one, per concurrency slot
/// (at least [`MIN_REORDER_WINDOW`] in all): what the reorder buffer holds at
/// most while one slow page is awaited.
const REORDER_WINDOW_PER_SLOT: usize = 4;
/// Least reorder window, whatever the concurrency.
const MIN_REORDER_WINDOW: usize = 16;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn origin_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// A stylesheet's text, or why it could not be loaded: the status the server
/// answered (if it did) and the reason (see [`MissingStylesheet::new`]).
/// The text is shared with the pages that use the sheet ([`Stylesheet::text`]):
/// none holds a copy of its own.
type StyleText = std::result::Result<Arc<str>, (Option<u16>, String)>;
type StyleCell = Arc<OnceCell<StyleText>>;

/// Counts of the stylesheets a scan fetched (see [`crate::report::CrawlStats`]).
#[derive(Default)]
struct SheetCounts {
    /// Distinct stylesheet URLs fetched (each once, unless let go: see
    /// [`MAX_KEPT_STYLESHEET_BYTES`]).
    fetched: AtomicUsize,
    /// Of those, sheets first met through an `@import`.
    imported: AtomicUsize,
    /// Of those, sheets that could not be loaded.
    failed: AtomicUsize,
}

/// State shared by the coordinator and its fetch tasks.
struct Shared {
    config: ScanConfig,
    fetcher: Fetcher,
    dispatcher: Dispatcher,
    /// Normalized URLs claimed for fetching (queued, fetched, or redirect targets).
    /// The frontier queues the same shared strings.
    seen: Mutex<HashSet<Arc<str>>>,
    /// robots.txt per origin, once loaded.
    robots: Mutex<HashMap<String, Arc<Robots>>>,
    /// robots.txt as fetched per origin, for the site rules.
    robots_facts: Mutex<HashMap<String, RobotsFacts>>,
    /// Stylesheet texts per URL (`None`: could not be fetched).
    styles: Mutex<HashMap<String, StyleCell>>,
    /// Bytes of stylesheet text `styles` holds (see [`MAX_KEPT_STYLESHEET_BYTES`]).
    styles_bytes: AtomicUsize,
    /// [`MAX_KEPT_STYLESHEET_BYTES`], lowered by tests.
    max_kept_style_bytes: usize,
    /// What the scan's stylesheet fetches came to.
    sheet_counts: SheetCounts,
    /// Link and resource checks (statuses and subresource facts, once per URL
    /// per scan); `None` when no selected rule needs the network beyond pages.
    checker: Option<Arc<LinkChecker>>,
    /// A selected rule reads subresource facts: fetch each page's subresources
    /// before its rules run (see `sitescan_rules::resources`).
    subresources: bool,
    /// Told when each page's analysis starts and ends.
    watch: Option<Arc<dyn crate::scan::events::AnalysisWatch>>,
    /// Render mode: the scan's browser context and tabs.
    render: Option<crate::browser::RenderSession>,
}

impl Shared {
    fn robots_for(&self, url: &Url) -> Option<Arc<Robots>> {
        lock(&self.robots).get(&origin_key(url)).cloned()
    }

    fn robots_allow(&self, url: &Url) -> bool {
        !self.config.respect_robots || self.robots_for(url).is_none_or(|r| r.allowed(url))
    }
}

/// Trips its token when dropped, also when the scan's future is dropped
/// midway.
struct CancelOnDrop(sitescan_rules::Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// What a fetch task hands back.
struct PageDone {
    report: PageReport,
    findings: Vec<Finding>,
    tallies: Vec<RuleTally>,
    summary: PageSummary,
    links: PageLinks,
    /// Where each of `summary.links` is (when `broken-links` runs).
    places: Vec<sitescan_rules::Occurrence>,
    error: Option<FetchError>,
    /// Why the last redirect was not followed.
    stopped: Option<HopStop>,
    non_html: bool,
    truncated: bool,
}

impl PageDone {
    /// An HTML page fetched but not analyzed (its render or its analysis
    /// failed; `report.error` says why): no findings, no links.
    fn not_analyzed(report: PageReport, truncated: bool) -> PageDone {
        PageDone {
            // Fetched without error: the summary has no fetch error either.
            summary: PageSummary {
                url: report.url.as_str().into(),
                final_url: report.final_url.as_str().into(),
                status: report.status,
                depth: report.depth,
                ..PageSummary::default()
            },
            report,
            findings: Vec::new(),
            tallies: Vec::new(),
            links: PageLinks::default(),
            places: Vec::new(),
            error: None,
            stopped: None,
            non_html: false,
            truncated,
        }
    }

    /// Whether the fetch went on to the target of redirect `i` of its chain.
    fn followed(&self, i: usize) -> bool {
        let last_refused = self.stopped.is_some()
            || matches!(
                self.error,
                Some(
                    FetchError::RedirectLoop
                        | FetchError::TooManyRedirects
                        | FetchError::BadRedirect(_)
                )
            );
        i + 1 < self.report.redirects.len() || !last_refused
    }

    /// The page as a redirect to a page claimed by another (`hop` is the
    /// index of the redirect to it in the chain): what it answered up to
    /// there, nothing analyzed. The same whether the fetch stopped at that hop
    /// or went on before the target was claimed, so the report does not depend
    /// on which happened.
    fn redirect_stub(mut self, hop: usize) -> PageDone {
        self.report.redirects.truncate(hop + 1);
        let last = &self.report.redirects[hop];
        self.report.final_url = last.location.clone();
        self.report.status = last.status;
        self.report.content_type = None;
        self.report.bytes = 0;
        self.report.error = None;
        self.report.findings = 0;
        self.report.rule_errors = Vec::new();
        self.report.incomplete = None;
        self.report.meta_robots = None;
        self.report.nofollow_links = 0;
        PageDone {
            summary: PageSummary {
                url: self.report.url.as_str().into(),
                final_url: self.report.final_url.as_str().into(),
                status: self.report.status,
                depth: self.report.depth,
                ..PageSummary::default()
            },
            report: self.report,
            findings: Vec::new(),
            tallies: Vec::new(),
            links: PageLinks::default(),
            places: Vec::new(),
            error: None,
            stopped: Some(HopStop::AlreadySeen),
            non_html: false,
            truncated: false,
        }
    }
}

/// Who hears of a running scan: page and progress events go to `events`, progress
/// alone to `progress`, when given.
#[derive(Clone, Copy, Default)]
pub(crate) struct Observer<'a> {
    /// Every page result and progress event (the library's stream).
    pub(crate) events: Option<&'a mpsc::UnboundedSender<ScanEvent>>,
    /// Progress only (the CLI's progress bar), without copies of the findings.
    pub(crate) progress: Option<&'a (dyn Fn(Progress) + Send + Sync)>,
}

/// Runs one scan, its findings going to `store`; returns the report without its
/// findings, and the findings in report order.
pub(crate) async fn run(
    inner: Arc<Inner>,
    start: &str,
    observer: Observer<'_>,
    store: FindingStore,
) -> Result<(Report, SpooledFindings)> {
    let started_at = Utc::now();
    let config = inner.config.clone();
    let start_url = parse_start_url(start)?;
    let mut scope = Scope::new(&start_url, &config)?;
    let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
    let fetcher = Fetcher::new(&config, Arc::clone(&hosts))?;
    // Render mode starts its browser before any page: a missing browser fails
    // the scan here, in one line.
    let render = match config.render {
        true => Some(
            crate::browser::RenderSession::start(
                &config,
                Arc::clone(&hosts),
                inner.selection.needs(Need::Interaction),
            )
            .await?,
        ),
        false => None,
    };
    let capacity = rayon::current_num_threads() * 2;
    let needs = |need: Need| inner.selection.needs(need);
    let subresources = needs(Need::Subresources);
    let mut early_notes = Vec::new();
    // The spelling rule needs a dictionary from the system. Pages are checked while
    // the crawl runs, so it must be in place before the first page arrives (else the
    // first scan of a process would silently skip spelling); say so when missing.
    if needs(Need::Dictionary) {
        // Blocking, but only the first scan of a process reads and parses the files
        // (tens of milliseconds); later calls find the dictionary installed.
        early_notes.extend(crate::spelling::install_spelling_dictionary().note());
    }
    let checker = if subresources || needs(Need::LinkStatus) || needs(Need::ResourceStatus) {
        match LinkChecker::new(&config, hosts) {
            Ok(c) => Some(Arc::new(c)),
            Err(e) => {
                early_notes.push(format!("links and subresources were not checked: {e}"));
                None
            }
        }
    } else {
        None
    };
    if let Some(c) = &checker {
        c.set_site(&scope);
    }
    // Tripped when this scan ends or is dropped (the service cancels a scan by
    // dropping it): pages still in analysis on the rayon pool stop then.
    let cancel = CancelOnDrop(sitescan_rules::Cancel::new());
    let shared = Arc::new(Shared {
        dispatcher: Dispatcher::new(
            capacity,
            inner.selection.page.clone(),
            config.budget,
            cancel.0.clone(),
        )
        .with_link_places(needs(Need::LinkPlaces)),
        fetcher,
        seen: Mutex::new(HashSet::new()),
        robots: Mutex::new(HashMap::new()),
        robots_facts: Mutex::new(HashMap::new()),
        styles: Mutex::new(HashMap::new()),
        styles_bytes: AtomicUsize::new(0),
        max_kept_style_bytes: MAX_KEPT_STYLESHEET_BYTES,
        sheet_counts: SheetCounts::default(),
        subresources: subresources && checker.is_some(),
        checker,
        config,
        watch: inner.watch.clone(),
        render,
    });
    let config = &shared.config;
    tracing::info!(site = %start_url, max_pages = config.max_pages, "scan started");

    let places = match store.spool_dir() {
        Some(dir) => PlaceLog::file_in(dir)?,
        None => PlaceLog::memory(),
    };
    let mut crawl = Crawl {
        shared: Arc::clone(&shared),
        places,
        started: 0,
        next_commit: 0,
        finished: BTreeMap::new(),
        frontier: VecDeque::new(),
        rejected: HashSet::new(),
        stats: CrawlStats::default(),
        pages: Vec::new(),
        store,
        grouper: Grouper::default(),
        tallies: HashMap::new(),
        summaries: Vec::new(),
        urls: Interner::default(),
        notes: early_notes,
        error_count: 0,
        cant_tell_reasons: BTreeMap::new(),
        in_flight: 0,
    };

    // robots.txt of the start host decides whether the scan can run at all.
    if config.respect_robots {
        let robots = load_robots(&shared, &start_url).await;
        match robots {
            Err(FetchError::Private(p)) => {
                return Err(Error::PrivateAddress {
                    url: start_url.to_string(),
                    addr: p.addr.to_string(),
                })
            }
            Err(e) => {
                return Err(Error::Unreachable {
                    url: start_url.to_string(),
                    reason: format!("{e}; check the URL, your network and that the site is up"),
                })
            }
            Ok(r) if r.status >= 500 => {
                return Err(Error::Unreachable {
                    url: start_url.to_string(),
                    reason: format!(
                        "its robots.txt answered HTTP {}, and RFC 9309 says to crawl nothing until it answers; try again later",
                        r.status
                    ),
                })
            }
            Ok(r) if !r.allowed(&start_url) => {
                return Err(Error::RobotsDisallowed {
                    host: start_url.host_str().unwrap_or("").to_string(),
                    url: start_url.to_string(),
                    agent: agent_token(&config.user_agent),
                })
            }
            Ok(r) => {
                lock(&shared.robots).insert(origin_key(&start_url), Arc::new(r));
            }
        }
    }

    // The start page, alone: it may fail the scan, or move it to another host.
    lock(&shared.seen).insert(start_url.as_str().into());
    let done = fetch_page(Arc::clone(&shared), start_url.clone(), 0, None).await;
    match &done.error {
        Some(FetchError::Private(p)) => {
            return Err(Error::PrivateAddress {
                url: start_url.to_string(),
                addr: p.addr.to_string(),
            })
        }
        Some(e @ (FetchError::Connect(_) | FetchError::Timeout)) => {
            return Err(Error::Unreachable {
                url: start_url.to_string(),
                reason: format!("{e}; check the URL, your network and that the site is up"),
            })
        }
        _ => {}
    }
    let cut_at_cap = done.truncated && done.error.is_none() && done.stopped.is_none();
    if let Some(problem) = super::start::start_page_problem(&done.report, cut_at_cap) {
        return Err(Error::StartPage { problem });
    }
    if let Ok(final_url) = Url::parse(&done.report.final_url) {
        if final_url.host_str() != start_url.host_str() || final_url.port() != start_url.port() {
            tracing::info!(from = %start_url, to = %final_url, "start page redirected; scanning the new host");
            scope.rebase(&final_url);
            if let Some(c) = &shared.checker {
                c.set_site(&scope);
            }
            if config.respect_robots {
                let _ = ensure_robots(&shared, &final_url).await;
            }
        }
    }
    let scope = Arc::new(scope);
    crawl.started = 1;
    crawl.commit(0, Some(done), &scope, observer)?;

    // Sitemaps: robots.txt `Sitemap:` lines plus /sitemap.xml.
    let site_root = crawl
        .pages
        .first()
        .and_then(|p| Url::parse(&p.final_url).ok())
        .unwrap_or_else(|| start_url.clone());
    // robots.txt facts for the site rules, fetched even when the crawl ignores
    // robots.txt (then only read, never obeyed).
    if needs(Need::Robots) {
        let known = lock(&shared.robots_facts).contains_key(&origin_key(&site_root));
        if !known {
            let _ = load_robots(&shared, &site_root).await;
        }
    }
    let (sitemap_urls, sitemap_files) = if config.max_pages > 1 || !inner.selection.site.is_empty()
    {
        let (urls, files, notes) = collect_sitemaps(&shared, &scope, &site_root).await;
        crawl.notes.extend(notes);
        (urls, files)
    } else {
        (Vec::new(), Vec::new())
    };
    // Once per scan: the TLS handshake of the site's https origin and one request
    // with a foreign Origin, when their rules are selected.
    let tls = if needs(Need::Tls) {
        check_tls(&shared, &start_url, &site_root).await
    } else {
        None
    };
    let cors_probe = if needs(Need::CorsProbe) && crawl.pages.first().is_some_and(|p| p.status > 0)
    {
        Some(probe_cors(&shared, &site_root).await)
    } else {
        None
    };
    // The http: twin of an HTTPS start page, unless the scan itself came from http:
    // (then the crawl's own first fetch shows the redirect).
    let http_probe = match HttpProbe::twin(&site_root) {
        Some(twin)
            if needs(Need::HttpProbe)
                && start_url.scheme() == "https"
                && crawl.pages.first().is_some_and(|p| p.status > 0) =>
        {
            Some(probe_http(&shared, &twin).await)
        }
        _ => None,
    };
    for u in &sitemap_urls {
        if let Ok(url) = Url::parse(u) {
            crawl.enqueue(&url, 1, &scope);
        }
    }
    // Site rules judge the site's own URLs only (a sitemap may list other hosts).
    let sitemap_urls: Vec<String> = sitemap_urls
        .into_iter()
        .filter(|u| Url::parse(u).is_ok_and(|url| scope.check(&url).is_ok()))
        .collect();

    // Breadth-first over the frontier, results taken in the order started.
    let mut in_flight: JoinSet<(u64, PageDone)> = JoinSet::new();
    let mut ranks: HashMap<tokio::task::Id, u64> = HashMap::new();
    let mut dispatched: usize = 1;
    let window =
        (config.concurrency.saturating_mul(REORDER_WINDOW_PER_SLOT)).max(MIN_REORDER_WINDOW) as u64;
    loop {
        while in_flight.len() < config.concurrency
            && dispatched < config.max_pages
            && crawl.started - crawl.next_commit < window
        {
            let Some((queued, depth)) = crawl.frontier.pop_front() else {
                break;
            };
            // Queued as the serialization of a parsed URL: parses again.
            let Ok(url) = Url::parse(&queued) else {
                continue;
            };
            if config.respect_robots {
                let robots = ensure_robots(&shared, &url).await;
                if !robots.allowed(&url) {
                    tracing::debug!(url = %url, "disallowed by robots.txt");
                    crawl.stats.skipped.robots += 1;
                    continue;
                }
            }
            dispatched += 1;
            let rank = crawl.started;
            crawl.started += 1;
            let span = tracing::info_span!("page", url = %url, depth);
            let fetch = fetch_page(Arc::clone(&shared), url, depth, Some(Arc::clone(&scope)));
            let task = in_flight.spawn(async move { (rank, fetch.await) }.instrument(span));
            ranks.insert(task.id(), rank);
        }
        crawl.in_flight = in_flight.len();
        let Some(joined) = in_flight.join_next_with_id().await else {
            break;
        };
        crawl.in_flight = in_flight.len();
        match joined {
            Ok((id, (rank, done))) => {
                ranks.remove(&id);
                crawl.commit(rank, Some(done), &scope, observer)?;
            }
            Err(e) => {
                crawl.notes.push(format!("a fetch task failed: {e}"));
                crawl.error_count += 1;
                if let Some(rank) = ranks.remove(&e.id()) {
                    crawl.commit(rank, None, &scope, observer)?;
                }
            }
        }
    }

    // The summaries hold the shared URLs now; the lookup table is not needed.
    drop(std::mem::take(&mut crawl.urls));
    // Every page is in: the merged host and resource findings join the others
    // (the store places them with the page of their first occurrence).
    let merged = std::mem::take(&mut crawl.grouper).finish();
    crawl.store.push(merged)?;
    let left = crawl.frontier.len() as u64;
    if left > 0 {
        crawl.stats.truncated = true;
        crawl.stats.urls_left = left;
        crawl.stats.skipped.limit = left;
        crawl.notes.push(format!(
            "stopped at max_pages = {}; {left} more URLs were found but not fetched",
            config.max_pages
        ));
    }
    // What only the crawl needed goes before the link checks and site rules
    // allocate theirs: the emptied frontier's buffer (it held the widest level of
    // the breadth-first crawl) and the subresource facts.
    // So do the crawl's sets of claimed and rejected URLs and the stylesheet
    // texts: a string per URL the site links to.
    crawl.frontier = VecDeque::new();
    crawl.rejected = HashSet::new();
    *lock(&shared.seen) = HashSet::new();
    *lock(&shared.styles) = HashMap::new();
    if let Some(checker) = shared.checker.as_deref() {
        checker.forget_facts();
    }

    let incomplete = crawl
        .pages
        .iter()
        .filter(|p| p.incomplete.is_some())
        .count();
    if incomplete > 0 {
        crawl.notes.push(format!(
            "{incomplete} page(s) went over the page budget or could not load all their stylesheets, and were analyzed in part: see their analysis-incomplete findings"
        ));
    }
    let counts = &shared.sheet_counts;
    crawl.stats.stylesheets = counts.fetched.load(Ordering::Relaxed) as u64;
    crawl.stats.stylesheets_imported = counts.imported.load(Ordering::Relaxed) as u64;
    crawl.stats.stylesheets_failed = counts.failed.load(Ordering::Relaxed) as u64;
    crawl
        .notes
        .extend(cant_tell_notes(&crawl.cant_tell_reasons, &crawl.tallies));

    // Readability judges English text only; say which pages it skipped.
    if inner.selection.ids().contains(&"readability") {
        if let Some(note) = sitescan_rules::quality::readability::skipped_note(&crawl.summaries) {
            crawl.notes.push(note);
        }
    }

    // Link and resource checks, only when their rules are selected.
    let base_progress = Progress {
        pages_done: crawl.pages.len() as u64,
        pages_queued: 0,
        errors: crawl.error_count,
        ..Progress::default()
    };
    let (link_status, network) = check_links(
        &shared,
        &scope,
        &inner.selection,
        &crawl.summaries,
        &LinkProgress::new(observer, base_progress),
    )
    .await;
    if let Some(network) = network {
        crawl.stats.skipped.network = network.not_checked as u64;
        crawl.stats.network_unreachable = true;
        crawl.notes.push(network.note());
    }
    if let Some(note) = shared.checker.as_deref().and_then(budget_note) {
        crawl.notes.push(note);
    }
    if let Some(checker) = shared.checker.as_deref() {
        crawl.stats.skipped.links = checker.unchecked() as u64;
        if let Some(note) = unchecked_note(checker.unchecked(), config.links) {
            crawl.notes.push(note);
        }
        // `link_status` holds every answer the site rules read.
        checker.forget_statuses();
    }

    // Where the links to failing targets are, for broken-links' findings.
    let link_places = {
        use sitescan_rules::site::LinkStatus;
        let failing: HashSet<&str> = link_status
            .iter()
            .filter(|(_, s)| {
                matches!(
                    s,
                    LinkStatus::Broken { .. }
                        | LinkStatus::Unreachable { .. }
                        | LinkStatus::RateLimited
                )
            })
            .map(|(u, _)| u.as_str())
            .collect();
        std::mem::replace(&mut crawl.places, PlaceLog::memory())
            .places_of(&crawl.summaries, &failing)?
    };

    // Site rules over the summaries.
    emit_progress(
        observer,
        Progress {
            phase: Phase::Finish,
            ..base_progress
        },
    );
    let robots = lock(&shared.robots_facts).remove(&origin_key(&site_root));
    let site_input = SiteInput {
        start_url: start_url.to_string(),
        pages: std::mem::take(&mut crawl.summaries),
        sitemap_urls,
        link_status,
        link_places,
        robots,
        sitemaps: sitemap_files,
        tls,
        cors_probe,
        http_probe,
    };
    for rule in &inner.selection.site {
        let mut check = SiteCheck::new(rule.meta());
        match catch_unwind(AssertUnwindSafe(|| {
            rule.check_site(&site_input, &mut check)
        })) {
            Ok(()) => {
                let per_page = check.counts_pages();
                let (tally, findings) = check.finish();
                let (applicable, failed) = if per_page {
                    // The rule judged pages itself (a page with a checked link
                    // passes or fails): its tally is its applicability.
                    (
                        u64::from(tally.passed + tally.failed + tally.cant_tell),
                        u64::from(tally.failed),
                    )
                } else {
                    site_rule_pages(rule.meta(), &tally, &findings, site_input.pages.len())
                };
                let entry = crawl.rule_entry(&tally.rule_id);
                entry.passed += u64::from(tally.passed);
                entry.failed += u64::from(tally.failed);
                entry.cant_tell += u64::from(tally.cant_tell);
                entry.pages_applicable += applicable;
                entry.pages_failed += failed;
                crawl.store.push(findings)?;
            }
            Err(_) => crawl.notes.push(format!(
                "site rule {} crashed and was skipped",
                rule.meta().id
            )),
        }
    }

    let rules: Vec<RuleSummary> = inner
        .selection
        .ids()
        .into_iter()
        .map(|id| {
            let mut s = crawl.tallies.remove(id).unwrap_or_default();
            s.rule_id = id.to_string();
            s.category = sitescan_rules::registry::meta(id).map(|m| m.category);
            s
        })
        .collect();
    // Pages finish in whatever order the network allows; the report lists them
    // by depth then URL, and findings by page (each page's own order kept), so
    // two scans of an unchanged site give the same report.
    crawl
        .pages
        .sort_by(|a, b| (a.depth, &a.url).cmp(&(b.depth, &b.url)));
    let position: HashMap<&str, usize> = crawl
        .pages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(p.url.as_str(), i), (p.final_url.as_str(), i)])
        .rev()
        .collect();
    let mut summary = score::summarize_counts(&rules, crawl.store.counts());
    let finding_count = crawl.store.len();
    let findings = crawl
        .store
        .finish(|url| position.get(url).copied().unwrap_or(usize::MAX))?;
    drop(position);
    // The Observatory-scale security grade of the site, when security rules ran.
    if let Some(security) = summary
        .get_mut(&sitescan_rules::Category::Security)
        .filter(|s| s.score.is_some())
    {
        if let Some((score, grade)) = sitescan_rules::security::grade::site_grade_of(&site_input) {
            security.grade = Some(grade.to_string());
            security.grade_score = Some(score);
        }
    }
    tracing::info!(
        pages = crawl.pages.len(),
        findings = finding_count,
        truncated = crawl.stats.truncated,
        "scan finished"
    );
    let report = Report {
        schema_version: crate::report::SCHEMA_VERSION,
        scan_id: None,
        site: start_url.to_string(),
        started_at,
        finished_at: Utc::now(),
        config: shared.config.clone(),
        stats: crawl.stats,
        summary,
        pages: crawl.pages,
        findings: Vec::new(),
        rules,
        notes: crawl.notes,
        fixed: None,
        baseline: None,
    };
    Ok((report, findings))
}

/// How many pages a site rule applied to and failed on, for the scores (which
/// count pages, as they do for page rules, never links or other items): a
/// rule that checked anything applied to every analyzed page of the site; it
/// failed on every page when its failure is a fact of the whole site (scope
/// `host`: a TLS certificate, robots.txt), else on the distinct pages its
/// failed findings name (their occurrences included; a capped list counts its
/// unlisted places as pages of their own).
fn site_rule_pages(
    meta: &sitescan_rules::RuleMeta,
    tally: &RuleTally,
    findings: &[Finding],
    pages: usize,
) -> (u64, u64) {
    if tally.passed == 0 && tally.failed == 0 {
        return (0, 0);
    }
    let pages = pages.max(1) as u64;
    if tally.failed == 0 {
        return (pages, 0);
    }
    if meta.scope == sitescan_rules::Scope::Host {
        return (pages, pages);
    }
    let mut failed: HashSet<&str> = HashSet::new();
    let mut unlisted: u64 = 0;
    for f in findings
        .iter()
        .filter(|f| f.outcome == sitescan_rules::Outcome::Failed)
    {
        failed.insert(f.page_url.as_str());
        failed.extend(f.occurrences.iter().map(|o| o.page_url.as_str()));
        unlisted += f
            .occurrences_total
            .unwrap_or(0)
            .saturating_sub(f.occurrences.len() as u64);
    }
    (pages, (failed.len() as u64 + unlisted).clamp(1, pages))
}

/// Network statuses of the links and resources of the crawled pages, for the
/// `broken-links` / `broken-resources` rules (empty when neither is selected).
/// Crawled pages keep the status the crawl saw. Other URLs on the scanned site are
/// never requested (the crawl's page limit, depth, robots.txt and nofollow decided
/// not to fetch them) and are left out, as is every other URL not checked
/// (budget, link scope, robots.txt); URLs on other sites are checked by
/// [`LinkChecker`] under the crawl's host pool. Subresources the page phase
/// already fetched (see [`page_of`]) keep that fetch's status: nothing is
/// requested twice.
///
/// When the checks find the network unreachable (most hosts failed at DNS or
/// connect, see [`LinkChecker::network_verdict`]), the URLs of the failed hosts
/// are left out too, as not checked, and counted in the returned
/// [`NetworkDown`].
async fn check_links(
    shared: &Arc<Shared>,
    scope: &Scope,
    selection: &sitescan_rules::registry::Selection,
    summaries: &[PageSummary],
    progress: &LinkProgress<'_>,
) -> (
    std::collections::BTreeMap<String, sitescan_rules::site::LinkStatus>,
    Option<NetworkDown>,
) {
    use sitescan_rules::site::LinkStatus;
    let (links, resources) = (
        selection.needs(Need::LinkStatus),
        selection.needs(Need::ResourceStatus),
    );
    if !links && !resources {
        return Default::default();
    }
    let Some(checker) = shared.checker.as_deref() else {
        return Default::default();
    };
    // What the crawl knows already: the status of every page it fetched, under
    // the URL it requested and the one it ended at. Borrowed from the summaries
    // (copied into the checker's cache, these strings were a good part of a large
    // scan's memory at its peak, which is this step and the site rules).
    let mut crawled: HashMap<&str, LinkStatus> = HashMap::new();
    for p in summaries.iter().filter(|p| p.status > 0) {
        let status = match checker.status_of(p.status) {
            // A crawled page's own 429 was retried by the crawl already.
            LinkStatus::RateLimited => LinkStatus::Broken { status: 429 },
            s => s,
        };
        crawled.entry(&p.url).or_insert_with(|| status.clone());
        crawled.entry(&p.final_url).or_insert(status);
    }
    let mut seen = HashSet::new();
    // Only URLs without a known status are kept as `Url`s for the network
    // checks; the others (most: the crawled pages themselves) go straight to
    // the answer. Holding a parsed `Url` for every link of the site was most of
    // this step's memory.
    let mut urls = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    for p in summaries {
        let lists: [(bool, &[Arc<str>]); 2] = [
            (false, if links { &p.links } else { &[] }),
            (true, if resources { &p.resources } else { &[] }),
        ];
        for (is_resource, list) in lists {
            for u in list {
                if !seen.insert(Arc::clone(u)) {
                    continue;
                }
                let Ok(url) = Url::parse(u) else {
                    continue;
                };
                // Politeness holds for link checks too: a URL robots.txt
                // disallows is not requested, not even with HEAD.
                if !shared.robots_allow(&url) {
                    continue;
                }
                let known = crawled
                    .get(url.as_str())
                    .cloned()
                    .or_else(|| checker.cached(url.as_str()));
                match known {
                    // Not checked (budget, link scope, private address): left
                    // out, as the rules pass over such URLs.
                    Some(LinkStatus::Skipped { .. }) => {}
                    Some(status) => {
                        statuses.insert(url.to_string(), status);
                    }
                    // Pages of the site are the crawl's business: what it did
                    // not fetch (limits, nofollow) is not fetched here either.
                    // Resources (images, scripts) are checked.
                    None if !is_resource && scope.host_in_scope(&url) => {}
                    None => urls.push(url),
                }
            }
        }
    }
    drop(seen);
    progress.update(0, urls.len());
    statuses.extend(
        checker
            .check_all_with(urls, &|done, total| progress.update(done, total))
            .await
            .into_iter()
            .filter(|(_, status)| !matches!(status, LinkStatus::Skipped { .. })),
    );
    progress.finish();
    let verdict = checker.network_verdict();
    if !verdict.unreachable {
        return (statuses, None);
    }
    // Not the links' fault: their hosts could not be reached from here. Not
    // checked, and counted, rather than reported broken.
    let before = statuses.len();
    statuses.retain(|url, status| {
        !(matches!(status, LinkStatus::Unreachable { .. })
            && Url::parse(url).is_ok_and(|u| checker.host_failure(&u).is_some()))
    });
    let not_checked = before - statuses.len();
    tracing::warn!(
        hosts_failed = verdict.hosts_failed,
        hosts_tried = verdict.hosts_tried,
        not_checked,
        "the network looks unreachable; links on the failed hosts are not judged"
    );
    (
        statuses,
        Some(NetworkDown {
            verdict,
            not_checked,
        }),
    )
}

/// The link checks found the network unreachable.
#[derive(Debug, Clone, Copy)]
struct NetworkDown {
    verdict: NetworkVerdict,
    /// Link and resource URLs on the failed hosts, left unchecked.
    not_checked: usize,
}

impl NetworkDown {
    /// The report's note.
    fn note(&self) -> String {
        let v = &self.verdict;
        let how = if v.hosts_failed_dns == v.hosts_failed {
            "could not be resolved (DNS)"
        } else if v.hosts_failed_dns == 0 {
            "could not be connected to"
        } else {
            "could not be resolved or connected to"
        };
        format!(
            "the network looks unreachable: {} of the {} hosts the link checks contacted {how}; \
             {} link/resource URLs on them were not checked (not reported as broken). \
             Scan from a machine that can reach them, or use --links internal",
            v.hosts_failed, v.hosts_tried, self.not_checked
        )
    }
}

/// Hands the link phase's progress to the scan's observer, at most every
/// [`LINK_PROGRESS_EVERY`] (and always at the start and the end), so thousands
/// of URLs checked do not flood a progress bar or an event stream.
struct LinkProgress<'a> {
    observer: Observer<'a>,
    base: Progress,
    last: Mutex<Option<std::time::Instant>>,
}

/// Least time between two progress events of the link phase.
const LINK_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

impl<'a> LinkProgress<'a> {
    fn new(observer: Observer<'a>, base: Progress) -> Self {
        LinkProgress {
            observer,
            base,
            last: Mutex::new(None),
        }
    }

    fn update(&self, done: usize, total: usize) {
        let now = std::time::Instant::now();
        {
            let mut last = lock(&self.last);
            let due = done == total || last.is_none_or(|t| now - t >= LINK_PROGRESS_EVERY);
            if !due {
                return;
            }
            *last = Some(now);
        }
        emit_progress(
            self.observer,
            Progress {
                phase: Phase::Links,
                links_checked: done as u64,
                links_total: total as u64,
                ..self.base
            },
        );
    }

    /// The end of the phase (nothing to check at all included).
    fn finish(&self) {
        if lock(&self.last).is_none() {
            self.update(0, 0);
        }
    }
}

/// Sends a progress event to whoever listens.
fn emit_progress(observer: Observer<'_>, progress: Progress) {
    if let Some(tx) = observer.events {
        let _ = tx.send(ScanEvent::Progress(progress));
    }
    if let Some(report) = observer.progress {
        report(progress);
    }
}

/// The note for a report whose link/resource checks hit the per-scan budget.
fn budget_note(checker: &LinkChecker) -> Option<String> {
    let over = checker.over_budget();
    (over > 0).then(|| {
        format!(
            "{over} link/resource URLs were not checked: the scan checks at most {} (links and subresources together)",
            checker.max_checks()
        )
    })
}

/// The note for a report whose `links` setting left link/resource URLs unchecked.
fn unchecked_note(unchecked: usize, links: crate::config::LinkScope) -> Option<String> {
    let which = match links {
        crate::config::LinkScope::Internal => "on other sites ",
        _ => "",
    };
    (unchecked > 0)
        .then(|| format!("{unchecked} link/resource URLs {which}were not checked (links: {links})"))
}

/// The coordinator's bookkeeping.
struct Crawl {
    shared: Arc<Shared>,
    /// Where each page's links are, until the link checks are done.
    places: PlaceLog,
    /// Pages started so far (the next page's rank).
    started: u64,
    /// Rank of the next page to take.
    next_commit: u64,
    /// Pages finished ahead of `next_commit` (`None`: its task failed).
    finished: BTreeMap<u64, Option<PageDone>>,
    /// Fetch tasks running (for progress).
    in_flight: usize,
    /// URLs to fetch with their depth, breadth-first. Kept as the strings the
    /// `seen` set holds rather than parsed `Url`s (about 90 bytes more each):
    /// on a large site the widest level of the crawl is thousands of URLs.
    frontier: VecDeque<(Arc<str>, u32)>,
    /// URLs counted as out of scope or too deep (each counted once).
    rejected: HashSet<String>,
    stats: CrawlStats,
    pages: Vec<PageReport>,
    /// Findings, out of memory when the scan spools them.
    store: FindingStore,
    /// Host and resource findings, merged into one finding per problem until
    /// the crawl ends (see [`crate::report::group`]).
    grouper: Grouper,
    tallies: HashMap<String, RuleSummary>,
    summaries: Vec<PageSummary>,
    /// The summaries' shared strings (link, resource, page and canonical URLs,
    /// languages), one copy each (see [`Interner`]).
    urls: Interner,
    notes: Vec<String>,
    error_count: u64,
    /// Cant-tell findings that name their reason (`data.reason`), by rule
    /// then reason: the report's note on how much was left undecided.
    cant_tell_reasons: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Crawl {
    fn rule_entry(&mut self, id: &str) -> &mut RuleSummary {
        self.tallies.entry(id.to_string()).or_default()
    }

    /// Whether this normalized URL string was claimed or rejected already.
    fn known(&self, key: &str) -> bool {
        self.rejected.contains(key) || lock(&self.shared.seen).contains(key)
    }

    /// Queues a URL found at `depth` unless claimed, out of scope or too deep.
    fn enqueue(&mut self, url: &Url, depth: u32, scope: &Scope) {
        let url = normalize(url);
        let key = url.as_str();
        if self.known(key) {
            return;
        }
        if let Err(why) = scope.check(&url) {
            self.rejected.insert(key.to_string());
            match why {
                OutOfScope::Host | OutOfScope::NotIncluded | OutOfScope::Excluded => {
                    self.stats.skipped.scope += 1
                }
            }
            return;
        }
        if depth > self.shared.config.max_depth {
            self.rejected.insert(key.to_string());
            self.stats.skipped.depth += 1;
            return;
        }
        // Claim atomically: a fetch task may have claimed it as a redirect
        // target since the check above.
        let key: Arc<str> = Arc::from(key);
        if !lock(&self.shared.seen).insert(Arc::clone(&key)) {
            return;
        }
        self.frontier.push_back((key, depth));
    }

    /// Takes the page of `rank` (`None`: its task failed) once every page
    /// started before it is taken, with the pages after it that were waiting
    /// for it: pages are taken in the order they were started, whatever order
    /// they finished in (see the module doc).
    fn commit(
        &mut self,
        rank: u64,
        done: Option<PageDone>,
        scope: &Scope,
        observer: Observer<'_>,
    ) -> Result<()> {
        self.finished.insert(rank, done);
        while let Some(next) = self.finished.remove(&self.next_commit) {
            self.next_commit += 1;
            if let Some(done) = next {
                let done = self.claim_redirects(done);
                self.take(done, scope, observer)?;
            }
        }
        Ok(())
    }

    /// Claims the redirect targets a page reached, or makes it a redirect to a
    /// page claimed before it ([`PageDone::redirect_stub`]). Decided here, in
    /// the fixed order pages are taken, so the same page is claimed by the
    /// same redirect whatever finished first; a fetch task only stops early
    /// at a target claimed already, which is then claimed still.
    fn claim_redirects(&mut self, done: PageDone) -> PageDone {
        let hops = done.report.redirects.len();
        let mut seen = lock(&self.shared.seen);
        for i in 0..hops {
            let stopped_here = i + 1 == hops && done.stopped == Some(HopStop::AlreadySeen);
            if (done.followed(i) || stopped_here)
                && seen.contains(done.report.redirects[i].location.as_str())
            {
                drop(seen);
                return done.redirect_stub(i);
            }
        }
        for i in (0..hops).filter(|i| done.followed(*i)) {
            seen.insert(done.report.redirects[i].location.as_str().into());
        }
        drop(seen);
        done
    }

    /// Records a finished page and queues its links; fails only when its
    /// findings cannot be stored.
    fn take(&mut self, done: PageDone, scope: &Scope, observer: Observer<'_>) -> Result<()> {
        self.stats.pages_fetched += 1;
        if done.non_html {
            self.stats.skipped.content_type += 1;
        }
        if let Some(e) = &done.error {
            if matches!(e, FetchError::Private(_)) {
                self.stats.skipped.private += 1;
            }
            *self.stats.errors.entry(e.kind().to_string()).or_insert(0) += 1;
            self.error_count += 1;
        }
        if done.report.status >= 400 {
            let kind = if done.report.status >= 500 {
                "http_5xx"
            } else {
                "http_4xx"
            };
            *self.stats.errors.entry(kind.to_string()).or_insert(0) += 1;
            self.error_count += 1;
        }
        if done.truncated {
            *self.stats.errors.entry("too_large".into()).or_insert(0) += 1;
        }
        tracing::info!(
            url = %done.report.url,
            status = done.report.status,
            depth = done.report.depth,
            findings = done.report.findings,
            error = done.report.error.as_deref().unwrap_or(""),
            "page done"
        );
        for f in &done.findings {
            let reason = f
                .data
                .as_ref()
                .and_then(|d| d.get("reason"))
                .and_then(|r| r.as_str());
            if let (sitescan_rules::Outcome::CantTell, Some(reason)) = (f.outcome, reason) {
                *self
                    .cant_tell_reasons
                    .entry(f.rule_id.clone())
                    .or_default()
                    .entry(reason.to_string())
                    .or_insert(0) += 1;
            }
        }
        for t in &done.tallies {
            let entry = self.rule_entry(&t.rule_id);
            entry.passed += u64::from(t.passed);
            entry.failed += u64::from(t.failed);
            entry.cant_tell += u64::from(t.cant_tell);
            if t.passed + t.failed > 0 {
                entry.pages_applicable += 1;
            }
            if t.failed > 0 {
                entry.pages_failed += 1;
            }
        }
        let follow = !(self.shared.config.respect_robots && done.links.meta_nofollow);
        if follow {
            for link in &done.links.links {
                if link.nofollow && self.shared.config.respect_robots {
                    continue;
                }
                // Most links repeat what earlier pages linked to (navigation):
                // a link spelled as an already claimed or rejected key is
                // that URL, so it is skipped before parsing and normalizing.
                if self.known(&link.url) {
                    continue;
                }
                if let Ok(url) = Url::parse(&link.url) {
                    self.enqueue(&url, done.report.depth + 1, scope);
                }
            }
        }
        if let Some(tx) = observer.events {
            let _ = tx.send(ScanEvent::Page(PageResult {
                page: done.report.clone(),
                findings: done.findings.clone(),
            }));
        }
        let own = self
            .grouper
            .take(done.report.depth, &done.report.url, done.findings);
        self.pages.push(done.report);
        self.store.push(own)?;
        let mut summary = done.summary;
        summary.url = self.urls.intern(&summary.url);
        summary.final_url = self.urls.intern(&summary.final_url);
        for shared in [&mut summary.canonical, &mut summary.lang]
            .into_iter()
            .flatten()
        {
            *shared = self.urls.intern(shared);
        }
        self.urls.intern_all(&mut summary.links);
        self.urls.intern_all(&mut summary.resources);
        self.places.push(&summary.links, done.places)?;
        self.summaries.push(summary);
        let progress = Progress {
            pages_done: self.pages.len() as u64,
            pages_queued: (self.frontier.len() + self.in_flight + self.finished.len()) as u64,
            errors: self.error_count,
            ..Progress::default()
        };
        if let Some(tx) = observer.events {
            let _ = tx.send(ScanEvent::Progress(progress));
        }
        if let Some(report) = observer.progress {
            report(progress);
        }
        Ok(())
    }
}

/// Fetches robots.txt of the URL's origin.
async fn load_robots(shared: &Shared, url: &Url) -> std::result::Result<Robots, FetchError> {
    let Some(robots) = robots_url(url) else {
        return Ok(Robots::allow_all(0));
    };
    let fetched = shared
        .fetcher
        .get(&robots, BodyPolicy::Always, MAX_ROBOTS_BYTES, &|_: &Url| {
            None
        })
        .await;
    // Over the cap: the rest is ignored, as search engines do, and so is the
    // line the cap cut through (half a `Disallow: /private` is `/priv`).
    let body = if fetched.truncated {
        let end = fetched
            .body
            .iter()
            .rposition(|b| matches!(b, b'\n' | b'\r'))
            .map_or(0, |i| i + 1);
        &fetched.body[..end]
    } else {
        &fetched.body[..]
    };
    let origin = origin_key(url);
    lock(&shared.robots_facts)
        .entry(origin)
        .or_insert_with(|| RobotsFacts {
            url: robots.to_string(),
            status: fetched.status,
            error: fetched.error.as_ref().map(|e| e.to_string()),
            body: String::from_utf8_lossy(body).into_owned(),
        });
    let agent = agent_token(&shared.config.user_agent);
    let parsed = match fetched.error {
        // A robots.txt behind broken redirects is unavailable, which RFC 9309
        // treats like a 4xx: allow all.
        Some(
            FetchError::RedirectLoop | FetchError::TooManyRedirects | FetchError::BadRedirect(_),
        ) => Robots::allow_all(fetched.status),
        Some(e) => return Err(e),
        None => Robots::from_response(&agent, &robots, fetched.status, body),
    };
    if let Some(delay) = parsed.crawl_delay.filter(|_| shared.config.respect_robots) {
        shared.fetcher.hosts().set_crawl_delay(url, delay);
    }
    tracing::debug!(url = %robots, robots = ?parsed, "robots.txt loaded");
    Ok(parsed)
}

/// robots.txt of the URL's origin, loading it on first use (unreachable means
/// disallow all, as RFC 9309 says).
async fn ensure_robots(shared: &Arc<Shared>, url: &Url) -> Arc<Robots> {
    if let Some(r) = shared.robots_for(url) {
        return r;
    }
    let robots = Arc::new(
        load_robots(shared, url)
            .await
            .unwrap_or_else(|_| Robots::from_response("", url, 0, b"")),
    );
    lock(&shared.robots).insert(origin_key(url), Arc::clone(&robots));
    robots
}

/// What a sitemap may list ([`sitescan_rules::site::inside_sitemap_scope`]'s rule), its own URL
/// parsed once: a file of 50,000 entries is checked with one parse per entry.
struct SitemapFolder {
    origin: url::Origin,
    folder: String,
    /// `scheme://host[:port]` + folder, as the URL parser writes it: an entry
    /// spelled so (nearly all) is inside without being parsed.
    prefix: String,
}

impl SitemapFolder {
    fn of(sitemap: &Url) -> SitemapFolder {
        let path = sitemap.path();
        let folder = path.rfind('/').map_or("/", |i| &path[..=i]).to_string();
        let origin = sitemap.origin();
        SitemapFolder {
            prefix: format!("{}{folder}", origin.ascii_serialization()),
            origin,
            folder,
        }
    }

    /// Same scheme, host and port, and a path inside the sitemap's folder.
    fn contains(&self, loc: &str) -> bool {
        // The fast path only where parsing could not move the path out of
        // the folder: no dot segments (plain or escaped), backslashes or
        // whitespace after the prefix.
        if let Some(rest) = loc.strip_prefix(&self.prefix) {
            let movable = rest.starts_with('.')
                || rest.contains("/.")
                || rest.contains("%2e")
                || rest.contains("%2E")
                || rest.contains(['\\', '\t', '\n', '\r']);
            if !movable {
                return true;
            }
        }
        Url::parse(loc)
            .is_ok_and(|u| u.origin() == self.origin && u.path().starts_with(&self.folder))
    }
}

/// Most entries outside a sitemap's scope kept as examples per file.
const MAX_OUTSIDE_EXAMPLES: usize = 5;

/// Page URLs of the site's sitemaps (robots.txt `Sitemap:` lines, then
/// `/sitemap.xml` of the site root), in scope, in file order, deduplicated; what
/// was found about each file, for the sitemap rules; and notes on what was
/// counted but not kept.
///
/// Bounded whatever the site lists: at most [`MAX_SITEMAP_FILES`] files, index
/// nesting [`MAX_SITEMAP_DEPTH`] (a queue, no recursion), each file parsed as a
/// stream of entries, and at most `max_pages` plus [`SITEMAP_URL_SLACK`] page
/// URLs kept for the whole scan (the crawl cannot fetch more); entries past that
/// are counted.
async fn collect_sitemaps(
    shared: &Arc<Shared>,
    scope: &Scope,
    site_root: &Url,
) -> (Vec<String>, Vec<SitemapFile>, Vec<String>) {
    let max_pages = shared.config.max_pages;
    let keep = max_pages
        .saturating_mul(2)
        .max(max_pages.saturating_add(SITEMAP_URL_SLACK));
    let mut not_kept: u64 = 0;
    let mut children_dropped: u64 = 0;
    let mut queue: VecDeque<(Url, u32, SitemapSource, Option<String>)> = VecDeque::new();
    if let Some(robots) = shared.robots_for(site_root) {
        queue.extend(
            robots
                .sitemaps
                .iter()
                .map(|u| (u.clone(), 0, SitemapSource::Robots, None)),
        );
    } else if let Some(facts) = lock(&shared.robots_facts).get(&origin_key(site_root)) {
        // robots.txt read but not obeyed: its `Sitemap:` lines still count.
        if facts.found() {
            let agent = agent_token(&shared.config.user_agent);
            if let Ok(robots_url) = Url::parse(&facts.url) {
                let r =
                    Robots::from_response(&agent, &robots_url, facts.status, facts.body.as_bytes());
                queue.extend(
                    r.sitemaps
                        .into_iter()
                        .map(|u| (u, 0, SitemapSource::Robots, None)),
                );
            }
        }
    }
    if let Ok(conventional) = site_root.join("/sitemap.xml") {
        if !queue.iter().any(|(q, ..)| *q == conventional) {
            queue.push_back((conventional, 0, SitemapSource::Conventional, None));
        }
    }
    let mut fetched_files: HashSet<String> = HashSet::new();
    let mut files: Vec<SitemapFile> = Vec::new();
    let mut urls: Vec<String> = Vec::new();
    let mut seen_urls: HashSet<String> = HashSet::new();
    while let Some((url, depth, source, parent)) = queue.pop_front() {
        if fetched_files.len() >= MAX_SITEMAP_FILES || !fetched_files.insert(url.to_string()) {
            continue;
        }
        let mut file = SitemapFile {
            url: url.to_string(),
            source,
            parent,
            ..SitemapFile::default()
        };
        if !scope.host_in_scope(&url) {
            file.skipped = Some("on another host than the scan".into());
            files.push(file);
            continue;
        }
        if !shared.robots_allow(&url) {
            file.skipped = Some("robots.txt disallows it".into());
            files.push(file);
            continue;
        }
        let got = shared
            .fetcher
            .get(
                &url,
                BodyPolicy::Always,
                sitemap::MAX_SITEMAP_BYTES + 1,
                &|_: &Url| None,
            )
            .await;
        file.status = got.status;
        if got.final_url != url {
            file.redirected_to = Some(got.final_url.to_string());
        }
        if let Some(e) = &got.error {
            file.error = Some(e.to_string());
            files.push(file);
            continue;
        }
        if !(200..300).contains(&got.status) {
            tracing::debug!(url = %url, status = got.status, "no sitemap here");
            files.push(file);
            continue;
        }
        let location = SitemapFolder::of(&got.final_url);
        let mut children: Vec<String> = Vec::new();
        let room_for_children = if depth < MAX_SITEMAP_DEPTH {
            MAX_SITEMAP_FILES.saturating_sub(fetched_files.len() + queue.len())
        } else {
            0
        };
        let map = sitemap::parse_each(&got.body, &mut |entry| {
            let loc = match entry {
                sitemap::Entry::Page(loc) | sitemap::Entry::Child(loc) => loc,
            };
            if !location.contains(loc) {
                file.outside_count += 1;
                if file.outside.len() < MAX_OUTSIDE_EXAMPLES {
                    file.outside.push(loc.to_string());
                }
            }
            match entry {
                sitemap::Entry::Child(_) if children.len() < room_for_children => {
                    children.push(loc.to_string())
                }
                // Deeper than followed: not fetched, not counted as dropped.
                sitemap::Entry::Child(_) if depth >= MAX_SITEMAP_DEPTH => {}
                sitemap::Entry::Child(_) => children_dropped += 1,
                sitemap::Entry::Page(_) if urls.len() >= keep => not_kept += 1,
                sitemap::Entry::Page(loc) => {
                    if let Ok(parsed) = url.join(loc) {
                        let n = normalize(&parsed).to_string();
                        if !seen_urls.contains(&n) {
                            seen_urls.insert(n.clone());
                            urls.push(n);
                        }
                    }
                }
            }
        });
        file.kind = map.kind.map(str::to_string);
        file.loc_count = map.loc_count;
        file.bytes = if got.truncated {
            sitemap::MAX_SITEMAP_BYTES + 1
        } else {
            map.bytes
        };
        file.error = map.error.clone();
        if let Some(e) = &map.error {
            tracing::warn!(url = %url, error = %e, "sitemap is not valid");
        }
        for child in children {
            if let Ok(c) = url.join(&child) {
                queue.push_back((c, depth + 1, SitemapSource::Index, Some(url.to_string())));
            }
        }
        files.push(file);
    }
    let mut notes = Vec::new();
    if not_kept > 0 {
        notes.push(format!(
            "{not_kept} sitemap URLs were counted but not kept: with max_pages = {max_pages} the scan keeps the first {keep} (the crawl could not fetch more)"
        ));
    }
    if children_dropped > 0 {
        notes.push(format!(
            "{children_dropped} sitemaps listed by sitemap indexes were not fetched: the scan reads at most {MAX_SITEMAP_FILES} sitemap files"
        ));
    }
    (urls, files, notes)
}

/// The TLS handshake of the site's https origin: the start page's final URL
/// when it is https, else the start URL when it is.
async fn check_tls(shared: &Arc<Shared>, start_url: &Url, site_root: &Url) -> Option<TlsFacts> {
    let target = [site_root, start_url]
        .into_iter()
        .find(|u| u.scheme() == "https")?;
    let config = &shared.config;
    let check = match crate::checks::tls::TlsCheck::new(
        &config.ca_certs,
        config.allow_private,
        std::time::Duration::from_millis(config.connect_timeout_ms),
        std::time::Duration::from_millis(config.timeout_ms),
    ) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "TLS check skipped");
            return None;
        }
    };
    check.check(target, shared.fetcher.hosts()).await
}

/// One GET of the start page with a foreign `Origin`, for `cors-reflected-origin`.
async fn probe_cors(shared: &Arc<Shared>, page: &Url) -> CorsProbe {
    use sitescan_rules::site::cors_reflected_origin::PROBE_ORIGIN;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::ORIGIN,
        reqwest::header::HeaderValue::from_static(PROBE_ORIGIN),
    );
    let got = shared.fetcher.probe(page, headers).await;
    CorsProbe {
        url: page.to_string(),
        origin: PROBE_ORIGIN.to_string(),
        status: got.status,
        allow_origin: got
            .header("access-control-allow-origin")
            .map(str::to_string),
        allow_credentials: got
            .header("access-control-allow-credentials")
            .map(str::to_string),
        error: got.error.as_ref().map(|e| e.to_string()),
    }
}

/// One GET of the `http:` twin of the start page, redirects not followed, for
/// `redirects-http`.
async fn probe_http(shared: &Arc<Shared>, twin: &Url) -> HttpProbe {
    let got = shared
        .fetcher
        .probe(twin, reqwest::header::HeaderMap::new())
        .await;
    HttpProbe {
        url: twin.to_string(),
        status: got.status,
        location: got
            .header("location")
            .and_then(|l| twin.join(l.trim()).ok())
            .map(|u| u.to_string()),
        error: got.error.as_ref().map(|e| e.to_string()),
    }
}

/// One note per rule whose cant-tell findings name their reasons: how many
/// elements it decided and how many it could not, by reason, most first.
fn cant_tell_notes(
    reasons: &BTreeMap<String, BTreeMap<String, u64>>,
    tallies: &HashMap<String, RuleSummary>,
) -> Vec<String> {
    reasons
        .iter()
        .map(|(rule, by_reason)| {
            let undecided: u64 = by_reason.values().sum();
            let decided = tallies
                .get(rule)
                .map_or(0, |t| t.passed + t.failed);
            let mut list: Vec<(&String, &u64)> = by_reason.iter().collect();
            list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = list.iter().map(|(r, n)| format!("{n} {r}")).collect();
            format!(
                "{rule}: {decided} element(s) decided (passed or failed), {undecided} cannot tell: {}",
                list.join(", ")
            )
        })
        .collect()
}

/// Text of a stylesheet, fetched once per scan, or why it could not be
/// loaded. `imported`: the page met it through an `@import` (for the stats).
async fn stylesheet(shared: &Arc<Shared>, url: &Url, imported: bool) -> StyleText {
    let cell: StyleCell = Arc::clone(
        lock(&shared.styles)
            .entry(url.to_string())
            .or_insert_with(|| Arc::new(OnceCell::new())),
    );
    let let_go = AtomicBool::new(false);
    let text = cell
        .get_or_init(|| async {
            if !shared.robots_allow(url) {
                return Err((None, "robots.txt disallows it".to_string()));
            }
            let counts = &shared.sheet_counts;
            counts.fetched.fetch_add(1, Ordering::Relaxed);
            if imported {
                counts.imported.fetch_add(1, Ordering::Relaxed);
            }
            let got = shared
                .fetcher
                .get(url, BodyPolicy::Always, MAX_STYLESHEET_BYTES, &|_: &Url| {
                    None
                })
                .await;
            // The one fetch of this URL in the scan: its facts serve the
            // subresource rules and broken-resources too.
            if let Some(checker) = &shared.checker {
                checker.seed_facts(url, facts_from_fetched(&got)).await;
            }
            let text = match (&got.error, got.status) {
                (None, 200..=299) => Arc::<str>::from(String::from_utf8_lossy(&got.body)),
                (Some(e), _) => {
                    counts.failed.fetch_add(1, Ordering::Relaxed);
                    return Err((None, e.to_string()));
                }
                (None, status) => {
                    counts.failed.fetch_add(1, Ordering::Relaxed);
                    return Err((Some(status), format!("HTTP {status}")));
                }
            };
            let kept = shared.styles_bytes.fetch_add(text.len(), Ordering::Relaxed) + text.len();
            if kept > shared.max_kept_style_bytes {
                shared.styles_bytes.fetch_sub(text.len(), Ordering::Relaxed);
                let_go.store(true, Ordering::Relaxed);
            }
            Ok(text)
        })
        .await
        .clone();
    if let_go.load(Ordering::Relaxed) {
        lock(&shared.styles).remove(url.as_str());
    }
    text
}

/// What loading one page's stylesheets came to.
#[derive(Default)]
struct PageSheets {
    /// In cascade order: each imported sheet before the sheet importing it.
    sheets: Vec<Stylesheet>,
    missing: Vec<MissingStylesheet>,
    /// Sheets not fetched: past the page budget's `max_stylesheets` or
    /// [`MAX_PAGE_STYLESHEET_BYTES`].
    skipped: usize,
    bytes: usize,
}

impl PageSheets {
    /// What the page may still load, with at most `most` sheets in all.
    fn room(&self, most: usize) -> sitescan_rules::css::Room {
        sitescan_rules::css::Room {
            sheets: most.saturating_sub(self.sheets.len()),
            bytes: MAX_PAGE_STYLESHEET_BYTES.saturating_sub(self.bytes),
        }
    }
}

/// Loads a linked sheet and the sheets it imports (see
/// [`sitescan_rules::css::ImportWalk`]), each fetched once per scan through
/// [`stylesheet`]: the same polite, guarded fetch path and caps as linked
/// sheets. Appends them to `out` in cascade order.
async fn load_sheet(
    shared: &Arc<Shared>,
    link: links::StylesheetRef,
    most: usize,
    out: &mut PageSheets,
) {
    let text = match stylesheet(shared, &link.url, false).await {
        Ok(text) => text,
        Err((status, reason)) => {
            if sitescan_rules::css::media_may_apply(link.media.as_deref()) {
                out.missing
                    .push(MissingStylesheet::new(link.url.to_string(), status, reason));
            }
            return;
        }
    };
    let styles_before = link.styles_before;
    let walk = ImportWalk::new(link.url, link.media, text, out.room(most));
    let first = out.sheets.len();
    walk_imports(shared, walk, out).await;
    // The chain keeps its `<link>`'s place among the `<style>` elements.
    for sheet in &mut out.sheets[first..] {
        sheet.styles_before = styles_before;
    }
}

/// Follows the `@import`s of a `<style>` element as [`load_sheet`] follows a
/// linked sheet's: the imported sheets are appended to `out`, marked for the
/// cascade to place before the element (the element itself is read from
/// the document).
async fn load_style_imports(
    shared: &Arc<Shared>,
    style: links::InlineStyleRef,
    most: usize,
    out: &mut PageSheets,
) {
    // A print-only `<style>` changes nothing the rules judge.
    if !sitescan_rules::css::media_may_apply(style.media.as_deref()) {
        return;
    }
    let walk =
        ImportWalk::for_style_element(style.base, style.media, style.text.into(), out.room(most));
    walk_imports(shared, walk, out).await;
}

/// Runs an import walk, each sheet fetched once per scan through
/// [`stylesheet`], and appends what it came to to `out`.
async fn walk_imports(shared: &Arc<Shared>, mut walk: ImportWalk, out: &mut PageSheets) {
    while let Some(url) = walk.next_fetch() {
        let text = stylesheet(shared, &url, true).await;
        walk.fetched(text);
    }
    out.bytes += walk.sheets.iter().map(|s| s.text.len()).sum::<usize>();
    out.sheets.append(&mut walk.sheets);
    out.missing.append(&mut walk.missing);
    out.skipped += walk.skipped;
}

fn is_html(fetched: &Fetched) -> bool {
    match fetched.content_type.as_deref() {
        Some("text/html") | Some("application/xhtml+xml") => true,
        Some(_) => false,
        None => {
            let head = String::from_utf8_lossy(&fetched.body[..fetched.body.len().min(512)])
                .trim_start()
                .to_ascii_lowercase();
            head.starts_with("<!doctype html") || head.starts_with("<html")
        }
    }
}

/// The [`Page`] the rules see: the body decoded, the linked stylesheets fetched.
async fn page_of(shared: &Arc<Shared>, mut fetched: Fetched, depth: u32) -> Page {
    // The raw bytes go as soon as they are decoded: a page at the body cap is
    // not held twice while its stylesheets are fetched and its rules run.
    let raw = std::mem::take(&mut fetched.body);
    let (body, _encoding) = decode_html(&raw, fetched.charset().as_deref());
    drop(raw);
    // One start-tag pre-pass for the linked stylesheets and, when a selected
    // rule reads them, the subresources.
    let refs = links::prepass(&body, &fetched.final_url, shared.subresources);
    // The page budget's cap on stylesheets bounds the fetches too (imports
    // count); the ones left out are named in the page's
    // `analysis-incomplete` finding: its styles are computed without them.
    let most = shared.config.budget.max_stylesheets;
    let mut loaded = PageSheets::default();
    for link in refs.stylesheets {
        if loaded.sheets.len() >= most || loaded.bytes >= MAX_PAGE_STYLESHEET_BYTES {
            loaded.skipped += 1;
            continue;
        }
        load_sheet(shared, link, most, &mut loaded).await;
    }
    // `@import`s in `<style>` elements, through the same path and caps.
    for style in refs.importing_styles {
        load_style_imports(shared, style, most, &mut loaded).await;
    }
    let PageSheets {
        sheets: stylesheets,
        missing: stylesheets_missing,
        skipped: stylesheets_skipped,
        ..
    } = loaded;
    let subresources = if shared.subresources {
        subresources_of(shared, refs.subresources, &stylesheets).await
    } else {
        Vec::new()
    };
    Page {
        url: fetched.url,
        final_url: fetched.final_url,
        status: fetched.status,
        headers: fetched.headers,
        redirects: fetched.redirects,
        ttfb_ms: fetched.ttfb_ms,
        total_ms: fetched.total_ms,
        transfer_bytes: fetched.wire_bytes,
        content_type: fetched.content_type,
        http_version: fetched.http_version,
        depth,
        body,
        stylesheets,
        subresources,
        stylesheets_skipped,
        stylesheets_missing,
        interaction: None,
    }
}

/// The page's subresources with their facts: what the raw HTML loads (the
/// start-tag pre-pass, as for stylesheets) plus the fonts its linked
/// stylesheets declare, each fetched once per scan by the shared
/// [`LinkChecker`] (pages referencing the same URL wait for the one request).
/// URLs robots.txt disallows, private addresses and URLs over the budget are
/// left out.
async fn subresources_of(
    shared: &Arc<Shared>,
    found: Vec<links::SubresourceRef>,
    stylesheets: &[Stylesheet],
) -> Vec<Subresource> {
    use futures::stream::{self, StreamExt};
    let Some(checker) = shared.checker.as_deref() else {
        return Vec::new();
    };
    let mut refs: Vec<(Url, ResourceKind)> = found.into_iter().map(|r| (r.url, r.kind)).collect();
    for sheet in stylesheets {
        if let Ok(sheet_url) = Url::parse(&sheet.url) {
            for font in links::font_face_urls(&sheet.text, &sheet_url) {
                if !refs.iter().any(|(u, _)| *u == font) {
                    refs.push((font, ResourceKind::Font));
                }
            }
        }
    }
    stream::iter(refs)
        .map(|(url, kind)| async move {
            if !shared.robots_allow(&url) {
                return None;
            }
            let facts = checker.inspect(&url, kind).await?;
            Some(Subresource {
                url: url.to_string(),
                kind,
                facts: (*facts).clone(),
            })
        })
        .buffered(shared.config.concurrency.max(1))
        .filter_map(|s| async move { s })
        .collect()
        .await
}

/// Fetches, then analyzes one page. `scope` is `None` for the start page, whose
/// redirects may leave the start host.
async fn fetch_page(
    shared: Arc<Shared>,
    url: Url,
    depth: u32,
    scope: Option<Arc<Scope>>,
) -> PageDone {
    let page_scope = scope.clone();
    let hop_shared = Arc::clone(&shared);
    let hop = move |target: &Url| -> Option<HopStop> {
        if let Some(scope) = &scope {
            if scope.check(target).is_err() {
                return Some(HopStop::OutOfScope);
            }
        }
        if !hop_shared.robots_allow(target) {
            return Some(HopStop::Robots);
        }
        // Claimed at the page's turn (`Crawl::claim_redirects`), not here:
        // which page finishes first must not decide which page claims it.
        if lock(&hop_shared.seen).contains(target.as_str()) {
            return Some(HopStop::AlreadySeen);
        }
        None
    };
    let fetched = shared
        .fetcher
        .get(
            &url,
            BodyPolicy::HtmlOnly,
            shared.config.max_body_bytes,
            &hop,
        )
        .await;

    let mut report = PageReport {
        url: fetched.url.to_string(),
        final_url: fetched.final_url.to_string(),
        status: fetched.status,
        depth,
        ttfb_ms: fetched.ttfb_ms,
        total_ms: fetched.total_ms,
        bytes: if fetched.body_skipped {
            fetched.content_length.unwrap_or(0)
        } else {
            fetched.wire_bytes
        },
        content_type: fetched.content_type.clone(),
        redirects: fetched.redirects.clone(),
        error: None,
        findings: 0,
        rule_errors: Vec::new(),
        incomplete: None,
        meta_robots: None,
        nofollow_links: 0,
    };
    report.error = match (&fetched.error, fetched.stopped, fetched.truncated) {
        (Some(e), _, _) => Some(e.to_string()),
        (None, Some(HopStop::OutOfScope), _) => {
            Some(format!("redirects out of scope to {}", fetched.final_url))
        }
        (None, Some(HopStop::Robots), _) => Some(format!(
            "redirects to {}, which robots.txt disallows",
            fetched.final_url
        )),
        (None, _, true) => Some(format!(
            "body larger than {} bytes; analyzed up to the cap",
            shared.config.max_body_bytes
        )),
        _ => None,
    };
    // A fetch that ended without an answer (not a guard refusal) is judged by
    // `unreachable-page`.
    let fetch_error = fetched
        .error
        .as_ref()
        .filter(|e| !matches!(e, FetchError::Private(_)))
        .map(ToString::to_string);
    let blank_summary = |r: &PageReport| PageSummary {
        url: r.url.as_str().into(),
        final_url: r.final_url.as_str().into(),
        status: r.status,
        depth,
        fetch_error: fetch_error.clone(),
        ..PageSummary::default()
    };

    // Error pages (404, 500) are analyzed too when they are HTML: rules such as
    // `http-status-code` report on them, and visitors see them.
    let analyzable = fetched.error.is_none()
        && fetched.stopped.is_none()
        && !fetched.body_skipped
        && !(300..400).contains(&fetched.status);
    if !analyzable || !is_html(&fetched) {
        // Fetched fine but not HTML: recorded, not parsed.
        let non_html = fetched.body_skipped || analyzable;
        return PageDone {
            summary: blank_summary(&report),
            report,
            findings: Vec::new(),
            tallies: Vec::new(),
            links: PageLinks::default(),
            places: Vec::new(),
            error: fetched.error,
            stopped: fetched.stopped,
            non_html,
            truncated: fetched.truncated,
        };
    }

    let mut truncated = fetched.truncated;
    let mut fetched = fetched;
    let mut interaction = None;
    if let Some(render) = &shared.render {
        // The one seam of render mode: the body becomes the DOM the browser
        // shows; everything after runs as for a fetched page.
        let scope = page_scope.or_else(|| {
            crate::browser::RenderSession::scope_at(&fetched.final_url, &shared.config)
        });
        let weak = Arc::downgrade(&shared);
        let robots: crate::browser::intercept::RobotsCheck =
            Arc::new(move |u: &Url| weak.upgrade().is_none_or(|s| s.robots_allow(u)));
        let rendered = match scope {
            Some(scope) => render.render_fetched(&mut fetched, scope, robots).await,
            None => Err(crate::browser::BrowserError::Navigation("no scope".into())),
        };
        match rendered {
            Err(e) => {
                report.error = Some(format!("render failed: {e}"));
                return PageDone::not_analyzed(report, truncated);
            }
            Ok(r) => {
                if r.truncated {
                    truncated = true;
                    report.error = Some(format!(
                        "rendered DOM larger than {} bytes; analyzed up to the cap",
                        shared.config.max_body_bytes
                    ));
                }
                interaction = r.interaction;
            }
        }
    }
    let mut page = page_of(&shared, fetched, depth).await;
    page.interaction = interaction;
    if let Some(watch) = &shared.watch {
        watch.starting(&report.url).await;
    }
    let analyzed = shared.dispatcher.analyze(page).await;
    if let Some(watch) = &shared.watch {
        watch.finished(&report.url);
    }
    match analyzed {
        Ok(analyzed) => {
            let failed = analyzed
                .analysis
                .findings
                .iter()
                .filter(|f| f.outcome == sitescan_rules::Outcome::Failed)
                .count();
            report.findings = failed as u64;
            report.rule_errors = analyzed.analysis.errors;
            report.incomplete = analyzed.analysis.incomplete;
            report.meta_robots = analyzed.links.meta_robots.clone();
            report.nofollow_links =
                analyzed.links.links.iter().filter(|l| l.nofollow).count() as u64;
            PageDone {
                report,
                findings: analyzed.analysis.findings,
                tallies: analyzed.analysis.tallies,
                summary: analyzed.summary,
                links: analyzed.links,
                places: analyzed.places,
                error: None,
                stopped: None,
                non_html: false,
                truncated,
            }
        }
        Err(panic) => {
            report.error = Some(format!("page could not be analyzed: {panic}"));
            PageDone::not_analyzed(report, truncated)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitescan_fixtures::{site_dir, FixtureServer};

    /// The issue's Python documentation scan: 4,641 broken links among about
    /// 58,000 checked, on all 100 pages. Counted per link, quality scored
    /// `round(100 × (1 − 4641/58000))` = 92; counted per page, as page rules
    /// are, broken-links (serious) fails on 100 of 100 pages, and quality
    /// scores ⌊100 × (1 − 0.3 × √1)⌋ = 70 however many other rules passed.
    #[test]
    fn site_rules_count_pages_not_links() {
        let meta = sitescan_rules::registry::meta("broken-links").unwrap();
        let tally = RuleTally {
            rule_id: "broken-links".into(),
            passed: 58_000 - 4_641,
            failed: 4_641,
            cant_tell: 0,
        };
        let findings: Vec<Finding> = (0..4_641)
            .map(|i| Finding {
                page_url: format!("https://docs.example/{}.html", i % 100),
                ..crate::render::sample::finding(
                    "broken-links",
                    sitescan_rules::Category::Quality,
                    sitescan_rules::Outcome::Failed,
                    sitescan_rules::Impact::Serious,
                    "/",
                    "",
                    "",
                    "m",
                    &[],
                )
            })
            .collect();
        assert_eq!(site_rule_pages(meta, &tally, &findings, 100), (100, 100));
        let old = (100.0 * (1.0 - 4_641.0 / 58_000.0_f64)).round();
        assert_eq!(old, 92.0);
        let mut rules = vec![RuleSummary {
            rule_id: "broken-links".into(),
            category: Some(sitescan_rules::Category::Quality),
            pages_applicable: 100,
            pages_failed: 100,
            ..RuleSummary::default()
        }];
        for id in ["placeholder-text", "empty-link", "spelling", "readability"] {
            rules.push(RuleSummary {
                rule_id: id.into(),
                category: Some(sitescan_rules::Category::Quality),
                pages_applicable: 100,
                ..RuleSummary::default()
            });
        }
        let summary = score::summarize(&rules, &findings);
        let quality = &summary[&sitescan_rules::Category::Quality];
        assert_eq!((quality.score, quality.serious), (Some(70), 4_641));

        // Broken links on 4 of the 100 pages: ⌊100 × (1 − 0.3 × √0.04)⌋.
        let few: Vec<Finding> = findings.iter().take(4).cloned().collect();
        assert_eq!(site_rule_pages(meta, &tally, &few, 100), (100, 4));
        // A fact of the whole site (scope host) fails every page.
        let tls = sitescan_rules::registry::meta("tls-certificate").unwrap();
        assert_eq!(site_rule_pages(tls, &tally, &few[..1], 100), (100, 100));
        // A capped list of occurrences counts its unlisted places.
        let mut grouped = findings[0].clone();
        grouped.occurrences = (0..3)
            .map(|i| sitescan_rules::Occurrence {
                page_url: format!("https://docs.example/{i}.html"),
                selector: String::new(),
                snippet: String::new(),
                text: None,
            })
            .collect();
        grouped.occurrences_total = Some(10);
        assert_eq!(site_rule_pages(meta, &tally, &[grouped], 100), (100, 10));
        // Inapplicable, or applicable without failure.
        let none = RuleTally::default();
        assert_eq!(site_rule_pages(meta, &none, &[], 100), (0, 0));
    }

    fn shared(config: ScanConfig) -> Arc<Shared> {
        shared_keeping(config, MAX_KEPT_STYLESHEET_BYTES)
    }

    /// [`shared`] keeping at most `kept` bytes of stylesheet text.
    fn shared_keeping(config: ScanConfig, kept: usize) -> Arc<Shared> {
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        Arc::new(Shared {
            fetcher: Fetcher::new(&config, hosts).unwrap(),
            dispatcher: Dispatcher::new(
                2,
                Vec::new(),
                sitescan_rules::PageBudget::DEFAULT,
                sitescan_rules::Cancel::new(),
            ),
            seen: Mutex::new(HashSet::new()),
            robots: Mutex::new(HashMap::new()),
            robots_facts: Mutex::new(HashMap::new()),
            styles: Mutex::new(HashMap::new()),
            styles_bytes: AtomicUsize::new(0),
            max_kept_style_bytes: kept,
            sheet_counts: SheetCounts::default(),
            checker: None,
            subresources: false,
            config,
            watch: None,
            render: None,
        })
    }

    /// The start page of `server` fetched and loaded twice in one scan
    /// (`shared`), as two pages linking the same sheets would be.
    async fn start_page_twice(shared: &Arc<Shared>, server: &FixtureServer) -> [Page; 2] {
        let url = Url::parse(&server.url()).unwrap();
        let mut pages = Vec::new();
        for _ in 0..2 {
            let fetched = shared
                .fetcher
                .get(&url, BodyPolicy::HtmlOnly, 1 << 20, &|_: &Url| None)
                .await;
            pages.push(page_of(shared, fetched, 0).await);
        }
        pages.try_into().unwrap()
    }

    #[tokio::test]
    async fn pages_get_their_linked_stylesheets_fetched_once_per_scan() {
        let server = FixtureServer::start(site_dir("basic")).await.unwrap();
        let shared = shared(ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        });
        let pages = start_page_twice(&shared, &server).await;
        // One text, shared by the scan's cache and both pages.
        assert!(Arc::ptr_eq(
            &pages[0].stylesheets[0].text,
            &pages[1].stylesheets[0].text
        ));
        for page in pages {
            assert_eq!(page.stylesheets.len(), 1);
            assert_eq!(page.stylesheets[0].url, server.url_for("/style.css"));
            assert!(page.stylesheets[0]
                .text
                .contains(".hidden { display: none; }"));
            assert!(page.body.contains("<title>Basic fixture home</title>"));
        }
        assert_eq!(server.count("/style.css"), 1);
    }

    /// A site whose page links `a.css`, which imports `b.css`, which
    /// imports `c.css` (screen only) and `print.css` (print only); `c.css`
    /// imports `b.css` again (a cycle) and `gone.css` (404).
    fn import_site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(
            "index.html",
            r#"<!doctype html><html><head><title>t</title><link rel=stylesheet href="/css/a.css"></head><body><p>x</p></body></html>"#,
        );
        std::fs::create_dir_all(dir.path().join("css")).unwrap();
        write("css/a.css", "@import url(b.css); p { color: #111 }");
        write(
            "css/b.css",
            "@import 'c.css' screen; @import url(print.css) print; p { color: #222 }",
        );
        write(
            "css/c.css",
            "@import url(b.css); @import url(gone.css); p { color: #333 }",
        );
        write("css/print.css", "p { color: #444 }");
        dir
    }

    #[tokio::test]
    async fn imported_sheets_are_fetched_once_per_scan_in_cascade_order() {
        let dir = import_site();
        let server = FixtureServer::start(dir.path()).await.unwrap();
        let shared = shared(ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        });
        for page in start_page_twice(&shared, &server).await {
            let got: Vec<(&str, &[String])> = page
                .stylesheets
                .iter()
                .map(|s| (s.url.as_str(), s.import_media.as_slice()))
                .collect();
            let (c, b, a) = (
                server.url_for("/css/c.css"),
                server.url_for("/css/b.css"),
                server.url_for("/css/a.css"),
            );
            let screen = ["screen".to_string()];
            assert_eq!(
                got,
                vec![
                    (c.as_str(), &screen[..]),
                    (b.as_str(), &[][..]),
                    (a.as_str(), &[][..])
                ]
            );
            assert_eq!(
                page.stylesheets_missing,
                vec![MissingStylesheet {
                    url: server.url_for("/css/gone.css"),
                    reason: "HTTP 404".into(),
                    browser_too: true,
                }]
            );
        }
        for path in ["/css/a.css", "/css/b.css", "/css/c.css", "/css/gone.css"] {
            assert_eq!(server.count(path), 1, "{path}");
        }
        assert_eq!(server.count("/css/print.css"), 0);
        let counts = &shared.sheet_counts;
        assert_eq!(counts.fetched.load(Ordering::Relaxed), 4);
        assert_eq!(counts.imported.load(Ordering::Relaxed), 3);
        assert_eq!(counts.failed.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn sheets_past_the_kept_bytes_are_let_go_and_fetched_again() {
        let server = FixtureServer::start(site_dir("basic")).await.unwrap();
        let config = ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        };
        // Room for no sheet at all: each serves its page and is let go.
        let shared = shared_keeping(config, 10);
        for page in start_page_twice(&shared, &server).await {
            assert_eq!(page.stylesheets.len(), 1);
        }
        assert_eq!(server.count("/style.css"), 2);
        assert_eq!(shared.styles_bytes.load(Ordering::Relaxed), 0);
        assert!(lock(&shared.styles).is_empty());
    }

    #[tokio::test]
    async fn charset_of_the_page_is_decoded() {
        let server = FixtureServer::start(site_dir("errors")).await.unwrap();
        let shared = shared(ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        });
        for (path, title) in [
            ("/latin1.html", "<title>Café crème</title>"),
            (
                "/bogus-charset.html",
                "<title>Bogus charset déclaré</title>",
            ),
        ] {
            let url = Url::parse(&server.url_for(path)).unwrap();
            let fetched = shared
                .fetcher
                .get(&url, BodyPolicy::HtmlOnly, 1 << 20, &|_: &Url| None)
                .await;
            let page = page_of(&shared, fetched, 0).await;
            assert!(page.body.contains(title), "{path}: {}", page.body);
        }
    }

    #[test]
    fn sitemap_folders_take_the_fast_path_only_where_parsing_agrees() {
        let folder = SitemapFolder::of(&Url::parse("https://e.com/shop/sitemap.xml").unwrap());
        let inside = |loc: &str| folder.contains(loc);
        assert!(inside("https://e.com/shop/a.html"));
        assert!(inside("HTTPS://E.COM:443/shop/a.html"));
        assert!(!inside("https://e.com/shop/../admin.html"));
        assert!(!inside("https://e.com/shop/%2e%2e/admin.html"));
        assert!(!inside("https://e.com/shop\\..\\admin.html"));
        assert!(!inside("https://e.com/other/a.html"));
        assert!(!inside("http://e.com/shop/a.html"));
        assert!(!inside("https://e.com.evil.net/shop/a.html"));
        assert!(!inside("https://e.com:8443/shop/a.html"));
        for loc in [
            "https://e.com/shop/a.html",
            "https://e.com/shop/./b/../c",
            "https://e.com/shop/%2E%2E/x",
            "not a url",
        ] {
            assert_eq!(
                inside(loc),
                sitescan_rules::site::inside_sitemap_scope("https://e.com/shop/sitemap.xml", loc),
                "{loc}"
            );
        }
    }

    #[tokio::test]
    async fn a_spent_link_check_budget_is_noted() {
        let server = FixtureServer::start(site_dir("resources")).await.unwrap();
        let config = ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        };
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        let checker = LinkChecker::new(&config, hosts).unwrap().with_max_checks(1);
        assert_eq!(budget_note(&checker), None);
        for path in ["/img/logo.png", "/img/icon.png", "/js/app.js"] {
            let url = Url::parse(&server.url_for(path)).unwrap();
            checker.inspect(&url, ResourceKind::Image).await;
        }
        assert_eq!(server.paths(), vec!["/img/logo.png"]);
        assert_eq!(
            budget_note(&checker).as_deref(),
            Some("2 link/resource URLs were not checked: the scan checks at most 1 (links and subresources together)")
        );
    }
}
