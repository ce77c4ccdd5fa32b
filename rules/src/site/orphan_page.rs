//! `orphan-page`: pages in the sitemap are linked from the site.

use std::collections::HashSet;

use super::{SiteCheck, SiteIndex, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails sitemap URLs that no crawled page links to.
pub struct OrphanPage;

static META: RuleMeta = RuleMeta {
    id: "orphan-page",
    category: Category::Seo,
    title: "Pages in the sitemap are linked from the site",
    help: "Link every page you want found from at least one other page (navigation, category or related links), or drop it from the sitemap.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/links-crawlable",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Every URL listed in the site's sitemaps (other than the start URL) must be the
target of at least one `<a href>` on a crawled page other than itself (seonaut's
`ERROR_ORPHAN`). URLs are compared after parsing, fragments removed. The finding is
attributed to the orphaned URL. Only links on pages the crawl reached count, so a
crawl cut short by a page limit can report pages as orphans that are linked from
uncrawled pages; the report's `truncated` flag says so.

## Why it matters
Pages reachable only through the sitemap get no internal link equity, rank poorly,
and visitors never find them by browsing.

## Failing
```html
<!-- / -->
<a href="/offers">Offers</a>
<!-- /sitemap.txt -->
https://example.com/offers
https://example.com/old-offer
```

## Passing
```html
<!-- / -->
<a href="/offers">Offers</a>
<!-- /offers -->
<a href="/old-offer">Last season's offer</a>
<!-- /sitemap.txt -->
https://example.com/offers
https://example.com/old-offer
```
"#,
    ..RuleMeta::BASE
};

fn norm(u: &str) -> String {
    url::Url::parse(u)
        .map(|mut u| {
            u.set_fragment(None);
            u.to_string()
        })
        .unwrap_or_else(|_| u.to_string())
}

impl SiteRule for OrphanPage {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        // Every URL is parsed once (`norm`) and pages are found through an index:
        // comparing with `same_url` per link and scanning the pages per sitemap URL
        // made this rule quadratic and the slowest site rule on large sites.
        let mut linked: HashSet<String> = HashSet::new();
        for p in &site.pages {
            let own = [norm(&p.final_url), norm(&p.url)];
            for l in &p.links {
                let n = norm(l);
                if !own.contains(&n) {
                    linked.insert(n);
                }
            }
        }
        let index = SiteIndex::new(site);
        let start = norm(&site.start_url);
        let mut seen = HashSet::new();
        for u in &site.sitemap_urls {
            let n = norm(u);
            if n == start || !seen.insert(n.clone()) {
                continue;
            }
            // A page reached through a redirect counts as linked when either URL is.
            let is_linked = linked.contains(&n)
                || index
                    .get(u)
                    .is_some_and(|p| linked.contains(&norm(&p.final_url)));
            if is_linked {
                out.pass();
            } else {
                out.fail(
                    u,
                    "The page is in the sitemap but no crawled page links to it.",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn sitemap_pages_without_links_are_orphans() {
        let mut input = site(vec![
            summary(
                "https://example.com/",
                &doc("Home", r#"<a href="/a">A</a>"#),
            ),
            summary(
                "https://example.com/a",
                &doc("A", r#"<a href="/a#top">self</a>"#),
            ),
            summary(
                "https://example.com/b",
                &doc("B", r#"<a href="/b">self</a>"#),
            ),
        ]);
        input.sitemap_urls = vec![
            "https://example.com/".into(),
            "https://example.com/a".into(),
            "https://example.com/b".into(),
            "https://example.com/c".into(),
        ];
        let got = run(&OrphanPage, &input);
        assert_eq!(
            got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
            vec!["https://example.com/b", "https://example.com/c"]
        );
    }
}
