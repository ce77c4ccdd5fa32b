//! One finding per problem: findings about a whole host or about one
//! subresource are merged across pages while a scan runs.
//!
//! A missing security header is one fact of the server, not one problem per
//! page; an uncached script is one file, however many pages load it. Rules say
//! what a finding is about ([`Scope`]): `page` findings pass through untouched;
//! `host` findings with the same rule, origin, outcome and message become one
//! finding; `resource` findings with the same rule, resource URL, outcome and
//! message become one finding. The merged finding is the one at the first place
//! in report order (pages by depth then URL, then selector), so its `page_url`,
//! `selector`, `snippet`, `message` and `data` are those of its first
//! occurrence; `occurrences` lists the first [`MAX_OCCURRENCES`] places in that
//! order and `occurrences_total` counts them all when there are more.
//!
//! Memory: the [`Grouper`] holds one entry per distinct problem with at most
//! 2 × [`MAX_OCCURRENCES`] places (trimmed to the first [`MAX_OCCURRENCES`]
//! whenever it fills), never the findings of every page: a scan that spools its
//! page findings to disk keeps only these entries in memory, which grow with the
//! number of distinct hosts and subresources (what the crawl's page summaries
//! already hold), not with the number of pages.

use std::collections::HashMap;

use sitescan_rules::{Finding, Occurrence, Outcome, Scope, MAX_OCCURRENCES};
use url::Url;

/// Where a place sits in report order: the page's depth and requested URL (as
/// the report sorts pages), then the element's selector.
type Place = (u32, String, String);

/// What makes two findings the same problem.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    rule_id: String,
    scope: Scope,
    /// The origin (host scope) or the resource URL (resource scope).
    subject: String,
    outcome: Outcome,
    message: String,
}

/// One problem seen so far.
#[derive(Debug)]
struct Group {
    /// The finding at the first place seen so far in report order.
    first: Finding,
    first_place: Place,
    /// Places, not yet sorted; trimmed to the first [`MAX_OCCURRENCES`] when it
    /// reaches twice that.
    places: Vec<(Place, Occurrence)>,
    total: u64,
}

/// Merges host and resource findings of a scan (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Grouper {
    groups: HashMap<Key, Group>,
}

/// The key of a finding that is to be merged, or `None` for a finding about one
/// page (or one whose subject cannot be told: it stays as it is).
fn key_of(f: &Finding) -> Option<Key> {
    let subject = match f.scope {
        Scope::Page => return None,
        Scope::Host => Url::parse(&f.page_url)
            .ok()
            .map(|u| u.origin().ascii_serialization())?,
        Scope::Resource => f.resource.clone()?,
    };
    Some(Key {
        rule_id: f.rule_id.clone(),
        scope: f.scope,
        subject,
        outcome: f.outcome,
        message: f.message.clone(),
    })
}

fn occurrence_of(f: &Finding) -> Occurrence {
    Occurrence {
        page_url: f.page_url.clone(),
        selector: f.selector.clone(),
        snippet: f.snippet.clone(),
        text: None,
    }
}

fn trim(places: &mut Vec<(Place, Occurrence)>) {
    places.sort_by(|a, b| a.0.cmp(&b.0));
    places.truncate(MAX_OCCURRENCES);
}

impl Grouper {
    /// Takes the findings of one page (at `depth`, requested as `url`): keeps
    /// the host and resource findings and returns the others, in their order.
    pub(crate) fn take(&mut self, depth: u32, url: &str, findings: Vec<Finding>) -> Vec<Finding> {
        let mut own = Vec::with_capacity(findings.len());
        for f in findings {
            let Some(key) = key_of(&f) else {
                own.push(f);
                continue;
            };
            let place: Place = (depth, url.to_string(), f.selector.clone());
            match self.groups.get_mut(&key) {
                Some(group) => {
                    group.total += 1;
                    group.places.push((place.clone(), occurrence_of(&f)));
                    if group.places.len() >= 2 * MAX_OCCURRENCES {
                        trim(&mut group.places);
                    }
                    if place < group.first_place {
                        group.first = f;
                        group.first_place = place;
                    }
                }
                None => {
                    let occurrence = occurrence_of(&f);
                    self.groups.insert(
                        key,
                        Group {
                            first: f,
                            first_place: place.clone(),
                            places: vec![(place, occurrence)],
                            total: 1,
                        },
                    );
                }
            }
        }
        own
    }

    /// The merged findings, in report order of their first place (then rule
    /// and message, so the order never depends on which page finished first).
    pub(crate) fn finish(self) -> Vec<Finding> {
        let mut groups: Vec<(Key, Group)> = self.groups.into_iter().collect();
        groups.sort_by(|(ka, a), (kb, b)| {
            (&a.first_place, &ka.rule_id, &ka.subject, &ka.message).cmp(&(
                &b.first_place,
                &kb.rule_id,
                &kb.subject,
                &kb.message,
            ))
        });
        groups
            .into_iter()
            .map(|(_, mut group)| {
                trim(&mut group.places);
                let mut f = group.first;
                if group.total > 1 {
                    let listed = group.places.len() as u64;
                    f.occurrences = group.places.into_iter().map(|(_, o)| o).collect();
                    f.occurrences_total = (group.total > listed).then_some(group.total);
                }
                f
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use sitescan_rules::{Category, Impact};

    fn finding(rule: &str, scope: Scope, page: &str, selector: &str, message: &str) -> Finding {
        let mut f = sample::finding(
            rule,
            Category::Security,
            Outcome::Failed,
            Impact::Serious,
            page,
            selector,
            "",
            message,
            &[],
        );
        f.page_url = page.to_string();
        f.scope = scope;
        f
    }

    #[test]
    fn host_findings_merge_per_origin_and_message_with_pages_in_report_order() {
        let mut g = Grouper::default();
        let hsts = |page: &str| finding("hsts", Scope::Host, page, "", "No HSTS.");
        // Pages arrive out of report order; a page-scope finding passes through.
        let own = g.take(
            1,
            "https://a.test/z",
            vec![
                hsts("https://a.test/z"),
                finding("image-alt", Scope::Page, "https://a.test/z", "img", "m"),
            ],
        );
        assert_eq!(own.len(), 1);
        assert_eq!(own[0].rule_id, "image-alt");
        g.take(0, "https://a.test/", vec![hsts("https://a.test/")]);
        g.take(1, "https://a.test/b", vec![hsts("https://a.test/b")]);
        // Another host, and another message on the same host: other problems.
        g.take(1, "https://b.test/", vec![hsts("https://b.test/")]);
        g.take(
            2,
            "https://a.test/c",
            vec![finding(
                "hsts",
                Scope::Host,
                "https://a.test/c",
                "",
                "Short.",
            )],
        );
        let out = g.finish();
        let got: Vec<(String, Vec<String>, Option<u64>)> = out
            .iter()
            .map(|f| {
                (
                    f.page_url.clone(),
                    f.occurrences.iter().map(|o| o.page_url.clone()).collect(),
                    f.occurrences_total,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "https://a.test/".to_string(),
                    vec![
                        "https://a.test/".to_string(),
                        "https://a.test/b".to_string(),
                        "https://a.test/z".to_string()
                    ],
                    None
                ),
                ("https://b.test/".to_string(), vec![], None),
                ("https://a.test/c".to_string(), vec![], None),
            ]
        );
    }

    #[test]
    fn occurrences_are_capped_at_the_first_places_with_a_total() {
        let mut g = Grouper::default();
        // 250 pages in reverse order: the cap keeps the first 100 in report order.
        for i in (0..250).rev() {
            let page = format!("https://a.test/p{i:03}");
            let mut f = finding("long-cache-ttl", Scope::Resource, &page, "img", "m");
            f.resource = Some("https://a.test/logo.png".into());
            g.take(1, &page, vec![f]);
        }
        let out = g.finish();
        assert_eq!(out.len(), 1);
        let f = &out[0];
        assert_eq!(f.page_url, "https://a.test/p000");
        assert_eq!(f.occurrences.len(), MAX_OCCURRENCES);
        assert_eq!(f.occurrences[99].page_url, "https://a.test/p099");
        assert_eq!(f.occurrences_total, Some(250));
        assert_eq!(f.occurrence_count(), 250);
    }
}

/// Whole scans of the `grouping` fixture site: three pages on one host sharing
/// one stylesheet and one script, none of them sending security headers.
#[cfg(test)]
mod scans {
    use sitescan_fixtures::{site_dir, FixtureServer};
    use sitescan_rules::{Category, Finding};

    use crate::report::Report;
    use crate::Scanner;

    async fn scan(rules: &[&str]) -> (Report, String) {
        let server = FixtureServer::start(site_dir("grouping")).await.unwrap();
        let report = Scanner::builder()
            .allow_private(true)
            .rate_per_host(1000.0)
            .rules(rules)
            .build()
            .unwrap()
            .scan(&server.url())
            .await
            .unwrap();
        (report, server.url().trim_end_matches('/').to_string())
    }

    /// `rule path [occurrence paths]` of every finding, paths relative to the site.
    fn lines(report: &Report, origin: &str) -> Vec<String> {
        let path = |u: &str| u.strip_prefix(origin).unwrap_or(u).to_string();
        report
            .findings
            .iter()
            .map(|f: &Finding| {
                let mut line = format!("{} {}", f.rule_id, path(&f.page_url));
                if !f.scope.is_page() {
                    line.push_str(&format!(" {:?}", f.scope).to_lowercase());
                }
                if let Some(r) = &f.resource {
                    line.push_str(&format!(" {}", path(r)));
                }
                if !f.occurrences.is_empty() {
                    let pages: Vec<String> =
                        f.occurrences.iter().map(|o| path(&o.page_url)).collect();
                    line.push_str(&format!(" [{}]", pages.join(" ")));
                }
                line
            })
            .collect()
    }

    /// Every rule of the fixture's problems but the timing ones (a loaded
    /// machine must not change the outcome).
    const RULES: &[&str] = &[
        "clickjacking-protection",
        "content-security-policy",
        "cross-origin-isolation",
        "is-on-https",
        "modern-http",
        "permissions-policy",
        "text-compression",
        "x-content-type-options",
        "long-cache-ttl",
        "render-blocking-resources",
        "link-name",
        "empty-link",
        "placeholder-text",
    ];

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_fact_and_a_shared_resource_are_one_finding_each_with_the_pages_as_occurrences()
    {
        let (report, origin) = scan(RULES).await;
        let all = "[/ /a /b]";
        let host = |rule: &str| format!("{rule} / host {all}");
        let resource = |rule: &str, file: &str| format!("{rule} / resource {file} {all}");
        let mut expected = vec![
            // The page's own findings first, then the merged ones whose first
            // place is this page, by selector then rule.
            "link-name /".to_string(),
            "link-name /".to_string(),
            host("clickjacking-protection"),
            host("content-security-policy"),
            host("cross-origin-isolation"),
            host("is-on-https"),
            host("modern-http"),
            host("permissions-policy"),
            host("text-compression"),
            host("x-content-type-options"),
            resource("long-cache-ttl", "/site.css"),
            resource("render-blocking-resources", "/site.css"),
            resource("text-compression", "/site.css"),
            resource("long-cache-ttl", "/app.js"),
            resource("render-blocking-resources", "/app.js"),
            resource("text-compression", "/app.js"),
        ];
        // The empty links are link-name's (empty-link defers to it); XXX and
        // TODO in <pre>, <code>, <kbd>, <samp> and <var> on / are no filler.
        expected.extend(["link-name /a", "link-name /a", "placeholder-text /b"].map(String::from));
        assert_eq!(lines(&report, &origin), expected);

        let https = report
            .findings
            .iter()
            .find(|f| f.rule_id == "is-on-https")
            .unwrap();
        assert_eq!(
            https.message,
            format!("The site is served over plain HTTP ({origin}).")
        );
        assert_eq!(https.occurrences_total, None);
        let css = report
            .findings
            .iter()
            .find(|f| f.rule_id == "long-cache-ttl")
            .unwrap();
        assert_eq!(css.selector, "html > head > link");
        assert_eq!(
            css.occurrences
                .iter()
                .map(|o| o.selector.as_str())
                .collect::<Vec<_>>(),
            ["html > head > link"; 3]
        );

        // Counts are problems: 8 host facts + 6 resource problems, not 42.
        let security = &report.summary[&Category::Security];
        assert_eq!(
            (
                security.critical,
                security.serious,
                security.moderate,
                security.minor
            ),
            (1, 2, 1, 2)
        );
        let performance = &report.summary[&Category::Performance];
        assert_eq!(
            (performance.serious, performance.moderate, performance.minor),
            (3, 4, 1)
        );
        // Four serious failures (link-name, 2 of 3 pages): not 100, but
        // ⌊100 × (1 − 0.3 × √⅔)⌋ = 75.
        let a11y = &report.summary[&Category::Accessibility];
        assert_eq!((a11y.serious, a11y.score), (4, Some(75)));
        // Every security rule fails on every page: ⌊100 × 0.5 × 0.7² × 0.85 × 0.95²⌋.
        assert_eq!(security.score, Some(18));
        // empty-link applied on every page but its failures are link-name's:
        // the quality score counts only placeholder-text on 1 of 3 pages.
        let empty_link = report
            .rules
            .iter()
            .find(|r| r.rule_id == "empty-link")
            .unwrap();
        assert_eq!(
            (empty_link.pages_applicable, empty_link.pages_failed),
            (3, 0)
        );
        assert_eq!(report.summary[&Category::Quality].score, Some(82));
        // The per-page counts still say what each page shows.
        let per_page: Vec<u64> = report.pages.iter().map(|p| p.findings).collect();
        assert_eq!(per_page, [16, 16, 15]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_spooled_scan_merges_the_same_findings_in_the_same_order() {
        let server = FixtureServer::start(site_dir("grouping")).await.unwrap();
        let scanner = Scanner::builder()
            .allow_private(true)
            .rate_per_host(1000.0)
            .rules(RULES)
            .build()
            .unwrap();
        let memory = scanner.scan(&server.url()).await.unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let spooled = scanner
            .scan_spooled(&server.url(), tmp.path(), &|_| {})
            .await
            .unwrap()
            .into_report()
            .unwrap();
        assert_eq!(spooled.findings, memory.findings);
        assert_eq!(spooled.summary, memory.summary);
        assert_eq!(memory.findings.len(), 19);
    }
}
