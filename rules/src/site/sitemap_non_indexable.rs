//! `sitemap-non-indexable`: the sitemap lists only indexable, canonical pages.

use std::borrow::Cow;
use std::collections::HashSet;

use super::{key, same_url, SiteCheck, SiteIndex, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// Fails sitemap URLs that redirect, error, are noindex or not canonical.
pub struct SitemapNonIndexable;

static META: RuleMeta = RuleMeta {
    id: "sitemap-non-indexable",
    category: Category::Seo,
    title: "Sitemap lists only indexable pages",
    help: "List only final (non-redirecting), 200, indexable, self-canonical URLs that robots.txt allows in the sitemap.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/sitemaps/build-sitemap",
    impact: Impact::Moderate,
    needs: &[Need::Robots],
    docs: r#"## What it checks
Each sitemap URL must be open to search engines: robots.txt must not disallow it
for Googlebot or Bingbot (seonaut's `BLOCKED_IN_SITEMAP`; judged whether or not the
crawl fetched it). Each sitemap URL that the crawl fetched must be indexable: it
does not redirect, answers 2xx, is not noindex (seonaut's `NO_INDEX_IN_SITEMAP`)
and is its own canonical (`NON_CANONICAL_IN_SITEMAP`). Other sitemap URLs the crawl
did not reach are not judged here; whether the sitemap file itself is valid is
`sitemap-valid`'s.

## Why it matters
A sitemap is a list of the pages you want indexed. Entries that contradict
themselves (listed but noindex, listed but canonicalised elsewhere) make search
engines trust the whole sitemap less.

## Failing
```html
<!-- / -->
<a href="/cart">Cart</a>
<!-- /cart -->
<meta name="robots" content="noindex">
<!-- /sitemap.txt -->
https://example.com/cart
```

## Passing
```html
<!-- / -->
<a href="/mugs">Mugs</a>
<!-- /mugs -->
<h1>Hand-made mugs</h1>  <!-- 200, indexable, canonical to itself -->
<!-- /sitemap.txt -->
https://example.com/mugs
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for SitemapNonIndexable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let index = SiteIndex::new(site);
        // robots.txt is read once here, not per URL: a sitemap lists up to
        // 50,000 URLs per file.
        let robots = site
            .robots
            .as_ref()
            .filter(|r| r.found())
            .map(|r| r.search_access());
        // Entries are deduplicated by their normal form (what `same_url`
        // compares), in a set: comparing each with every earlier one was
        // quadratic in the sitemap's size.
        let mut seen: HashSet<Cow<'_, str>> = HashSet::with_capacity(site.sitemap_urls.len());
        for u in &site.sitemap_urls {
            if !seen.insert(key(u).unwrap_or(Cow::Borrowed(u))) {
                continue;
            }
            let blocked = robots.as_ref().and_then(|r| r.blocks(u));
            if let Some(agent) = blocked {
                out.fail(
                    u,
                    format!("The sitemap lists this URL, but robots.txt disallows it for {agent}."),
                );
                continue;
            }
            let Some(p) = index.get(u) else {
                continue;
            };
            let problem = if !same_url(&p.final_url, u) {
                Some(format!("redirects to {}", p.final_url))
            } else if !(200..300).contains(&p.status) {
                Some(format!("answers {}", p.status))
            } else if p.noindex {
                Some("is noindex".to_string())
            } else if !p.self_canonical() {
                Some(format!(
                    "is canonicalised to {}",
                    p.canonical.as_deref().unwrap_or("")
                ))
            } else {
                None
            };
            match problem {
                None => out.pass(),
                Some(why) => {
                    out.fail(u, format!("The sitemap lists this URL, but it {why}."));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::super::RobotsFacts;
    use super::*;

    #[test]
    fn entries_robots_txt_disallows() {
        let mut input = site(vec![summary("https://example.com/mugs", &doc("Mugs", ""))]);
        input.sitemap_urls = vec![
            "https://example.com/mugs".into(),
            "https://example.com/private/report".into(),
        ];
        input.robots = Some(RobotsFacts {
            url: "https://example.com/robots.txt".into(),
            status: 200,
            error: None,
            body: "User-agent: *\nDisallow: /private/\n".into(),
        });
        assert_eq!(
            run(&SitemapNonIndexable, &input),
            vec![(
                "https://example.com/private/report".to_string(),
                "The sitemap lists this URL, but robots.txt disallows it for googlebot."
                    .to_string()
            )]
        );
        // A robots.txt that answers 5xx is robots-txt's finding, not one per entry.
        input.robots.as_mut().unwrap().status = 503;
        assert!(run(&SitemapNonIndexable, &input).is_empty());
    }

    #[test]
    fn an_entry_listed_twice_is_judged_once() {
        let mut input = site(vec![summary("https://example.com/mugs", &doc("Mugs", ""))]);
        // The same URL as written three ways (fragment, host case, default
        // port), and one that does not parse, twice.
        input.sitemap_urls = vec![
            "https://example.com/private/a".into(),
            "https://example.com/private/a#top".into(),
            "https://EXAMPLE.com:443/private/a".into(),
            "https://example.com/mugs".into(),
            "/private/b".into(),
            "/private/b".into(),
        ];
        input.robots = Some(RobotsFacts {
            url: "https://example.com/robots.txt".into(),
            status: 200,
            error: None,
            body: "User-agent: *\nDisallow: /private/\n".into(),
        });
        let blocked = "The sitemap lists this URL, but robots.txt disallows it for googlebot.";
        assert_eq!(
            run(&SitemapNonIndexable, &input),
            vec![
                (
                    "https://example.com/private/a".to_string(),
                    blocked.to_string()
                ),
                ("/private/b".to_string(), blocked.to_string()),
            ]
        );
    }

    #[test]
    fn non_indexable_entries() {
        let noindex = doc("Cart", "").replace(
            "</title>",
            r#"</title><meta name="robots" content="noindex">"#,
        );
        let canon = doc("V", "").replace(
            "</title>",
            r#"</title><link rel="canonical" href="https://example.com/mugs">"#,
        );
        let mut input = site(vec![
            summary("https://example.com/mugs", &doc("Mugs", "")),
            summary("https://example.com/cart", &noindex),
            summary("https://example.com/mugs?v=2", &canon),
        ]);
        input.sitemap_urls = vec![
            "https://example.com/mugs".into(),
            "https://example.com/cart".into(),
            "https://example.com/mugs?v=2".into(),
            "https://example.com/unknown".into(),
        ];
        assert_eq!(
            run(&SitemapNonIndexable, &input),
            vec![
                ("https://example.com/cart".to_string(), "The sitemap lists this URL, but it is noindex.".to_string()),
                ("https://example.com/mugs?v=2".to_string(), "The sitemap lists this URL, but it is canonicalised to https://example.com/mugs.".to_string()),
            ]
        );
    }
}
