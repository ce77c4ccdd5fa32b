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
//! to take by at most a window ([`crawl::REORDER_WINDOW_PER_SLOT`] per concurrency
//! slot), so one slow page holds back a bounded number of results.
//!
//! The phases, one module each: [`start`] (configuration to shared state),
//! [`site_facts`] (robots.txt, sitemaps, TLS, probes), [`crawl`] (the frontier
//! loop), [`page`] (fetch, render seam, analysis of one page) and [`finish`]
//! (site checks, grouping, the report). This module runs them in order.

mod crawl;
mod finish;
mod login;
mod page;
mod site_facts;
mod start;

use std::sync::Arc;

use chrono::Utc;
use url::Url;

use crate::crawl::credentials::Credentials;
use crate::crawl::fetch::FetchError;
use crate::crawl::scope::{parse_start_url, Scope};
use crate::error::{Error, Result};
use crate::report::spool::{FindingStore, SpooledFindings};
use crate::report::Report;
use crate::scan::events::{Inner, Observer};
use crawl::Crawl;
use page::fetch_page;
use site_facts::ensure_robots;
use start::lock;

/// Runs one scan, its findings going to `store`; returns the report without its
/// findings, and the findings in report order.
pub(crate) async fn run(
    inner: Arc<Inner>,
    start: &str,
    observer: Observer<'_>,
    store: FindingStore,
) -> Result<(Report, SpooledFindings)> {
    let started_at = Utc::now();
    let start_url = parse_start_url(start)?;
    let mut scope = Scope::new(&start_url, &inner.config)?;
    // Credentials belong to the start URL's origin, for the whole scan (also
    // when the start page redirects elsewhere).
    let creds = match &inner.auth {
        Some(auth) => Some(Arc::new(Credentials::new(auth.clone(), &start_url)?)),
        None => None,
    };
    if let Some(c) = &creds {
        scope.exclude_also(c.sign_out_patterns());
    }
    // `_cancel` trips when this scan ends or is dropped.
    let (shared, _cancel, early_notes) = start::start(&inner, &scope, creds.clone()).await?;
    let config = &shared.config;
    tracing::info!(site = %start_url, max_pages = config.max_pages, "scan started");
    let mut crawl = Crawl::new(Arc::clone(&shared), store, early_notes)?;

    // robots.txt of the start host decides whether the scan can run at all.
    if config.respect_robots {
        site_facts::start_robots(&shared, &start_url).await?;
    }

    // Signed in before the first page, so every page is seen signed in.
    if let Some(c) = &creds {
        login::sign_in(&shared, c, &start_url, &scope).await?;
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
    if let Some(problem) = start::start_page_problem(&done.report, cut_at_cap) {
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

    // The site facts: robots.txt as facts, the sitemaps (robots.txt `Sitemap:`
    // lines plus /sitemap.xml), TLS and the probes, as the selection needs.
    let site_root = crawl
        .pages
        .first()
        .and_then(|p| Url::parse(&p.final_url).ok())
        .unwrap_or_else(|| start_url.clone());
    let start_answered = crawl.pages.first().is_some_and(|p| p.status > 0);
    let mut facts = site_facts::gather(
        &shared,
        &inner.selection,
        &scope,
        &start_url,
        &site_root,
        start_answered,
    )
    .await;
    crawl.notes.append(&mut facts.notes);
    for u in &facts.sitemap_urls {
        if let Ok(url) = Url::parse(u) {
            crawl.enqueue(&url, 1, &scope);
        }
    }
    // Site rules judge the site's own URLs only (a sitemap may list other hosts).
    facts.sitemap_urls = std::mem::take(&mut facts.sitemap_urls)
        .into_iter()
        .filter(|u| Url::parse(u).is_ok_and(|url| scope.check(&url).is_ok()))
        .collect();

    crawl.run(&scope, observer).await?;
    let (mut report, findings) = finish::finish(
        crawl,
        finish::Ending {
            inner: &inner,
            shared: &shared,
            scope: &scope,
            observer,
            start_url: &start_url,
            site_root: &site_root,
            started_at,
            facts,
        },
    )
    .await?;
    // The report's own text (notes, pages, the site's URL) without secrets;
    // the findings were scrubbed as they came.
    if let Some(c) = &creds {
        login::scrub_value(c, &mut report);
    }
    Ok((report, findings))
}
