//! `GET /scans/{scanId}/findings`: the findings explorer of a completed scan.
//!
//! Everything is server-side and driven by the query string, so it works
//! without JavaScript and every view has an address: `category`, `rule`,
//! `impact`, `page` (a piece of the page URL), `new` (`on`: only findings
//! new since the previous scan, by the fingerprints of the scan summary's
//! `regressions`), `q` (text in the rule, message, place or excerpt), `sort`
//! (`impact`, `rule` or `page`) and `p` (the page of results, [`PER_PAGE`]
//! a page).
//!
//! Bounded for big reports: the stored report is streamed finding by finding
//! (`ops::regressions::for_each_stored_finding` over a temporary copy of
//! its chunks), never parsed whole; only the rows up to the requested page
//! are kept (a bounded heap of at most [`MAX_PAGES`] × [`PER_PAGE`] rows with
//! clipped text), plus at most [`MAX_RULES`] rule ids for the rule filter.
//!
//! [`finding_extras`] renders the last cell of a row: the place where
//! per-finding additions (triage marks, screenshots) plug in.
//!
//! **Page thumbnails** (render mode): the same pass reads the report's page
//! entries and keeps each page's thumbnail id (at most [`MAX_THUMBS`]
//! pages). A row's page cell shows its page's thumbnail the first time the
//! page is named on the page of results, so sorted by page, each group of a
//! page's findings starts with what the page looked like. The picture comes
//! from the dashboard's own picture route ([`super::pictures`]), with the
//! session's tenancy.

use std::cmp::Ordering;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde::Deserialize;
use sitescan_engine::baseline::fingerprint;
use sitescan_rules::{Finding, Impact, Outcome};

use super::auth::SignedIn;
use super::layout::CATEGORIES;
use super::layout::{self, Section};
use super::{DashState, PageError, PageResult};
use crate::ops::marks::{list_marks, MAX_MARKS_PER_SITE};
use crate::ops::regressions::{for_each_stored_item, stored_report_file, StoredPage};
use crate::ops::scans::off_async;
use crate::store::{ScanStatus, SiteMark};

/// Rows a page of results shows.
pub const PER_PAGE: usize = 50;
/// The deepest page of results served: the rows kept while streaming are at
/// most `MAX_PAGES * PER_PAGE`, whatever the report's size.
pub const MAX_PAGES: usize = 40;
/// Distinct rule ids offered in the rule filter.
pub const MAX_RULES: usize = 300;
/// Characters kept of a row's message, excerpt, place and page.
pub const MAX_TEXT: usize = 300;
/// Pages whose thumbnail ids are kept while streaming a report (beyond
/// them, rows show no thumbnail; the scan's picture cap is lower anyway).
pub const MAX_THUMBS: usize = 5_000;
/// Characters of a filter value considered.
const MAX_QUERY: usize = 200;

/// The impacts, most severe first (the default order).
pub const IMPACTS: [&str; 4] = ["critical", "serious", "moderate", "minor"];

/// The address of a scan's explorer.
pub fn href(scan_id: &str) -> String {
    format!("/scans/{scan_id}/findings")
}

/// The explorer's query string.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ExplorerQuery {
    /// Only this category.
    #[serde(default)]
    pub category: Option<String>,
    /// Only this rule id.
    #[serde(default)]
    pub rule: Option<String>,
    /// Only this impact.
    #[serde(default)]
    pub impact: Option<String>,
    /// Only pages whose URL contains this.
    #[serde(default)]
    pub page: Option<String>,
    /// `on`: only findings new since the previous scan.
    #[serde(default)]
    pub new: Option<String>,
    /// Text searched in rule, message, place and excerpt (case-insensitive).
    #[serde(default)]
    pub q: Option<String>,
    /// `impact` (default), `rule` or `page`.
    #[serde(default)]
    pub sort: Option<String>,
    /// Page of results, from 1.
    #[serde(default)]
    pub p: Option<usize>,
}

/// A filter value: trimmed, clipped, `None` when empty.
fn value(v: &Option<String>) -> Option<String> {
    let v = v.as_deref()?.trim();
    (!v.is_empty()).then(|| v.chars().take(MAX_QUERY).collect())
}

/// The filters as applied.
#[derive(Debug, Clone, Default)]
struct Filters {
    category: Option<String>,
    rule: Option<String>,
    impact: Option<String>,
    page: Option<String>,
    new_only: bool,
    /// As typed (shown in the form and kept in links).
    q: Option<String>,
    /// `q` lower-cased, as matched.
    q_lower: Option<String>,
    sort: Sort,
    p: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Sort {
    #[default]
    Impact,
    Rule,
    Page,
}

impl Sort {
    fn as_str(self) -> &'static str {
        match self {
            Sort::Impact => "impact",
            Sort::Rule => "rule",
            Sort::Page => "page",
        }
    }
}

impl Filters {
    fn from_query(q: &ExplorerQuery) -> Self {
        Filters {
            category: value(&q.category),
            rule: value(&q.rule),
            impact: value(&q.impact),
            page: value(&q.page),
            new_only: q.new.as_deref() == Some("on"),
            q: value(&q.q),
            q_lower: value(&q.q).map(|s| s.to_lowercase()),
            sort: match q.sort.as_deref() {
                Some("rule") => Sort::Rule,
                Some("page") => Sort::Page,
                _ => Sort::Impact,
            },
            p: q.p.unwrap_or(1).clamp(1, MAX_PAGES),
        }
    }

    /// The explorer's address at `base` with these filters, on page `p`.
    fn link(&self, base: &str, p: usize) -> String {
        let q = self.query(p);
        if q.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{q}")
        }
    }

    /// The query string of these filters on page `p`.
    fn query(&self, p: usize) -> String {
        let mut s = url::form_urlencoded::Serializer::new(String::new());
        let pairs = [
            ("category", self.category.as_deref()),
            ("rule", self.rule.as_deref()),
            ("impact", self.impact.as_deref()),
            ("page", self.page.as_deref()),
            ("new", self.new_only.then_some("on")),
            ("q", self.q.as_deref()),
        ];
        for (k, v) in pairs {
            if let Some(v) = v {
                s.append_pair(k, v);
            }
        }
        if self.sort != Sort::Impact {
            s.append_pair("sort", self.sort.as_str());
        }
        if p > 1 {
            s.append_pair("p", &p.to_string());
        }
        s.finish()
    }

    fn matches(&self, f: &Finding, fp: &str, new: &HashSet<String>) -> bool {
        if self
            .category
            .as_deref()
            .is_some_and(|c| c != f.category.as_str())
            || self.rule.as_deref().is_some_and(|r| r != f.rule_id)
            || self
                .impact
                .as_deref()
                .is_some_and(|i| i != f.impact.as_str())
            || self
                .page
                .as_deref()
                .is_some_and(|p| !f.page_url.contains(p))
            || (self.new_only && !new.contains(fp))
        {
            return false;
        }
        match &self.q_lower {
            None => true,
            Some(q) => [&f.rule_id, &f.message, &f.selector, &f.snippet, &f.page_url]
                .iter()
                .any(|t| t.to_lowercase().contains(q.as_str())),
        }
    }
}

/// One finding as the explorer lists it (text clipped to [`MAX_TEXT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The finding's fingerprint (the identity triage marks use).
    pub fingerprint: String,
    /// The rule id.
    pub rule: String,
    /// The category.
    pub category: String,
    /// The impact.
    pub impact: String,
    /// `failed` or `to review`.
    pub outcome: &'static str,
    /// The page.
    pub page_url: String,
    /// The element's selector (empty for page-level findings).
    pub selector: String,
    /// What is wrong.
    pub message: String,
    /// The excerpt.
    pub snippet: String,
    /// WCAG success criteria.
    pub wcag: Vec<String>,
    /// New since the previous scan.
    pub new: bool,
    /// Render mode's picture of the finding's element (its id in the
    /// report), shown beside the finding.
    pub screenshot: Option<String>,
    /// Render mode's thumbnail of the finding's page (its id in the report).
    pub thumbnail: Option<String>,
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

fn impact_rank(i: Impact) -> u8 {
    match i {
        Impact::Critical => 0,
        Impact::Serious => 1,
        Impact::Moderate => 2,
        Impact::Minor => 3,
    }
}

/// A kept row with its sort key (the report's order breaks ties).
#[derive(Debug)]
struct Entry {
    key: (String, u8, String, String, u64),
    row: Row,
    /// The page's whole URL (the row's is clipped), to find its thumbnail.
    page: String,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// What one pass over the report found.
#[derive(Debug, Default)]
pub struct Explored {
    /// The findings of the report.
    pub total: u64,
    /// Those matching the filters.
    pub matching: u64,
    /// The rows of the requested page, in order.
    pub rows: Vec<Row>,
    /// Rule ids seen (at most [`MAX_RULES`]).
    pub rules: BTreeSet<String>,
}

fn explore(
    file: std::fs::File,
    filters: &Filters,
    new: &HashSet<String>,
) -> crate::Result<Explored> {
    let keep = filters.p * PER_PAGE;
    let mut heap: BinaryHeap<Entry> = BinaryHeap::with_capacity(keep + 1);
    let mut out = Explored::default();
    let mut seq = 0u64;
    // Page URL (requested and final) -> thumbnail id.
    let mut thumbs: HashMap<String, String> = HashMap::new();
    let mut on_page = |p: StoredPage| {
        let Some(thumb) = p
            .thumbnail
            .filter(|id| sitescan_engine::report::screenshots::valid_id(id))
        else {
            return;
        };
        if thumbs.len() >= MAX_THUMBS {
            return;
        }
        if !p.final_url.is_empty() {
            thumbs.insert(p.final_url, thumb.clone());
        }
        thumbs.entry(p.url).or_insert(thumb);
    };
    for_each_stored_item(file, &mut on_page, &mut |f: Finding| {
        out.total += 1;
        if out.rules.len() < MAX_RULES || out.rules.contains(&f.rule_id) {
            out.rules.insert(f.rule_id.clone());
        }
        let fp = fingerprint(&f);
        if !filters.matches(&f, &fp, new) {
            return;
        }
        out.matching += 1;
        seq += 1;
        let rank = impact_rank(f.impact);
        let key = match filters.sort {
            Sort::Impact => (
                String::new(),
                rank,
                f.rule_id.clone(),
                f.page_url.clone(),
                seq,
            ),
            Sort::Rule => (
                f.rule_id.clone(),
                rank,
                f.page_url.clone(),
                String::new(),
                seq,
            ),
            Sort::Page => (
                clip(&f.page_url),
                rank,
                f.rule_id.clone(),
                String::new(),
                seq,
            ),
        };
        // Only rows that can still be on the requested page are built.
        if heap.len() >= keep && heap.peek().is_some_and(|top| top.key <= key) {
            return;
        }
        let row = Row {
            new: new.contains(&fp),
            fingerprint: fp,
            rule: f.rule_id.clone(),
            category: f.category.as_str().to_string(),
            impact: f.impact.as_str().to_string(),
            outcome: match f.outcome {
                Outcome::Failed => "failed",
                _ => "to review",
            },
            page_url: clip(&f.page_url),
            selector: clip(&f.selector),
            message: clip(&f.message),
            snippet: clip(&f.snippet),
            wcag: f.wcag.iter().take(10).cloned().collect(),
            screenshot: f
                .screenshot
                .clone()
                .filter(|id| sitescan_engine::report::screenshots::valid_id(id)),
            thumbnail: None,
        };
        heap.push(Entry {
            key,
            row,
            page: f.page_url.clone(),
        });
        if heap.len() > keep {
            heap.pop();
        }
    })?;
    let sorted = heap.into_sorted_vec();
    let skip = (filters.p - 1) * PER_PAGE;
    out.rows = sorted
        .into_iter()
        .skip(skip)
        .map(|e| Row {
            thumbnail: thumbs.get(&e.page).cloned(),
            ..e.row
        })
        .collect();
    Ok(out)
}

/// What the last cell of a finding's row needs besides the row: the scan,
/// the site's marks now, and where the mark forms come back to.
struct Extras<'a> {
    scan_id: &'a str,
    site_id: &'a str,
    marks: &'a HashMap<String, SiteMark>,
    csrf: &'a str,
    back: &'a str,
}

/// The box the explorer shows a finding's picture in (CSS pixels; a larger
/// picture is scaled down to fit, its proportions kept).
pub const SHOT_WIDTH: u32 = 160;
/// See [`SHOT_WIDTH`].
pub const SHOT_HEIGHT: u32 = 100;

/// A finding's picture (render mode): small, loaded when scrolled to, and a
/// link to the full-size picture; its text alternative names the element
/// and the rule.
fn finding_picture(scan_id: &str, row: &Row, shot: &str) -> Markup {
    let src = super::pictures::href(scan_id, shot);
    let alt = format!(
        "Screenshot of {} (rule {}), framed in magenta",
        if row.selector.is_empty() {
            "the element"
        } else {
            row.selector.as_str()
        },
        row.rule
    );
    html! {
        a.shot href=(src) { img.shot src=(src) alt=(alt) width=(SHOT_WIDTH) height=(SHOT_HEIGHT) loading="lazy"; }
    }
}

/// The box the explorer shows a page's thumbnail in (CSS pixels; the
/// thumbnail is scaled down to fit, its proportions kept).
pub const THUMB_WIDTH: u32 = 128;
/// See [`THUMB_WIDTH`].
pub const THUMB_HEIGHT: u32 = 80;

/// A page's thumbnail (render mode): small, loaded when scrolled to, and a
/// link to the picture at its own size; its text alternative names the page.
fn page_picture(scan_id: &str, page_url: &str, thumb: &str) -> Markup {
    let src = super::pictures::href(scan_id, thumb);
    let alt = format!("Thumbnail of the page {page_url} as rendered (its first screen)");
    html! {
        a.thumb href=(src) { img.thumb src=(src) alt=(alt) width=(THUMB_WIDTH) height=(THUMB_HEIGHT) loading="lazy"; }
    }
}

/// The last cell of a finding's row: the picture of its element (render
/// mode), its WCAG criteria, fingerprint and triage mark with its controls
/// ([`super::marks::mark_control`]).
fn finding_extras(x: &Extras<'_>, row: &Row, i: usize) -> Markup {
    html! {
        @if let Some(shot) = &row.screenshot { (finding_picture(x.scan_id, row, shot)) }
        @if !row.wcag.is_empty() { span.wcag { "WCAG " (row.wcag.join(", ")) } " " }
        code.fp title=(format!("Fingerprint of this finding in scan {}", x.scan_id)) { (&row.fingerprint[..row.fingerprint.len().min(12)]) }
        (super::marks::mark_control(x.site_id, &row.fingerprint, x.marks.get(&row.fingerprint), x.csrf, x.back, i))
    }
}

/// `GET /scans/{scanId}/findings`.
pub async fn show(
    State(state): State<DashState>,
    me: SignedIn,
    Path(id): Path<String>,
    Query(query): Query<ExplorerQuery>,
) -> PageResult {
    let scan = state
        .app
        .store
        .scan(&me.account.id, &id)
        .await?
        .ok_or_else(|| PageError::not_found("scan"))?;
    if scan.status != ScanStatus::Completed {
        return Err(crate::Error::NotReady(format!(
            "This scan is {}: its findings can be explored once it has completed.",
            scan.status.as_str()
        ))
        .into());
    }
    let filters = Filters::from_query(&query);
    let regressions = scan.summary.as_ref().and_then(|s| s.regressions.as_ref());
    let new: HashSet<String> = regressions
        .map(|r| r.new.items.iter().map(|i| i.fingerprint.clone()).collect())
        .unwrap_or_default();
    let new_listed_all = regressions.is_none_or(|r| r.new.count <= r.new.items.len() as u64);
    let file = stored_report_file(state.app.store.as_ref(), &scan.id)
        .await?
        .ok_or_else(|| PageError::internal(format!("completed scan {} has no report", scan.id)))?;
    let f2 = filters.clone();
    let new_listed = new.len();
    let explored = off_async(move || explore(file, &f2, &new)).await?;
    let site = state.app.store.site(&me.account.id, &scan.site_id).await?;
    // The site's marks now (a removed site has none to show).
    let marks: HashMap<String, SiteMark> = if site.is_some() {
        list_marks(
            state.app.store.as_ref(),
            &me.account.id,
            &scan.site_id,
            None,
            MAX_MARKS_PER_SITE,
        )
        .await?
        .items
        .into_iter()
        .map(|m| (m.fingerprint.clone(), m))
        .collect()
    } else {
        HashMap::new()
    };
    let back = filters.link(&href(&scan.id), filters.p);
    let extras = Extras {
        scan_id: &scan.id,
        site_id: &scan.site_id,
        marks: &marks,
        csrf: &me.csrf,
        back: &back,
    };
    let site_name = site.as_ref().map(|s| s.name.as_str()).unwrap_or(&scan.url);
    let title = format!("Findings: {site_name}");
    let base = href(&scan.id);
    let first = (filters.p - 1) * PER_PAGE;
    let last_page = (explored.matching as usize)
        .div_ceil(PER_PAGE)
        .clamp(1, MAX_PAGES);
    let opt = |v: &Option<String>, x: &str| v.as_deref() == Some(x);
    // The rows whose page cell shows the page's thumbnail: the first row
    // naming each page on this page of results.
    let mut pictured: HashSet<&str> = HashSet::new();
    let thumb_shown: Vec<bool> = explored
        .rows
        .iter()
        .map(|r| r.thumbnail.is_some() && pictured.insert(r.page_url.as_str()))
        .collect();
    let main = html! {
        nav.crumbs aria-label="Breadcrumb" {
            ol {
                li { a href="/sites" { "Sites" } }
                @if let Some(site) = &site { li { a href=(format!("/sites/{}", site.id)) { (site.name) } } }
                li { a href=(format!("/scans/{}", scan.id)) { "Scan of " (layout::when(scan.created_at)) } }
                li { a href=(base) aria-current="page" { "Findings" } }
            }
        }
        form.filters method="get" action=(base) aria-label="Filter the findings" {
            div.field {
                label for="f-category" { "Category" }
                select id="f-category" name="category" {
                    option value="" { "All" }
                    @for (c, label) in CATEGORIES { option value=(c) selected[opt(&filters.category, c)] { (label) } }
                }
            }
            div.field {
                label for="f-rule" { "Rule" }
                select id="f-rule" name="rule" {
                    option value="" { "All" }
                    @for r in &explored.rules { option value=(r) selected[opt(&filters.rule, r)] { (r) } }
                }
            }
            div.field {
                label for="f-impact" { "Impact" }
                select id="f-impact" name="impact" {
                    option value="" { "All" }
                    @for i in IMPACTS { option value=(i) selected[opt(&filters.impact, i)] { (i) } }
                }
            }
            div.field {
                label for="f-page" { "Page URL contains" }
                input type="text" id="f-page" name="page" value=(filters.page.as_deref().unwrap_or(""));
            }
            div.field {
                label for="f-q" { "Text" }
                input type="search" id="f-q" name="q" value=(filters.q.as_deref().unwrap_or(""));
            }
            div.field {
                label for="f-sort" { "Sort by" }
                select id="f-sort" name="sort" {
                    @for s in [Sort::Impact, Sort::Rule, Sort::Page] {
                        option value=(s.as_str()) selected[filters.sort == s] { (s.as_str()) }
                    }
                }
            }
            div.field.check {
                label { input type="checkbox" id="f-new" name="new" value="on" checked[filters.new_only]; " Only new since the previous scan" }
            }
            div.actions {
                button type="submit" id="apply-filters" { "Filter" }
                a href=(base) id="clear-filters" { "Clear" }
            }
        }
        p.hint id="triage" {
            (marks.len()) " marked on this site now. "
            "A marked finding counts in no score, count or gate of the scans started after it was marked; "
            "this scan's scores stay as they were when it completed."
        }
        @if filters.new_only && !new_listed_all {
            p.hint { "The scan summary lists the first " (new_listed) " new findings by fingerprint; only those can be shown." }
        }
        p id="explorer-count" role="status" {
            @if explored.matching == 0 {
                "No findings match (of " (explored.total) " in the report)."
            } @else {
                "Findings " (first + 1) "–" (first + explored.rows.len()) " of " (explored.matching)
                " matching (" (explored.total) " in the report)."
            }
        }
        @if !explored.rows.is_empty() {
            table id="findings" aria-describedby="explorer-count" {
                caption { "Findings" }
                thead { tr {
                    th scope="col" { "Impact" } th scope="col" { "Rule" } th scope="col" { "Category" }
                    th scope="col" { "Page" } th scope="col" { "Where" } th scope="col" { "What" }
                    th scope="col" { "Details" }
                } }
                tbody {
                    @for (i, row) in explored.rows.iter().enumerate() {
                        tr data-fingerprint=(row.fingerprint) data-mark=[marks.get(&row.fingerprint).map(|m| m.status.as_str())] {
                            td { span class=(format!("impact impact-{}", row.impact)) { (row.impact) }
                                @if row.outcome != "failed" { " (" (row.outcome) ")" }
                                @if row.new { " " span.new { "new" } } }
                            td { (row.rule) }
                            td { (row.category) }
                            td.url {
                                @if let (true, Some(thumb)) = (thumb_shown[i], &row.thumbnail) { (page_picture(&scan.id, &row.page_url, thumb)) }
                                (row.page_url)
                            }
                            td { @if !row.selector.is_empty() { code { (row.selector) } } }
                            td { (row.message) @if !row.snippet.is_empty() { br; code.snippet { (row.snippet) } } }
                            td { (finding_extras(&extras, row, i)) }
                        }
                    }
                }
            }
        }
        @if last_page > 1 {
            nav.pager aria-label="Pages of findings" {
                @if filters.p > 1 { a href=(filters.link(&base, filters.p - 1)) rel="prev" id="prev-page" { "Previous" } " " }
                "Page " (filters.p) " of " (last_page)
                @if filters.p < last_page { " " a href=(filters.link(&base, filters.p + 1)) rel="next" id="next-page" { "Next" } }
            }
            @if (explored.matching as usize) > MAX_PAGES * PER_PAGE {
                p.hint { "Only the first " (MAX_PAGES * PER_PAGE) " matching findings can be paged through: narrow the filters, or download the report." }
            }
        }
    };
    Ok(layout::page(&title, Some(me.nav(Section::Sites)), main).into_response())
}
