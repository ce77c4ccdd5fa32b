//! `robots-txt`: the site has a robots.txt that crawlers understand, that lets
//! them reach the start page, and whose sitemaps exist.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{key, SiteCheck, SiteInput, SiteRule, SitemapFile, SitemapSource};
use crate::{Category, Impact, Need, RuleMeta};

/// Invalid lines reported one by one; past this many, one finding sums up the rest.
pub const MAX_LINE_FINDINGS: usize = 20;

/// Directives crawlers know (RFC 9309 and the common extensions Lighthouse also
/// accepts); any other is reported as unknown.
const KNOWN: &[&str] = &[
    "user-agent",
    "allow",
    "disallow",
    "sitemap",
    "crawl-delay",
    "clean-param",
    "host",
    "request-rate",
    "visit-time",
    "noindex",
];

/// Validates robots.txt: its status, its lines, the start page and its sitemaps.
pub struct RobotsTxt;

static META: RuleMeta = RuleMeta {
    id: "robots-txt",
    category: Category::Seo,
    title: "robots.txt is valid and does not block the site",
    help: "Serve a robots.txt (200, plain text) whose lines are `User-agent`, `Allow`, `Disallow`, `Sitemap` or `Crawl-delay` directives, that does not disallow the start page, and whose `Sitemap:` URLs exist.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt",
    impact: Impact::Serious,
    needs: &[Need::Robots],
    docs: r#"## What it checks
robots.txt of the start page's origin, fetched once per scan (even when the crawl
is told to ignore it):

- **missing** (4xx): fails with minor impact — crawlers then crawl everything, but
  there is no place to announce the sitemap or keep them out of private areas;
- **server error or unreachable** (5xx, no answer): fails as critical — RFC 9309 tells
  crawlers to treat the whole site as disallowed until it answers;
- **invalid lines**, each with its line number (as Lighthouse's `robots-txt`): no
  `:`, an unknown directive, `Allow`/`Disallow` before any `User-agent`, an empty
  `User-agent`, a pattern that is not empty and does not start with `/` or `*`, a `$`
  that is not at the end, a `Sitemap` that is not an absolute http(s) or ftp URL.
  At most 20 lines are reported one by one, then one finding counts the rest;
- the **start page disallowed** for Googlebot or Bingbot (their own group, else the
  `*` group): critical, search engines cannot crawl the site from its home page.
  When robots.txt keeps sitescan out of the start page too, the scan cannot start
  while it obeys robots.txt; scanned with robots.txt ignored (`--ignore-robots`,
  for sites you own), robots.txt is still read — not obeyed — and this is reported;
- **`Sitemap:` URLs that fail**: a listed sitemap that answers an error or cannot be
  fetched (redirects are followed, as crawlers do; what is wrong inside a sitemap is
  `sitemap-valid`'s).

Sitemap entries that robots.txt disallows are reported by `sitemap-non-indexable`.

## Why it matters
A robots.txt that answers 5xx or disallows `/` removes a site from search results; a
typo (`Dissallow`) silently leaves private areas crawlable; a `Sitemap:` line that
points at nothing wastes the one place crawlers look for it.

## Failing
```html
<!-- /robots.txt -->
User-agent: *
Dissallow: /admin
Disallow: /
Sitemap: /sitemap.xml
```

## Passing
```html
<!-- /robots.txt -->
User-agent: *
Disallow: /admin/
Sitemap: https://example.com/sitemap.xml
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// One line of robots.txt that crawlers do not understand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidLine {
    /// 1-based line number.
    pub line: usize,
    /// The line as written (trimmed).
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

/// Every line of a robots.txt that crawlers do not understand, in order.
pub fn invalid_lines(body: &str) -> Vec<InvalidLine> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let mut out = Vec::new();
    let mut in_group = false;
    // Lines end at `\n`, `\r\n` or a lone `\r`, counted as editors count them.
    let mut number = 0usize;
    let mut rest = body;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let raw = &rest[..end];
        rest = &rest[end..];
        if let Some(r) = rest.strip_prefix("\r\n") {
            rest = r;
        } else if !rest.is_empty() {
            rest = &rest[1..];
        }
        number += 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut bad = |reason: String| {
            out.push(InvalidLine {
                line: number,
                text: raw.trim().to_string(),
                reason,
            })
        };
        let Some((directive, value)) = content.split_once(':') else {
            bad("no `:` after the directive".to_string());
            continue;
        };
        let directive = directive.trim().to_ascii_lowercase();
        let value = value.trim();
        if !KNOWN.contains(&directive.as_str()) {
            bad(format!("unknown directive `{directive}`"));
            continue;
        }
        match directive.as_str() {
            "user-agent" => {
                if value.is_empty() {
                    bad("`User-agent` names no agent".to_string());
                }
                in_group = true;
            }
            "allow" | "disallow" => {
                if !in_group {
                    bad(format!("`{directive}` comes before any `User-agent` line"));
                } else if !value.is_empty() && !value.starts_with('/') && !value.starts_with('*') {
                    bad("a pattern must be empty or start with `/` or `*`".to_string());
                } else if value.find('$').is_some_and(|at| at + 1 != value.len()) {
                    bad("`$` may only end a pattern".to_string());
                }
            }
            "sitemap" => match url::Url::parse(value) {
                Ok(u) if matches!(u.scheme(), "http" | "https" | "ftp") => {}
                Ok(u) => bad(format!(
                    "the sitemap URL's scheme `{}` is not http(s)",
                    u.scheme()
                )),
                Err(_) => bad("the sitemap URL is not an absolute URL".to_string()),
            },
            _ => {}
        }
    }
    out
}

/// The values of the `Sitemap:` lines that are absolute URLs, in order.
pub fn sitemap_lines(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|l| {
            let content = l.split('#').next().unwrap_or("").trim();
            let (d, v) = content.split_once(':')?;
            d.trim()
                .eq_ignore_ascii_case("sitemap")
                .then(|| v.trim().to_string())
        })
        .filter(|v| url::Url::parse(v).is_ok())
        .collect()
}

impl SiteRule for RobotsTxt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let Some(robots) = &site.robots else {
            return;
        };
        let at = robots.url.as_str();
        if let Some(e) = &robots.error {
            out.fail(
                at,
                format!("robots.txt could not be fetched ({e}): crawlers treat the whole site as disallowed until it can."),
            );
            return;
        }
        match robots.status {
            200..=299 => out.pass(),
            400..=499 => {
                out.fail_with(
                    at,
                    format!("There is no robots.txt ({at} answers {}): crawlers may fetch everything, and no sitemap is announced.", robots.status),
                    serde_json::json!({"status": robots.status}),
                )
                .impact = Impact::Minor;
                return;
            }
            status => {
                out.fail_with(
                    at,
                    format!("robots.txt answers {status}: crawlers treat the whole site as disallowed until it answers (RFC 9309)."),
                    serde_json::json!({"status": status}),
                )
                .impact = Impact::Critical;
                return;
            }
        }

        let invalid = invalid_lines(&robots.body);
        for bad in invalid.iter().take(MAX_LINE_FINDINGS) {
            out.fail_with(
                at,
                format!(
                    "robots.txt line {}: {}: `{}`.",
                    bad.line, bad.reason, bad.text
                ),
                serde_json::json!({"line": bad.line, "text": bad.text}),
            );
        }
        if invalid.len() > MAX_LINE_FINDINGS {
            out.fail(
                at,
                format!(
                    "robots.txt has {} more lines that crawlers do not understand.",
                    invalid.len() - MAX_LINE_FINDINGS
                ),
            );
        }
        if invalid.is_empty() {
            out.pass();
        }

        // The start page, as the crawl found it, when robots.txt is its origin's.
        let start = site
            .pages
            .first()
            .map(|p| &*p.final_url)
            .unwrap_or(site.start_url.as_str());
        let same_origin = match (url::Url::parse(start), url::Url::parse(at)) {
            (Ok(s), Ok(r)) => s.origin() == r.origin(),
            _ => false,
        };
        if same_origin {
            match robots.blocks_search(start) {
                Some(agent) => {
                    out.fail_with(
                        at,
                        format!("robots.txt disallows the start page {start} for {agent}: search engines cannot crawl the site from it."),
                        serde_json::json!({"url": start, "agent": agent}),
                    )
                    .impact = Impact::Critical;
                }
                None => out.pass(),
            }
        }

        // The fetched files robots.txt announced, by normal URL (first one
        // wins): a 500 KiB file can hold tens of thousands of `Sitemap:` lines,
        // and comparing each with every fetched file was their product.
        let mut fetched: HashMap<Cow<'_, str>, &SitemapFile> = HashMap::new();
        for f in site
            .sitemaps
            .iter()
            .filter(|f| f.source == SitemapSource::Robots)
        {
            fetched
                .entry(key(&f.url).unwrap_or(Cow::Borrowed(&f.url)))
                .or_insert(f);
        }
        for listed in sitemap_lines(&robots.body) {
            let Some(file) = fetched
                .get(&*key(&listed).unwrap_or(Cow::Borrowed(&listed)))
                .copied()
            else {
                continue;
            };
            if file.skipped.is_some() {
                continue;
            }
            // Inside a fetched file, errors are sitemap-valid's; redirects are
            // followed by crawlers, so they are fine here.
            let problem = if let Some(e) = &file.error {
                (file.status == 0).then(|| format!("cannot be fetched ({e})"))
            } else if !(200..300).contains(&file.status) {
                Some(format!("answers {}", file.status))
            } else {
                None
            };
            match problem {
                Some(why) => {
                    out.fail_with(
                        at,
                        format!("robots.txt lists the sitemap {listed}, which {why}."),
                        serde_json::json!({"sitemap": listed, "status": file.status}),
                    );
                }
                None => out.pass(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::super::{RobotsFacts, SiteInput, SitemapFile};
    use super::*;

    fn with_robots(status: u16, body: &str) -> SiteInput {
        let mut input = site(vec![summary("https://example.com/", &doc("Home", ""))]);
        input.robots = Some(RobotsFacts {
            url: "https://example.com/robots.txt".into(),
            status,
            error: None,
            body: body.into(),
        });
        input
    }

    fn messages(input: &SiteInput) -> Vec<String> {
        run(&RobotsTxt, input)
            .into_iter()
            .map(|(url, m)| {
                assert_eq!(url, "https://example.com/robots.txt");
                m
            })
            .collect()
    }

    #[test]
    fn a_valid_file_passes() {
        let body = "# hello\nUser-agent: *\nDisallow: /admin/\nAllow: /*.css$\nCrawl-delay: 1\n\nSitemap: https://example.com/sitemap.xml\n";
        let mut input = with_robots(200, body);
        input.sitemaps.push(SitemapFile {
            url: "https://example.com/sitemap.xml".into(),
            source: SitemapSource::Robots,
            status: 200,
            kind: Some("urlset".into()),
            ..SitemapFile::default()
        });
        assert!(messages(&input).is_empty());
        let (tallies, _, _) = super::super::analyze_site(&input, &[&RobotsTxt]);
        assert_eq!(tallies[0].passed, 4);
    }

    #[test]
    fn invalid_lines_with_numbers() {
        let body = "Disallow: /early\r\nUser-agent: *\r\nDissallow: /admin\r\nDisallow: admin\r\nDisallow: /a$b\r\nUser-agent:\r\njust words\r\nSitemap: /sitemap.xml\r\nSitemap: mailto:x@example.com\r\n";
        assert_eq!(
            messages(&with_robots(200, body)),
            vec![
                "robots.txt line 1: `disallow` comes before any `User-agent` line: `Disallow: /early`.",
                "robots.txt line 3: unknown directive `dissallow`: `Dissallow: /admin`.",
                "robots.txt line 4: a pattern must be empty or start with `/` or `*`: `Disallow: admin`.",
                "robots.txt line 5: `$` may only end a pattern: `Disallow: /a$b`.",
                "robots.txt line 6: `User-agent` names no agent: `User-agent:`.",
                "robots.txt line 7: no `:` after the directive: `just words`.",
                "robots.txt line 8: the sitemap URL is not an absolute URL: `Sitemap: /sitemap.xml`.",
                "robots.txt line 9: the sitemap URL's scheme `mailto` is not http(s): `Sitemap: mailto:x@example.com`.",
            ]
        );
        let many = "User-agent: *\n".to_string() + &"<p>html</p>\n".repeat(25);
        let got = messages(&with_robots(200, &many));
        assert_eq!(got.len(), MAX_LINE_FINDINGS + 1);
        assert_eq!(
            got.last().unwrap(),
            "robots.txt has 5 more lines that crawlers do not understand."
        );
    }

    #[test]
    fn missing_and_failing_files() {
        assert_eq!(
            messages(&with_robots(404, "")),
            vec!["There is no robots.txt (https://example.com/robots.txt answers 404): crawlers may fetch everything, and no sitemap is announced."]
        );
        assert_eq!(
            messages(&with_robots(503, "")),
            vec!["robots.txt answers 503: crawlers treat the whole site as disallowed until it answers (RFC 9309)."]
        );
        let mut unreachable = with_robots(0, "");
        unreachable.robots.as_mut().unwrap().error = Some("timed out".into());
        assert_eq!(
            messages(&unreachable),
            vec!["robots.txt could not be fetched (timed out): crawlers treat the whole site as disallowed until it can."]
        );
        // No robots facts: nothing judged.
        assert!(run(&RobotsTxt, &site(Vec::new())).is_empty());
    }

    #[test]
    fn blocked_start_page_and_broken_sitemap_lines() {
        let body = "User-agent: *\nDisallow: /\n\nUser-agent: sitescan\nAllow: /\n\nSitemap: https://example.com/gone.xml\nSitemap: https://example.com/moved.xml\n";
        let mut input = with_robots(200, body);
        input.sitemaps = vec![
            SitemapFile {
                url: "https://example.com/gone.xml".into(),
                source: SitemapSource::Robots,
                status: 404,
                ..SitemapFile::default()
            },
            SitemapFile {
                url: "https://example.com/moved.xml".into(),
                source: SitemapSource::Robots,
                status: 0,
                error: Some("connection failed: refused".into()),
                ..SitemapFile::default()
            },
        ];
        assert_eq!(
            messages(&input),
            vec![
                "robots.txt disallows the start page https://example.com/ for googlebot: search engines cannot crawl the site from it.",
                "robots.txt lists the sitemap https://example.com/gone.xml, which answers 404.",
                "robots.txt lists the sitemap https://example.com/moved.xml, which cannot be fetched (connection failed: refused).",
            ]
        );
    }
}
