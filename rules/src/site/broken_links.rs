//! `broken-links`: links lead somewhere.

use super::{report_link_statuses, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails links whose target answers 4xx/5xx or cannot be reached.
pub struct BrokenLinks;

static META: RuleMeta = RuleMeta {
    id: "broken-links",
    category: Category::Quality,
    title: "Links are not broken",
    help:
        "Fix or remove links whose target is gone or failing; point moved pages at their new URL.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/http-network-errors",
    impact: Impact::Serious,
    docs: r#"## What it checks
Every `<a href>` / `<area href>` to an `http(s)` URL on a crawled page. Links to
pages the crawl fetched keep the status the crawl saw; links to other pages of the
scanned site that the crawl chose not to fetch (page limit, depth, robots.txt,
nofollow) are not requested and not judged. Links to other sites are checked once per
scan (results cached per URL) with `HEAD`, falling back to `GET` when `HEAD` is
refused or fails, following redirects, under the same per-host politeness and
private-address guard as the crawl. A final status of 400 or more fails (accepted
statuses are configurable: `sitescan scan --accept 200..=299,403`, the API's
`config.accept`); no answer at all (DNS, connection, TLS,
timeout, redirect loop) fails as unreachable. A `429 Too Many Requests` that persists
after honouring `Retry-After` is reported as **rate limited**, needing review — never
as broken. One finding per page and target.

## Why it matters
Broken links frustrate visitors, waste crawl budget and make a site look abandoned.

## Failing
```html
<a href="https://example.com/old-page">Our old offer</a>  <!-- answers 404 -->
```

## Passing
```html
<a href="https://example.com/offers">Current offers</a>  <!-- answers 200 -->
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for BrokenLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_link_statuses(site, out, "link to", |p| &p.links);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, site, summary};
    use super::super::{analyze_site, LinkStatus};
    use super::*;
    use crate::Outcome;

    #[test]
    fn statuses_become_findings() {
        let mut input = site(vec![summary(
            "https://example.com/",
            &doc(
                "Home",
                r#"<a href="/ok">ok</a><a href="/gone">gone</a><a href="https://slow.example/">slow</a>
                   <a href="https://busy.example/">busy</a><a href="http://10.0.0.1/">private</a><a href="/unchecked">x</a>"#,
            ),
        )]);
        let st = |s: LinkStatus| s;
        input.link_status.insert(
            "https://example.com/ok".into(),
            st(LinkStatus::Ok { status: 200 }),
        );
        input.link_status.insert(
            "https://example.com/gone".into(),
            LinkStatus::Broken { status: 404 },
        );
        input.link_status.insert(
            "https://slow.example/".into(),
            LinkStatus::Unreachable {
                reason: "timed out".into(),
            },
        );
        input
            .link_status
            .insert("https://busy.example/".into(), LinkStatus::RateLimited);
        input.link_status.insert(
            "http://10.0.0.1/".into(),
            LinkStatus::Skipped {
                reason: "private address".into(),
            },
        );
        let (tallies, findings, _) = analyze_site(&input, &[&BrokenLinks]);
        let got: Vec<(Outcome, &str)> = findings
            .iter()
            .map(|f| (f.outcome, f.message.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Outcome::Failed, "The link to https://example.com/gone is broken: it answers 404."),
                (Outcome::Failed, "The link to https://slow.example/ cannot be reached: timed out."),
                (Outcome::CantTell, "The link to https://busy.example/ could not be checked: the server rate limited the scan (429)."),
            ]
        );
        assert_eq!(
            (tallies[0].passed, tallies[0].failed, tallies[0].cant_tell),
            (1, 2, 1)
        );
    }
}
