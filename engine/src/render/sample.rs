//! A realistic report for the renderer tests: several categories and impacts, a
//! cant-tell outcome, page- and header-level findings, measured data, and text
//! that needs escaping in every format (markup, quotes, ampersands, commas, pipes,
//! newlines, non-ASCII).

use std::collections::BTreeMap;

use chrono::{TimeZone, Utc};
use serde_json::json;
use sitescan_rules::{Category, Finding, Impact, Outcome};

use crate::config::ScanConfig;
use crate::report::score::summarize;
use crate::report::{CrawlStats, PageReport, Report, RuleSummary, Skipped, SCHEMA_VERSION};

/// The site of the sample report.
pub(crate) const SITE: &str = "https://shop.example/";

#[allow(clippy::too_many_arguments)]
pub(crate) fn finding(
    rule_id: &str,
    category: Category,
    outcome: Outcome,
    impact: Impact,
    page: &str,
    selector: &str,
    snippet: &str,
    message: &str,
    wcag: &[&str],
) -> Finding {
    Finding {
        rule_id: rule_id.into(),
        category,
        outcome,
        impact,
        page_url: format!("https://shop.example{page}"),
        selector: selector.into(),
        snippet: snippet.into(),
        message: message.into(),
        wcag: wcag.iter().map(|s| s.to_string()).collect(),
        data: None,
        baseline: None,
        occurrences: Vec::new(),
        occurrences_total: None,
        scope: Default::default(),
        resource: None,
        mark: None,
        screenshot: None,
    }
}

fn page(path: &str, status: u16, findings: u64) -> PageReport {
    PageReport {
        url: format!("https://shop.example{path}"),
        final_url: format!("https://shop.example{path}"),
        status,
        depth: u32::from(path != "/"),
        ttfb_ms: 42,
        total_ms: 120,
        bytes: 18_000,
        content_type: Some("text/html".into()),
        findings,
        ..Default::default()
    }
}

fn rule(id: &str, category: Category, applicable: u64, failed: u64) -> RuleSummary {
    RuleSummary {
        rule_id: id.into(),
        category: Some(category),
        pages_applicable: applicable,
        pages_failed: failed,
        passed: applicable * 3,
        failed,
        cant_tell: 0,
    }
}

/// The findings of the sample report, in the order a scan would list them.
pub(crate) fn findings() -> Vec<Finding> {
    use Category::*;
    use Impact::*;
    use Outcome::*;
    let mut contrast = finding(
        "color-contrast",
        Accessibility,
        Failed,
        Serious,
        "/",
        "main > p.note",
        r#"<p class="note">Free shipping & returns</p>"#,
        "Text contrast is 2.9:1, below 4.5:1",
        &["1.4.3"],
    );
    contrast.with_data(json!({"contrast_ratio": 2.9, "expected": 4.5}));
    vec![
        finding(
            "image-alt",
            Accessibility,
            Failed,
            Critical,
            "/",
            "img.logo",
            r#"<img src="logo.png" class="logo">"#,
            "Image has no text alternative",
            &["1.1.1"],
        ),
        contrast,
        finding(
            "hsts",
            Security,
            Failed,
            Serious,
            "/",
            "",
            "strict-transport-security: (missing)",
            "No Strict-Transport-Security header on an HTTPS page",
            &[],
        ),
        finding(
            "image-alt",
            Accessibility,
            Failed,
            Critical,
            "/products?id=3&sort=asc",
            "#gallery > li:nth-child(2) > img",
            r#"<img src="p.png?x=1&y=<2>" title='"quoted"'>"#,
            "Image has no text alternative",
            &["1.1.1"],
        ),
        finding(
            "render-blocking",
            Performance,
            Failed,
            Minor,
            "/products?id=3&sort=asc",
            "head > script:nth-child(4)",
            r#"<script src="/app.js"></script>"#,
            "Script blocks rendering: add defer or async",
            &[],
        ),
        finding(
            "document-title",
            Accessibility,
            Failed,
            Serious,
            "/about",
            "",
            "",
            "The page has no <title>",
            &["2.4.2"],
        ),
        finding(
            "color-contrast",
            Accessibility,
            CantTell,
            Serious,
            "/about",
            "header > h1",
            "<h1>Über uns — café</h1>",
            "Text over a background image: check its contrast by eye",
            &["1.4.3"],
        ),
        finding(
            "meta-description",
            Seo,
            Failed,
            Moderate,
            "/about",
            "head",
            "<head>",
            "Meta description missing | add one, \"short\", under 160 characters\nsecond line",
            &[],
        ),
        finding(
            "broken-link",
            Quality,
            Failed,
            Moderate,
            "/about",
            r#"a[href="/old"]"#,
            r#"<a href="/old">Old <b>offers</b></a>"#,
            "Link to /old answers 404 <script>alert(1)</script>",
            &[],
        ),
    ]
}

/// A report of a four-page shop with nine findings in five categories.
pub(crate) fn report() -> Report {
    let findings = findings();
    let rules = vec![
        rule("document-title", Category::Accessibility, 4, 1),
        rule("image-alt", Category::Accessibility, 3, 2),
        rule("color-contrast", Category::Accessibility, 4, 1),
        rule("meta-description", Category::Seo, 4, 1),
        rule("hsts", Category::Security, 4, 1),
        rule("render-blocking", Category::Performance, 4, 1),
        rule("broken-link", Category::Quality, 3, 1),
    ];
    let config = ScanConfig {
        max_pages: 50,
        ..Default::default()
    };
    let mut errors = BTreeMap::new();
    errors.insert("timeout".to_string(), 1);
    Report {
        schema_version: SCHEMA_VERSION,
        scan_id: Some("scan_01".into()),
        site: SITE.into(),
        started_at: Utc
            .with_ymd_and_hms(2026, 11, 21, 9, 0, 0)
            .single()
            .unwrap_or_default(),
        finished_at: Utc
            .with_ymd_and_hms(2026, 11, 21, 9, 0, 7)
            .single()
            .unwrap_or_default(),
        config,
        stats: CrawlStats {
            pages_fetched: 5,
            skipped: Skipped {
                robots: 1,
                scope: 3,
                ..Default::default()
            },
            errors,
            truncated: false,
            urls_left: 0,
            network_unreachable: false,
            stylesheets: 2,
            stylesheets_imported: 1,
            stylesheets_failed: 0,
        },
        summary: summarize(&rules, &findings),
        pages: vec![
            page("/", 200, 3),
            page("/products?id=3&sort=asc", 200, 2),
            page("/about", 200, 4),
            page("/contact", 200, 0),
            PageReport {
                error: Some("timeout after 30000 ms".into()),
                ..page("/slow", 0, 0)
            },
        ],
        findings,
        rules,
        notes: vec!["rule `spelling` skipped: no dictionary for lang=\"de\"".into()],
        fixed: None,
        baseline: None,
        screenshots: Default::default(),
    }
}

/// A report of a clean one-page site.
pub(crate) fn empty_report() -> Report {
    let rules = vec![rule("document-title", Category::Accessibility, 1, 0)];
    Report {
        findings: Vec::new(),
        summary: summarize(&rules, &[]),
        rules,
        pages: vec![page("/", 200, 0)],
        notes: Vec::new(),
        stats: CrawlStats {
            pages_fetched: 1,
            ..Default::default()
        },
        ..report()
    }
}

/// A report assembled from what the real rules say about a few pages (every
/// registered rule, run through `sitescan_rules::analyze`), so the schema and
/// renderers are tested on findings as rules really produce them.
pub(crate) fn analyzed_report() -> Report {
    let pages = [
        (
            "https://shop.example/",
            r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop</h1><img src="a.png"><a href="/x">x</a></main></body></html>"#,
        ),
        (
            "https://shop.example/about",
            r#"<!doctype html><html><head></head><body><p style="color:#777;background:#888">Über <b>uns</b> & "more"</p></body></html>"#,
        ),
        (
            "https://shop.example/empty-title",
            "<html><head><title> </title></head><body></body></html>",
        ),
    ];
    let selection = sitescan_rules::registry::select(&["all"]).unwrap_or_default();
    let mut findings = Vec::new();
    let mut rules: BTreeMap<String, RuleSummary> = BTreeMap::new();
    let mut page_reports = Vec::new();
    for (url, html) in pages {
        let page = sitescan_rules::Page::from_html(url, html);
        let analysis = sitescan_rules::analyze(&page, &selection.page);
        for t in &analysis.tallies {
            let r = rules
                .entry(t.rule_id.clone())
                .or_insert_with(|| RuleSummary {
                    rule_id: t.rule_id.clone(),
                    category: sitescan_rules::registry::meta(&t.rule_id).map(|m| m.category),
                    ..Default::default()
                });
            if !t.inapplicable() && (t.passed > 0 || t.failed > 0) {
                r.pages_applicable += 1;
            }
            if t.failed > 0 {
                r.pages_failed += 1;
            }
            r.passed += u64::from(t.passed);
            r.failed += u64::from(t.failed);
            r.cant_tell += u64::from(t.cant_tell);
        }
        let failed = analysis
            .findings
            .iter()
            .filter(|f| f.outcome == Outcome::Failed)
            .count() as u64;
        page_reports.push(PageReport {
            url: url.into(),
            final_url: url.into(),
            status: 200,
            bytes: html.len() as u64,
            content_type: Some("text/html".into()),
            findings: failed,
            ..Default::default()
        });
        findings.extend(analysis.findings);
    }
    let rules: Vec<RuleSummary> = rules.into_values().collect();
    Report {
        summary: summarize(&rules, &findings),
        findings,
        rules,
        pages: page_reports,
        stats: CrawlStats {
            pages_fetched: 3,
            ..Default::default()
        },
        notes: Vec::new(),
        ..report()
    }
}

/// The title a renderer shows for a rule: the registry's when this build has the
/// rule (rules land over time), else the id.
pub(crate) fn title(id: &str) -> &str {
    sitescan_rules::registry::meta(id)
        .map(|m| m.title)
        .unwrap_or(id)
}
