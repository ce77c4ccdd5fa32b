//! `unreachable-page`: every crawled URL gives an answer (no timeout, redirect loop
//! or failed connection).

use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails crawled URLs whose fetch ended without an HTTP answer to analyse.
///
/// A site rule rather than a page rule because such pages have no document for the
/// page rules to run on: the crawl records the fetch error in the page summary.
pub struct UnreachablePage;

static META: RuleMeta = RuleMeta {
    id: "unreachable-page",
    category: Category::Seo,
    title: "Crawled pages answer without timeouts or redirect loops",
    help: "Make slow pages answer within the timeout, break redirect loops, cap redirect chains and fix hosts that refuse connections.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/http-network-errors#network-and-dns-errors",
    impact: Impact::Critical,
    docs: r#"## What it checks
Each URL the crawl fetched (linked from a crawled page, listed in a sitemap, or the
start URL) must end in an HTTP answer. It fails when the fetch
- timed out (the scan's `--timeout`; seonaut's `ERROR_TIMEOUT`),
- hit a redirect loop (a `Location` pointing back into its own chain; seonaut's
  `ERROR_REDIRECT_LOOP`) or more redirects than the crawl follows,
- got a redirect without a usable `Location`, or no connection at all.

The finding's message names the error as the report's `pages[].error` does. Pages
that answer with 4xx/5xx statuses are `http-status-code`'s; long redirect chains that
do end are `redirect-chain`'s.

## Why it matters
Search engines drop URLs that time out or loop, and visitors following the link see
a browser error instead of a page.

## Failing
```html
<!-- / -->
<a href="/loop-a">Offers</a>
<!-- /loop-a
fetch error: redirect loop -->
<!-- /loop-a answers 301 to /loop-b, which answers 302 to /loop-a -->
```

## Passing
```html
<!-- / -->
<a href="/old">Offers</a>
<!-- /old
HTTP/1.1 301 Moved Permanently
Location: /new -->
<!-- /new -->
<h1>Offers</h1>  <!-- answers 200 within the timeout -->
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for UnreachablePage {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        for p in &site.pages {
            match &p.fetch_error {
                Some(e) => {
                    out.fail(&p.url, format!("The page could not be fetched: {e}."));
                }
                None => out.pass(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;
    use crate::site::PageSummary;

    #[test]
    fn timeouts_and_loops_fail() {
        let failed = |url: &str, error: &str| PageSummary {
            url: url.into(),
            final_url: url.into(),
            fetch_error: Some(error.into()),
            ..PageSummary::default()
        };
        let input = site(vec![
            summary("https://example.com/", &doc("Home", "")),
            failed("https://example.com/slow", "timed out"),
            failed("https://example.com/loop-a", "redirect loop"),
        ]);
        assert_eq!(
            run(&UnreachablePage, &input),
            vec![
                (
                    "https://example.com/slow".to_string(),
                    "The page could not be fetched: timed out.".to_string()
                ),
                (
                    "https://example.com/loop-a".to_string(),
                    "The page could not be fetched: redirect loop.".to_string()
                ),
            ]
        );
    }

    #[test]
    fn answered_pages_pass() {
        let mut gone = summary("https://example.com/gone", &doc("Gone", ""));
        gone.status = 404;
        let input = site(vec![
            summary("https://example.com/", &doc("Home", "")),
            gone,
        ]);
        assert_eq!(run(&UnreachablePage, &input), vec![]);
    }
}
