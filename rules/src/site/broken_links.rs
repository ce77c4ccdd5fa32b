//! `broken-links`: links lead somewhere.

use std::collections::HashMap;
use std::sync::Arc;

use super::{LinkStatus, SiteCheck, SiteInput, SiteRule};
use crate::context::{Occurrence, MAX_OCCURRENCES};
use crate::{Category, Impact, Outcome, Need, RuleMeta};

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
    needs: &[Need::LinkStatus, Need::LinkPlaces],
    docs: r#"## What it checks
Every `<a href>` / `<area href>` to an `http(s)` URL on a crawled page. Links to
pages the crawl fetched keep the status the crawl saw; links to other pages of the
scanned site that the crawl chose not to fetch (page limit, depth, robots.txt,
nofollow) are not requested and not judged. Links to other sites are checked once per
scan (results cached per URL) with `HEAD`, asked again with `GET` only when the
answer to `HEAD` is one servers give when they mishandle it (400, 403, 405, 406,
500, 501, 999, or a broken response), following redirects, under the same per-host
politeness and private-address guard as the crawl. A final status of 400 or more
fails (accepted statuses are configurable: `sitescan scan --accept 200..=299,403`,
the API's `config.accept`); no answer at all (DNS, connection, TLS, timeout,
redirect loop) fails as unreachable. A host whose DNS lookup or connection fails is
tried once: that failure answers for all its links. When most hosts fail so, the
network of the scan looks unreachable (a machine without outside network): their
links are then counted as not checked (`stats.skipped.network`, and a note), not
reported. A `429 Too Many Requests` that persists after honouring `Retry-After` is
reported as **rate limited**, needing review — never as broken.

One finding per broken target URL, however many pages link to it: its
`occurrences` list every place that links there (page, selector, snippet and link
text; at most 100, `occurrences_total` counting all), and its own page, selector
and snippet are the first of them. The rule applies to a page that has at least
one checked link; the page fails when one of them is broken.

## Why it matters
Broken links frustrate visitors, waste crawl budget and make a site look abandoned.

## Failing
```html
<!-- / -->
<a href="https://example.com/old-page">Our old offer</a>
<!-- https://example.com/old-page
HTTP/1.1 404 Not Found -->
```

## Passing
```html
<!-- / -->
<a href="https://example.com/offers">Current offers</a>
<!-- https://example.com/offers
HTTP/1.1 200 OK -->
```
"#,
    ..RuleMeta::BASE
};

/// One failing target and the places linking to it.
struct Target<'s> {
    url: &'s Arc<str>,
    status: &'s LinkStatus,
    /// Places by page only (when the engine gave no places for the target).
    pages: Vec<&'s str>,
    /// Every link to it, across pages.
    total: u64,
    /// Distinct pages linking to it.
    page_count: u64,
}

impl SiteRule for BrokenLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let mut targets: Vec<Target<'_>> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut seen_pages = std::collections::HashSet::new();
        for p in &site.pages {
            if !seen_pages.insert(&*p.final_url) {
                continue;
            }
            let (mut checked, mut failed, mut review) = (false, false, false);
            let mut on_this_page: Vec<usize> = Vec::new();
            for u in &p.links {
                let status = match site.link_status.get(&**u) {
                    None | Some(LinkStatus::Skipped { .. }) => continue,
                    Some(LinkStatus::Ok { .. }) => {
                        checked = true;
                        continue;
                    }
                    Some(s @ (LinkStatus::Broken { .. } | LinkStatus::Unreachable { .. })) => {
                        checked = true;
                        failed = true;
                        s
                    }
                    Some(s @ LinkStatus::RateLimited) => {
                        review = true;
                        s
                    }
                };
                let i = *index.entry(&**u).or_insert_with(|| {
                    targets.push(Target {
                        url: u,
                        status,
                        pages: Vec::new(),
                        total: 0,
                        page_count: 0,
                    });
                    targets.len() - 1
                });
                let t = &mut targets[i];
                t.total += 1;
                if !on_this_page.contains(&i) {
                    on_this_page.push(i);
                    t.page_count += 1;
                }
                if t.pages.len() < MAX_OCCURRENCES {
                    t.pages.push(&p.final_url);
                }
            }
            // Applicability counts pages: one with a checked link passes or
            // fails as a whole; one whose only answers were 429 needs review.
            if failed {
                out.count(Outcome::Failed);
            } else if checked {
                out.count(Outcome::Passed);
            } else if review {
                out.count(Outcome::CantTell);
            }
        }
        for t in targets {
            report(site, out, t);
        }
    }
}

/// The one finding of a failing target.
fn report(site: &SiteInput, out: &mut SiteCheck, t: Target<'_>) {
    let u = &**t.url;
    let mut occurrences: Vec<Occurrence> = match site.link_places.get(u) {
        Some(places) if !places.is_empty() => {
            places.iter().take(MAX_OCCURRENCES).cloned().collect()
        }
        _ => t
            .pages
            .iter()
            .map(|p| Occurrence {
                page_url: (*p).to_string(),
                selector: String::new(),
                snippet: String::new(),
                text: None,
            })
            .collect(),
    };
    let Some(first) = occurrences.first().cloned() else {
        return;
    };
    let spread = if t.total > 1 {
        format!(
            " It is linked {} times from {} page(s).",
            t.total, t.page_count
        )
    } else {
        String::new()
    };
    let (outcome, message, mut data) = match t.status {
        LinkStatus::Broken { status } => (
            Outcome::Failed,
            format!("The link to {u} is broken: it answers {status}.{spread}"),
            serde_json::json!({"url": u, "status": status}),
        ),
        LinkStatus::Unreachable { reason } => (
            Outcome::Failed,
            format!("The link to {u} cannot be reached: {reason}.{spread}"),
            serde_json::json!({"url": u, "error": reason}),
        ),
        _ => (
            Outcome::CantTell,
            format!("The link to {u} could not be checked: the server rate limited the scan (429).{spread}"),
            serde_json::json!({"url": u, "status": 429}),
        ),
    };
    data["pages"] = t.page_count.into();
    data["links"] = t.total.into();
    let finding = out.report(outcome, &first.page_url, message);
    finding.selector = first.selector;
    finding.snippet = first.snippet;
    finding.data = Some(data);
    if t.total > occurrences.len() as u64 {
        finding.occurrences_total = Some(t.total);
    }
    // Listed even for one place: the occurrence carries the link's text.
    finding.occurrences = std::mem::take(&mut occurrences);
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
        // One page, with broken links: the rule counts pages.
        assert_eq!(
            (tallies[0].passed, tallies[0].failed, tallies[0].cant_tell),
            (0, 1, 0)
        );
        assert!(findings
            .iter()
            .all(|f| f.page_url == "https://example.com/" && f.occurrences.len() == 1));
    }

    /// Two pages link to one missing URL, one of them twice: one finding,
    /// its places in page order, the first one the finding's own.
    #[test]
    fn one_finding_per_target_with_every_place() {
        let page = |url: &str, body: &str| summary(url, &doc("Page", body));
        let mut input = site(vec![
            page(
                "https://example.com/",
                r#"<a href="/a">a</a><a href="/gone">Old offer</a>"#,
            ),
            page(
                "https://example.com/a",
                r#"<p><a href="/gone">first</a></p><p><a href="/gone#x"><img src="x.png" alt="Gone again"></a></p>"#,
            ),
            page("https://example.com/b", r#"<a href="/a">a</a>"#),
            // The same final URL again (two requested URLs): judged once.
            page("https://example.com/", r#"<a href="/gone">again</a>"#),
        ]);
        input.link_status.insert(
            "https://example.com/a".into(),
            LinkStatus::Ok { status: 200 },
        );
        input.link_status.insert(
            "https://example.com/gone".into(),
            LinkStatus::Broken { status: 404 },
        );
        // Without places from the engine: pages only.
        let (tallies, findings, _) = analyze_site(&input, &[&BrokenLinks]);
        assert_eq!(findings.len(), 1);
        let f = &findings[0];
        assert_eq!(
            f.message,
            "The link to https://example.com/gone is broken: it answers 404. It is linked 3 times from 2 page(s)."
        );
        assert_eq!(f.page_url, "https://example.com/");
        let pages: Vec<&str> = f.occurrences.iter().map(|o| o.page_url.as_str()).collect();
        assert_eq!(
            pages,
            vec![
                "https://example.com/",
                "https://example.com/a",
                "https://example.com/a"
            ]
        );
        assert_eq!(f.occurrences_total, None);
        assert_eq!(f.data.as_ref().unwrap()["pages"], 2);
        assert_eq!(f.data.as_ref().unwrap()["links"], 3);
        // Pages with a checked link: 3 (the repeated final URL once); 2 fail.
        assert_eq!(
            (tallies[0].passed, tallies[0].failed, tallies[0].cant_tell),
            (1, 2, 0)
        );

        // With the places the engine takes from each page's DOM.
        let places: Vec<Occurrence> = input
            .pages
            .iter()
            .take(2)
            .flat_map(|p| {
                let html = if p.final_url.ends_with('/') {
                    doc("Page", r#"<a href="/a">a</a><a href="/gone">Old offer</a>"#)
                } else {
                    doc(
                        "Page",
                        r#"<p><a href="/gone">first</a></p><p><a href="/gone#x"><img src="x.png" alt="Gone again"></a></p>"#,
                    )
                };
                let page = crate::Page::from_html(&p.final_url, &html);
                let cx = crate::PageContext::parse(&page);
                super::super::link_places(&cx)
            })
            .filter(|o| o.snippet.contains("/gone"))
            .collect();
        input
            .link_places
            .insert("https://example.com/gone".into(), places);
        let (_, findings, _) = analyze_site(&input, &[&BrokenLinks]);
        let f = &findings[0];
        let got: Vec<(&str, &str, Option<&str>)> = f
            .occurrences
            .iter()
            .map(|o| (o.page_url.as_str(), o.selector.as_str(), o.text.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "https://example.com/",
                    "html > body > a:nth-child(2)",
                    Some("Old offer")
                ),
                (
                    "https://example.com/a",
                    "html > body > p:nth-child(1) > a",
                    Some("first")
                ),
                (
                    "https://example.com/a",
                    "html > body > p:nth-child(2) > a",
                    Some("Gone again")
                ),
            ]
        );
        assert_eq!(f.selector, "html > body > a:nth-child(2)");
        assert_eq!(f.snippet, r#"<a href="/gone">Old offer</a>"#);
    }

    /// Past the cap the places stop and the total says how many there were.
    #[test]
    fn occurrences_are_capped_with_a_total() {
        let links: String = (0..MAX_OCCURRENCES + 20)
            .map(|_| r#"<a href="/gone">x</a>"#)
            .collect();
        let mut input = site(vec![summary("https://example.com/", &doc("Home", &links))]);
        input.link_status.insert(
            "https://example.com/gone".into(),
            LinkStatus::Broken { status: 410 },
        );
        let (_, findings, _) = analyze_site(&input, &[&BrokenLinks]);
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].occurrences.len(), MAX_OCCURRENCES);
        assert_eq!(
            findings[0].occurrences_total,
            Some((MAX_OCCURRENCES + 20) as u64)
        );
    }
}
