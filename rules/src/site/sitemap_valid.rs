//! `sitemap-valid`: the site has a sitemap, and each sitemap file is well-formed,
//! within the limits and lists only URLs it may list.

use super::facts::{SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS};
use super::{SiteCheck, SiteInput, SiteRule, SitemapSource};
use crate::{Category, Impact, RuleMeta};

/// Judges the sitemap files the scan fetched.
pub struct SitemapValid;

static META: RuleMeta = RuleMeta {
    id: "sitemap-valid",
    category: Category::Seo,
    title: "The site has a valid sitemap",
    help: "Publish an XML sitemap (`<urlset>`, or a `<sitemapindex>` of them) at /sitemap.xml or in a robots.txt `Sitemap:` line, with at most 50,000 URLs and 50 MB per file, listing only URLs of its own host under its folder.",
    help_url: "https://www.sitemaps.org/protocol.html",
    impact: Impact::Moderate,
    docs: r#"## What it checks
The sitemaps the scan found — robots.txt `Sitemap:` lines and `/sitemap.xml`, with
the children of sitemap indexes (up to three levels, fifty files):

- **none found**: no file answered 2xx with a readable sitemap;
- **not a sitemap**: XML that does not parse, a broken gzip stream, or a root
  element other than `<urlset>` / `<sitemapindex>` (plain-text sitemaps, one
  absolute URL per line, are accepted);
- **over the limits** of sitemaps.org: more than 50,000 URLs, or more than 50 MB
  uncompressed;
- **URLs it may not list**: another scheme, host or port than the file, or a path
  outside the file's folder (a sitemap at `/shop/sitemap.xml` may list only
  `/shop/…`);
- **empty**: a `<urlset>` without any `<loc>` (minor);
- **children of an index that fail**: answer an error or cannot be fetched.

What the listed pages are (redirects, errors, noindex, non-canonical, disallowed by
robots.txt) is `sitemap-non-indexable`'s; `Sitemap:` lines of robots.txt that fail
are `robots-txt`'s.

## Why it matters
Search engines drop a sitemap they cannot parse, and ignore the entries it may not
list; a site without a sitemap leaves the discovery of deep or orphan pages to
chance.

## Failing
```html
<!-- / -->
<h1>Example Pottery</h1>
<!-- /sitemap.txt -->
https://example.com/
https://other.example/page
```

## Passing
```html
<!-- / -->
<h1>Example Pottery</h1>
<!-- /sitemap.txt -->
https://example.com/
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

impl SiteRule for SitemapValid {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        if site.sitemaps.is_empty() {
            // The scan did not look for sitemaps (a one-page scan).
            return;
        }
        // A file the scan did not fetch (another host) may well be fine.
        let readable = site.sitemaps.iter().any(|f| f.ok() || f.skipped.is_some());
        if !readable {
            let tried: Vec<&str> = site.sitemaps.iter().map(|f| f.url.as_str()).collect();
            let at = site
                .sitemaps
                .iter()
                .find(|f| f.source == SitemapSource::Conventional)
                .map(|f| f.url.as_str())
                .unwrap_or(tried[0]);
            out.fail_with(
                at,
                format!("No sitemap was found: {} gave none.", tried.join(", ")),
                serde_json::json!({"tried": tried}),
            );
            return;
        }
        for file in site.sitemaps.iter().filter(|f| f.skipped.is_none()) {
            let at = file.url.as_str();
            if !(200..300).contains(&file.status) {
                // Missing conventional files are normal; failing robots.txt lines
                // are robots-txt's. An index's child that fails is this rule's.
                if file.source == SitemapSource::Index {
                    let parent = file.parent.as_deref().unwrap_or("a sitemap index");
                    let why = match (&file.error, file.status) {
                        (Some(e), 0) => format!("cannot be fetched ({e})"),
                        (_, status) => format!("answers {status}"),
                    };
                    out.fail_with(
                        at,
                        format!("The sitemap index {parent} lists {at}, which {why}."),
                        serde_json::json!({"parent": parent, "status": file.status}),
                    );
                }
                continue;
            }
            let mut fine = true;
            if let Some(e) = &file.error {
                fine = false;
                out.fail_with(
                    at,
                    format!("The sitemap {at} is not a valid sitemap: {e}."),
                    serde_json::json!({"error": e}),
                );
            }
            if file.loc_count > SITEMAP_MAX_URLS {
                fine = false;
                out.fail_with(
                    at,
                    format!(
                        "The sitemap {at} lists {} URLs; one file may list at most {SITEMAP_MAX_URLS} (split it and add a sitemap index).",
                        file.loc_count
                    ),
                    serde_json::json!({"urls": file.loc_count}),
                );
            }
            if file.bytes > SITEMAP_MAX_BYTES {
                fine = false;
                out.fail_with(
                    at,
                    format!("The sitemap {at} is larger than 50 MB uncompressed, the most one file may be."),
                    serde_json::json!({"bytes": file.bytes}),
                );
            }
            if file.outside_count > 0 {
                fine = false;
                out.fail_with(
                    at,
                    format!(
                        "The sitemap {at} lists {} URL(s) it may not list (another scheme, host or port, or outside its folder), such as {}.",
                        file.outside_count,
                        file.outside.first().map(String::as_str).unwrap_or("?")
                    ),
                    serde_json::json!({"count": file.outside_count, "urls": file.outside}),
                );
            }
            if file.error.is_none() && file.kind.as_deref() == Some("urlset") && file.loc_count == 0
            {
                fine = false;
                out.fail(at, format!("The sitemap {at} lists no URLs."))
                    .impact = Impact::Minor;
            }
            if fine {
                out.pass();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{run, site};
    use super::super::SitemapFile;
    use super::*;

    fn file(url: &str, source: SitemapSource, status: u16) -> SitemapFile {
        SitemapFile {
            url: url.into(),
            source,
            status,
            kind: (status == 200).then(|| "urlset".to_string()),
            loc_count: 3,
            bytes: 400,
            ..SitemapFile::default()
        }
    }

    fn check(files: Vec<SitemapFile>) -> Vec<(String, String)> {
        let mut input = site(Vec::new());
        input.sitemaps = files;
        run(&SitemapValid, &input)
    }

    #[test]
    fn a_readable_sitemap_passes() {
        assert!(check(vec![file(
            "https://example.com/sitemap.xml",
            SitemapSource::Conventional,
            200
        )])
        .is_empty());
        // One good file is enough; a missing conventional one is normal.
        assert!(check(vec![
            file("https://example.com/s.xml", SitemapSource::Robots, 200),
            file(
                "https://example.com/sitemap.xml",
                SitemapSource::Conventional,
                404
            ),
        ])
        .is_empty());
        // Not looked for: nothing judged.
        assert!(check(Vec::new()).is_empty());
        // Listed in robots.txt on another host: not fetched, not judged absent.
        let mut elsewhere = file("https://cdn.example/s.xml", SitemapSource::Robots, 0);
        elsewhere.skipped = Some("on another host".into());
        assert!(check(vec![
            elsewhere,
            file(
                "https://example.com/sitemap.xml",
                SitemapSource::Conventional,
                404
            ),
        ])
        .is_empty());
    }

    #[test]
    fn no_sitemap_found() {
        assert_eq!(
            check(vec![
                file("https://example.com/s.xml", SitemapSource::Robots, 404),
                file("https://example.com/sitemap.xml", SitemapSource::Conventional, 404),
            ]),
            vec![(
                "https://example.com/sitemap.xml".to_string(),
                "No sitemap was found: https://example.com/s.xml, https://example.com/sitemap.xml gave none.".to_string()
            )]
        );
    }

    #[test]
    fn invalid_files_and_limits() {
        let mut broken = file(
            "https://example.com/sitemap.xml",
            SitemapSource::Conventional,
            200,
        );
        broken.error = Some("the root element is <html>, not <urlset> or <sitemapindex>".into());
        broken.kind = None;
        let mut big = file("https://example.com/big.xml", SitemapSource::Index, 200);
        big.parent = Some("https://example.com/sitemap.xml".into());
        big.loc_count = 50_001;
        big.bytes = SITEMAP_MAX_BYTES + 1;
        big.outside = vec!["https://other.example/a".into()];
        big.outside_count = 2;
        let mut empty = file("https://example.com/empty.xml", SitemapSource::Index, 200);
        empty.loc_count = 0;
        let mut gone = file("https://example.com/gone.xml", SitemapSource::Index, 410);
        gone.parent = Some("https://example.com/sitemap.xml".into());
        let m = |u: &str, s: &str| (u.to_string(), s.to_string());
        assert_eq!(
            check(vec![broken, big, empty, gone]),
            vec![
                m("https://example.com/sitemap.xml", "The sitemap https://example.com/sitemap.xml is not a valid sitemap: the root element is <html>, not <urlset> or <sitemapindex>."),
                m("https://example.com/big.xml", "The sitemap https://example.com/big.xml lists 50001 URLs; one file may list at most 50000 (split it and add a sitemap index)."),
                m("https://example.com/big.xml", "The sitemap https://example.com/big.xml is larger than 50 MB uncompressed, the most one file may be."),
                m("https://example.com/big.xml", "The sitemap https://example.com/big.xml lists 2 URL(s) it may not list (another scheme, host or port, or outside its folder), such as https://other.example/a."),
                m("https://example.com/empty.xml", "The sitemap https://example.com/empty.xml lists no URLs."),
                m("https://example.com/gone.xml", "The sitemap index https://example.com/sitemap.xml lists https://example.com/gone.xml, which answers 410."),
            ]
        );
    }
}
