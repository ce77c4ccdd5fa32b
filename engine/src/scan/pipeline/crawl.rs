//! The coordinator's crawl: the frontier, breadth-first, up to the
//! concurrency limit, each finished page taken in the order started (see the
//! [`super`] module doc) and its findings, tallies, summary and links
//! recorded.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use sitescan_rules::site::PageSummary;
use tokio::task::JoinSet;
use tracing::Instrument;
use url::Url;

use super::page::{fetch_page, PageDone};
use super::site_facts::ensure_robots;
use super::start::{lock, Shared};
use crate::crawl::fetch::{FetchError, HopStop};
use crate::crawl::scope::{normalize, OutOfScope, Scope};
use crate::error::Result;
use crate::report::group::Grouper;
use crate::report::spool::FindingStore;
use crate::report::{CrawlStats, RuleSummary};
use crate::scan::events::{Observer, PageResult, Progress, ScanEvent};
use crate::scan::intern::Interner;
use crate::scan::pages::PageList;
use crate::scan::places::PlaceLog;

/// Pages started ahead of the oldest unfinished one, per concurrency slot
/// (at least [`MIN_REORDER_WINDOW`] in all): what the reorder buffer holds at
/// most while one slow page is awaited.
pub(super) const REORDER_WINDOW_PER_SLOT: usize = 4;
/// Least reorder window, whatever the concurrency.
const MIN_REORDER_WINDOW: usize = 16;

/// The coordinator's bookkeeping.
pub(super) struct Crawl {
    pub(super) shared: Arc<Shared>,
    /// Where each page's links are, until the link checks are done.
    pub(super) places: PlaceLog,
    /// Pages started so far (the next page's rank).
    pub(super) started: u64,
    /// Rank of the next page to take.
    pub(super) next_commit: u64,
    /// Pages finished ahead of `next_commit` (`None`: its task failed).
    pub(super) finished: BTreeMap<u64, Option<PageDone>>,
    /// Fetch tasks running (for progress).
    pub(super) in_flight: usize,
    /// URLs to fetch with their depth, breadth-first. Kept as the strings the
    /// `seen` set holds rather than parsed `Url`s (about 90 bytes more each):
    /// on a large site the widest level of the crawl is thousands of URLs.
    pub(super) frontier: VecDeque<(Arc<str>, u32)>,
    /// URLs counted as out of scope or too deep (each counted once).
    pub(super) rejected: HashSet<String>,
    pub(super) stats: CrawlStats,
    /// The report's page entries, out of memory when the scan spools.
    pub(super) pages: PageList,
    /// Findings, out of memory when the scan spools them.
    pub(super) store: FindingStore,
    /// Host and resource findings, merged into one finding per problem until
    /// the crawl ends (see [`crate::report::group`]).
    pub(super) grouper: Grouper,
    pub(super) tallies: HashMap<String, RuleSummary>,
    pub(super) summaries: Vec<PageSummary>,
    /// The summaries' shared strings (link, resource, page and canonical URLs,
    /// languages), one copy each (see [`Interner`]).
    pub(super) urls: Interner,
    pub(super) notes: Vec<String>,
    pub(super) error_count: u64,
    /// Cant-tell findings that name their reason (`data.reason`), by rule
    /// then reason: the report's note on how much was left undecided.
    pub(super) cant_tell_reasons: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Crawl {
    /// The bookkeeping of a new crawl, its findings going to `store` (and
    /// what grows with the site beside them, when it spools), `notes` the
    /// report's notes so far.
    pub(super) fn new(
        shared: Arc<Shared>,
        store: FindingStore,
        notes: Vec<String>,
    ) -> Result<Crawl> {
        let (places, grouper, pages) = match store.spool_dir() {
            Some(dir) => (
                PlaceLog::file_in(dir)?,
                Grouper::file_in(dir)?,
                PageList::file_in(dir)?,
            ),
            None => (PlaceLog::memory(), Grouper::default(), PageList::memory()),
        };
        Ok(Crawl {
            shared,
            places,
            started: 0,
            next_commit: 0,
            finished: BTreeMap::new(),
            frontier: VecDeque::new(),
            rejected: HashSet::new(),
            stats: CrawlStats::default(),
            pages,
            store,
            grouper,
            tallies: HashMap::new(),
            summaries: Vec::new(),
            urls: Interner::default(),
            notes,
            error_count: 0,
            cant_tell_reasons: BTreeMap::new(),
            in_flight: 0,
        })
    }

    /// Breadth-first over the frontier until it is empty or `max_pages` pages
    /// were started (the start page counts as one), results taken in the order
    /// started; fails only when findings cannot be stored.
    pub(super) async fn run(&mut self, scope: &Arc<Scope>, observer: Observer<'_>) -> Result<()> {
        let shared = Arc::clone(&self.shared);
        let config = &shared.config;
        let mut in_flight: JoinSet<(u64, PageDone)> = JoinSet::new();
        let mut ranks: HashMap<tokio::task::Id, u64> = HashMap::new();
        let mut dispatched: usize = 1;
        let window = (config.concurrency.saturating_mul(REORDER_WINDOW_PER_SLOT))
            .max(MIN_REORDER_WINDOW) as u64;
        loop {
            while in_flight.len() < config.concurrency
                && dispatched < config.max_pages
                && self.started - self.next_commit < window
            {
                let Some((queued, depth)) = self.frontier.pop_front() else {
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
                        self.stats.skipped.robots += 1;
                        continue;
                    }
                }
                dispatched += 1;
                let rank = self.started;
                self.started += 1;
                let span = tracing::info_span!("page", url = %url, depth);
                let fetch = fetch_page(Arc::clone(&shared), url, depth, Some(Arc::clone(scope)));
                let task = in_flight.spawn(async move { (rank, fetch.await) }.instrument(span));
                ranks.insert(task.id(), rank);
            }
            self.in_flight = in_flight.len();
            let Some(joined) = in_flight.join_next_with_id().await else {
                break;
            };
            self.in_flight = in_flight.len();
            match joined {
                Ok((id, (rank, done))) => {
                    ranks.remove(&id);
                    self.commit(rank, Some(done), scope, observer)?;
                }
                Err(e) => {
                    self.notes.push(format!("a fetch task failed: {e}"));
                    self.error_count += 1;
                    if let Some(rank) = ranks.remove(&e.id()) {
                        self.commit(rank, None, scope, observer)?;
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn rule_entry(&mut self, id: &str) -> &mut RuleSummary {
        self.tallies.entry(id.to_string()).or_default()
    }

    /// Whether this normalized URL string was claimed or rejected already.
    fn known(&self, key: &str) -> bool {
        self.rejected.contains(key) || lock(&self.shared.seen).contains(key)
    }

    /// Queues a URL found at `depth` unless claimed, out of scope or too deep.
    pub(super) fn enqueue(&mut self, url: &Url, depth: u32, scope: &Scope) {
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
    pub(super) fn commit(
        &mut self,
        rank: u64,
        done: Option<PageDone>,
        scope: &Scope,
        observer: Observer<'_>,
    ) -> Result<()> {
        // A browser that cannot start again fails the scan (every page left
        // would fail to render): what to install is in the error.
        if let Some(why) = lock(&self.shared.browser_down).take() {
            return Err(crate::Error::Browser(why));
        }
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
    fn take(&mut self, mut done: PageDone, scope: &Scope, observer: Observer<'_>) -> Result<()> {
        if let Some(c) = self.shared.fetcher.auth() {
            super::login::scrub_page(c, &mut done.report, &mut done.findings);
        }
        // Marked findings first, so the tallies below, the page event and the
        // stored findings all see them.
        self.shared
            .marks
            .apply_page(&mut done.findings, &mut done.tallies);
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
        let mut summary = done.summary;
        summary.url = self.urls.intern(&summary.url);
        // The grouper keeps the page's URL with a problem's first place: the
        // shared copy, not one of its own.
        let page_url = if *summary.url == *done.report.url {
            Arc::clone(&summary.url)
        } else {
            self.urls.intern(&Arc::from(done.report.url.as_str()))
        };
        let own = self
            .grouper
            .take(done.report.depth, &page_url, done.findings)?;
        self.pages.push(done.report)?;
        self.store.push(own)?;
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
