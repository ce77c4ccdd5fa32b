//! A site's trend: the score of each category over its completed scans, as
//! an inline SVG line chart drawn on the server (axes, gridlines, a label
//! under each scan: its date, or its time when the label before it names the
//! same day, a legend), with a text alternative (`<title>` and
//! `<desc>`) and the same numbers as a data table. No script, no external
//! request, and only presentation attributes (the CSP allows no `style`).

use maud::{html, Markup};

use super::layout::CATEGORIES;
use super::layout::CATEGORY_COLORS;
use crate::store::{Scan, ScanStatus};

/// The chart's size in SVG units (it scales to the column's width).
const W: f64 = 640.0;
const H: f64 = 240.0;
/// Room for the axes' labels.
const LEFT: f64 = 40.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 36.0;

/// One completed scan on the chart: when, and the score of each category
/// (in [`CATEGORIES`] order; `None` when the category was not checked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// The scan's id.
    pub scan_id: String,
    /// When it started.
    pub at: chrono::DateTime<chrono::Utc>,
    /// Scores, in [`CATEGORIES`] order.
    pub scores: Vec<Option<u8>>,
}

/// The completed scans of `scans` (newest first, as listed) oldest first.
pub fn points(scans: &[Scan]) -> Vec<Point> {
    scans
        .iter()
        .rev()
        .filter(|s| s.status == ScanStatus::Completed)
        .filter_map(|s| {
            let summary = s.summary.as_ref()?;
            Some(Point {
                scan_id: s.id.clone(),
                at: s.created_at,
                scores: CATEGORIES
                    .iter()
                    .map(|(c, _)| summary.categories.get(*c).and_then(|r| r.score))
                    .collect(),
            })
        })
        .collect()
}

fn x(i: usize, n: usize) -> f64 {
    let span = W - LEFT - RIGHT;
    if n <= 1 {
        LEFT + span / 2.0
    } else {
        LEFT + i as f64 * span / (n - 1) as f64
    }
}

fn y(score: u8) -> f64 {
    TOP + (100.0 - f64::from(score.min(100))) * (H - TOP - BOTTOM) / 100.0
}

fn color(cat: &str) -> &'static str {
    CATEGORY_COLORS
        .iter()
        .find(|(c, _)| *c == cat)
        .map(|(_, c)| *c)
        .unwrap_or("#1b1b1b")
}

/// The trend section's content: the chart, its legend and its data table.
pub fn section(scans: &[Scan]) -> Markup {
    let points = points(scans);
    if points.is_empty() {
        return html! { p { "The trend shows once a scan has completed." } };
    }
    let n = points.len();
    // Categories with at least one score.
    let shown: Vec<usize> = (0..CATEGORIES.len())
        .filter(|&c| points.iter().any(|p| p.scores[c].is_some()))
        .collect();
    let first = points.first().map(|p| p.at.format("%Y-%m-%d").to_string());
    let last = points.last().map(|p| p.at.format("%Y-%m-%d").to_string());
    let describe: Vec<String> = shown
        .iter()
        .map(|&c| {
            let s: Vec<u8> = points.iter().filter_map(|p| p.scores[c]).collect();
            format!(
                "{} from {} to {}",
                CATEGORIES[c].0,
                s.first().copied().unwrap_or(0),
                s.last().copied().unwrap_or(0)
            )
        })
        .collect();
    // A label under every scan when they fit, else under every k-th: the
    // date (`11-26`), or the time (`14:05`) when the label before it already
    // names that day, so scans of one day are told apart.
    let every = n.div_ceil(10).max(1);
    let mut labels: Vec<Option<String>> = Vec::with_capacity(n);
    let mut labelled_day = None;
    for (i, p) in points.iter().enumerate() {
        if i % every == 0 || i + 1 == n {
            let day = p.at.date_naive();
            let fmt = if labelled_day == Some(day) {
                "%H:%M"
            } else {
                "%m-%d"
            };
            labels.push(Some(p.at.format(fmt).to_string()));
            labelled_day = Some(day);
        } else {
            labels.push(None);
        }
    }
    html! {
        figure.trend {
            svg.chart.trend role="img" aria-labelledby="trend-title trend-desc"
                viewBox=(format!("0 0 {W} {H}")) preserveAspectRatio="xMidYMid meet"
                xmlns="http://www.w3.org/2000/svg" {
                title id="trend-title" { "Scores per category over the last " (n) " completed scans" }
                desc id="trend-desc" {
                    "From " (first.unwrap_or_default()) " to " (last.unwrap_or_default()) ": " (describe.join("; ")) ". The table below has every value."
                }
                g.axis-y {
                    @for t in [0u8, 25, 50, 75, 100] {
                        line x1=(LEFT) y1=(y(t)) x2=(W - RIGHT) y2=(y(t)) stroke="#e3e5e8" stroke-width="1" {}
                        text x=(LEFT - 6.0) y=(y(t) + 4.0) text-anchor="end" font-size="11" fill="#4a4f57" { (t) }
                    }
                    line x1=(LEFT) y1=(TOP) x2=(LEFT) y2=(H - BOTTOM) stroke="#8a9099" stroke-width="1" {}
                }
                g.axis-x {
                    line x1=(LEFT) y1=(H - BOTTOM) x2=(W - RIGHT) y2=(H - BOTTOM) stroke="#8a9099" stroke-width="1" {}
                    @for (i, label) in labels.iter().enumerate() {
                        @if let Some(label) = label {
                            line x1=(format!("{:.1}", x(i, n))) y1=(H - BOTTOM) x2=(format!("{:.1}", x(i, n))) y2=(H - BOTTOM + 4.0) stroke="#8a9099" {}
                            text.date x=(format!("{:.1}", x(i, n))) y=(H - BOTTOM + 16.0) text-anchor="middle" font-size="11" fill="#4a4f57" { (label) }
                        }
                    }
                }
                @for &c in &shown {
                    @let cat = CATEGORIES[c].0;
                    @let path: Vec<String> = points.iter().enumerate()
                        .filter_map(|(i, p)| p.scores[c].map(|s| format!("{:.1},{:.1}", x(i, n), y(s)))).collect();
                    g class=(format!("series series-{cat}")) {
                        @if path.len() > 1 {
                            polyline points=(path.join(" ")) fill="none" stroke=(color(cat)) stroke-width="2" {}
                        }
                        @for (i, p) in points.iter().enumerate() {
                            @if let Some(s) = p.scores[c] {
                                circle cx=(format!("{:.1}", x(i, n))) cy=(format!("{:.1}", y(s))) r="3.5" fill=(color(cat)) {
                                    title { (cat) " " (s) " on " (p.at.format("%Y-%m-%d %H:%M UTC")) }
                                }
                            }
                        }
                    }
                }
            }
            figcaption {
                ul.legend {
                    @for &c in &shown {
                        li { span class=(format!("swatch swatch-{}", CATEGORIES[c].0)) {} (CATEGORIES[c].1) }
                    }
                }
            }
        }
        details.trend-data {
            summary { "The trend as a table" }
            table id="trend-data" {
                caption { "Scores of the completed scans, oldest first" }
                thead { tr {
                    th scope="col" { "Scan" }
                    @for &c in &shown { th scope="col" class="n" { (CATEGORIES[c].1) } }
                } }
                tbody {
                    @for p in &points {
                        tr {
                            th scope="row" { a href=(format!("/scans/{}", p.scan_id)) { (super::layout::when(p.at)) } }
                            @for &c in &shown {
                                td.n { (p.scores[c].map(|s| s.to_string()).unwrap_or_else(|| "–".into())) }
                            }
                        }
                    }
                }
            }
        }
    }
}
