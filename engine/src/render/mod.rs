//! Renderers: one module per output format, every one fed by the same [`Report`].
//!
//! [`render_to`] reads any [`ReportSource`]: a [`Report`] in memory or a
//! [`crate::SpooledReport`] whose findings wait in a temporary file. JSON and CSV
//! stream the findings through one at a time, so writing a large scan's report
//! costs no memory per finding; the other formats group findings (by rule, by
//! page) and load the whole report first.
//!
//! The JSON report is the canonical form (DESIGN.md, "The JSON report"); the other
//! formats are views of it for people (HTML, Markdown), for code-scanning
//! dashboards (SARIF 2.1.0), for CI test tabs (JUnit XML) and for spreadsheets
//! (CSV). Renderers never change the report: a baseline comparison or a gate is
//! applied before rendering ([`crate::baseline`], [`crate::gate`]).
//!
//! ```
//! use sitescan_engine::render::{render, Format};
//! # fn demo(report: &sitescan_engine::Report) -> sitescan_engine::Result<()> {
//! let format: Format = "sarif".parse()?;
//! let bytes = render(report, format)?;
//! assert_eq!(format.file_extension(), "sarif");
//! # let _ = bytes; Ok(()) }
//! ```

use std::collections::BTreeMap;

use sitescan_rules::{registry, Category, Finding, Impact, Outcome, RuleMeta};

use crate::error::{Error, Result};
use crate::report::{Report, ReportSource};

mod csv;
mod html;
mod json;
mod junit;
mod markdown;
mod sarif;
pub mod wcag;

/// An output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// The canonical JSON report, pretty-printed.
    #[default]
    Json,
    /// One self-contained HTML page for people.
    Html,
    /// SARIF 2.1.0, for code-scanning dashboards (GitHub, Azure DevOps).
    Sarif,
    /// JUnit XML, for CI test tabs (GitLab, Jenkins).
    Junit,
    /// One CSV row per finding.
    Csv,
    /// A short Markdown summary for a pull-request comment or a CI job summary.
    Markdown,
}

impl Format {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Format; 6] = [
        Format::Json,
        Format::Html,
        Format::Sarif,
        Format::Junit,
        Format::Csv,
        Format::Markdown,
    ];

    /// The name used on the command line and in `?format=`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Html => "html",
            Format::Sarif => "sarif",
            Format::Junit => "junit",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }

    /// The HTTP `Content-Type` of the rendered bytes.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Html => "text/html; charset=utf-8",
            Format::Sarif => "application/sarif+json",
            Format::Junit => "application/xml",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Markdown => "text/markdown; charset=utf-8",
        }
    }

    /// The usual file extension, without the dot.
    pub fn file_extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Html => "html",
            Format::Sarif => "sarif",
            Format::Junit => "xml",
            Format::Csv => "csv",
            Format::Markdown => "md",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let wanted = s.trim().to_ascii_lowercase();
        let alias = match wanted.as_str() {
            "md" => "markdown",
            "xml" => "junit",
            other => other,
        };
        Format::ALL
            .into_iter()
            .find(|f| f.name() == alias)
            .ok_or_else(|| Error::UnknownFormat(s.to_string()))
    }
}

/// Renders a report in a format.
pub fn render(report: &Report, format: Format) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    render_to(report, format, &mut out)?;
    Ok(out)
}

/// Renders a report — in memory, or spooled ([`crate::SpooledReport`]) — into a
/// writer (a file, stdout, an HTTP body). JSON and CSV stream the findings;
/// give a buffered writer.
pub fn render_to(
    source: &dyn ReportSource,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let write_err = |e: std::io::Error| Error::Render {
        format: format.name(),
        reason: e.to_string(),
    };
    match format {
        Format::Json => json::write(source, out),
        Format::Csv => csv::write(source, out),
        Format::Html => out
            .write_all(html::render(&*source.to_report()?).as_bytes())
            .map_err(write_err),
        Format::Sarif => out
            .write_all(&sarif::render(&*source.to_report()?)?)
            .map_err(write_err),
        Format::Junit => out
            .write_all(&junit::render(&*source.to_report()?)?)
            .map_err(write_err),
        Format::Markdown => out
            .write_all(markdown::render(&*source.to_report()?).as_bytes())
            .map_err(write_err),
    }
}

/// The JSON report without indentation, findings streamed from `source` as
/// [`render_to`] streams them: what the service stores (smaller than the
/// pretty-printed file, the same document).
pub fn render_json_compact_to(
    source: &dyn ReportSource,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    json::write_compact(source, out)
}

/// What the renderers know of a rule: its registry metadata when this build has
/// the rule, else what its findings carry (a report from another version).
#[derive(Debug, Clone)]
pub(crate) struct RuleInfo<'r> {
    pub(crate) id: &'r str,
    pub(crate) meta: Option<&'static RuleMeta>,
    pub(crate) category: Category,
    pub(crate) impact: Impact,
    pub(crate) wcag: Vec<String>,
}

impl RuleInfo<'_> {
    pub(crate) fn title(&self) -> &str {
        self.meta.map(|m| m.title).unwrap_or(self.id)
    }
    pub(crate) fn help(&self) -> &str {
        self.meta.map(|m| m.help).unwrap_or("")
    }
    pub(crate) fn help_url(&self) -> &str {
        self.meta.map(|m| m.help_url).unwrap_or("")
    }
}

/// The findings of one rule.
#[derive(Debug, Clone)]
pub(crate) struct RuleGroup<'r> {
    pub(crate) rule: RuleInfo<'r>,
    pub(crate) findings: Vec<&'r Finding>,
}

impl RuleGroup<'_> {
    pub(crate) fn failed(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.outcome == Outcome::Failed)
            .count()
    }
    pub(crate) fn cant_tell(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.outcome == Outcome::CantTell)
            .count()
    }
    /// Pages the rule's findings show on, their occurrences included (places
    /// past a finding's listed occurrences count as pages of their own).
    pub(crate) fn pages(&self) -> usize {
        let mut pages: Vec<&str> = self
            .findings
            .iter()
            .flat_map(|f| {
                std::iter::once(f.page_url.as_str())
                    .chain(f.occurrences.iter().map(|o| o.page_url.as_str()))
            })
            .collect();
        pages.sort_unstable();
        pages.dedup();
        let unlisted: u64 = self
            .findings
            .iter()
            .map(|f| f.occurrence_count() - (f.occurrences.len() as u64).max(1))
            .sum();
        pages.len() + usize::try_from(unlisted).unwrap_or(usize::MAX)
    }
}

/// Findings grouped by rule, most severe rules first (impact, then failures,
/// then id), findings inside a group by page then selector.
pub(crate) fn by_rule(report: &Report) -> Vec<RuleGroup<'_>> {
    let mut groups: BTreeMap<&str, RuleGroup<'_>> = BTreeMap::new();
    // Marked findings (crate::marks) are listed apart, in no rule's count.
    for f in report.findings.iter().filter(|f| f.mark.is_none()) {
        groups
            .entry(f.rule_id.as_str())
            .or_insert_with(|| RuleGroup {
                rule: rule_info(f.rule_id.as_str(), Some(f)),
                findings: Vec::new(),
            })
            .findings
            .push(f);
    }
    let mut out: Vec<RuleGroup<'_>> = groups.into_values().collect();
    for g in &mut out {
        g.findings.sort_by(|a, b| {
            (a.page_url.as_str(), a.selector.as_str()).cmp(&(b.page_url.as_str(), &b.selector))
        });
    }
    out.sort_by(|a, b| {
        b.rule
            .impact
            .cmp(&a.rule.impact)
            .then(b.failed().cmp(&a.failed()))
            .then(a.rule.id.cmp(b.rule.id))
    });
    out
}

/// Every rule the report knows of: those that ran (its rule summaries) and
/// those with findings, in registry order where possible.
pub(crate) fn known_rules(report: &Report) -> Vec<RuleInfo<'_>> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    let first_finding = |id: &str| report.findings.iter().find(|f| f.rule_id == id);
    for id in report
        .rules
        .iter()
        .map(|r| r.rule_id.as_str())
        .chain(report.findings.iter().map(|f| f.rule_id.as_str()))
    {
        if !seen.contains(&id) {
            seen.push(id);
            out.push(rule_info(id, first_finding(id)));
        }
    }
    out
}

fn rule_info<'r>(id: &'r str, finding: Option<&'r Finding>) -> RuleInfo<'r> {
    let meta = registry::meta(id);
    RuleInfo {
        id,
        meta,
        category: meta
            .map(|m| m.category)
            .or(finding.map(|f| f.category))
            .unwrap_or(Category::Quality),
        impact: meta
            .map(|m| m.impact)
            .or(finding.map(|f| f.impact))
            .unwrap_or(Impact::Moderate),
        wcag: match (meta, finding) {
            (Some(m), _) => m.wcag.iter().map(|s| s.to_string()).collect(),
            (None, Some(f)) => f.wcag.clone(),
            (None, None) => Vec::new(),
        },
    }
}

/// Failed findings per page, weighted by impact: the pages to look at first.
pub(crate) struct PageTally<'r> {
    pub(crate) url: &'r str,
    pub(crate) by_impact: [u64; 4],
    pub(crate) cant_tell: u64,
}

impl PageTally<'_> {
    /// Failed findings, all impacts.
    pub(crate) fn failed(&self) -> u64 {
        self.by_impact.iter().sum()
    }
    fn weight(&self) -> u64 {
        Impact::ALL
            .iter()
            .zip(self.by_impact)
            .map(|(i, n)| u64::from(i.weight()) * n)
            .sum()
    }
}

/// The `limit` pages with the heaviest failed findings (impact-weighted), worst
/// first. Findings about a whole host or one resource are left out: they are
/// fixed once, at the server or in the file, not page by page.
pub(crate) fn worst_pages(report: &Report, limit: usize) -> Vec<PageTally<'_>> {
    let mut pages: BTreeMap<&str, PageTally<'_>> = BTreeMap::new();
    for f in report.findings.iter().filter(|f| f.scope.is_page()) {
        let t = pages.entry(f.page_url.as_str()).or_insert(PageTally {
            url: f.page_url.as_str(),
            by_impact: [0; 4],
            cant_tell: 0,
        });
        match f.outcome {
            Outcome::Failed => t.by_impact[impact_index(f.impact)] += 1,
            Outcome::CantTell => t.cant_tell += 1,
            Outcome::Passed => {}
        }
    }
    let mut out: Vec<PageTally<'_>> = pages.into_values().filter(|p| p.failed() > 0).collect();
    out.sort_by(|a, b| {
        b.weight()
            .cmp(&a.weight())
            .then(b.failed().cmp(&a.failed()))
            .then(a.url.cmp(b.url))
    });
    out.truncate(limit);
    out
}

/// Position of an impact in [`Impact::ALL`] (most severe first).
pub(crate) fn impact_index(impact: Impact) -> usize {
    Impact::ALL.iter().position(|i| *i == impact).unwrap_or(0)
}

/// Totals over every category: failed findings per impact (most severe first) and
/// cant-tell findings.
pub(crate) fn totals(report: &Report) -> ([u64; 4], u64) {
    let mut by_impact = [0u64; 4];
    let mut cant_tell = 0;
    for f in report.findings.iter().filter(|f| f.mark.is_none()) {
        match f.outcome {
            Outcome::Failed => by_impact[impact_index(f.impact)] += 1,
            Outcome::CantTell => cant_tell += 1,
            Outcome::Passed => {}
        }
    }
    (by_impact, cant_tell)
}

/// `n` and the noun: `"1 page"`, `"2 pages"`, `"0 findings"`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How many findings a scan has, in the one phrasing of the views for people
/// (the HTML report's header and the dashboard's scan page): the failed
/// findings, then the ones a person must review when there are any —
/// `"0 findings"`, `"1 finding, 1 to review"`, `"3 findings, 2 to review"`.
pub fn findings_phrase(failed: u64, to_review: u64) -> String {
    let failed = count(failed, "finding", "findings");
    if to_review == 0 {
        failed
    } else {
        format!("{failed}, {to_review} to review")
    }
}

/// `failed` or `cant-tell`, as on the wire.
pub(crate) fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "passed",
        Outcome::Failed => "failed",
        Outcome::CantTell => "cant-tell",
    }
}

#[cfg(test)]
pub(crate) mod sample;

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample report with its `hsts` finding made one fact of the whole
    /// host shown on three pages, two of them listed.
    fn grouped_report() -> Report {
        let mut report = sample::report();
        let f = report
            .findings
            .iter_mut()
            .find(|f| f.rule_id == "hsts")
            .unwrap();
        f.scope = sitescan_rules::Scope::Host;
        f.occurrences = ["/", "/about"]
            .iter()
            .map(|p| sitescan_rules::Occurrence {
                page_url: format!("https://shop.example{p}"),
                selector: String::new(),
                snippet: String::new(),
                text: None,
            })
            .collect();
        f.occurrences_total = Some(3);
        report
    }

    #[test]
    fn every_format_shows_a_grouped_finding_once_with_its_places() {
        let report = grouped_report();
        let text = |format| String::from_utf8(render(&report, format).unwrap()).unwrap();

        let sarif: serde_json::Value = serde_json::from_str(&text(Format::Sarif)).unwrap();
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), report.findings.len());
        let hsts = results.iter().find(|r| r["ruleId"] == "hsts").unwrap();
        assert_eq!(hsts["properties"]["scope"], "host");
        assert_eq!(hsts["properties"]["occurrences"], 3);
        assert_eq!(
            hsts["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "https://shop.example/about"
        );
        assert_eq!(hsts["relatedLocations"].as_array().unwrap().len(), 1);

        let csv = text(Format::Csv);
        let row = csv.lines().find(|l| l.starts_with("hsts,")).unwrap();
        assert!(
            row.ends_with(",host,,3,https://shop.example/ https://shop.example/about"),
            "{row}"
        );

        let junit = text(Format::Junit);
        assert!(
            junit.contains(
                r#"<testcase classname="security.hsts" name="host https://shop.example" time="0">"#
            ),
            "{junit}"
        );
        assert!(junit.contains("3 places (listed: 2):"), "{junit}");
        // The host's testcase fails, none of the per-page hsts testcases do.
        assert_eq!(junit.matches(r#"classname="security.hsts""#).count(), 5);
        let plain = String::from_utf8(render(&sample::report(), Format::Junit).unwrap()).unwrap();
        assert_eq!(
            junit.matches("<failure").count(),
            plain.matches("<failure").count()
        );
        assert!(
            junit.contains(
                r#"<testcase classname="security.hsts" name="https://shop.example/" time="0"/>"#
            ),
            "{junit}"
        );

        let md = text(Format::Markdown);
        // One finding, three pages: the Pages column counts the places.
        assert!(md.contains("| serious | `hsts` hsts | 1 | 0 | 3 |"), "{md}");

        let html = text(Format::Html);
        assert!(html.contains("Whole host"), "whole host not shown");
        assert!(html.contains("3 places"), "places not counted");
        assert!(html.contains("…and 1 more"), "unlisted place not counted");
    }

    #[test]
    fn counts_are_phrased_with_the_right_number() {
        assert_eq!(count(1, "page", "pages"), "1 page");
        assert_eq!(count(0, "page", "pages"), "0 pages");
        assert_eq!(findings_phrase(0, 0), "0 findings");
        assert_eq!(findings_phrase(1, 0), "1 finding");
        assert_eq!(findings_phrase(1, 1), "1 finding, 1 to review");
        assert_eq!(findings_phrase(3, 2), "3 findings, 2 to review");
        assert_eq!(findings_phrase(0, 1), "0 findings, 1 to review");
    }

    #[test]
    fn format_names_parse_back_and_unknown_is_an_error() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!("MD".parse::<Format>().unwrap(), Format::Markdown);
        let err = "pdf".parse::<Format>().unwrap_err().to_string();
        assert!(err.contains("unknown report format `pdf`"), "{err}");
        assert!(
            err.contains("json, html, sarif, junit, csv, markdown"),
            "{err}"
        );
    }

    #[test]
    fn content_types_and_extensions() {
        let table: Vec<(&str, &str)> = Format::ALL
            .iter()
            .map(|f| (f.content_type(), f.file_extension()))
            .collect();
        assert_eq!(
            table,
            vec![
                ("application/json", "json"),
                ("text/html; charset=utf-8", "html"),
                ("application/sarif+json", "sarif"),
                ("application/xml", "xml"),
                ("text/csv; charset=utf-8", "csv"),
                ("text/markdown; charset=utf-8", "md"),
            ]
        );
    }

    #[test]
    fn every_format_renders_the_sample_and_an_empty_report() {
        for report in [sample::report(), sample::empty_report()] {
            for f in Format::ALL {
                let bytes = render(&report, f).unwrap();
                assert!(!bytes.is_empty(), "{f} rendered nothing");
                let mut out = Vec::new();
                render_to(&report, f, &mut out).unwrap();
                assert_eq!(out, bytes, "{f} is not deterministic");
            }
        }
    }

    #[test]
    fn groups_put_the_most_severe_rule_first_and_worst_pages_are_weighted() {
        let report = sample::report();
        let groups = by_rule(&report);
        assert_eq!(groups[0].rule.id, "image-alt");
        assert_eq!(groups[0].failed(), 2);
        assert_eq!(groups[0].pages(), 2);
        let worst = worst_pages(&report, 2);
        assert_eq!(worst.len(), 2);
        assert_eq!(worst[0].url, "https://shop.example/");
        assert_eq!(totals(&report), ([2, 3, 2, 1], 1));
    }
}
