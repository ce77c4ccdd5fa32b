//! `canonical-target`: canonical links point at final, indexable, canonical pages.

use super::{same_url, SiteCheck, SiteIndex, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails canonicals whose crawled target redirects, errors, is noindex or is
/// itself canonicalised elsewhere.
pub struct CanonicalTarget;

static META: RuleMeta = RuleMeta {
    id: "canonical-target",
    category: Category::Seo,
    title: "Canonical URLs point at indexable pages",
    help: "Point canonical links straight at the final URL of an indexable page that is its own canonical.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/canonicalization-troubleshooting",
    impact: Impact::Serious,
    docs: r#"## What it checks
For each page whose canonical URL is another URL that the crawl fetched, the target
must not redirect (seonaut's `ERROR_CANONICAL_REDIRECT`), answer 4xx/5xx
(`ERROR_CANONICAL_ERROR`), be noindex (`ERROR_CANONICALIZED_NON_INDEXABLE`) or
declare yet another canonical (`ERROR_CANONICALIZED_NON_CANONICAL`). Canonicals to
URLs outside the crawl are not judged.

## Why it matters
Search engines ignore a canonical that leads to a redirect, an error or a page that
is not indexable, and may then index the wrong URL — or none.

## Failing
```html
<!-- /mugs?color=blue -->
<link rel="canonical" href="https://example.com/old-mugs">
<!-- /old-mugs
HTTP/1.1 301 Moved Permanently
Location: /mugs -->
<!-- /mugs -->
<h1>Hand-made mugs</h1>
```

## Passing
```html
<!-- /mugs?color=blue -->
<link rel="canonical" href="https://example.com/mugs">
<!-- /mugs -->
<h1>Hand-made mugs</h1>
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for CanonicalTarget {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let index = SiteIndex::new(site);
        for p in &site.pages {
            let Some(c) = p.canonical.as_deref() else {
                continue;
            };
            if same_url(c, &p.final_url) {
                continue;
            }
            let Some(t) = index.get(c) else {
                continue;
            };
            let problem = if !same_url(&t.final_url, c) {
                Some(format!("redirects to {}", t.final_url))
            } else if t.status >= 400 {
                Some(format!("answers {}", t.status))
            } else if t.noindex {
                Some("is noindex".to_string())
            } else if !t.self_canonical() {
                Some(format!(
                    "declares its own canonical {}",
                    t.canonical.as_deref().unwrap_or("")
                ))
            } else {
                None
            };
            match problem {
                None => out.pass(),
                Some(why) => {
                    out.fail(&p.final_url, format!("The canonical URL {c} {why}."));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    fn canon(to: &str) -> String {
        doc("T", "").replace(
            "</title>",
            &format!("</title><link rel=canonical href=\"{to}\">"),
        )
    }

    #[test]
    fn bad_targets() {
        let mut redirected = summary("https://example.com/old", &doc("Mugs", ""));
        redirected.final_url = "https://example.com/mugs".into();
        let mut gone = summary("https://example.com/gone", &doc("Gone", ""));
        gone.status = 404;
        let input = site(vec![
            summary("https://example.com/a", &canon("https://example.com/old")),
            summary("https://example.com/b", &canon("https://example.com/gone")),
            summary("https://example.com/c", &canon("https://example.com/d")),
            summary("https://example.com/d", &canon("https://example.com/mugs")),
            summary("https://example.com/e", &canon("https://example.com/mugs")),
            summary(
                "https://example.com/f",
                &canon("https://elsewhere.example/"),
            ),
            summary(
                "https://example.com/g",
                &canon("https://example.com/hidden"),
            ),
            summary(
                "https://example.com/hidden",
                &doc("Hidden", "").replace(
                    "</title>",
                    r#"</title><meta name="robots" content="noindex">"#,
                ),
            ),
            redirected,
            gone,
        ]);
        assert_eq!(
            run(&CanonicalTarget, &input),
            vec![
                ("https://example.com/a".to_string(), "The canonical URL https://example.com/old redirects to https://example.com/mugs.".to_string()),
                ("https://example.com/b".to_string(), "The canonical URL https://example.com/gone answers 404.".to_string()),
                ("https://example.com/c".to_string(), "The canonical URL https://example.com/d declares its own canonical https://example.com/mugs.".to_string()),
                ("https://example.com/g".to_string(), "The canonical URL https://example.com/hidden is noindex.".to_string()),
            ]
        );
    }
}
