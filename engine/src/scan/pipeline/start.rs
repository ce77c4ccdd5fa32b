//! The start of a scan: the configuration becomes the state the coordinator
//! and its fetch tasks share ([`Shared`]: fetcher, analysis dispatcher, link
//! checker, caches, render session), and whether the start page lets the
//! scan run ([`start_page_problem`]): judged as soon as it is fetched, so a
//! wrong URL or a site that is down fails the scan before anything else is
//! crawled, and no report of an error page passes for a scan of the site.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard};

use sitescan_rules::site::RobotsFacts;
use sitescan_rules::Need;
use tokio::sync::OnceCell;
use url::Url;

use crate::checks::links::LinkChecker;
use crate::config::ScanConfig;
use crate::crawl::credentials::Credentials;
use crate::crawl::fetch::Fetcher;
use crate::crawl::host_limits::HostPool;
use crate::crawl::robots::Robots;
use crate::crawl::scope::Scope;
use crate::error::Result;
use crate::report::PageReport;
use crate::scan::dispatch::Dispatcher;
use crate::scan::events::Inner;

/// Stylesheet text a scan keeps for its later pages, in all. A site's pages
/// share a few sheets, kept once; a site that gives every page sheets of their
/// own (or cache-busting URLs) would otherwise make a scan hold them all. Past
/// it a sheet serves the pages waiting for it and is then let go (a later page
/// linking it fetches it again).
pub(super) const MAX_KEPT_STYLESHEET_BYTES: usize = 64 * 1024 * 1024;

/// The mutex's value, also after a panic elsewhere poisoned it (the state it
/// guards stays consistent: every update is one insert or one replace).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key of a URL's origin in the per-origin maps (robots.txt, its facts).
pub(super) fn origin_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// A stylesheet's text, or why it could not be loaded: the status the server
/// answered (if it did) and the reason (see [`sitescan_rules::MissingStylesheet::new`]).
/// The text is shared with the pages that use the sheet ([`sitescan_rules::Stylesheet::text`]):
/// none holds a copy of its own.
pub(super) type StyleText = std::result::Result<Arc<str>, (Option<u16>, String)>;
pub(super) type StyleCell = Arc<OnceCell<StyleText>>;

/// Counts of the stylesheets a scan fetched (see [`crate::report::CrawlStats`]).
#[derive(Default)]
pub(super) struct SheetCounts {
    /// Distinct stylesheet URLs fetched (each once, unless let go: see
    /// [`MAX_KEPT_STYLESHEET_BYTES`]).
    pub(super) fetched: AtomicUsize,
    /// Of those, sheets first met through an `@import`.
    pub(super) imported: AtomicUsize,
    /// Of those, sheets that could not be loaded.
    pub(super) failed: AtomicUsize,
}

/// State shared by the coordinator and its fetch tasks.
pub(super) struct Shared {
    pub(super) config: ScanConfig,
    pub(super) fetcher: Fetcher,
    pub(super) dispatcher: Dispatcher,
    /// Normalized URLs claimed for fetching (queued, fetched, or redirect targets).
    /// The frontier queues the same shared strings.
    pub(super) seen: Mutex<HashSet<Arc<str>>>,
    /// robots.txt per origin, once loaded.
    pub(super) robots: Mutex<HashMap<String, Arc<Robots>>>,
    /// robots.txt as fetched per origin, for the site rules.
    pub(super) robots_facts: Mutex<HashMap<String, RobotsFacts>>,
    /// Stylesheet texts per URL (`None`: could not be fetched).
    pub(super) styles: Mutex<HashMap<String, StyleCell>>,
    /// Bytes of stylesheet text `styles` holds (see [`MAX_KEPT_STYLESHEET_BYTES`]).
    pub(super) styles_bytes: AtomicUsize,
    /// [`MAX_KEPT_STYLESHEET_BYTES`], lowered by tests.
    pub(super) max_kept_style_bytes: usize,
    /// What the scan's stylesheet fetches came to.
    pub(super) sheet_counts: SheetCounts,
    /// Link and resource checks (statuses and subresource facts, once per URL
    /// per scan); `None` when no selected rule needs the network beyond pages.
    pub(super) checker: Option<Arc<LinkChecker>>,
    /// A selected rule reads subresource facts: fetch each page's subresources
    /// before its rules run (see `sitescan_rules::resources`).
    pub(super) subresources: bool,
    /// Told when each page's analysis starts and ends.
    pub(super) watch: Option<Arc<dyn crate::scan::events::AnalysisWatch>>,
    /// The triage marks the scan applies to each page's findings.
    pub(super) marks: Arc<crate::marks::Marks>,
    /// Render mode: the scan's browser context and tabs.
    pub(super) render: Option<crate::browser::RenderSession>,
    /// Render mode's browser could not be started again (it exited and its
    /// binary is gone or fails): why. The crawl stops with this error at the
    /// next page it takes, instead of failing every page left.
    pub(super) browser_down: Mutex<Option<String>>,
    /// Render mode's pictures and what is left of their caps; `None` when
    /// the scan takes none.
    pub(super) shots: Option<crate::browser::screenshot::ShotBudget>,
}

impl Shared {
    pub(super) fn robots_for(&self, url: &Url) -> Option<Arc<Robots>> {
        lock(&self.robots).get(&origin_key(url)).cloned()
    }

    pub(super) fn robots_allow(&self, url: &Url) -> bool {
        !self.config.respect_robots || self.robots_for(url).is_none_or(|r| r.allowed(url))
    }
}

/// Trips its token when dropped, also when the scan's future is dropped
/// midway.
pub(super) struct CancelOnDrop(sitescan_rules::Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Builds the scan's shared state from its configuration: the fetcher on
/// one host pool, the browser in render mode (a missing browser fails the scan
/// here, before any page), the link checker when a selected rule needs the
/// network beyond pages, the page-analysis dispatcher tied to the returned
/// cancel guard. Also returns the notes the report should carry from the
/// start (a missing dictionary, a link checker that could not be built).
pub(super) async fn start(
    inner: &Inner,
    scope: &Scope,
    auth: Option<Arc<Credentials>>,
) -> Result<(Arc<Shared>, CancelOnDrop, Vec<String>)> {
    let config = inner.config.clone();
    let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
    let fetcher = Fetcher::new(&config, Arc::clone(&hosts))?.with_auth(auth.clone());
    // Render mode starts its browser before any page: a missing browser fails
    // the scan here, in one line.
    let render = match config.render {
        true => Some(
            crate::browser::RenderSession::start_with_auth(
                &config,
                Arc::clone(&hosts),
                inner.selection.needs(Need::Interaction),
                auth.clone(),
            )
            .await?
            .with_narrow_viewport(inner.selection.needs(Need::NarrowViewport))
            .with_measured_backdrop(inner.selection.needs(Need::MeasuredBackdrop))
            .with_link_states(inner.selection.needs(Need::LinkStates)),
        ),
        false => None,
    };
    let shots = render
        .as_ref()
        .filter(|_| config.render_options.screenshots.on())
        .map(|_| crate::browser::screenshot::ShotBudget::new(&config.render_options.screenshots));
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
            Ok(c) => Some(Arc::new(c.with_auth(auth))),
            Err(e) => {
                early_notes.push(format!("links and subresources were not checked: {e}"));
                None
            }
        }
    } else {
        None
    };
    if let Some(c) = &checker {
        c.set_site(scope);
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
        marks: Arc::clone(&inner.marks),
        shots,
        render,
        browser_down: Mutex::new(None),
    });
    Ok((shared, cancel, early_notes))
}

/// Why the start page cannot begin a scan, or `None` when it can. The scan needs
/// a start URL that ends, after redirects, on a 2xx answer with an HTML page. A
/// start URL that answers 404 or 500, redirects to one, never stops redirecting
/// or answers a PDF means a wrong URL or a site that is down.
///
/// A start page without a `Content-Type` passes (the crawler then judges the
/// body by its first bytes, as browsers do), and so does one whose only error
/// is a body over the size cap (`cut_at_cap`): it was read and analyzed up to
/// the cap, and its report says so.
pub(super) fn start_page_problem(page: &PageReport, cut_at_cap: bool) -> Option<String> {
    let via = if page.final_url.is_empty() || page.final_url == page.url {
        String::new()
    } else {
        format!(" (redirected to {})", page.final_url)
    };
    if let Some(error) = page.error.as_ref().filter(|_| !cut_at_cap) {
        return Some(format!(
            "the start URL {}{via} could not be read: {error}; check the URL and that the site is up",
            page.url
        ));
    }
    if !(200..300).contains(&page.status) {
        let reason = reqwest::StatusCode::from_u16(page.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .map(|r| format!(" {r}"))
            .unwrap_or_default();
        let hint = match page.status {
            300..=399 => "the redirect was not followed to a page",
            401 | 403 => "the site refuses the scanner; scan a page it serves without signing in",
            400..=499 => "check the URL",
            _ => "the site has a problem; try again later",
        };
        return Some(format!(
            "the start URL {}{via} answered HTTP {}{reason}: {hint} (the scan needs a start page that answers 2xx)",
            page.url, page.status
        ));
    }
    match page.content_type.as_deref() {
        None | Some("text/html") | Some("application/xhtml+xml") => None,
        Some(other) => Some(format!(
            "the start URL {}{via} answered with {other}, not an HTML page: give the URL of a web page",
            page.url
        )),
    }
}

/// Shared state for the page tests, keeping at most `kept` bytes of
/// stylesheet text.
#[cfg(test)]
pub(super) fn for_tests(config: ScanConfig, kept: usize) -> Arc<Shared> {
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
        marks: Arc::default(),
        render: None,
        shots: None,
        browser_down: Mutex::new(None),
    })
}
