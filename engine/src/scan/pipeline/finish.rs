//! The end of a scan: the merged host and resource findings, the link and
//! resource checks, the site rules over the pages' summaries and the site
//! facts, the scores and the report.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use chrono::Utc;
use sitescan_rules::site::{PageSummary, SiteCheck, SiteInput};
use sitescan_rules::{Finding, Need, RuleTally};
use url::Url;

use super::crawl::Crawl;
use super::site_facts::SiteFacts;
use super::start::{lock, origin_key, Shared};
use crate::checks::links::{LinkChecker, NetworkVerdict};
use crate::crawl::scope::Scope;
use crate::error::Result;
use crate::report::spool::SpooledFindings;
use crate::report::{score, Report, RuleSummary};
use crate::scan::events::{emit_progress, Inner, Observer, Phase, Progress};
use crate::scan::places::PlaceLog;

/// What the end of a scan needs besides the crawl.
pub(super) struct Ending<'a> {
    pub(super) inner: &'a Inner,
    pub(super) shared: &'a Arc<Shared>,
    pub(super) scope: &'a Scope,
    pub(super) observer: Observer<'a>,
    pub(super) start_url: &'a Url,
    pub(super) site_root: &'a Url,
    pub(super) started_at: chrono::DateTime<Utc>,
    /// The site facts, `sitemap_urls` kept to the scan's scope.
    pub(super) facts: SiteFacts,
}

/// Ends the scan once every page is in: returns the report without its
/// findings, and the findings in report order.
pub(super) async fn finish(mut crawl: Crawl, end: Ending<'_>) -> Result<(Report, SpooledFindings)> {
    let Ending {
        inner,
        shared,
        scope,
        observer,
        start_url,
        site_root,
        started_at,
        facts,
    } = end;
    let SiteFacts {
        sitemap_urls,
        sitemap_files,
        tls,
        cors_probe,
        http_probe,
        notes: _,
    } = facts;
    let config = &shared.config;
    // The summaries hold the shared URLs now; the lookup table is not needed.
    drop(std::mem::take(&mut crawl.urls));
    // Every page is in: the merged host and resource findings join the others
    // (the store places them with the page of their first occurrence).
    let store = &mut crawl.store;
    std::mem::take(&mut crawl.grouper).finish(&mut |merged| store.push(merged))?;
    let left = crawl.frontier.len() as u64;
    if left > 0 {
        crawl.stats.truncated = true;
        crawl.stats.urls_left = left;
        crawl.stats.skipped.limit = left;
        crawl.notes.push(format!(
            "stopped at max_pages = {}; {left} more URLs were found but not fetched",
            config.max_pages
        ));
    }
    // What only the crawl needed goes before the link checks and site rules
    // allocate theirs: the emptied frontier's buffer (it held the widest level of
    // the breadth-first crawl) and the subresource facts.
    // So do the crawl's sets of claimed and rejected URLs and the stylesheet
    // texts: a string per URL the site links to.
    crawl.frontier = VecDeque::new();
    crawl.rejected = HashSet::new();
    *lock(&shared.seen) = HashSet::new();
    *lock(&shared.styles) = HashMap::new();
    if let Some(checker) = shared.checker.as_deref() {
        checker.forget_facts();
    }

    let incomplete = crawl.pages.incomplete();
    if incomplete > 0 {
        crawl.notes.push(format!(
            "{incomplete} page(s) went over the page budget or could not load all their stylesheets, and were analyzed in part: see their analysis-incomplete findings"
        ));
    }
    let counts = &shared.sheet_counts;
    crawl.stats.stylesheets = counts.fetched.load(Ordering::Relaxed) as u64;
    crawl.stats.stylesheets_imported = counts.imported.load(Ordering::Relaxed) as u64;
    crawl.stats.stylesheets_failed = counts.failed.load(Ordering::Relaxed) as u64;
    crawl
        .notes
        .extend(cant_tell_notes(&crawl.cant_tell_reasons, &crawl.tallies));

    // Readability judges English text only; say which pages it skipped.
    if inner.selection.needs(Need::LanguageSkipNote) {
        if let Some(note) = sitescan_rules::quality::readability::skipped_note(&crawl.summaries) {
            crawl.notes.push(note);
        }
    }

    // Link and resource checks, only when their rules are selected.
    let base_progress = Progress {
        pages_done: crawl.pages.len() as u64,
        pages_queued: 0,
        errors: crawl.error_count,
        ..Progress::default()
    };
    let (link_status, network) = check_links(
        shared,
        scope,
        &inner.selection,
        &crawl.summaries,
        &LinkProgress::new(observer, base_progress),
    )
    .await;
    if let Some(network) = network {
        crawl.stats.skipped.network = network.not_checked as u64;
        crawl.stats.network_unreachable = true;
        crawl.notes.push(network.note());
    }
    if let Some(note) = shared.checker.as_deref().and_then(budget_note) {
        crawl.notes.push(note);
    }
    if let Some(checker) = shared.checker.as_deref() {
        crawl.stats.skipped.links = checker.unchecked() as u64;
        if let Some(note) = unchecked_note(checker.unchecked(), config.links) {
            crawl.notes.push(note);
        }
        // `link_status` holds every answer the site rules read.
        checker.forget_statuses();
    }

    // Where the links to failing targets are, for broken-links' findings.
    let link_places = {
        use sitescan_rules::site::LinkStatus;
        let failing: HashSet<&str> = link_status
            .iter()
            .filter(|(_, s)| {
                matches!(
                    s,
                    LinkStatus::Broken { .. }
                        | LinkStatus::Unreachable { .. }
                        | LinkStatus::RateLimited
                )
            })
            .map(|(u, _)| u.as_str())
            .collect();
        std::mem::replace(&mut crawl.places, PlaceLog::memory())
            .places_of(&crawl.summaries, &failing)?
    };

    // Site rules over the summaries.
    emit_progress(
        observer,
        Progress {
            phase: Phase::Finish,
            ..base_progress
        },
    );
    let robots = lock(&shared.robots_facts).remove(&origin_key(site_root));
    let site_input = SiteInput {
        start_url: start_url.to_string(),
        pages: std::mem::take(&mut crawl.summaries),
        sitemap_urls,
        link_status,
        link_places,
        robots,
        sitemaps: sitemap_files,
        tls,
        cors_probe,
        http_probe,
    };
    for rule in &inner.selection.site {
        let mut check = SiteCheck::new(rule.meta());
        match catch_unwind(AssertUnwindSafe(|| {
            rule.check_site(&site_input, &mut check)
        })) {
            Ok(()) => {
                let per_page = check.counts_pages();
                let (mut tally, mut findings) = check.finish();
                // Pages failing only for marked findings pass (see crate::marks).
                let cleared = shared.marks.apply_site(&mut findings);
                if per_page {
                    let moved = u32::try_from(cleared).unwrap_or(u32::MAX).min(tally.failed);
                    tally.failed -= moved;
                    tally.passed += moved;
                } else {
                    let marked = findings
                        .iter()
                        .filter(|f| {
                            f.mark.is_some() && f.outcome == sitescan_rules::Outcome::Failed
                        })
                        .count();
                    let moved = u32::try_from(marked).unwrap_or(u32::MAX).min(tally.failed);
                    tally.failed -= moved;
                    tally.passed += moved;
                }
                let (applicable, failed) = if per_page {
                    // The rule judged pages itself (a page with a checked link
                    // passes or fails): its tally is its applicability.
                    (
                        u64::from(tally.passed + tally.failed + tally.cant_tell),
                        u64::from(tally.failed),
                    )
                } else {
                    site_rule_pages(rule.meta(), &tally, &findings, site_input.pages.len())
                };
                let entry = crawl.rule_entry(&tally.rule_id);
                entry.passed += u64::from(tally.passed);
                entry.failed += u64::from(tally.failed);
                entry.cant_tell += u64::from(tally.cant_tell);
                entry.pages_applicable += applicable;
                entry.pages_failed += failed;
                if let Some(c) = shared.fetcher.auth() {
                    for f in &mut findings {
                        super::login::scrub_value(c, f);
                    }
                }
                crawl.store.push(findings)?;
            }
            Err(_) => crawl.notes.push(format!(
                "site rule {} crashed and was skipped",
                rule.meta().id
            )),
        }
    }

    let rules: Vec<RuleSummary> = inner
        .selection
        .ids()
        .into_iter()
        .map(|id| {
            let mut s = crawl.tallies.remove(id).unwrap_or_default();
            s.rule_id = id.to_string();
            s.category = sitescan_rules::registry::meta(id).map(|m| m.category);
            s
        })
        .collect();
    let mut summary = score::summarize_counts(&rules, crawl.store.counts());
    // The Observatory-scale security grade of the site, when security rules ran.
    if let Some(security) = summary
        .get_mut(&sitescan_rules::Category::Security)
        .filter(|s| s.score.is_some())
    {
        if let Some((score, grade)) = sitescan_rules::security::grade::site_grade_of(&site_input) {
            security.grade = Some(grade.to_string());
            security.grade_score = Some(score);
        }
    }
    // The page entries come back only now, with the site rules' input gone
    // (see `super::pages`).
    drop(site_input);
    let mut pages = crawl.pages.into_vec()?;
    // Pages finish in whatever order the network allows; the report lists them
    // by depth then URL, and findings by page (each page's own order kept), so
    // two scans of an unchanged site give the same report.
    pages.sort_by(|a, b| (a.depth, &a.url).cmp(&(b.depth, &b.url)));
    // Render mode: the site's lab Web Vitals beside the performance score.
    if let Some(vitals) = crate::report::vitals::summarize(
        pages
            .iter()
            .filter_map(|p| p.vitals.as_deref().map(|v| (p.final_url.as_str(), v))),
    ) {
        summary
            .entry(sitescan_rules::Category::Performance)
            .or_default()
            .web_vitals = Some(vitals);
    }
    let position: HashMap<&str, usize> = pages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(p.url.as_str(), i), (p.final_url.as_str(), i)])
        .rev()
        .collect();
    let finding_count = crawl.store.len();
    let findings = crawl
        .store
        .finish(|url| position.get(url).copied().unwrap_or(usize::MAX))?;
    drop(position);
    tracing::info!(
        pages = pages.len(),
        findings = finding_count,
        truncated = crawl.stats.truncated,
        "scan finished"
    );
    let report = Report {
        schema_version: crate::report::SCHEMA_VERSION,
        scan_id: None,
        site: start_url.to_string(),
        started_at,
        finished_at: Utc::now(),
        config: shared.config.clone(),
        stats: crawl.stats,
        summary,
        pages,
        findings: Vec::new(),
        rules,
        notes: {
            let mut notes = crawl.notes;
            notes.extend(shared.shots.as_ref().and_then(|s| s.note()));
            notes
        },
        fixed: None,
        baseline: None,
        screenshots: shared.shots.as_ref().map(|s| s.take()).unwrap_or_default(),
    };
    Ok((report, findings))
}

/// How many pages a site rule applied to and failed on, for the scores (which
/// count pages, as they do for page rules, never links or other items): a
/// rule that checked anything applied to every analyzed page of the site; it
/// failed on every page when its failure is a fact of the whole site (scope
/// `host`: a TLS certificate, robots.txt), else on the distinct pages its
/// failed findings name (their occurrences included; a capped list counts its
/// unlisted places as pages of their own).
fn site_rule_pages(
    meta: &sitescan_rules::RuleMeta,
    tally: &RuleTally,
    findings: &[Finding],
    pages: usize,
) -> (u64, u64) {
    if tally.passed == 0 && tally.failed == 0 {
        return (0, 0);
    }
    let pages = pages.max(1) as u64;
    if tally.failed == 0 {
        return (pages, 0);
    }
    if meta.scope == sitescan_rules::Scope::Host {
        return (pages, pages);
    }
    let mut failed: HashSet<&str> = HashSet::new();
    let mut unlisted: u64 = 0;
    for f in findings
        .iter()
        .filter(|f| f.outcome == sitescan_rules::Outcome::Failed && f.mark.is_none())
    {
        failed.insert(f.page_url.as_str());
        failed.extend(f.occurrences.iter().map(|o| o.page_url.as_str()));
        unlisted += f
            .occurrences_total
            .unwrap_or(0)
            .saturating_sub(f.occurrences.len() as u64);
    }
    (pages, (failed.len() as u64 + unlisted).clamp(1, pages))
}

/// Network statuses of the links and resources of the crawled pages, for the
/// `broken-links` / `broken-resources` rules (empty when neither is selected).
/// Crawled pages keep the status the crawl saw. Other URLs on the scanned site are
/// never requested (the crawl's page limit, depth, robots.txt and nofollow decided
/// not to fetch them) and are left out, as is every other URL not checked
/// (budget, link scope, robots.txt); URLs on other sites are checked by
/// [`LinkChecker`] under the crawl's host pool. Subresources the page phase
/// already fetched (see [`super::page`]) keep that fetch's status: nothing is
/// requested twice.
///
/// When the checks find the network unreachable (most hosts failed at DNS or
/// connect, see [`LinkChecker::network_verdict`]), the URLs of the failed hosts
/// are left out too, as not checked, and counted in the returned
/// [`NetworkDown`].
async fn check_links(
    shared: &Arc<Shared>,
    scope: &Scope,
    selection: &sitescan_rules::registry::Selection,
    summaries: &[PageSummary],
    progress: &LinkProgress<'_>,
) -> (
    std::collections::BTreeMap<String, sitescan_rules::site::LinkStatus>,
    Option<NetworkDown>,
) {
    use sitescan_rules::site::LinkStatus;
    let (links, resources) = (
        selection.needs(Need::LinkStatus),
        selection.needs(Need::ResourceStatus),
    );
    if !links && !resources {
        return Default::default();
    }
    let Some(checker) = shared.checker.as_deref() else {
        return Default::default();
    };
    // What the crawl knows already: the status of every page it fetched, under
    // the URL it requested and the one it ended at. Borrowed from the summaries
    // (copied into the checker's cache, these strings were a good part of a large
    // scan's memory at its peak, which is this step and the site rules).
    let mut crawled: HashMap<&str, LinkStatus> = HashMap::new();
    for p in summaries.iter().filter(|p| p.status > 0) {
        let status = match checker.status_of(p.status) {
            // A crawled page's own 429 was retried by the crawl already.
            LinkStatus::RateLimited => LinkStatus::Broken { status: 429 },
            s => s,
        };
        crawled.entry(&p.url).or_insert_with(|| status.clone());
        crawled.entry(&p.final_url).or_insert(status);
    }
    let mut seen = HashSet::new();
    // Only URLs without a known status are kept as `Url`s for the network
    // checks; the others (most: the crawled pages themselves) go straight to
    // the answer. Holding a parsed `Url` for every link of the site was most of
    // this step's memory.
    let mut urls = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    for p in summaries {
        let lists: [(bool, &[Arc<str>]); 2] = [
            (false, if links { &p.links } else { &[] }),
            (true, if resources { &p.resources } else { &[] }),
        ];
        for (is_resource, list) in lists {
            for u in list {
                if !seen.insert(Arc::clone(u)) {
                    continue;
                }
                let Ok(url) = Url::parse(u) else {
                    continue;
                };
                // Politeness holds for link checks too: a URL robots.txt
                // disallows is not requested, not even with HEAD.
                if !shared.robots_allow(&url) {
                    continue;
                }
                let known = crawled
                    .get(url.as_str())
                    .cloned()
                    .or_else(|| checker.cached(url.as_str()));
                match known {
                    // Not checked (budget, link scope, private address): left
                    // out, as the rules pass over such URLs.
                    Some(LinkStatus::Skipped { .. }) => {}
                    Some(status) => {
                        statuses.insert(url.to_string(), status);
                    }
                    // Pages of the site are the crawl's business: what it did
                    // not fetch (limits, nofollow) is not fetched here either.
                    // Resources (images, scripts) are checked.
                    None if !is_resource && scope.host_in_scope(&url) => {}
                    None => urls.push(url),
                }
            }
        }
    }
    drop(seen);
    progress.update(0, urls.len());
    statuses.extend(
        checker
            .check_all_with(urls, &|done, total| progress.update(done, total))
            .await
            .into_iter()
            .filter(|(_, status)| !matches!(status, LinkStatus::Skipped { .. })),
    );
    progress.finish();
    let verdict = checker.network_verdict();
    if !verdict.unreachable {
        return (statuses, None);
    }
    // Not the links' fault: their hosts could not be reached from here. Not
    // checked, and counted, rather than reported broken.
    let before = statuses.len();
    statuses.retain(|url, status| {
        !(matches!(status, LinkStatus::Unreachable { .. })
            && Url::parse(url).is_ok_and(|u| checker.host_failure(&u).is_some()))
    });
    let not_checked = before - statuses.len();
    tracing::warn!(
        hosts_failed = verdict.hosts_failed,
        hosts_tried = verdict.hosts_tried,
        not_checked,
        "the network looks unreachable; links on the failed hosts are not judged"
    );
    (
        statuses,
        Some(NetworkDown {
            verdict,
            not_checked,
        }),
    )
}

/// The link checks found the network unreachable.
#[derive(Debug, Clone, Copy)]
struct NetworkDown {
    verdict: NetworkVerdict,
    /// Link and resource URLs on the failed hosts, left unchecked.
    not_checked: usize,
}

impl NetworkDown {
    /// The report's note.
    fn note(&self) -> String {
        let v = &self.verdict;
        let how = if v.hosts_failed_dns == v.hosts_failed {
            "could not be resolved (DNS)"
        } else if v.hosts_failed_dns == 0 {
            "could not be connected to"
        } else {
            "could not be resolved or connected to"
        };
        format!(
            "the network looks unreachable: {} of the {} hosts the link checks contacted {how}; \
             {} link/resource URLs on them were not checked (not reported as broken). \
             Scan from a machine that can reach them, or use --links internal",
            v.hosts_failed, v.hosts_tried, self.not_checked
        )
    }
}

/// Hands the link phase's progress to the scan's observer, at most every
/// [`LINK_PROGRESS_EVERY`] (and always at the start and the end), so thousands
/// of URLs checked do not flood a progress bar or an event stream.
struct LinkProgress<'a> {
    observer: Observer<'a>,
    base: Progress,
    last: Mutex<Option<std::time::Instant>>,
}

/// Least time between two progress events of the link phase.
const LINK_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(200);

impl<'a> LinkProgress<'a> {
    fn new(observer: Observer<'a>, base: Progress) -> Self {
        LinkProgress {
            observer,
            base,
            last: Mutex::new(None),
        }
    }

    fn update(&self, done: usize, total: usize) {
        let now = std::time::Instant::now();
        {
            let mut last = lock(&self.last);
            let due = done == total || last.is_none_or(|t| now - t >= LINK_PROGRESS_EVERY);
            if !due {
                return;
            }
            *last = Some(now);
        }
        emit_progress(
            self.observer,
            Progress {
                phase: Phase::Links,
                links_checked: done as u64,
                links_total: total as u64,
                ..self.base
            },
        );
    }

    /// The end of the phase (nothing to check at all included).
    fn finish(&self) {
        if lock(&self.last).is_none() {
            self.update(0, 0);
        }
    }
}

/// The note for a report whose link/resource checks hit the per-scan budget.
fn budget_note(checker: &LinkChecker) -> Option<String> {
    let over = checker.over_budget();
    (over > 0).then(|| {
        format!(
            "{over} link/resource URLs were not checked: the scan checks at most {} (links and subresources together)",
            checker.max_checks()
        )
    })
}

/// The note for a report whose `links` setting left link/resource URLs unchecked.
fn unchecked_note(unchecked: usize, links: crate::config::LinkScope) -> Option<String> {
    let which = match links {
        crate::config::LinkScope::Internal => "on other sites ",
        _ => "",
    };
    (unchecked > 0)
        .then(|| format!("{unchecked} link/resource URLs {which}were not checked (links: {links})"))
}

/// One note per rule whose cant-tell findings name their reasons: how many
/// elements it decided and how many it could not, by reason, most first.
fn cant_tell_notes(
    reasons: &BTreeMap<String, BTreeMap<String, u64>>,
    tallies: &HashMap<String, RuleSummary>,
) -> Vec<String> {
    reasons
        .iter()
        .map(|(rule, by_reason)| {
            let undecided: u64 = by_reason.values().sum();
            let decided = tallies
                .get(rule)
                .map_or(0, |t| t.passed + t.failed);
            let mut list: Vec<(&String, &u64)> = by_reason.iter().collect();
            list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = list.iter().map(|(r, n)| format!("{n} {r}")).collect();
            format!(
                "{rule}: {decided} element(s) decided (passed or failed), {undecided} cannot tell: {}",
                list.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ScanConfig;
    use crate::crawl::host_limits::HostPool;
    use sitescan_fixtures::{site_dir, FixtureServer};
    use sitescan_rules::resources::ResourceKind;

    /// The Python documentation scan: 4,641 broken links among about
    /// 58,000 checked, on all 100 pages. Counted per link, quality scored
    /// `round(100 × (1 − 4641/58000))` = 92; counted per page, as page rules
    /// are, broken-links (serious) fails on 100 of 100 pages, and quality
    /// scores ⌊100 × (1 − 0.3 × √1)⌋ = 70 however many other rules passed.
    #[test]
    fn site_rules_count_pages_not_links() {
        let meta = sitescan_rules::registry::meta("broken-links").unwrap();
        let tally = RuleTally {
            rule_id: "broken-links".into(),
            passed: 58_000 - 4_641,
            failed: 4_641,
            cant_tell: 0,
        };
        let findings: Vec<Finding> = (0..4_641)
            .map(|i| Finding {
                page_url: format!("https://docs.example/{}.html", i % 100),
                ..crate::render::sample::finding(
                    "broken-links",
                    sitescan_rules::Category::Quality,
                    sitescan_rules::Outcome::Failed,
                    sitescan_rules::Impact::Serious,
                    "/",
                    "",
                    "",
                    "m",
                    &[],
                )
            })
            .collect();
        assert_eq!(site_rule_pages(meta, &tally, &findings, 100), (100, 100));
        let old = (100.0 * (1.0 - 4_641.0 / 58_000.0_f64)).round();
        assert_eq!(old, 92.0);
        let mut rules = vec![RuleSummary {
            rule_id: "broken-links".into(),
            category: Some(sitescan_rules::Category::Quality),
            pages_applicable: 100,
            pages_failed: 100,
            ..RuleSummary::default()
        }];
        for id in ["placeholder-text", "empty-link", "spelling", "readability"] {
            rules.push(RuleSummary {
                rule_id: id.into(),
                category: Some(sitescan_rules::Category::Quality),
                pages_applicable: 100,
                ..RuleSummary::default()
            });
        }
        let summary = score::summarize(&rules, &findings);
        let quality = &summary[&sitescan_rules::Category::Quality];
        assert_eq!((quality.score, quality.serious), (Some(70), 4_641));

        // Broken links on 4 of the 100 pages: ⌊100 × (1 − 0.3 × √0.04)⌋.
        let few: Vec<Finding> = findings.iter().take(4).cloned().collect();
        assert_eq!(site_rule_pages(meta, &tally, &few, 100), (100, 4));
        // A fact of the whole site (scope host) fails every page.
        let tls = sitescan_rules::registry::meta("tls-certificate").unwrap();
        assert_eq!(site_rule_pages(tls, &tally, &few[..1], 100), (100, 100));
        // A capped list of occurrences counts its unlisted places.
        let mut grouped = findings[0].clone();
        grouped.occurrences = (0..3)
            .map(|i| sitescan_rules::Occurrence {
                page_url: format!("https://docs.example/{i}.html"),
                selector: String::new(),
                snippet: String::new(),
                text: None,
            })
            .collect();
        grouped.occurrences_total = Some(10);
        assert_eq!(site_rule_pages(meta, &tally, &[grouped], 100), (100, 10));
        // Inapplicable, or applicable without failure.
        let none = RuleTally::default();
        assert_eq!(site_rule_pages(meta, &none, &[], 100), (0, 0));
    }

    #[tokio::test]
    async fn a_spent_link_check_budget_is_noted() {
        let server = FixtureServer::start(site_dir("resources")).await.unwrap();
        let config = ScanConfig {
            allow_private: true,
            rate_per_host: 100.0,
            ..ScanConfig::default()
        };
        let hosts = Arc::new(HostPool::new(config.rate_per_host, config.concurrency));
        let checker = LinkChecker::new(&config, hosts).unwrap().with_max_checks(1);
        assert_eq!(budget_note(&checker), None);
        for path in ["/img/logo.png", "/img/icon.png", "/js/app.js"] {
            let url = Url::parse(&server.url_for(path)).unwrap();
            checker.inspect(&url, ResourceKind::Image).await;
        }
        assert_eq!(server.paths(), vec!["/img/logo.png"]);
        assert_eq!(
            budget_note(&checker).as_deref(),
            Some("2 link/resource URLs were not checked: the scan checks at most 1 (links and subresources together)")
        );
    }
}
