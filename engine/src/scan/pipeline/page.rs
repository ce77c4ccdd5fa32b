//! One page: fetched politely (the SSRF guard, robots.txt, redirects hop by
//! hop), its stylesheets loaded (once per scan), rendered in render mode (the
//! one seam, in [`fetch_page`]), then analyzed on the rayon pool; what comes
//! back to the coordinator is a [`PageDone`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sitescan_rules::css::ImportWalk;
use sitescan_rules::links::{self, PageLinks};
use sitescan_rules::resources::{ResourceKind, Subresource};
use sitescan_rules::site::PageSummary;
use sitescan_rules::{Finding, MissingStylesheet, Page, RuleTally, Stylesheet};
use tokio::sync::OnceCell;
use url::Url;

use super::start::{lock, Shared, StyleCell, StyleText};
use crate::checks::links::facts_from_fetched;
use crate::crawl::fetch::{decode_html, BodyPolicy, FetchError, Fetched, HopStop};
use crate::crawl::scope::Scope;
use crate::report::PageReport;

/// Size cap of one stylesheet, decoded (a decompression bomb stops here). A
/// longer stylesheet is used up to the cap, as pages are; one cut short by the
/// network is not used at all.
const MAX_STYLESHEET_BYTES: u64 = 2 * 1024 * 1024;
/// Stylesheet text one page may use in all (linked and imported sheets): the
/// texts are shared with the scan's sheet cache, but a sheet let go from it
/// (see [`super::start::MAX_KEPT_STYLESHEET_BYTES`]) lives as long as its page, and the
/// cascade compiles what a page uses, so with `budget.max_stylesheets` sheets
/// of up to [`MAX_STYLESHEET_BYTES`] each it is this that bounds a page's
/// memory. Sheets past it are counted as not fetched, as sheets past the
/// count are.
const MAX_PAGE_STYLESHEET_BYTES: usize = 40 * 1024 * 1024;

/// What a fetch task hands back.
pub(super) struct PageDone {
    pub(super) report: PageReport,
    pub(super) findings: Vec<Finding>,
    pub(super) tallies: Vec<RuleTally>,
    pub(super) summary: PageSummary,
    pub(super) links: PageLinks,
    /// Where each of `summary.links` is (when `broken-links` runs).
    pub(super) places: Vec<sitescan_rules::Occurrence>,
    pub(super) error: Option<FetchError>,
    /// Why the last redirect was not followed.
    pub(super) stopped: Option<HopStop>,
    pub(super) non_html: bool,
    pub(super) truncated: bool,
}

impl PageDone {
    /// An HTML page fetched but not analyzed (its render or its analysis
    /// failed; `report.error` says why): no findings, no links.
    pub(super) fn not_analyzed(report: PageReport, truncated: bool) -> PageDone {
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
    pub(super) fn followed(&self, i: usize) -> bool {
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
    pub(super) fn redirect_stub(mut self, hop: usize) -> PageDone {
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
        rendered: None,
        interaction: None,
        vitals: None,
    }
}

/// The page's subresources with their facts: what the raw HTML loads (the
/// start-tag pre-pass, as for stylesheets) plus the fonts its linked
/// stylesheets declare, each fetched once per scan by the shared
/// [`crate::checks::links::LinkChecker`] (pages referencing the same URL wait for the one request).
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
pub(super) async fn fetch_page(
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
        thumbnail: None,
        vitals: None,
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
    let mut facts = None;
    let mut interaction = None;
    let mut held = None;
    let mut vitals = None;
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
            Ok((r, tab)) => {
                held = tab;
                if r.truncated {
                    truncated = true;
                    report.error = Some(format!(
                        "rendered DOM larger than {} bytes; analyzed up to the cap",
                        shared.config.max_body_bytes
                    ));
                }
                facts = r.facts.map(Arc::new);
                interaction = r.interaction;
                vitals = r.vitals;
            }
            Err(e) => {
                if e.is_start_failure() {
                    lock(&shared.browser_down).get_or_insert_with(|| e.to_string());
                }
                report.error = Some(format!("render failed: {e}"));
                return PageDone::not_analyzed(report, truncated);
            }
        }
    }
    let mut page = page_of(&shared, fetched, depth).await;
    page.rendered = facts;
    page.interaction = interaction;
    page.vitals = vitals.map(|mut v| {
        crate::browser::metrics::finish(&mut v, page.ttfb_ms);
        *v
    });
    report.vitals = page.vitals.clone().map(Box::new);
    if let Some(watch) = &shared.watch {
        watch.starting(&report.url).await;
    }
    let analyzed = shared.dispatcher.analyze(page).await;
    if let Some(watch) = &shared.watch {
        watch.finished(&report.url);
    }
    match analyzed {
        Ok(mut analyzed) => {
            // Render mode's pictures, in the tab still on the page.
            if let (Some(tab), Some(shots)) = (held, &shared.shots) {
                let findings = &mut analyzed.analysis.findings;
                report.thumbnail = crate::browser::screenshot::shoot(tab, findings, shots).await;
            }
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
    use crate::config::ScanConfig;
    use crate::scan::pipeline::start::MAX_KEPT_STYLESHEET_BYTES;
    use sitescan_fixtures::{site_dir, FixtureServer};

    fn shared(config: ScanConfig) -> Arc<Shared> {
        shared_keeping(config, MAX_KEPT_STYLESHEET_BYTES)
    }

    /// [`shared`] keeping at most `kept` bytes of stylesheet text.
    fn shared_keeping(config: ScanConfig, kept: usize) -> Arc<Shared> {
        super::super::start::for_tests(config, kept)
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
}
