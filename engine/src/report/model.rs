//! The JSON report: what scripts and other tools read. Field names are a contract
//! (DESIGN.md, "The JSON report"); bump [`SCHEMA_VERSION`] on any breaking change.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sitescan_rules::{Category, Finding, Hop, RuleError};

use crate::config::ScanConfig;

/// Version of the report's shape.
pub const SCHEMA_VERSION: u32 = 1;

/// A finished scan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`] of this report.
    pub schema_version: u32,
    /// Scan id when the scan ran in the service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_id: Option<String>,
    /// The start URL.
    pub site: String,
    /// When the scan started.
    pub started_at: DateTime<Utc>,
    /// When it finished.
    pub finished_at: DateTime<Utc>,
    /// The configuration as applied.
    pub config: ScanConfig,
    /// What the crawler did.
    pub stats: CrawlStats,
    /// Per category: score and counts by impact.
    pub summary: BTreeMap<Category, CategorySummary>,
    /// One entry per fetched URL.
    pub pages: Vec<PageReport>,
    /// Failed and cant-tell findings.
    pub findings: Vec<Finding>,
    /// Per rule: how many pages it applied to and how it went.
    pub rules: Vec<RuleSummary>,
    /// Things the reader should know (a rule that could not run, a check skipped).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Findings of the baseline report that this scan no longer has; present only
    /// when the report was compared with a baseline (`crate::baseline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<Vec<Finding>>,
    /// Totals of the comparison with a baseline; present only with a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSummary>,
    /// Render mode's pictures, which findings and pages name by id: they
    /// travel beside the JSON, never in it (see [`crate::report::screenshots`]).
    #[serde(skip)]
    pub screenshots: crate::report::Screenshots,
}

/// What comparing a report with a baseline report found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineSummary {
    /// The baseline's scan id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_id: Option<String>,
    /// When the baseline scan started.
    pub started_at: DateTime<Utc>,
    /// Findings not in the baseline.
    pub new: u64,
    /// Findings also in the baseline.
    pub unchanged: u64,
    /// Baseline findings gone from this report.
    pub fixed: u64,
}

/// Counts of what the crawler did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlStats {
    /// Pages fetched (any status).
    pub pages_fetched: u64,
    /// URLs seen but not fetched, by reason.
    pub skipped: Skipped,
    /// Fetch errors by kind (`timeout`, `connect`, `too_large`, `redirect_loop`, ...).
    pub errors: BTreeMap<String, u64>,
    /// True when a limit cut the crawl short.
    pub truncated: bool,
    /// URLs known but left unfetched when the crawl was cut short.
    pub urls_left: u64,
    /// The link checks found the network unreachable: most hosts they
    /// contacted failed at DNS or connect, so the URLs on those hosts were not
    /// checked (`skipped.network` counts them) instead of reported broken.
    /// Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network_unreachable: bool,
    /// Stylesheets fetched (linked and `@import`ed), each URL once per scan.
    /// Absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stylesheets: u64,
    /// Of `stylesheets`, those first reached through an `@import`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stylesheets_imported: u64,
    /// Of `stylesheets`, those that could not be loaded (an error status, a
    /// fetch error); the pages using them say so in their note.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stylesheets_failed: u64,
}

/// URLs not fetched, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Disallowed by robots.txt.
    pub robots: u64,
    /// Outside the scan's scope (host, include/exclude patterns).
    pub scope: u64,
    /// Beyond `max_pages`.
    pub limit: u64,
    /// Beyond `max_depth`.
    pub depth: u64,
    /// Not HTML (recorded, not parsed).
    #[serde(rename = "type")]
    pub content_type: u64,
    /// Refused by the private-address guard.
    pub private: u64,
    /// Link and resource URLs not checked because the scan's `links` setting
    /// leaves them out (`internal`: other sites; `none`: all).
    #[serde(default)]
    pub links: u64,
    /// Link and resource URLs not checked because the network looked
    /// unreachable (see `network_unreachable`).
    #[serde(default)]
    pub network: u64,
}

/// Score and counts of one category.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CategorySummary {
    /// 0-100, see [`crate::report::score`]; `null` when no rule of the category ran.
    pub score: Option<u8>,
    /// Failed findings of critical impact.
    pub critical: u64,
    /// Failed findings of serious impact.
    pub serious: u64,
    /// Failed findings of moderate impact.
    pub moderate: u64,
    /// Failed findings of minor impact.
    pub minor: u64,
    /// Findings that need review.
    pub cant_tell: u64,
    /// Findings (failed or cant-tell) marked `ignored` or `false_positive`
    /// (see `crate::marks`): in none of the counts above nor in the score.
    /// Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marked: Option<u64>,
    /// Findings (failed or cant-tell) not in the baseline; only with a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<u64>,
    /// Baseline findings gone from this report; only with a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<u64>,
    /// Security only: the site's grade on the MDN HTTP Observatory scale (`A+` …
    /// `F`) — the grade of its weakest HTML page (see
    /// `sitescan_rules::security::grade`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<String>,
    /// Security only: the Observatory-scale score behind `grade` (0 and up; above
    /// 100 with bonuses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade_score: Option<u32>,
    /// Performance only, in render mode: the site's lab Web Vitals (p75 over
    /// its pages, as CrUX reports field data, and the slowest pages); see
    /// [`crate::report::vitals`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_vitals: Option<super::vitals::VitalsSummary>,
}

/// One fetched URL.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageReport {
    /// URL as requested.
    pub url: String,
    /// URL after redirects.
    pub final_url: String,
    /// Final status (0 when no response came).
    pub status: u16,
    /// Link depth from the start page.
    pub depth: u32,
    /// Time to first byte, milliseconds.
    pub ttfb_ms: u64,
    /// Total time, milliseconds.
    pub total_ms: u64,
    /// Body bytes on the wire.
    pub bytes: u64,
    /// Media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Redirect hops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<Hop>,
    /// Why the fetch failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Failed findings on this page, as its rules reported them: a fact of the
    /// whole host or a shared resource counts on every page it shows on, though
    /// the report lists it once (see `Finding::occurrences`).
    pub findings: u64,
    /// Rules that crashed on this page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule_errors: Vec<RuleError>,
    /// Set when the page went over its analysis budget: what was hit and what
    /// is missing (the message of its `analysis-incomplete` finding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// `<meta name=robots>` content, when the page has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta_robots: Option<String>,
    /// Links marked `rel=nofollow` (not followed while robots rules are honored).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nofollow_links: u64,
    /// Id of the page's thumbnail (render mode, see
    /// [`crate::report::screenshots`]); absent when none was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    /// Render mode: the page's lab Web Vitals (see
    /// `sitescan_rules::vitals::WebVitals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vitals: Option<Box<sitescan_rules::vitals::WebVitals>>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How one rule went across the site.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RuleSummary {
    /// Rule id.
    pub rule_id: String,
    /// Its category.
    pub category: Option<Category>,
    /// Pages where the rule applied.
    pub pages_applicable: u64,
    /// Pages with at least one failure.
    pub pages_failed: u64,
    /// Elements passed, summed over pages.
    pub passed: u64,
    /// Elements failed, summed over pages.
    pub failed: u64,
    /// Elements needing review, summed over pages.
    pub cant_tell: u64,
}
