//! The library API: [`Scanner::builder`] -> [`ScannerBuilder::build`] ->
//! [`Scanner::scan`] (a whole [`Report`]), [`Scanner::scan_stream`] (page
//! results as they come, then the report) or [`Scanner::scan_spooled`] (the
//! findings kept in a temporary file instead of memory, for large sites).

use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;
use sitescan_rules::registry;
use tokio::sync::mpsc;
use tracing::Instrument;

use crate::auth::SiteAuth;
use crate::config::{PageBudget, ScanConfig};
use crate::crawl::scope::compile_patterns;
use crate::error::{Error, Result};
use crate::report::spool::FindingStore;
use crate::report::{Report, SpooledReport};
use crate::scan::events::Inner;
use crate::scan::events::Observer;
pub use crate::scan::events::{AnalysisWatch, PageResult, Phase, Progress, ScanEvent};
use crate::scan::pipeline;

/// Most retries a configuration may ask for.
pub const MAX_RETRIES: u32 = 10;
/// Most redirect hops a configuration may allow.
pub const MAX_REDIRECTS_LIMIT: u32 = 50;

/// Builds a [`Scanner`]; every setter consumes and returns the builder. Defaults
/// are the `DEFAULT_*` constants of [`crate::config`].
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ScannerBuilder {
    config: ScanConfig,
    watch: Option<Arc<dyn AnalysisWatch>>,
    auth: Option<SiteAuth>,
    marks: Arc<crate::marks::Marks>,
}

impl ScannerBuilder {
    /// Credentials for a site behind a login (none by default): headers,
    /// cookies, basic authentication, a sign-in form or browser sign-in
    /// steps. They go only to the origin (scheme, host and port) of the URL
    /// scanned, never into the report, and URLs that would sign the scan out
    /// are not requested (see [`crate::auth`]). Checked against the start URL
    /// when a scan starts ([`SiteAuth::validate`]); an empty `SiteAuth` is the
    /// same as none.
    ///
    /// ```no_run
    /// # async fn run() -> sitescan_engine::Result<()> {
    /// use sitescan_engine::auth::{BasicAuth, SiteAuth};
    /// let auth = SiteAuth {
    ///     basic: Some(BasicAuth { username: "preview".into(), password: "hunter22".into() }),
    ///     ..SiteAuth::default()
    /// };
    /// let scanner = sitescan_engine::Scanner::builder().auth(auth).build()?;
    /// let report = scanner.scan("https://staging.example.com/").await?;
    /// println!("{} pages", report.pages.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn auth(mut self, auth: SiteAuth) -> Self {
        self.auth = (!auth.is_empty()).then_some(auth);
        self
    }
    /// Replaces the whole configuration.
    pub fn config(mut self, config: ScanConfig) -> Self {
        self.config = config;
        self
    }
    /// Tells `watch` when each page's analysis starts and ends (none by default).
    pub fn analysis_watch(mut self, watch: Arc<dyn AnalysisWatch>) -> Self {
        self.watch = Some(watch);
        self
    }
    /// Findings whose fingerprint is marked here carry their mark and leave
    /// the scores, counts and gates (see [`crate::marks`]); none by default.
    pub fn marks(mut self, marks: crate::marks::Marks) -> Self {
        self.marks = Arc::new(marks);
        self
    }
    /// Rule sets and rule ids (default `all`).
    pub fn rules<S: AsRef<str>>(mut self, rules: &[S]) -> Self {
        self.config.rules = rules.iter().map(|r| r.as_ref().to_string()).collect();
        self
    }
    /// Pages fetched at most (default [`crate::config::DEFAULT_MAX_PAGES`]).
    pub fn max_pages(mut self, n: usize) -> Self {
        self.config.max_pages = n;
        self
    }
    /// Link depth followed at most (default [`crate::config::DEFAULT_MAX_DEPTH`]).
    pub fn max_depth(mut self, n: u32) -> Self {
        self.config.max_depth = n;
        self
    }
    /// Requests per second per host (default [`crate::config::DEFAULT_RATE_PER_HOST`]).
    pub fn rate_per_host(mut self, rate: f64) -> Self {
        self.config.rate_per_host = rate;
        self
    }
    /// Requests in flight at once (default [`crate::config::DEFAULT_CONCURRENCY`]).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.config.concurrency = n;
        self
    }
    /// Only URLs matching one of these regular expressions are crawled.
    pub fn include<S: AsRef<str>>(mut self, patterns: &[S]) -> Self {
        self.config.include = patterns.iter().map(|p| p.as_ref().to_string()).collect();
        self
    }
    /// URLs matching any of these regular expressions are skipped.
    pub fn exclude<S: AsRef<str>>(mut self, patterns: &[S]) -> Self {
        self.config.exclude = patterns.iter().map(|p| p.as_ref().to_string()).collect();
        self
    }
    /// Follow links to subdomains of the start host (default off).
    pub fn subdomains(mut self, yes: bool) -> Self {
        self.config.subdomains = yes;
        self
    }
    /// Honor robots.txt (default on).
    pub fn respect_robots(mut self, yes: bool) -> Self {
        self.config.respect_robots = yes;
        self
    }
    /// User agent sent and matched against robots.txt groups.
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.config.user_agent = ua.into();
        self
    }
    /// Allow loopback, private and link-local addresses (default off).
    pub fn allow_private(mut self, yes: bool) -> Self {
        self.config.allow_private = yes;
        self
    }
    /// Body size cap in bytes (default [`crate::config::DEFAULT_MAX_BODY_BYTES`]).
    pub fn max_body_bytes(mut self, n: u64) -> Self {
        self.config.max_body_bytes = n;
        self
    }
    /// Whole-request timeout in milliseconds.
    pub fn timeout_ms(mut self, ms: u64) -> Self {
        self.config.timeout_ms = ms;
        self
    }
    /// Connect timeout in milliseconds.
    pub fn connect_timeout_ms(mut self, ms: u64) -> Self {
        self.config.connect_timeout_ms = ms;
        self
    }
    /// Retries of transient failures.
    pub fn retries(mut self, n: u32) -> Self {
        self.config.retries = n;
        self
    }
    /// Accept any TLS certificate in the crawl (default off); the
    /// `tls-certificate` rule still reports the certificate's problems.
    pub fn tls_insecure(mut self, yes: bool) -> Self {
        self.config.tls_insecure = yes;
        self
    }
    /// Also trust the root certificates of this PEM text (a private CA).
    pub fn ca_cert(mut self, pem: impl Into<String>) -> Self {
        self.config.ca_certs.push(pem.into());
        self
    }
    /// Final statuses of link and resource checks that count as working.
    pub fn accept(mut self, ranges: Vec<crate::config::StatusRange>) -> Self {
        self.config.accept = ranges;
        self
    }
    /// Which link and resource URLs are requested to check them (default
    /// [`crate::config::LinkScope::All`]; `Internal` leaves other sites
    /// unchecked, `None` requests nothing beyond the crawl).
    pub fn links(mut self, scope: crate::config::LinkScope) -> Self {
        self.config.links = scope;
        self
    }

    /// Render mode (default off): each page is loaded in headless Chromium
    /// and the rules judge the DOM after its scripts ran. Needs Debian's
    /// `chromium` (or `SITESCAN_CHROMIUM`); see [`crate::browser`].
    pub fn render(mut self, yes: bool) -> Self {
        self.config.render = yes;
        self
    }
    /// How render mode waits for each page (default: network idle for
    /// [`crate::config::DEFAULT_RENDER_QUIET_MS`], at most
    /// [`crate::config::DEFAULT_RENDER_MAX_WAIT_MS`]).
    pub fn render_options(mut self, options: crate::config::RenderOptions) -> Self {
        self.config.render_options = options;
        self
    }

    /// Replaces the whole page budget (default [`PageBudget::DEFAULT`]).
    pub fn page_budget(mut self, budget: PageBudget) -> Self {
        self.config.budget = budget;
        self
    }
    /// Wall time each page's analysis may take (default
    /// [`crate::config::DEFAULT_PAGE_TIME`]); a page over it gets an
    /// `analysis-incomplete` finding and the rules that did not run leave no
    /// results for it. Zero stops every page's analysis at once.
    pub fn page_time(mut self, time: std::time::Duration) -> Self {
        self.config.budget.time = time;
        self
    }
    /// Nodes the parser keeps per page (default 200,000).
    pub fn max_page_nodes(mut self, n: usize) -> Self {
        self.config.budget.max_nodes = n;
        self
    }
    /// Nesting depth the parser keeps per page; deeper elements are flattened
    /// (default 512).
    pub fn max_page_depth(mut self, n: usize) -> Self {
        self.config.budget.max_depth = n;
        self
    }
    /// Links a page contributes to the crawl and the link checks (default
    /// [`crate::config::DEFAULT_MAX_LINKS`]).
    pub fn max_page_links(mut self, n: usize) -> Self {
        self.config.budget.max_links = n;
        self
    }
    /// Style rules parsed per page over all its stylesheets (default
    /// [`crate::config::DEFAULT_MAX_CSS_RULES`]).
    pub fn max_css_rules(mut self, n: usize) -> Self {
        self.config.budget.max_css_rules = n;
        self
    }
    /// Selectors compiled per page over all its stylesheets (default
    /// [`crate::config::DEFAULT_MAX_SELECTORS`]).
    pub fn max_selectors(mut self, n: usize) -> Self {
        self.config.budget.max_selectors = n;
        self
    }
    /// Stylesheets applied per page (default
    /// [`crate::config::DEFAULT_MAX_STYLESHEETS`]).
    pub fn max_stylesheets(mut self, n: usize) -> Self {
        self.config.budget.max_stylesheets = n;
        self
    }

    /// Validates the configuration (rule names, patterns, limits) and builds the
    /// scanner.
    pub fn build(self) -> Result<Scanner> {
        let c = &self.config;
        let selection = registry::select(&c.rules).map_err(|e| Error::Config(e.to_string()))?;
        if selection.is_empty() {
            return Err(Error::Config(
                "no rules selected: name a rule set (e.g. all, wcag-aa) or rule ids".into(),
            ));
        }
        compile_patterns(&c.include, "include")?;
        compile_patterns(&c.exclude, "exclude")?;
        let positive = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(Error::Config(format!("{what} must be greater than zero")))
            }
        };
        positive(c.max_pages > 0, "max_pages")?;
        positive(c.concurrency > 0, "concurrency")?;
        positive(
            c.rate_per_host.is_finite() && c.rate_per_host > 0.0,
            "rate_per_host",
        )?;
        positive(c.max_body_bytes > 0, "max_body_bytes")?;
        positive(c.timeout_ms > 0, "timeout_ms")?;
        positive(c.connect_timeout_ms > 0, "connect_timeout_ms")?;
        // A page needs its root to be analyzed at all; the other caps may be
        // zero (no links followed, no author styles applied).
        positive(c.budget.max_nodes > 0, "budget.max_nodes")?;
        positive(c.budget.max_depth > 0, "budget.max_depth")?;
        if c.retries > MAX_RETRIES {
            return Err(Error::Config(format!(
                "retries must be at most {MAX_RETRIES}"
            )));
        }
        if c.accept.is_empty() {
            return Err(Error::Config(format!(
                "accept must name at least one status code or range (default {})",
                crate::config::DEFAULT_ACCEPT
            )));
        }
        if c.max_redirects > MAX_REDIRECTS_LIMIT {
            return Err(Error::Config(format!(
                "max_redirects must be at most {MAX_REDIRECTS_LIMIT}"
            )));
        }
        for pem in &c.ca_certs {
            crate::checks::tls::parse_pem_certs(pem)?;
        }
        if c.render {
            positive(
                c.render_options.max_wait_ms > 0,
                "render_options.max_wait_ms",
            )?;
            if let Some(v) = c.render_options.viewport {
                v.check()
                    .map_err(|e| Error::Config(format!("render_options.viewport: {e}")))?;
            }
            if let crate::config::RenderWait::Selector(sel) = &c.render_options.wait {
                scraper::Selector::parse(sel).map_err(|e| {
                    Error::Config(format!(
                        "render_options.wait selector `{sel}` is not a CSS selector: {e}"
                    ))
                })?;
            }
        }
        if c.user_agent.trim().is_empty()
            || reqwest::header::HeaderValue::from_str(&c.user_agent).is_err()
        {
            return Err(Error::Config(
                "user_agent must be a non-empty header value (printable ASCII)".into(),
            ));
        }
        Ok(Scanner {
            inner: Arc::new(Inner {
                config: self.config,
                selection,
                watch: self.watch,
                auth: self.auth,
                marks: self.marks,
            }),
        })
    }
}

/// A configured scanner. Cheap to clone (an `Arc` inside), `Send + Sync`, and
/// usable from many tasks at once; each scan has its own crawl state.
#[derive(Clone)]
pub struct Scanner {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Scanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scanner")
            .field("config", &self.inner.config)
            .field("rules", &self.inner.selection)
            .finish()
    }
}

impl Scanner {
    /// A builder with the default configuration.
    pub fn builder() -> ScannerBuilder {
        ScannerBuilder::default()
    }

    /// The configuration as validated.
    pub fn config(&self) -> &ScanConfig {
        &self.inner.config
    }

    /// Crawls `url` and returns the report. Must run inside a tokio runtime.
    ///
    /// Failed pages are recorded in the report; `Err` only when the scan cannot
    /// run at all (bad URL, unreachable or refused start host, robots.txt forbids
    /// the start page, a start page that is no 2xx HTML page: [`Error::StartPage`]).
    pub async fn scan(&self, url: &str) -> Result<Report> {
        let (report, findings) = pipeline::run(
            Arc::clone(&self.inner),
            url,
            Observer::default(),
            FindingStore::memory(),
        )
        .instrument(tracing::info_span!("scan", site = url))
        .await?;
        SpooledReport::new(report, findings).into_report()
    }

    /// Crawls `url` like [`Scanner::scan`], but keeps the findings out of memory:
    /// each page's findings go to an anonymous temporary file in `dir` as the page
    /// finishes, so memory stays flat however many findings the site has. Render
    /// the result with [`crate::render::render_to`] (it streams the findings back)
    /// or load it with [`SpooledReport::into_report`]. `progress` hears of every
    /// page done. The file has no name and goes away with the report, also when
    /// the scan fails.
    ///
    /// `Err` as for [`Scanner::scan`], and [`Error::Spool`] when no temporary
    /// file can be created in `dir` (checked before crawling) or written.
    pub async fn scan_spooled(
        &self,
        url: &str,
        dir: &Path,
        progress: &(dyn Fn(Progress) + Send + Sync),
    ) -> Result<SpooledReport> {
        let store = FindingStore::file_in(dir)?;
        let observer = Observer {
            events: None,
            progress: Some(progress),
        };
        let (report, findings) = pipeline::run(Arc::clone(&self.inner), url, observer, store)
            .instrument(tracing::info_span!("scan", site = url))
            .await?;
        Ok(SpooledReport::new(report, findings))
    }

    /// Crawls `url`, yielding progress and each page as it is done, then
    /// [`ScanEvent::Finished`] or [`ScanEvent::Failed`]. The scan runs while the
    /// stream is polled (inside a tokio runtime); dropping the stream cancels it,
    /// and a page in analysis then stops within about a second (the scan's
    /// cancel token is tripped; the same holds for a dropped [`Scanner::scan`]
    /// future).
    pub fn scan_stream(&self, url: &str) -> impl Stream<Item = ScanEvent> + Send + 'static {
        let (tx, rx) = mpsc::unbounded_channel();
        let inner = Arc::clone(&self.inner);
        let url = url.to_string();
        let fut = async move {
            let span = tracing::info_span!("scan", site = %url);
            let observer = Observer {
                events: Some(&tx),
                progress: None,
            };
            let result = pipeline::run(inner, &url, observer, FindingStore::memory())
                .instrument(span)
                .await
                .and_then(|(report, findings)| SpooledReport::new(report, findings).into_report());
            let last = match result {
                Ok(report) => ScanEvent::Finished(Box::new(report)),
                Err(e) => ScanEvent::Failed(e),
            };
            let _ = tx.send(last);
        };
        ScanStream {
            scan: Some(Box::pin(fut)),
            events: rx,
        }
    }
}

/// Drives the scan future while handing out the events it sends.
struct ScanStream {
    scan: Option<Pin<Box<dyn std::future::Future<Output = ()> + Send>>>,
    events: mpsc::UnboundedReceiver<ScanEvent>,
}

impl Stream for ScanStream {
    type Item = ScanEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ScanEvent>> {
        if let Some(scan) = self.scan.as_mut() {
            if scan.as_mut().poll(cx).is_ready() {
                self.scan = None;
            }
        }
        match self.events.poll_recv(cx) {
            Poll::Ready(Some(event)) => Poll::Ready(Some(event)),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending if self.scan.is_none() => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
