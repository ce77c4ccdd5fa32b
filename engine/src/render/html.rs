//! One self-contained HTML page for people: no scripts, no external requests
//! (styles inline, gauges as inline SVG), readable offline and attachable to a CI
//! job.
//!
//! Top to bottom: the score per category as gauges, counts by impact, the worst
//! pages, then the findings grouped by rule (most severe first) with WCAG
//! references, selectors and snippets. Filters are checkboxes and CSS `:has()`
//! rules, so they work from a file without a server or JavaScript. Everything
//! from the report is escaped by `maud`; only `http(s)` URLs become links.
//!
//! Render mode's pictures (a failing element's screenshot, a page's
//! thumbnail) are embedded as `data:` URLs, so the file stays self-contained.
//!
//! The page is itself checked with sitescan's accessibility rules and in headless
//! Chromium by the tests.

use maud::{html, Markup, PreEscaped, DOCTYPE};
use sitescan_rules::{BaselineState, Category, Finding, Impact, Outcome, Scope};

use super::{by_rule, count, findings_phrase, outcome_name, totals, wcag, worst_pages, RuleGroup};
use crate::report::{Report, Screenshots};

/// Findings shown at most per rule; the rest are counted (the JSON and CSV
/// reports have them all).
const MAX_PER_RULE: usize = 200;
/// Pages listed at most under "Worst pages".
const WORST_PAGES: usize = 10;

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background-color:#fff}
a{color:#0b57d0}
a:focus,input:focus,summary:focus{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background-color:#1b1b1b;color:#fff;padding:.5rem 1rem}
.skip:focus{left:0}
header.top{background-color:#14213d;color:#fff;padding:1.25rem 2rem}
header.top h1{margin:0;font-size:1.6rem}
header.top a{color:#fff}
header.top p{margin:.25rem 0 0}
main{max-width:72rem;margin:0 auto;padding:1rem 2rem 3rem}
h2{font-size:1.35rem;margin:2rem 0 .75rem;border-bottom:2px solid #d5d8dd;padding-bottom:.25rem}
h3{font-size:1.1rem;margin:0}
.gauges{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:0}
.gauges li{background-color:#f5f6f8;border-radius:.5rem;padding:.75rem 1rem;text-align:center;min-width:9rem}
.gauges svg{display:block;margin:0 auto}
.gauges .name{font-weight:600}
.gauges .counts{font-size:.85rem;color:#4a4a4a}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border-bottom:1px solid #d5d8dd;padding:.4rem .6rem;text-align:left;vertical-align:top}
th{background-color:#f5f6f8}
tbody th{background-color:transparent}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.url{word-break:break-all}
.badge{display:inline-block;border-radius:.25rem;padding:0 .45rem;color:#fff;font-size:.8rem;font-weight:600;text-transform:uppercase;letter-spacing:.02em}
.badge.critical{background-color:#9b1c1c}.badge.serious{background-color:#b3400b}
.badge.moderate{background-color:#765600}.badge.minor{background-color:#3f5e78}
.badge.review{background-color:#fff;color:#1b1b1b;border:1px solid #1b1b1b}
.badge.new{background-color:#14213d}
.stack{display:flex;height:.75rem;border-radius:.375rem;overflow:hidden;background-color:#f5f6f8;margin:.5rem 0}
.stack span{display:block}
.filters{display:flex;flex-wrap:wrap;gap:1rem;background-color:#f5f6f8;padding:.75rem 1rem;border-radius:.5rem;margin-bottom:1rem}
.filters fieldset{border:1px solid #d5d8dd;border-radius:.375rem;margin:0;padding:.25rem .75rem .5rem}
.filters legend{font-weight:600;padding:0 .25rem}
.filters label{margin-right:.75rem;white-space:nowrap}
.rule{border:1px solid #d5d8dd;border-radius:.5rem;margin:0 0 1rem;padding:.75rem 1rem}
.rule .head{display:flex;flex-wrap:wrap;gap:.5rem;align-items:baseline}
.rule .id{color:#4a4a4a;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
.rule p{margin:.4rem 0}
.findings{list-style:none;padding:0;margin:.5rem 0 0}
.finding{border-top:1px solid #d5d8dd;padding:.6rem 0}
.finding .msg{font-weight:600}
.finding dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .75rem;margin:.3rem 0 0}
.finding dt{color:#4a4a4a}
.finding dd{margin:0;word-break:break-all}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875rem}
pre{background-color:#f5f6f8;padding:.4rem .6rem;border-radius:.25rem;white-space:pre-wrap;word-break:break-all;margin:0}
.more{color:#4a4a4a;font-style:italic}
.shot{display:block;max-width:100%;height:auto;border:1px solid #d5d8dd;border-radius:.25rem}
.thumb{display:block;width:10rem;height:auto;border:1px solid #d5d8dd;margin-bottom:.25rem}
footer{color:#4a4a4a;text-align:center;padding:1rem;font-size:.875rem}
body:has(#show-critical:not(:checked)) .rule[data-impact="critical"],
body:has(#show-serious:not(:checked)) .rule[data-impact="serious"],
body:has(#show-moderate:not(:checked)) .rule[data-impact="moderate"],
body:has(#show-minor:not(:checked)) .rule[data-impact="minor"],
body:has(#show-accessibility:not(:checked)) .rule[data-category="accessibility"],
body:has(#show-seo:not(:checked)) .rule[data-category="seo"],
body:has(#show-security:not(:checked)) .rule[data-category="security"],
body:has(#show-performance:not(:checked)) .rule[data-category="performance"],
body:has(#show-quality:not(:checked)) .rule[data-category="quality"],
body:has(#show-failed:not(:checked)) .finding[data-outcome="failed"],
body:has(#show-cant-tell:not(:checked)) .finding[data-outcome="cant-tell"],
body:has(#only-new:checked) .finding[data-baseline="unchanged"]{display:none}
@media print{.filters,.skip{display:none}}
"#;

pub(super) fn render(report: &Report) -> String {
    let groups = by_rule(report);
    let (by_impact, cant_tell) = totals(report);
    let failed: u64 = by_impact.iter().sum();
    let duration = (report.finished_at - report.started_at)
        .num_seconds()
        .max(0);
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "sitescan report: " (report.site) }
                style { (PreEscaped(CSS)) }
            }
            body {
                a.skip href="#main" { "Skip to main content" }
                header.top {
                    h1 { "sitescan report" }
                    p { (link(&report.site, &report.site)) }
                    p {
                        "Scanned "
                        time datetime=(report.started_at.to_rfc3339()) {
                            (report.started_at.format("%Y-%m-%d %H:%M UTC"))
                        }
                        " in " (duration) " s · " (count(report.stats.pages_fetched, "page", "pages")) " · "
                        (findings_phrase(failed, cant_tell))
                    }
                }
                main #main {
                    (scores(report))
                    (impacts(report, by_impact, cant_tell))
                    @if report.baseline.is_some() { (baseline(report)) }
                    (worst(report))
                    (web_vitals(report))
                    section #findings aria-labelledby="h-findings" {
                        h2 #h-findings { "Findings by rule" }
                        @if groups.is_empty() {
                            p { "No findings: every rule that ran passed." }
                        } @else {
                            (filters(report, &groups))
                            @for (i, g) in groups.iter().enumerate() { (rule_section(i, g, &report.screenshots)) }
                        }
                    }
                    (marked(report))
                    (crawl(report))
                }
                footer { "Generated by sitescan " (env!("CARGO_PKG_VERSION")) " · report schema version " (report.schema_version) }
            }
        }
    };
    page.into_string()
}

fn scores(report: &Report) -> Markup {
    html! {
        section aria-labelledby="h-scores" {
            h2 #h-scores { "Scores" }
            ul.gauges {
                @for category in Category::ALL {
                    @if let Some(s) = report.summary.get(&category) {
                        li {
                            (gauge(category, s.score))
                            span.name { (category_name(category)) }
                            br;
                            span.counts {
                                @let n = s.critical + s.serious + s.moderate + s.minor;
                                (count(n, "finding", "findings"))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A ring gauge: grey track, an arc as long as the score, the number inside.
fn gauge(category: Category, score: Option<u8>) -> Markup {
    const R: f64 = 52.0;
    let circumference = 2.0 * std::f64::consts::PI * R;
    let (label, arc, color, text) = match score {
        Some(n) => (
            format!("{} score: {n} out of 100", category_name(category)),
            circumference * f64::from(n) / 100.0,
            match n {
                90..=100 => "#0a7d39",
                50..=89 => "#b45309",
                _ => "#c5221f",
            },
            n.to_string(),
        ),
        None => (
            format!("{}: not scored, no rule of it ran", category_name(category)),
            0.0,
            "#d5d8dd",
            "–".to_string(),
        ),
    };
    html! {
        svg width="120" height="120" viewBox="0 0 120 120" role="img" aria-label=(label) {
            circle cx="60" cy="60" r="52" fill="none" stroke="#e3e5e8" stroke-width="10" {}
            circle cx="60" cy="60" r="52" fill="none" stroke=(color) stroke-width="10"
                stroke-linecap="butt" transform="rotate(-90 60 60)"
                stroke-dasharray=(format!("{arc:.2} {circumference:.2}")) {}
            text x="60" y="68" text-anchor="middle" font-size="28" font-weight="700" fill="#1b1b1b" { (text) }
        }
    }
}

fn impacts(report: &Report, by_impact: [u64; 4], cant_tell: u64) -> Markup {
    let total: u64 = by_impact.iter().sum::<u64>() + cant_tell;
    html! {
        section aria-labelledby="h-impact" {
            h2 #h-impact { "Findings by impact" }
            @if total > 0 {
                div.stack aria-hidden="true" {
                    @for (impact, n) in Impact::ALL.iter().zip(by_impact) {
                        @if n > 0 {
                            span style=(format!("width:{:.2}%;background-color:{}", 100.0 * n as f64 / total as f64, impact_color(*impact))) {}
                        }
                    }
                    @if cant_tell > 0 {
                        span style=(format!("width:{:.2}%;background-color:#8a8f98", 100.0 * cant_tell as f64 / total as f64)) {}
                    }
                }
            }
            table {
                thead {
                    tr {
                        th scope="col" { "Category" }
                        @for impact in Impact::ALL { th.n scope="col" { span class=(format!("badge {impact}")) { (impact) } } }
                        th.n scope="col" { "To review" }
                    }
                }
                tbody {
                    @for category in Category::ALL {
                        @if let Some(s) = report.summary.get(&category) {
                            tr {
                                th scope="row" { (category_name(category)) }
                                td.n { (s.critical) } td.n { (s.serious) } td.n { (s.moderate) } td.n { (s.minor) }
                                td.n { (s.cant_tell) }
                            }
                        }
                    }
                }
                tfoot {
                    tr {
                        th scope="row" { "All" }
                        @for n in by_impact { td.n { (n) } }
                        td.n { (cant_tell) }
                    }
                }
            }
        }
    }
}

fn baseline(report: &Report) -> Markup {
    let Some(b) = &report.baseline else {
        return html! {};
    };
    let fixed: Vec<&Finding> = report.fixed.iter().flatten().collect();
    html! {
        section aria-labelledby="h-baseline" {
            h2 #h-baseline { "Compared with the baseline" }
            p {
                "Baseline scanned " (b.started_at.format("%Y-%m-%d %H:%M UTC"))
                @if let Some(id) = &b.scan_id { " (scan " code { (id) } ")" }
                ": " strong { (b.new) " new" } ", " (b.unchanged) " unchanged, " strong { (b.fixed) " fixed" } "."
            }
            @if !fixed.is_empty() {
                details {
                    summary { "Fixed since the baseline (" (fixed.len()) ")" }
                    ul {
                        @for f in fixed.iter().take(MAX_PER_RULE) {
                            li {
                                span class=(format!("badge {}", f.impact)) { (f.impact) } " "
                                code { (f.rule_id) } " on " (link(&f.page_url, &f.page_url))
                                @if !f.selector.is_empty() { " at " code { (f.selector) } }
                                ": " (f.message)
                            }
                        }
                    }
                    @if fixed.len() > MAX_PER_RULE { p.more { "…and " (fixed.len() - MAX_PER_RULE) " more." } }
                }
            }
        }
    }
}

fn worst(report: &Report) -> Markup {
    let pages = worst_pages(report, WORST_PAGES);
    html! {
        section aria-labelledby="h-pages" {
            h2 #h-pages { "Worst pages" }
            @if pages.is_empty() {
                p { "No page has failed findings." }
            } @else {
                table {
                    thead {
                        tr {
                            th scope="col" { "Page" }
                            @for impact in Impact::ALL { th.n scope="col" { (capitalize(impact.as_str())) } }
                            th.n scope="col" { "To review" }
                        }
                    }
                    tbody {
                        @for p in &pages {
                            tr {
                                td.url {
                                    @if let Some(thumb) = thumbnail(report, p.url) {
                                        img.thumb src=(thumb.data_url()) alt="";
                                    }
                                    (link(p.url, p.url))
                                }
                                @for n in p.by_impact { td.n { (n) } }
                                td.n { (p.cant_tell) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The thumbnail of the page at `url` (its final URL, as findings name it).
fn thumbnail<'r>(report: &'r Report, url: &str) -> Option<&'r crate::report::Screenshot> {
    let page = report
        .pages
        .iter()
        .find(|p| p.final_url == url || p.url == url)?;
    report.screenshots.get(page.thumbnail.as_deref()?)
}

/// Render mode: the site's lab Web Vitals (p75 and buckets per metric) and
/// its slowest pages; nothing in a static scan.
fn web_vitals(report: &Report) -> Markup {
    use sitescan_rules::vitals::Metric;
    let Some(v) = report
        .summary
        .get(&Category::Performance)
        .and_then(|s| s.web_vitals.as_ref())
    else {
        return html! {};
    };
    let names = [
        (Metric::Ttfb, "Time to first byte"),
        (Metric::Fcp, "First Contentful Paint"),
        (Metric::Lcp, "Largest Contentful Paint"),
        (Metric::Cls, "Cumulative Layout Shift"),
        (Metric::Tbt, "Total Blocking Time"),
        (Metric::Inp, "Interaction to Next Paint"),
    ];
    let shown = |m: Metric, x: Option<f64>| x.map(|x| m.format(x)).unwrap_or_default();
    html! {
        section aria-labelledby="h-vitals" {
            h2 #h-vitals { "Web Vitals (lab)" }
            p {
                "75th percentile over " (count(v.pages, "rendered page", "rendered pages"))
                ", throttling " (v.throttle) "."
            }
            table {
                thead {
                    tr {
                        th scope="col" { "Metric" }
                        th.n scope="col" { "p75" }
                        th scope="col" { "Rating" }
                        th.n scope="col" { "Good" }
                        th.n scope="col" { "Needs improvement" }
                        th.n scope="col" { "Poor" }
                    }
                }
                tbody {
                    @for (m, name) in names {
                        @if let Some(s) = v.metrics.get(m.key()) {
                            tr {
                                th scope="row" { (name) }
                                td.n { (m.format(s.p75)) }
                                td { (s.bucket.map(|b| b.as_str().replace('-', " ")).unwrap_or_default()) }
                                td.n { (s.good) }
                                td.n { (s.needs_improvement) }
                                td.n { (s.poor) }
                            }
                        }
                    }
                }
            }
            @if !v.slowest.is_empty() {
                h3 { "Slowest pages" }
                table {
                    thead {
                        tr {
                            th scope="col" { "Page" }
                            th.n scope="col" { "LCP" }
                            th.n scope="col" { "FCP" }
                            th.n scope="col" { "CLS" }
                            th.n scope="col" { "TBT" }
                            th scope="col" { "LCP element" }
                        }
                    }
                    tbody {
                        @for p in &v.slowest {
                            tr {
                                td.url { (link(&p.url, &p.url)) }
                                td.n { (shown(Metric::Lcp, p.lcp_ms)) }
                                td.n { (shown(Metric::Fcp, p.fcp_ms)) }
                                td.n { (shown(Metric::Cls, p.cls)) }
                                td.n { (shown(Metric::Tbt, p.tbt_ms)) }
                                td { code { (p.lcp_element.as_deref().unwrap_or("")) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn filters(report: &Report, groups: &[RuleGroup<'_>]) -> Markup {
    let categories: Vec<Category> = Category::ALL
        .into_iter()
        .filter(|c| groups.iter().any(|g| g.rule.category == *c))
        .collect();
    let impacts: Vec<Impact> = Impact::ALL
        .into_iter()
        .filter(|i| groups.iter().any(|g| g.rule.impact == *i))
        .collect();
    html! {
        div.filters {
            fieldset {
                legend { "Impact" }
                @for i in impacts {
                    input type="checkbox" id=(format!("show-{i}")) checked;
                    label for=(format!("show-{i}")) { " " (capitalize(i.as_str())) }
                }
            }
            fieldset {
                legend { "Category" }
                @for c in categories {
                    input type="checkbox" id=(format!("show-{c}")) checked;
                    label for=(format!("show-{c}")) { " " (category_name(c)) }
                }
            }
            fieldset {
                legend { "Outcome" }
                input type="checkbox" id="show-failed" checked;
                label for="show-failed" { " Failed" }
                input type="checkbox" id="show-cant-tell" checked;
                label for="show-cant-tell" { " To review" }
                @if report.baseline.is_some() {
                    input type="checkbox" id="only-new";
                    label for="only-new" { " Only new" }
                }
            }
        }
    }
}

fn rule_section(index: usize, g: &RuleGroup<'_>, shots: &Screenshots) -> Markup {
    let heading = format!("rule-{index}");
    html! {
        section.rule aria-labelledby=(heading) data-impact=(g.rule.impact) data-category=(g.rule.category) {
            div.head {
                h3 #(heading) { (g.rule.title()) }
                @if g.rule.title() != g.rule.id { span.id { (g.rule.id) } }
                span class=(format!("badge {}", g.rule.impact)) { (g.rule.impact) }
            }
            p {
                (g.failed()) " failed"
                @if g.cant_tell() > 0 { ", " (g.cant_tell()) " to review" }
                " on " (count(g.pages() as u64, "page", "pages"))
                " · " (category_name(g.rule.category))
            }
            @if !g.rule.help().is_empty() { p { (g.rule.help()) } }
            @if !g.rule.wcag.is_empty() {
                p {
                    "WCAG 2.1: "
                    @for (i, sc) in g.rule.wcag.iter().enumerate() {
                        @if i > 0 { ", " }
                        @match wcag::url(sc) {
                            Some(url) => a href=(url) { (wcag::label(sc)) },
                            None => (sc),
                        }
                    }
                }
            }
            @if g.rule.help_url().starts_with("https://") || g.rule.help_url().starts_with("http://") {
                p { a href=(g.rule.help_url()) { "How to fix " (g.rule.id) } }
            }
            ul.findings {
                @for f in g.findings.iter().take(MAX_PER_RULE) { (finding(f, shots)) }
            }
            @if g.findings.len() > MAX_PER_RULE {
                p.more { "…and " (g.findings.len() - MAX_PER_RULE) " more findings of this rule (see the JSON or CSV report)." }
            }
        }
    }
}

/// The marked findings (see `crate::marks`), apart from the others and counted
/// in no score: what each was marked, why and when.
fn marked(report: &Report) -> Markup {
    let marked: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.mark.is_some())
        .collect();
    if marked.is_empty() {
        return html! {};
    }
    html! {
        section #marked aria-labelledby="h-marked" {
            h2 #h-marked { "Marked (" (marked.len()) ")" }
            p { "Findings marked ignored or false positive on this site: in no score, count or gate." }
            ul.findings {
                @for f in marked.iter().take(MAX_PER_RULE) {
                    @if let Some(m) = &f.mark {
                        li.finding data-mark=(m.status.as_str()) {
                            div {
                                span.badge { (mark_label(m.status)) } " "
                                span.id { (f.rule_id) } " "
                                span.msg { (f.message) }
                            }
                            dl {
                                dt { "Page" } dd { (link(&f.page_url, &f.page_url)) }
                                @if !f.selector.is_empty() { dt { "Element" } dd { code { (f.selector) } } }
                                @if !m.note.is_empty() { dt { "Note" } dd { (m.note) } }
                                dt { "Marked" }
                                dd {
                                    time datetime=(m.at.to_rfc3339()) { (m.at.format("%Y-%m-%d %H:%M UTC")) }
                                    @if let Some(by) = &m.by { " by " (by) }
                                }
                            }
                        }
                    }
                }
            }
            @if marked.len() > MAX_PER_RULE {
                p.more { "…and " (marked.len() - MAX_PER_RULE) " more marked findings (see the JSON report)." }
            }
        }
    }
}

fn mark_label(status: sitescan_rules::MarkStatus) -> &'static str {
    match status {
        sitescan_rules::MarkStatus::Ignored => "Ignored",
        sitescan_rules::MarkStatus::FalsePositive => "False positive",
    }
}

fn finding(f: &Finding, shots: &Screenshots) -> Markup {
    let shot = f.screenshot.as_deref().and_then(|id| shots.get(id));
    let baseline = match f.baseline {
        Some(BaselineState::New) => Some("new"),
        Some(BaselineState::Unchanged) => Some("unchanged"),
        None => None,
    };
    html! {
        li.finding data-outcome=(outcome_name(f.outcome)) data-baseline=[baseline] {
            div {
                @if f.outcome == Outcome::CantTell { span.badge.review { "To review" } " " }
                @if baseline == Some("new") { span.badge.new { "New" } " " }
                span.msg { (f.message) }
            }
            dl {
                @match f.scope {
                    Scope::Host => { dt { "Whole host" } dd { "Every page below gets this from the server: fix it once." } }
                    Scope::Resource => { dt { "Resource" } dd { (link(f.resource.as_deref().unwrap_or(&f.page_url), f.resource.as_deref().unwrap_or(&f.page_url))) } }
                    Scope::Page => {}
                }
                dt { "Page" } dd { (link(&f.page_url, &f.page_url)) }
                @if !f.selector.is_empty() { dt { "Element" } dd { code { (f.selector) } } }
                @if !f.snippet.is_empty() { dt { "Snippet" } dd { pre { code { (f.snippet) } } } }
                @if let Some(shot) = shot {
                    dt { "Screenshot" }
                    dd { img.shot src=(shot.data_url()) alt=(format!("The element {}, outlined in magenta, as the browser showed it", f.selector)); }
                }
                @if f.occurrences.len() > 1 {
                    dt { "Pages" }
                    dd {
                        details {
                            summary { (count(f.occurrence_count(), "place", "places")) }
                            ul {
                                @for o in &f.occurrences {
                                    li {
                                        (link(&o.page_url, &o.page_url))
                                        @if !o.selector.is_empty() { " " code { (o.selector) } }
                                    }
                                }
                                @if f.occurrence_count() > f.occurrences.len() as u64 {
                                    li { "…and " (f.occurrence_count() - f.occurrences.len() as u64) " more" }
                                }
                            }
                        }
                    }
                }
                @if let Some(serde_json::Value::Object(data)) = &f.data {
                    @for (k, v) in data {
                        dt { (k.replace('_', " ")) }
                        dd { @match v { serde_json::Value::String(s) => (s), other => (other.to_string()) } }
                    }
                }
            }
        }
    }
}

fn crawl(report: &Report) -> Markup {
    let s = &report.stats;
    let skipped = [
        ("robots.txt", s.skipped.robots),
        ("out of scope", s.skipped.scope),
        ("page limit", s.skipped.limit),
        ("depth limit", s.skipped.depth),
        ("not HTML", s.skipped.content_type),
        ("private address", s.skipped.private),
        ("links left unchecked", s.skipped.links),
    ];
    html! {
        section aria-labelledby="h-crawl" {
            h2 #h-crawl { "Crawl" }
            p {
                (s.pages_fetched) " pages fetched"
                @for (why, n) in skipped { @if n > 0 { " · " (n) " skipped (" (why) ")" } }
                @for (kind, n) in &s.errors { " · " (n) " failed (" (kind.replace('_', " ")) ")" }
                @if s.truncated { " · cut short by a limit, " (s.urls_left) " URLs left" }
            }
            @if !report.notes.is_empty() {
                h3 { "Notes" }
                ul { @for n in &report.notes { li { (n) } } }
            }
        }
    }
}

/// A link when the URL is http(s), plain text otherwise (a `javascript:` URL in a
/// report must never become clickable).
fn link(url: &str, text: &str) -> Markup {
    let lower = url.trim_start().to_ascii_lowercase();
    html! {
        @if lower.starts_with("https://") || lower.starts_with("http://") {
            a href=(url) { (text) }
        } @else {
            (text)
        }
    }
}

/// The badge and bar color of an impact (white text on it is at least 4.5:1).
fn impact_color(impact: Impact) -> &'static str {
    match impact {
        Impact::Critical => "#9b1c1c",
        Impact::Serious => "#b3400b",
        Impact::Moderate => "#765600",
        Impact::Minor => "#3f5e78",
    }
}

fn category_name(c: Category) -> &'static str {
    match c {
        Category::Accessibility => "Accessibility",
        Category::Seo => "SEO",
        Category::Security => "Security",
        Category::Performance => "Performance",
        Category::Quality => "Quality",
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn snippets_and_messages_are_escaped() {
        let html = render(&sample::report());
        assert!(
            html.contains(
                "&lt;img src=&quot;p.png?x=1&amp;y=&lt;2&gt;&quot; title='&quot;quoted&quot;'&gt;"
            ) || html.contains("&lt;img src=\"p.png?x=1&amp;y=&lt;2&gt;\" title='\"quoted\"'&gt;"),
            "snippet not escaped"
        );
        assert!(html.contains("Link to /old answers 404 &lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(
            !html.contains("<script"),
            "the report must not carry scripts"
        );
        assert!(html.contains("Über uns — café"));
    }

    #[test]
    fn self_contained_no_external_requests() {
        let html = render(&sample::report());
        let doc = scraper::Html::parse_document(&html);
        let count = |css: &str| doc.select(&scraper::Selector::parse(css).unwrap()).count();
        for banned in [
            // Pictures are embedded (render mode's screenshots), never fetched.
            "[src]:not([src^='data:image/'])",
            "link",
            "script",
            "iframe",
            "object",
            "embed",
            "[srcset]",
            "[style*='url(']",
        ] {
            assert_eq!(count(banned), 0, "found {banned}");
        }
        assert!(!CSS.contains("url(") && !CSS.contains("@import"));
        // Every href is an in-page anchor or a link out (pages, rule help, WCAG).
        let sel = scraper::Selector::parse("[href]").unwrap();
        for el in doc.select(&sel) {
            let href = el.value().attr("href").unwrap();
            let rule_help = sitescan_rules::registry::all_meta().any(|m| m.help_url == href);
            assert!(
                href.starts_with('#')
                    || href.starts_with("https://shop.example")
                    || href.starts_with("https://www.w3.org/WAI/WCAG21/Understanding/")
                    || rule_help,
                "unexpected href {href}"
            );
        }
    }

    #[test]
    fn pictures_are_embedded_beside_their_findings() {
        let mut report = sample::report();
        let png = b"\x89PNG\r\n\x1a\nnot really".to_vec();
        report.findings[0].screenshot = Some("shot-1".into());
        let url = report.findings[0].page_url.clone();
        let page = report
            .pages
            .iter_mut()
            .find(|p| p.final_url == url)
            .unwrap();
        page.thumbnail = Some("thumb-2".into());
        report.screenshots.shots = vec![
            crate::report::Screenshot {
                id: "shot-1".into(),
                content_type: "image/png",
                bytes: png.clone().into(),
            },
            crate::report::Screenshot {
                id: "thumb-2".into(),
                content_type: "image/jpeg",
                bytes: vec![0xFF, 0xD8, 0xFF, 0xE0].into(),
            },
        ];
        let html = render(&report);
        let doc = scraper::Html::parse_document(&html);
        let sel = scraper::Selector::parse(".finding img.shot").unwrap();
        let shots: Vec<_> = doc.select(&sel).collect();
        assert_eq!(shots.len(), 1);
        use base64::Engine as _;
        let want = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&png)
        );
        assert_eq!(shots[0].value().attr("src"), Some(want.as_str()));
        assert!(shots[0]
            .value()
            .attr("alt")
            .unwrap()
            .contains(&report.findings[0].selector));
        let sel = scraper::Selector::parse("td.url img.thumb").unwrap();
        let thumb = doc.select(&sel).next().unwrap();
        assert_eq!(
            thumb.value().attr("src"),
            Some("data:image/jpeg;base64,/9j/4A==")
        );
        // Without the pictures (a report read back from JSON), no images.
        report.screenshots = Default::default();
        assert!(!render(&report).contains("<img"));
    }

    #[test]
    fn summary_gauges_worst_pages_and_rule_groups() {
        let report = sample::report();
        let html = render(&report);
        let doc = scraper::Html::parse_document(&html);
        let count = |css: &str| doc.select(&scraper::Selector::parse(css).unwrap()).count();
        assert_eq!(count("ul.gauges svg[role=img][aria-label]"), 5);
        assert_eq!(count("section.rule"), 7);
        assert_eq!(count("li.finding"), 9);
        assert_eq!(count("li.finding[data-outcome=cant-tell]"), 1);
        // The header counts like the dashboard's scan page: failed findings,
        // then the ones to review, singular or plural as the numbers say.
        let header = doc
            .select(&scraper::Selector::parse("header.top p").unwrap())
            .nth(1)
            .unwrap()
            .text()
            .collect::<String>();
        assert!(
            header.ends_with(" s · 5 pages · 8 findings, 1 to review"),
            "{header}"
        );
        assert_eq!(count("section[aria-labelledby=h-pages] tbody tr"), 3);
        assert_eq!(count(".filters input[type=checkbox]"), 4 + 5 + 2);
        let a11y = report.summary[&Category::Accessibility].score.unwrap();
        assert!(html.contains(&format!(
            "aria-label=\"Accessibility score: {a11y} out of 100\""
        )));
        let first_rule = doc
            .select(&scraper::Selector::parse("section.rule h3").unwrap())
            .next()
            .unwrap()
            .text()
            .collect::<String>();
        assert_eq!(first_rule, sample::title("image-alt"));
        assert!(html.contains(
            r#"<a href="https://www.w3.org/WAI/WCAG21/Understanding/page-titled.html">2.4.2 Page Titled</a>"#
        ));
        assert!(html.contains("<dt>contrast ratio</dt><dd>2.9</dd>"));
    }

    #[test]
    fn javascript_urls_never_become_links() {
        let mut report = sample::report();
        report.findings[0].page_url = "javascript:alert(1)".into();
        let html = render(&report);
        assert!(!html.contains("href=\"javascript:"));
        assert!(html.contains("javascript:alert(1)"));
    }

    #[test]
    fn baseline_shows_new_badges_fixed_list_and_only_new_filter() {
        let mut current = sample::report();
        let mut baseline = sample::report();
        baseline.findings.remove(0);
        current.findings.remove(2);
        crate::baseline::apply_baseline(&mut current, &baseline);
        let html = render(&current);
        assert!(html.contains("id=\"only-new\""));
        assert!(html.contains("<span class=\"badge new\">New</span>"));
        assert!(html.contains("Fixed since the baseline (1)"));
        assert!(html.contains("data-baseline=\"unchanged\""));
    }

    #[test]
    fn empty_report_says_nothing_failed() {
        let html = render(&sample::empty_report());
        assert!(html.contains("No findings: every rule that ran passed."));
        assert!(html.contains("No page has failed findings."));
    }

    #[test]
    fn the_report_passes_our_own_accessibility_rules() {
        // Every rule a machine decides; the `review` set only asks a person to
        // judge each field and image, which says nothing about the report.
        let rules = sitescan_rules::registry::select(&["wcag-aa", "best-practice"]).unwrap();
        assert!(!rules.page.is_empty());
        let mut compared = sample::report();
        crate::baseline::apply_baseline(&mut compared, &sample::empty_report());
        for report in [
            sample::report(),
            sample::empty_report(),
            compared,
            sample::analyzed_report(),
        ] {
            let html = render(&report);
            let page =
                sitescan_rules::Page::from_html("https://reports.example/report.html", &html);
            let analysis = sitescan_rules::analyze(&page, &rules.page);
            assert!(analysis.errors.is_empty(), "{:?}", analysis.errors);
            let findings: Vec<String> = analysis
                .findings
                .iter()
                .map(|f| {
                    format!(
                        "{} at {}: {} ({})",
                        f.rule_id, f.selector, f.message, f.snippet
                    )
                })
                .collect();
            assert!(
                findings.is_empty(),
                "the HTML report fails our own rules:\n{}",
                findings.join("\n")
            );
        }
    }

    /// The Chromium binary to use: `SITESCAN_CHROMIUM`, else `chromium` or
    /// `chromium-browser` on the PATH.
    fn chromium() -> Option<std::path::PathBuf> {
        if let Some(p) = std::env::var_os("SITESCAN_CHROMIUM") {
            return Some(p.into());
        }
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
            .find(|p| p.is_file())
    }

    /// Renders the report in headless Chromium with every host name unresolvable,
    /// takes a screenshot and checks: no console message (the page has no script,
    /// so any message is an error), and no network request made by the page
    /// (read from Chromium's net log: requests in the page's `file://` network
    /// isolation key).
    #[test]
    fn renders_in_headless_chromium_without_console_errors_or_requests() {
        let Some(browser) = chromium() else {
            sitescan_fixtures::missing(
                "renders_in_headless_chromium",
                "a Chromium browser",
                "install Debian's `chromium`, or set SITESCAN_CHROMIUM to its path",
            );
            return;
        };
        let dir = std::env::temp_dir().join(format!("sitescan-html-report-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = sample::report();
        let mut baseline = sample::report();
        baseline.findings.remove(0);
        report.findings.remove(2);
        crate::baseline::apply_baseline(&mut report, &baseline);
        let file = dir.join("report.html");
        std::fs::write(&file, render(&report)).unwrap();
        let shot = dir.join("report.png");
        let netlog = dir.join("net.json");
        let out = std::process::Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
                "--hide-scrollbars",
                "--enable-logging=stderr",
                "--v=0",
                "--window-size=1280,2200",
                "--host-resolver-rules=MAP * ~NOTFOUND",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("--log-net-log={}", netlog.display()))
            .arg(format!("file://{}", file.display()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "chromium failed: {stderr}");
        let console: Vec<&str> = stderr.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(
            console.is_empty(),
            "console messages:\n{}",
            console.join("\n")
        );

        let png = std::fs::read(&shot).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert!(
            png.len() > 20_000,
            "screenshot looks blank ({} bytes)",
            png.len()
        );

        let log = std::fs::read_to_string(&netlog).unwrap();
        let log: serde_json::Value = serde_json::from_str(&log)
            .or_else(|_| {
                serde_json::from_str(&format!("{}]}}", log.trim_end().trim_end_matches(',')))
            })
            .unwrap();
        let page_requests: Vec<String> = log["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| {
                let p = e.get("params")?;
                let key = p.get("network_isolation_key")?.as_str()?;
                let url = p.get("url")?.as_str()?;
                (key.starts_with("file://") && !url.starts_with("file://")).then(|| url.to_string())
            })
            .collect();
        assert!(
            page_requests.is_empty(),
            "the report made requests: {page_requests:?}"
        );
        eprintln!("screenshot: {}", shot.display());
    }
}
