//! Comparing a report with an earlier one (a baseline) so pipelines fail only on
//! what got worse.
//!
//! Each finding has a stable [`fingerprint`] that never holds a measured value
//! (a time, a size, a count: those live in `message` and `data`, which are left
//! out): for a finding about one page, the rule id, the page URL normalized
//! ([`normalize_url`]), the element's selector and a hash of its snippet (no
//! snippet for rules that judge a measurement); for a finding about a whole
//! host (scope `host`), the rule id, the origin and the message (host messages
//! name the header or setting, never a page's numbers); for a finding about a
//! subresource (scope `resource`), the rule id and the resource URL. Grouped
//! findings are so recognised whichever page happens to be their first
//! occurrence. The order of findings in either report does not matter: they are
//! matched as multisets. Matching runs in two passes:
//!
//! 1. equal fingerprints (same rule, page, selector and snippet);
//! 2. what is left, by rule, page and snippet alone, so an element that only moved
//!    (its `:nth-child` selector changed because a sibling was added before it) is
//!    still "unchanged". Findings without a snippet never match in this pass: a
//!    page-level finding has no content to recognise it by.
//!
//! Then measurements get hysteresis: rules that judge a timing
//! ([`sitescan_rules::RuleMeta::measured`]: `download-time`,
//! `server-response-time`) are noisy, so a finding of theirs left new is
//! `unchanged` when the baseline scanned its page and its value is within the
//! rule's noise margin over the limit (e.g. up to 1.5 × the limit); its data
//! gets `"noise": true`. Likewise a baseline timing finding that went away is
//! not `fixed` while the page still measures within the margin under the limit
//! (above limit ÷ 1.5). Only a clear change is new or fixed.
//!
//! Last, a page analysed in part (over its time budget: its
//! `analysis-incomplete` finding lists `rules_not_run`) says nothing about the
//! rules that did not run on it: a finding of such a rule on that page is not
//! new when the rule did not run there in the baseline, and a baseline finding
//! is not fixed when its rule did not run on its page this time. Which rules a
//! time budget cuts off depends on the machine, not on the site. For the same
//! reason the `analysis-incomplete` finding itself is not new when only the time
//! budget was hit and the baseline scanned the page; a page newly over a limit
//! of its content (nodes, depth, links, stylesheets) is.
//!
//! [`apply_baseline`] marks every finding of the report `new` or `unchanged`,
//! lists the baseline's findings that are gone under `fixed`, and records the
//! counts in the summary (per category and in total).

use std::collections::HashMap;

use sha2::{Digest, Sha256};
use sitescan_rules::{registry, BaselineState, Finding, Outcome, Scope};
use url::Url;

use crate::error::{Error, Result};
use crate::report::{BaselineSummary, PageReport, Report, SCHEMA_VERSION};

/// The stable identity of a finding across scans: 32 hex digits (see the
/// module doc for what it holds).
pub fn fingerprint(finding: &Finding) -> String {
    let meta = registry::meta(&finding.rule_id);
    let (scope, subject) = subject_of(finding);
    let parts: [String; 4] = match scope {
        Scope::Host => [
            finding.rule_id.clone(),
            "host".into(),
            subject,
            finding
                .message
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        ],
        Scope::Resource => [
            finding.rule_id.clone(),
            "resource".into(),
            subject,
            String::new(),
        ],
        Scope::Page => [
            finding.rule_id.clone(),
            subject,
            finding.selector.trim().to_string(),
            if meta.is_some_and(|m| m.measured.is_some()) {
                String::new()
            } else {
                snippet_hash(&finding.snippet)
            },
        ],
    };
    let mut h = Sha256::new();
    for part in &parts {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex::encode(&h.finalize()[..16])
}

/// What a finding is about, for its fingerprint: the origin of its page for a
/// rule about whole hosts (also for reports written before findings carried a
/// scope: a host rule's finding is about its host whatever it says), the
/// resource URL for a finding about a subresource (`resource`, or the `url`
/// of its data in older reports), else the normalized page URL.
fn subject_of(finding: &Finding) -> (Scope, String) {
    let host_rule = finding.scope == Scope::Host
        || registry::meta(&finding.rule_id).is_some_and(|m| m.scope == Scope::Host);
    if host_rule {
        if let Ok(url) = Url::parse(finding.page_url.trim()) {
            return (Scope::Host, url.origin().ascii_serialization());
        }
    }
    let resource = finding.resource.clone().or_else(|| {
        (finding.scope == Scope::Resource)
            .then(|| {
                finding
                    .data
                    .as_ref()
                    .and_then(|d| d.get("url"))
                    .and_then(|u| u.as_str())
                    .map(str::to_string)
            })
            .flatten()
    });
    match resource {
        Some(r) => (Scope::Resource, normalize_url(&r)),
        None => (Scope::Page, normalize_url(&finding.page_url)),
    }
}

/// The looser identity used in the second matching pass: rule, page and snippet,
/// without the selector. `None` for findings without a snippet, and for host
/// and resource findings (their fingerprint has no selector to move).
fn moved_key(finding: &Finding) -> Option<String> {
    if finding.snippet.trim().is_empty() || subject_of(finding).0 != Scope::Page {
        return None;
    }
    Some(format!(
        "{}\u{0}{}\u{0}{}",
        finding.rule_id,
        normalize_url(&finding.page_url),
        snippet_hash(&finding.snippet)
    ))
}

/// Hash of a snippet with runs of white space folded, so re-indented markup
/// keeps its identity.
fn snippet_hash(snippet: &str) -> String {
    let folded = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
    hex::encode(&Sha256::digest(folded.as_bytes())[..8])
}

/// A page URL reduced to what identifies the page: scheme and host lowercased,
/// default port dropped, fragment dropped, query parameters sorted, a trailing
/// slash on a non-root path dropped. Strings that are not URLs are kept as given.
pub fn normalize_url(raw: &str) -> String {
    let Ok(mut url) = Url::parse(raw.trim()) else {
        return raw.trim().to_string();
    };
    url.set_fragment(None);
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if pairs.is_empty() {
        url.set_query(None);
    } else {
        pairs.sort();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    let path = url.path().to_string();
    if path.len() > 1 && path.ends_with('/') {
        url.set_path(path.trim_end_matches('/'));
    }
    url.to_string()
}

/// Reads a JSON report (e.g. the baseline file) and checks it is one this
/// version understands.
pub fn parse_report(json: &[u8]) -> Result<Report> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| Error::InvalidReport(e.to_string()))?;
    match value.get("schema_version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(Error::InvalidReport(format!(
                "schema_version {v} is not the supported {SCHEMA_VERSION}"
            )))
        }
        None => {
            return Err(Error::InvalidReport(
                "no schema_version field: this is not a sitescan JSON report".into(),
            ))
        }
    }
    serde_json::from_value(value).map_err(|e| Error::InvalidReport(e.to_string()))
}

/// Marks each finding of `report` `new` or `unchanged` against `baseline`, lists
/// the baseline's vanished findings under `fixed` (their own `baseline` mark
/// cleared), and records the counts in `report.baseline` and per category in the
/// summary. Applying it again with the same baseline gives the same result.
pub fn apply_baseline(report: &mut Report, baseline: &Report) {
    // Baseline findings still unmatched, by fingerprint and by moved key.
    let mut by_fp: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_moved: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in baseline.findings.iter().enumerate() {
        by_fp.entry(fingerprint(f)).or_default().push(i);
        if let Some(k) = moved_key(f) {
            by_moved.entry(k).or_default().push(i);
        }
    }
    for list in by_fp.values_mut().chain(by_moved.values_mut()) {
        list.reverse();
    }
    let mut matched = vec![false; baseline.findings.len()];
    let mut state = vec![BaselineState::New; report.findings.len()];

    // Pass 1: exact fingerprints.
    for (i, f) in report.findings.iter().enumerate() {
        if let Some(j) = take_unmatched(by_fp.get_mut(&fingerprint(f)), &matched) {
            matched[j] = true;
            state[i] = BaselineState::Unchanged;
        }
    }
    // Pass 2: moved elements (same rule, page and snippet).
    for (i, f) in report.findings.iter().enumerate() {
        if state[i] == BaselineState::Unchanged {
            continue;
        }
        let Some(key) = moved_key(f) else { continue };
        if let Some(j) = take_unmatched(by_moved.get_mut(&key), &matched) {
            matched[j] = true;
            state[i] = BaselineState::Unchanged;
        }
    }

    // Pass 3: measurements within their noise margin (see the module doc).
    let scanned_before = pages_by_url(&baseline.pages);
    for (i, f) in report.findings.iter_mut().enumerate() {
        if state[i] == BaselineState::Unchanged {
            continue;
        }
        let Some(m) = registry::meta(&f.rule_id).and_then(|m| m.measured) else {
            continue;
        };
        let Some((value, limit)) = m.of(f.data.as_ref()) else {
            continue;
        };
        if m.within_noise(value, limit) && scanned_before.contains_key(&normalize_url(&f.page_url))
        {
            state[i] = BaselineState::Unchanged;
            if let Some(serde_json::Value::Object(data)) = f.data.as_mut() {
                data.insert("noise".into(), serde_json::Value::Bool(true));
            }
        }
    }
    // Pass 4: rules that did not run on a page in the baseline (see the module doc).
    let not_run_before = rules_not_run(&baseline.findings);
    for (i, f) in report.findings.iter().enumerate() {
        if state[i] == BaselineState::New
            && (did_not_run(&not_run_before, f)
                || (only_out_of_time(f)
                    && scanned_before.contains_key(&normalize_url(&f.page_url))))
        {
            state[i] = BaselineState::Unchanged;
        }
    }
    let not_run_now = rules_not_run(&report.findings);
    let scanned_now = pages_by_url(&report.pages);
    let still_near_limit = |f: &Finding| -> bool {
        let Some(m) = registry::meta(&f.rule_id).and_then(|m| m.measured) else {
            return false;
        };
        let Some((_, limit)) = m.of(f.data.as_ref()) else {
            return false;
        };
        scanned_now
            .get(&normalize_url(&f.page_url))
            .and_then(|p| page_measure(p, m.value))
            .is_some_and(|now| now * (1.0 + m.margin) > limit)
    };

    for (f, s) in report.findings.iter_mut().zip(&state) {
        f.baseline = Some(*s);
    }
    let fixed: Vec<Finding> = baseline
        .findings
        .iter()
        .zip(&matched)
        // A review item (cant-tell) that went away was not fixed by anyone: it
        // may simply no longer apply. Only failures count as fixed, and a
        // measurement that only moved within its noise is not a fix.
        .filter(|(f, m)| {
            !**m && f.outcome == Outcome::Failed
                && !still_near_limit(f)
                && !did_not_run(&not_run_now, f)
        })
        .map(|(f, _)| Finding {
            baseline: None,
            ..f.clone()
        })
        .collect();

    for (category, summary) in report.summary.iter_mut() {
        summary.new = Some(
            report
                .findings
                .iter()
                .filter(|f| f.category == *category && f.baseline == Some(BaselineState::New))
                .count() as u64,
        );
        summary.fixed = Some(fixed.iter().filter(|f| f.category == *category).count() as u64);
    }
    let new = state.iter().filter(|s| **s == BaselineState::New).count() as u64;
    report.baseline = Some(BaselineSummary {
        scan_id: baseline.scan_id.clone(),
        started_at: baseline.started_at,
        new,
        unchanged: state.len() as u64 - new,
        fixed: fixed.len() as u64,
    });
    report.fixed = Some(fixed);
}

/// The rules that did not run on each page (normalized URL), as the pages'
/// `analysis-incomplete` findings list them in `data.rules_not_run`.
fn rules_not_run(findings: &[Finding]) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for f in findings
        .iter()
        .filter(|f| f.rule_id == "analysis-incomplete")
    {
        let Some(ids) = f
            .data
            .as_ref()
            .and_then(|d| d.get("rules_not_run"))
            .and_then(|v| v.as_array())
        else {
            continue;
        };
        out.entry(normalize_url(&f.page_url))
            .or_default()
            .extend(ids.iter().filter_map(|v| v.as_str()).map(str::to_string));
    }
    out
}

/// Whether `f` is an `analysis-incomplete` finding whose only limit hit was the
/// analysis time: a fact about the scanning machine's load, not about the page.
fn only_out_of_time(f: &Finding) -> bool {
    if f.rule_id != "analysis-incomplete" {
        return false;
    }
    let Some(limits) = f
        .data
        .as_ref()
        .and_then(|d| d.get("limits"))
        .and_then(|v| v.as_array())
    else {
        return false;
    };
    !limits.is_empty()
        && limits
            .iter()
            .all(|l| l.get("limit").and_then(|v| v.as_str()) == Some("time"))
}

/// Whether `f`'s rule is among those that did not run on its page.
fn did_not_run(not_run: &HashMap<String, Vec<String>>, f: &Finding) -> bool {
    not_run
        .get(&normalize_url(&f.page_url))
        .is_some_and(|ids| ids.contains(&f.rule_id))
}

/// A report's pages by normalized URL (requested and final).
fn pages_by_url(pages: &[PageReport]) -> HashMap<String, &PageReport> {
    let mut out = HashMap::new();
    for p in pages {
        out.insert(normalize_url(&p.final_url), p);
        out.entry(normalize_url(&p.url)).or_insert(p);
    }
    out
}

/// A page's own measurement named as a measured rule names its value
/// (`total_ms`, `ttfb_ms`).
fn page_measure(page: &PageReport, key: &str) -> Option<f64> {
    match key {
        "total_ms" => Some(page.total_ms as f64),
        "ttfb_ms" => Some(page.ttfb_ms as f64),
        _ => None,
    }
}

/// Takes the first baseline index of the list not matched yet. Lists are kept in
/// reverse baseline order so taking from the end is O(1) and matches in order.
fn take_unmatched(candidates: Option<&mut Vec<usize>>, matched: &[bool]) -> Option<usize> {
    let list = candidates?;
    while let Some(j) = list.pop() {
        if !matched[j] {
            return Some(j);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use sitescan_rules::{Category, Scope};

    #[test]
    fn urls_normalize_to_the_page_they_name() {
        assert_eq!(
            normalize_url("HTTPS://Shop.Example:443/a/?b=2&a=1#top"),
            "https://shop.example/a?a=1&b=2"
        );
        assert_eq!(
            normalize_url("https://shop.example"),
            "https://shop.example/"
        );
        assert_eq!(normalize_url("not a url"), "not a url");
    }

    #[test]
    fn fingerprint_is_stable_and_ignores_what_does_not_identify() {
        let a = &sample::findings()[0];
        let mut b = a.clone();
        b.message = "reworded message".into();
        b.page_url = "https://SHOP.example/#main".into();
        b.snippet = format!("  {}\n", a.snippet.replace(' ', "\n   "));
        assert_eq!(fingerprint(a), fingerprint(&b));
        assert_eq!(fingerprint(a).len(), 32);
        let mut c = a.clone();
        c.selector = "img.brand".into();
        assert_ne!(fingerprint(a), fingerprint(&c));
        let mut d = a.clone();
        d.rule_id = "image-redundant-alt".into();
        assert_ne!(fingerprint(a), fingerprint(&d));
    }

    #[test]
    fn one_fixed_one_broken_one_moved_and_order_does_not_matter() {
        let baseline = sample::report();
        let mut current = sample::report();
        // Fixed: the hsts header got added.
        current.findings.retain(|f| f.rule_id != "hsts");
        // Broke: a new image without alt on /contact.
        current.findings.push(sample::finding(
            "image-alt",
            Category::Accessibility,
            sitescan_rules::Outcome::Failed,
            sitescan_rules::Impact::Critical,
            "/contact",
            "form > img",
            r#"<img src="map.png">"#,
            "Image has no text alternative",
            &["1.1.1"],
        ));
        // Moved: a sibling was inserted before the gallery image.
        current.findings[2].selector = "#gallery > li:nth-child(3) > img".into();
        current.findings.reverse();

        apply_baseline(&mut current, &baseline);

        let new: Vec<&str> = current
            .findings
            .iter()
            .filter(|f| f.baseline == Some(BaselineState::New))
            .map(|f| f.page_url.as_str())
            .collect();
        assert_eq!(new, vec!["https://shop.example/contact"]);
        let fixed = current.fixed.as_ref().unwrap();
        assert_eq!(fixed.len(), 1);
        assert_eq!(fixed[0].rule_id, "hsts");
        assert_eq!(fixed[0].baseline, None);
        let b = current.baseline.as_ref().unwrap();
        assert_eq!((b.new, b.unchanged, b.fixed), (1, 8, 1));
        assert_eq!(b.scan_id.as_deref(), Some("scan_01"));
        let a11y = &current.summary[&Category::Accessibility];
        assert_eq!((a11y.new, a11y.fixed), (Some(1), Some(0)));
        let sec = &current.summary[&Category::Security];
        assert_eq!((sec.new, sec.fixed), (Some(0), Some(1)));

        // The marks serialize as the contract says, and re-applying is stable.
        let v = serde_json::to_value(&current).unwrap();
        assert_eq!(v["findings"][0]["baseline"], "new");
        assert_eq!(v["fixed"][0]["rule_id"], "hsts");
        assert_eq!(v["summary"]["security"]["fixed"], 1);
        let again = current.clone();
        apply_baseline(&mut current, &baseline);
        assert_eq!(current.findings, again.findings);
        assert_eq!(current.fixed, again.fixed);
    }

    #[test]
    fn duplicates_are_matched_one_for_one() {
        let baseline = sample::report();
        let mut current = sample::report();
        let dup = current.findings[0].clone();
        current.findings.push(dup);
        apply_baseline(&mut current, &baseline);
        let b = current.baseline.unwrap();
        assert_eq!((b.new, b.unchanged, b.fixed), (1, 9, 0));
    }

    #[test]
    fn baseline_files_are_checked() {
        let json = crate::render::render(&sample::report(), crate::render::Format::Json).unwrap();
        assert_eq!(parse_report(&json).unwrap().findings.len(), 9);
        let err = parse_report(b"{\"version\": \"2.1.0\"}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no schema_version"), "{err}");
        let err = parse_report(b"{\"schema_version\": 99}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("schema_version 99"), "{err}");
        let err = parse_report(b"not json").unwrap_err().to_string();
        assert!(err.contains("not a usable sitescan report"), "{err}");
    }

    fn measured(rule: &str, page: &str, key: &str, value: u64, max: u64) -> Finding {
        let mut f = sample::finding(
            rule,
            Category::Performance,
            Outcome::Failed,
            sitescan_rules::Impact::Moderate,
            page,
            "",
            "",
            &format!("The page took {value} ms (more than {max} ms)."),
            &[],
        );
        f.with_data(serde_json::json!({ key: value, "max": max }));
        f
    }

    fn grouped(rule: &str, scope: Scope, pages: &[&str], message: &str) -> Finding {
        let mut f = sample::finding(
            rule,
            Category::Security,
            Outcome::Failed,
            sitescan_rules::Impact::Serious,
            pages[0],
            if scope == Scope::Resource {
                "html > head > link"
            } else {
                ""
            },
            "",
            message,
            &[],
        );
        f.scope = scope;
        if scope == Scope::Resource {
            f.resource = Some("https://shop.example/site.css".into());
        }
        f.occurrences = pages
            .iter()
            .map(|p| sitescan_rules::Occurrence {
                page_url: format!("https://shop.example{p}"),
                selector: f.selector.clone(),
                snippet: String::new(),
                text: None,
            })
            .collect();
        f
    }

    fn set_timing(report: &mut Report, path: &str, total_ms: u64, ttfb_ms: u64) {
        let url = format!("https://shop.example{path}");
        let page = report.pages.iter_mut().find(|p| p.url == url).unwrap();
        page.total_ms = total_ms;
        page.ttfb_ms = ttfb_ms;
    }

    /// An `analysis-incomplete` finding naming the rules that did not run.
    fn cut_short(page: &str, rules: &[&str]) -> Finding {
        let mut f = sample::finding(
            "analysis-incomplete",
            Category::Quality,
            Outcome::CantTell,
            sitescan_rules::Impact::Minor,
            page,
            "",
            "",
            "Analysis stopped after 5 s: some rules did not run.",
            &[],
        );
        f.with_data(serde_json::json!({
            "limits": [{"limit": "time", "value": 5000, "count": 0}],
            "rules_not_run": rules,
        }));
        f
    }

    fn element(rule: &str, page: &str, selector: &str) -> Finding {
        sample::finding(
            rule,
            Category::Accessibility,
            Outcome::Failed,
            sitescan_rules::Impact::Moderate,
            page,
            selector,
            "<h4>Intro</h4>",
            "Heading level 4 follows level 1, skipping a level.",
            &[],
        )
    }

    #[test]
    fn rules_a_time_budget_cut_off_make_nothing_new_or_fixed() {
        let page = "/about";
        // The baseline ran out of time on /about before heading-order ran; this
        // scan ran it and found a skip. And the other way round for
        // landmark-unique on /.
        let mut baseline = sample::report();
        baseline.findings.extend([
            cut_short(page, &["heading-order", "region"]),
            element("landmark-unique", "/", "nav"),
        ]);
        let mut current = sample::report();
        current.findings.extend([
            element("heading-order", page, "h4"),
            cut_short("/", &["landmark-unique"]),
            // A rule that did run on /about in the baseline: new is new.
            element("page-has-heading-one", page, ""),
        ]);
        // A page over a limit of its content is news, unlike one over time.
        let mut too_many_nodes = cut_short("/empty-title", &["region"]);
        too_many_nodes.with_data(serde_json::json!({
            "limits": [{"limit": "nodes", "value": 200000, "count": 200001}],
            "rules_not_run": ["region"],
        }));
        current.findings.push(too_many_nodes);
        apply_baseline(&mut current, &baseline);
        let cut_states: Vec<(&str, Option<BaselineState>)> = current
            .findings
            .iter()
            .filter(|f| f.rule_id == "analysis-incomplete")
            .map(|f| (f.page_url.as_str(), f.baseline))
            .collect();
        assert_eq!(
            cut_states,
            [
                ("https://shop.example/", Some(BaselineState::Unchanged)),
                ("https://shop.example/empty-title", Some(BaselineState::New)),
            ]
        );
        let state = |rule: &str| {
            current
                .findings
                .iter()
                .find(|f| f.rule_id == rule)
                .and_then(|f| f.baseline)
        };
        assert_eq!(state("heading-order"), Some(BaselineState::Unchanged));
        assert_eq!(state("page-has-heading-one"), Some(BaselineState::New));
        let fixed: Vec<&str> = current
            .fixed
            .as_ref()
            .unwrap()
            .iter()
            .map(|f| f.rule_id.as_str())
            .collect();
        assert!(!fixed.contains(&"landmark-unique"), "{fixed:?}");
    }

    #[test]
    fn two_scans_that_differ_only_in_measured_noise_have_nothing_new() {
        let mut baseline = sample::report();
        set_timing(&mut baseline, "/", 1900, 300);
        set_timing(&mut baseline, "/about", 2300, 650);
        baseline.findings.extend([
            // "/" passed download-time at 1900 ms: no finding.
            measured("server-response-time", "/about", "ttfb_ms", 650, 600),
            measured("download-time", "/about", "total_ms", 2300, 2000),
            grouped(
                "content-security-policy",
                Scope::Host,
                &["/", "/about"],
                "The page has no Content-Security-Policy.",
            ),
            grouped(
                "long-cache-ttl",
                Scope::Resource,
                &["/about"],
                "The stylesheet https://shop.example/site.css is cached for only 10 minutes.",
            ),
        ]);

        let mut current = sample::report();
        set_timing(&mut current, "/", 2100, 300);
        set_timing(&mut current, "/about", 1950, 700);
        current.findings.extend([
            // Over the limit now, but within its noise (≤ 1.5 × 2000 ms).
            measured("download-time", "/", "total_ms", 2100, 2000),
            // Failing in both, with another value: the same finding.
            measured("server-response-time", "/about", "ttfb_ms", 700, 600),
            // A host fact whose first page is another one this time.
            grouped(
                "content-security-policy",
                Scope::Host,
                &["/products?id=3&sort=asc", "/", "/about"],
                "The page has no Content-Security-Policy.",
            ),
            // A resource seen from another page first, its measured words changed.
            grouped(
                "long-cache-ttl",
                Scope::Resource,
                &["/", "/about"],
                "The stylesheet https://shop.example/site.css is cached for only 11 minutes.",
            ),
        ]);
        // /about's download-time finding is gone at 1950 ms: within the noise
        // under the limit (> 2000 / 1.5), so not a fix either.

        let mut compared = current.clone();
        apply_baseline(&mut compared, &baseline);
        let new: Vec<&str> = compared
            .findings
            .iter()
            .filter(|f| f.baseline == Some(BaselineState::New))
            .map(|f| f.rule_id.as_str())
            .collect();
        assert!(new.is_empty(), "{new:?}");
        assert_eq!(compared.fixed.as_ref().map(Vec::len), Some(0));
        let b = compared.baseline.as_ref().unwrap();
        assert_eq!((b.new, b.unchanged, b.fixed), (0, 13, 0));
        let noisy = compared
            .findings
            .iter()
            .find(|f| f.rule_id == "download-time")
            .unwrap();
        assert_eq!(noisy.data.as_ref().unwrap()["noise"], true);

        // A clear change is still news: 3500 ms is past the margin, and a
        // page that now answers in 1200 ms is a fix.
        let mut slow = current.clone();
        set_timing(&mut slow, "/", 3500, 300);
        set_timing(&mut slow, "/about", 1200, 700);
        slow.findings.retain(|f| f.rule_id != "download-time");
        slow.findings
            .push(measured("download-time", "/", "total_ms", 3500, 2000));
        apply_baseline(&mut slow, &baseline);
        let b = slow.baseline.as_ref().unwrap();
        assert_eq!((b.new, b.fixed), (1, 1));
        assert_eq!(slow.fixed.as_ref().unwrap()[0].rule_id, "download-time");
    }

    #[test]
    fn fingerprints_hold_no_measured_values_nor_the_first_page_of_a_group() {
        let a = measured("download-time", "/", "total_ms", 2100, 2000);
        let mut b = measured("download-time", "/", "total_ms", 2900, 2000);
        b.snippet = "Content-Length: 81234".into();
        assert_eq!(fingerprint(&a), fingerprint(&b));
        let host = |pages: &[&str]| {
            grouped(
                "content-security-policy",
                Scope::Host,
                pages,
                "The page has no Content-Security-Policy.",
            )
        };
        assert_eq!(
            fingerprint(&host(&["/"])),
            fingerprint(&host(&["/about", "/"]))
        );
        // A report written before findings had a scope: the host rule's
        // finding is still about its host.
        let mut old = host(&["/about"]);
        old.scope = Scope::Page;
        old.occurrences.clear();
        assert_eq!(fingerprint(&old), fingerprint(&host(&["/"])));
        let other = grouped(
            "content-security-policy",
            Scope::Host,
            &["/"],
            "Content-Security-Policy allows 'unsafe-inline' scripts.",
        );
        assert_ne!(fingerprint(&other), fingerprint(&host(&["/"])));
    }
}
