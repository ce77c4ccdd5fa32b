//! `http-on-https-site`: an HTTPS site serves no pages over plain HTTP.

use super::{SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails `http:` pages of a site whose start page is served over HTTPS.
pub struct HttpOnHttpsSite;

static META: RuleMeta = RuleMeta {
    id: "http-on-https-site",
    category: Category::Seo,
    title: "HTTPS site serves no pages over HTTP",
    help:
        "Redirect every http: URL to its https: version (301) and update internal links to https:.",
    help_url:
        "https://developers.google.com/search/docs/crawling-indexing/http-network-errors#https",
    impact: Impact::Serious,
    docs: r#"## What it checks
When the start page ended up on `https:`, every other crawled page whose final URL is
still `http:` fails (seonaut's `HTTP_SCHEME`): it was linked with `http:` and not
redirected. Sites served only over HTTP are left to `is-on-https`.

## Why it matters
Mixed-scheme sites have two URLs per page; search engines must pick one, links are
split, and visitors land on insecure copies of pages.

## Failing
```html
<!-- https://example.com/ -->
<a href="http://example.com/about">About us</a>
<!-- http://example.com/about -->
<h1>About us</h1>  <!-- answers 200 over HTTP -->
```

## Passing
```html
<!-- https://example.com/ -->
<a href="http://example.com/about">About us</a>
<!-- http://example.com/about
HTTP/1.1 301 Moved Permanently
Location: https://example.com/about -->
<!-- https://example.com/about -->
<h1>About us</h1>
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for HttpOnHttpsSite {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let start_https = site
            .pages
            .iter()
            .find(|p| p.depth == 0)
            .map(|p| p.final_url.starts_with("https:"))
            .unwrap_or_else(|| site.start_url.starts_with("https:"));
        if !start_https {
            return;
        }
        for p in site.pages.iter().filter(|p| p.html) {
            if p.final_url.starts_with("http:") {
                out.fail(
                    &p.final_url,
                    "The page is served over plain HTTP on an HTTPS site.",
                );
            } else {
                out.pass();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn http_pages_on_https_site() {
        let mut home = summary("https://example.com/", &doc("Home", ""));
        home.depth = 0;
        let input = site(vec![
            home,
            summary("http://example.com/about", &doc("About", "")),
        ]);
        assert_eq!(
            run(&HttpOnHttpsSite, &input),
            vec![(
                "http://example.com/about".to_string(),
                "The page is served over plain HTTP on an HTTPS site.".to_string()
            )]
        );
    }
}
