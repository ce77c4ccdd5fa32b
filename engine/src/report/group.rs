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
    use sitescan_rules::{Category, Finding, Scope};

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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn explore() {
        let (report, origin) = scan(&["all"]).await;
        for l in lines(&report, &origin) {
            println!("{l}");
        }
        println!("{:#?}", report.summary);
        let _ = (Category::Quality, Scope::Host);
        for site in [
            "basic",
            "seo-site",
            "resources",
            "links",
            "siteinfo",
            "errors",
            "redirects",
        ] {
            let server = FixtureServer::start(site_dir(site)).await.unwrap();
            let report = Scanner::builder()
                .allow_private(true)
                .rate_per_host(1000.0)
                .rules(&["all"])
                .build()
                .unwrap()
                .scan(&server.url())
                .await
                .unwrap();
            let mut by_el: std::collections::BTreeMap<(String, String), Vec<String>> =
                Default::default();
            for f in &report.findings {
                if !f.selector.is_empty() {
                    by_el
                        .entry((f.page_url.clone(), f.selector.clone()))
                        .or_default()
                        .push(f.rule_id.clone());
                }
            }
            for ((p, sel), rules) in by_el {
                if rules.len() > 1 {
                    println!("OVERLAP {site} {p} {sel}: {rules:?}");
                }
            }
        }
    }
}
