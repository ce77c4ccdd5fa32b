//! The summary `scan` prints for a person at a terminal instead of the JSON
//! report: the scores and counts per category, the rules with the most severe
//! and most frequent findings (with an example page), everything the report's
//! reader must know (checks skipped, links not checked, pages analyzed in
//! part, fetch errors) and where the full report went.
//!
//! Two steps, so the wording can be tested as exact text: [`Summary::of`]
//! reads a report (its findings streamed once, never all in memory) into a
//! small value, and [`render`] turns that value into text, a pure function.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use console::Style;
use sitescan_engine::render::count;
use sitescan_engine::report::BaselineSummary;
use sitescan_engine::{CategorySummary, ReportSource};
use sitescan_rules::{registry, Category, Impact, Outcome};

/// Rules listed at most under "Top issues".
pub(crate) const TOP_RULES: usize = 10;
/// Rules listed at most under "To review by hand".
const REVIEW_RULES: usize = 8;
/// Distinct pages counted per rule; a rule failing on more is shown as
/// "more than N pages" (keeps the count's memory bounded on huge scans).
const PAGE_COUNT_CAP: usize = 10_000;
/// Longest example message shown, in characters (the full text is in the report).
const MESSAGE_CHARS: usize = 100;

/// What the summary says about a report.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    /// The scanned site (start URL).
    pub(crate) site: String,
    /// Pages fetched.
    pub(crate) pages: u64,
    /// How long the scan took, in milliseconds.
    pub(crate) duration_ms: u64,
    /// Failed findings per impact, most severe first (as [`Impact::ALL`]).
    pub(crate) failed: [u64; 4],
    /// Findings a person must review.
    pub(crate) to_review: u64,
    /// Per category, in report order: its score and counts.
    pub(crate) categories: Vec<(Category, CategorySummary)>,
    /// The rules with failed findings, most severe and most frequent first,
    /// at most [`TOP_RULES`].
    pub(crate) top: Vec<Issue>,
    /// Rules with failed findings beyond [`TOP_RULES`].
    pub(crate) more_rules: usize,
    /// Rules with findings to review (rule id, findings), most first.
    pub(crate) review: Vec<(String, u64)>,
    /// Everything the reader should know, in the report's order, then what
    /// the CLI derives from the stats.
    pub(crate) notes: Vec<String>,
    /// The comparison with a baseline, when there was one.
    pub(crate) baseline: Option<BaselineSummary>,
}

/// One rule's failed findings across the site.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Issue {
    /// Rule id.
    pub(crate) rule_id: String,
    /// The rule's title (its id when this build does not know the rule).
    pub(crate) title: String,
    /// The highest impact among its failed findings.
    pub(crate) impact: Impact,
    /// Failed findings.
    pub(crate) findings: u64,
    /// Places they stand for (a grouped finding stands for many).
    pub(crate) places: u64,
    /// Distinct pages with a failed finding, counted up to [`PAGE_COUNT_CAP`].
    pub(crate) pages: u64,
    /// The first failed finding in report order (the shallowest page).
    pub(crate) example: Example,
}

/// Where a person can see one instance of an issue.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Example {
    /// The page.
    pub(crate) page_url: String,
    /// The element on it (empty for a page- or header-level finding).
    pub(crate) selector: String,
    /// What is wrong there.
    pub(crate) message: String,
}

/// A file the full report was written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Saved {
    /// Format name shown to the reader (`JSON`, `HTML`).
    pub(crate) label: &'static str,
    /// Where it is.
    pub(crate) path: PathBuf,
}

/// Where the full report went and whether it was opened, for the summary's
/// last section.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Delivered {
    /// The files written.
    pub(crate) files: Vec<Saved>,
    /// True when the HTML report was handed to the browser (`--open`).
    pub(crate) opened: bool,
    /// Set (to the number of findings) when the report was too large for an
    /// HTML file.
    pub(crate) html_skipped: Option<u64>,
}

/// Per rule, while the findings stream past.
#[derive(Debug, Default)]
struct RuleTally {
    impact: Option<Impact>,
    failed: u64,
    places: u64,
    cant_tell: u64,
    pages: HashSet<u64>,
    pages_capped: bool,
    example: Option<Example>,
}

fn page_key(url: &str) -> u64 {
    // `DefaultHasher::new()` has fixed keys: the same URL always gives the same
    // key, and a collision only undercounts by one page.
    let mut h = DefaultHasher::new();
    url.hash(&mut h);
    h.finish()
}

impl RuleTally {
    fn add_page(&mut self, url: &str) {
        if self.pages.len() < PAGE_COUNT_CAP {
            self.pages.insert(page_key(url));
        } else if !self.pages.contains(&page_key(url)) {
            self.pages_capped = true;
        }
    }
}

impl Summary {
    /// Reads what the summary needs from a report, visiting its findings once.
    pub(crate) fn of(report: &dyn ReportSource) -> sitescan_engine::Result<Summary> {
        let head = report.head();
        let mut tallies: HashMap<String, RuleTally> = HashMap::new();
        report.for_each_finding(&mut |f| {
            let t = tallies.entry(f.rule_id.clone()).or_default();
            match f.outcome {
                Outcome::Failed => {
                    t.failed += 1;
                    t.impact = Some(t.impact.map_or(f.impact, |i| i.max(f.impact)));
                    let places = f
                        .occurrences_total
                        .unwrap_or(f.occurrences.len() as u64)
                        .max(1);
                    t.places += places;
                    t.add_page(&f.page_url);
                    for o in &f.occurrences {
                        t.add_page(&o.page_url);
                    }
                    if t.example.is_none() {
                        t.example = Some(Example {
                            page_url: f.page_url.clone(),
                            selector: f.selector.clone(),
                            message: f.message.clone(),
                        });
                    }
                }
                Outcome::CantTell => t.cant_tell += 1,
                Outcome::Passed => {}
            }
            Ok(())
        })?;

        let mut failed = [0u64; 4];
        let mut to_review = 0;
        for s in head.summary.values() {
            failed[0] += s.critical;
            failed[1] += s.serious;
            failed[2] += s.moderate;
            failed[3] += s.minor;
            to_review += s.cant_tell;
        }
        let categories = Category::ALL
            .into_iter()
            .filter_map(|c| head.summary.get(&c).map(|s| (c, s.clone())))
            .collect();

        let mut issues: Vec<Issue> = tallies
            .iter()
            .filter_map(|(id, t)| {
                let (impact, example) = (t.impact?, t.example.clone()?);
                let pages = if t.pages_capped {
                    PAGE_COUNT_CAP as u64 + 1
                } else {
                    t.pages.len() as u64
                };
                Some(Issue {
                    rule_id: id.clone(),
                    title: registry::meta(id).map_or_else(|| id.clone(), |m| m.title.to_string()),
                    impact,
                    findings: t.failed,
                    places: t.places,
                    pages,
                    example,
                })
            })
            .collect();
        issues.sort_by(|a, b| {
            b.impact
                .cmp(&a.impact)
                .then(b.places.cmp(&a.places))
                .then(b.findings.cmp(&a.findings))
                .then(a.rule_id.cmp(&b.rule_id))
        });
        let more_rules = issues.len().saturating_sub(TOP_RULES);
        issues.truncate(TOP_RULES);

        let mut review: Vec<(String, u64)> = tallies
            .into_iter()
            .filter(|(_, t)| t.cant_tell > 0)
            .map(|(id, t)| (id, t.cant_tell))
            .collect();
        review.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

        Ok(Summary {
            site: head.site.clone(),
            pages: head.stats.pages_fetched,
            duration_ms: (head.finished_at - head.started_at)
                .num_milliseconds()
                .max(0) as u64,
            failed,
            to_review,
            categories,
            top: issues,
            more_rules,
            review,
            notes: notes(head),
            baseline: head.baseline.clone(),
        })
    }
}

/// The report's notes, then what its stats say that a reader must know and no
/// note says yet: fetch errors, URLs robots.txt kept out, rules that crashed.
fn notes(head: &sitescan_engine::Report) -> Vec<String> {
    let mut notes = head.notes.clone();
    let stats = &head.stats;
    if !stats.errors.is_empty() {
        let kinds: Vec<String> = stats
            .errors
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        notes.push(format!(
            "errors while crawling: {} (each page's status and error are in the full report)",
            kinds.join(", ")
        ));
    }
    if stats.skipped.robots > 0 {
        notes.push(format!(
            "{} disallowed by robots.txt and not fetched (--ignore-robots scans them on a site you own)",
            count(stats.skipped.robots, "URL was", "URLs were")
        ));
    }
    let crashed = head
        .pages
        .iter()
        .filter(|p| !p.rule_errors.is_empty())
        .count() as u64;
    if crashed > 0 {
        notes.push(format!(
            "rules crashed on {} and were skipped there (pages[].rule_errors in the full report)",
            count(crashed, "page", "pages")
        ));
    }
    notes
}

/// Colours of the summary; all plain when the terminal takes none.
struct Palette {
    heading: Style,
    good: Style,
    fair: Style,
    poor: Style,
    impact: [Style; 4],
    dim: Style,
}

impl Palette {
    fn new(color: bool) -> Self {
        let s = |style: Style| style.force_styling(color);
        Palette {
            heading: s(Style::new().bold()),
            good: s(Style::new().green()),
            fair: s(Style::new().yellow()),
            poor: s(Style::new().red().bold()),
            impact: [
                s(Style::new().red().bold()),
                s(Style::new().red()),
                s(Style::new().yellow()),
                s(Style::new().cyan()),
            ],
            dim: s(Style::new().dim()),
        }
    }

    fn score(&self, score: u8) -> &Style {
        match score {
            90.. => &self.good,
            50..=89 => &self.fair,
            _ => &self.poor,
        }
    }

    fn impact(&self, impact: Impact) -> &Style {
        let i = Impact::ALL.iter().position(|x| *x == impact).unwrap_or(3);
        &self.impact[i]
    }
}

/// `1.2 s`, `45 s`, `3 min 05 s`, `1 h 02 min`.
fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..=9 => format!("{}.{} s", secs, (ms % 1000) / 100),
        10..=59 => format!("{secs} s"),
        60..=3599 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, (secs % 3600) / 60),
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
fn clip(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    // End on a whole word when one ends near the cut.
    if let Some(space) = cut.rfind(' ').filter(|i| cut.len() - i <= 20) {
        cut.truncate(space);
    }
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
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

/// The summary as text for a terminal (`color`: with ANSI colours).
pub(crate) fn render(s: &Summary, delivered: &Delivered, color: bool) -> String {
    let p = Palette::new(color);
    let mut out = String::new();
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(out, "{} {}", p.heading.apply_to("sitescan"), s.site);
    let failed: u64 = s.failed.iter().sum();
    let mut line = format!(
        "{} scanned in {} · {}",
        count(s.pages, "page", "pages"),
        duration(s.duration_ms),
        count(failed, "finding", "findings"),
    );
    if failed > 0 {
        let parts: Vec<String> = Impact::ALL
            .iter()
            .zip(s.failed)
            .filter(|(_, n)| *n > 0)
            .map(|(i, n)| format!("{n} {}", p.impact(*i).apply_to(i.as_str())))
            .collect();
        let _ = write!(line, " ({})", parts.join(", "));
    }
    if s.to_review > 0 {
        let _ = write!(line, " · {} to review by hand", s.to_review);
    }
    let _ = writeln!(out, "{line}");
    if let Some(b) = &s.baseline {
        let _ = writeln!(
            out,
            "Against the baseline of {}: {} new, {} unchanged, {} fixed",
            b.started_at.format("%Y-%m-%d %H:%M UTC"),
            b.new,
            b.unchanged,
            b.fixed
        );
    }

    if !s.categories.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            p.heading.apply_to(format!(
                "{:<14}{:>7}{:>10}{:>9}{:>10}{:>7}{:>11}",
                "Category", "Score", "Critical", "Serious", "Moderate", "Minor", "To review"
            ))
        );
        for (category, c) in &s.categories {
            let counted = c.critical + c.serious + c.moderate + c.minor + c.cant_tell;
            if c.score.is_none() && counted == 0 {
                let _ = writeln!(
                    out,
                    "{:<14}{:>7}  {}",
                    category_name(*category),
                    "—",
                    p.dim.apply_to("not checked: no rule of the category ran")
                );
                continue;
            }
            let score = match (c.score, &c.grade) {
                (Some(n), Some(g)) => {
                    let text = format!("{n} {g}");
                    p.score(n).apply_to(format!("{text:>7}")).to_string()
                }
                (Some(n), None) => p.score(n).apply_to(format!("{n:>7}")).to_string(),
                (None, _) => format!("{:>7}", "—"),
            };
            let _ = writeln!(
                out,
                "{:<14}{}{:>10}{:>9}{:>10}{:>7}{:>11}",
                category_name(*category),
                score,
                c.critical,
                c.serious,
                c.moderate,
                c.minor,
                c.cant_tell
            );
        }
    }

    if !s.top.is_empty() {
        let _ = writeln!(out, "\n{}", p.heading.apply_to("Top issues"));
        for issue in &s.top {
            let _ = writeln!(
                out,
                "  {} {}  {}",
                p.impact(issue.impact)
                    .apply_to(format!("{:<8}", issue.impact.as_str())),
                p.heading.apply_to(&issue.rule_id),
                issue.title
            );
            let mut what = count(issue.findings, "finding", "findings");
            if issue.places > issue.findings {
                let _ = write!(what, " at {} places", issue.places);
            }
            let pages = if issue.pages > PAGE_COUNT_CAP as u64 {
                format!("more than {PAGE_COUNT_CAP} pages")
            } else {
                count(issue.pages, "page", "pages")
            };
            let e = &issue.example;
            let place = if e.selector.is_empty() {
                e.page_url.clone()
            } else {
                format!("{} {}", e.page_url, e.selector)
            };
            let _ = writeln!(out, "           {what} on {pages} · e.g. {place}");
            if !e.message.is_empty() {
                let _ = writeln!(
                    out,
                    "           {}",
                    p.dim.apply_to(clip(&e.message, MESSAGE_CHARS))
                );
            }
        }
        if s.more_rules > 0 {
            let _ = writeln!(
                out,
                "  and {} with findings (see the full report)",
                count(s.more_rules as u64, "more rule", "more rules")
            );
        }
    }

    if !s.review.is_empty() {
        let mut listed: Vec<String> = s
            .review
            .iter()
            .take(REVIEW_RULES)
            .map(|(id, n)| format!("{id} ({n})"))
            .collect();
        if s.review.len() > REVIEW_RULES {
            listed.push(format!("{} more", s.review.len() - REVIEW_RULES));
        }
        let _ = writeln!(
            out,
            "\n{} {}",
            p.heading.apply_to("To review by hand:"),
            listed.join(", ")
        );
    }

    if !s.notes.is_empty() {
        let _ = writeln!(out, "\n{}", p.heading.apply_to("Notes"));
        for note in &s.notes {
            let _ = writeln!(out, "  - {note}");
        }
    }

    if !delivered.files.is_empty() {
        let _ = writeln!(out, "\n{}", p.heading.apply_to("Full report"));
        for f in &delivered.files {
            let _ = writeln!(out, "  {:<5} {}", f.label, f.path.display());
        }
        if let Some(n) = delivered.html_skipped {
            let json = delivered
                .files
                .first()
                .map(|f| f.path.display().to_string());
            let _ = writeln!(
                out,
                "  HTML  not written: {n} findings are more than one page holds well \
                 (`sitescan report {} --format html --output report.html` writes it anyway)",
                json.unwrap_or_else(|| "REPORT.json".into())
            );
        }
        if delivered.files.iter().any(|f| f.label == "HTML") {
            if delivered.opened {
                let _ = writeln!(out, "  The HTML report was opened in your browser.");
            } else {
                let _ = writeln!(
                    out,
                    "  {}",
                    p.dim
                        .apply_to("Open the HTML report in a browser, or add --open next time.")
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitescan_engine::Report;

    /// A small report as the engine writes it: two categories scored, one
    /// without a rule, a grouped finding, a cant-tell finding, notes and stats
    /// that need saying.
    fn report() -> Report {
        let json = serde_json::json!({
            "schema_version": 1,
            "site": "http://127.0.0.1:4000/",
            "started_at": "2026-11-26T06:00:00Z",
            "finished_at": "2026-11-26T06:03:05.400Z",
            "config": sitescan_engine::ScanConfig::default(),
            "stats": {
                "pages_fetched": 3,
                "skipped": {"robots": 2, "scope": 0, "limit": 0, "depth": 0, "type": 0, "private": 0, "links": 792},
                "errors": {"http_4xx": 1},
                "truncated": false,
                "urls_left": 0
            },
            "summary": {
                "accessibility": {"score": 72, "critical": 2, "serious": 1, "moderate": 0, "minor": 0, "cant_tell": 1},
                "security": {"score": 95, "critical": 0, "serious": 0, "moderate": 0, "minor": 1, "cant_tell": 0, "grade": "B", "grade_score": 70},
                "performance": {"score": null, "critical": 0, "serious": 0, "moderate": 0, "minor": 0, "cant_tell": 0}
            },
            "pages": [
                {"url": "http://127.0.0.1:4000/", "final_url": "http://127.0.0.1:4000/", "status": 200, "depth": 0, "ttfb_ms": 1, "total_ms": 2, "bytes": 10, "findings": 2},
                {"url": "http://127.0.0.1:4000/a", "final_url": "http://127.0.0.1:4000/a", "status": 200, "depth": 1, "ttfb_ms": 1, "total_ms": 2, "bytes": 10, "findings": 1,
                 "rule_errors": [{"rule_id": "image-alt", "message": "boom"}]},
                {"url": "http://127.0.0.1:4000/gone", "final_url": "http://127.0.0.1:4000/gone", "status": 404, "depth": 1, "ttfb_ms": 1, "total_ms": 2, "bytes": 10, "findings": 0}
            ],
            "findings": [
                {"rule_id": "document-title", "category": "accessibility", "outcome": "failed", "impact": "serious",
                 "page_url": "http://127.0.0.1:4000/", "selector": "html", "snippet": "<html>",
                 "message": "The page has no <title>   element; screen readers announce the URL instead, which tells nobody what the page is about", "wcag": ["2.4.2"]},
                {"rule_id": "image-alt", "category": "accessibility", "outcome": "failed", "impact": "critical",
                 "page_url": "http://127.0.0.1:4000/", "selector": "img.hero", "snippet": "<img class=hero>",
                 "message": "Image has no text alternative", "wcag": ["1.1.1"]},
                {"rule_id": "image-alt", "category": "accessibility", "outcome": "failed", "impact": "critical",
                 "page_url": "http://127.0.0.1:4000/a", "selector": "img", "snippet": "<img>",
                 "message": "Image has no text alternative", "wcag": ["1.1.1"]},
                {"rule_id": "color-contrast", "category": "accessibility", "outcome": "cant-tell", "impact": "serious",
                 "page_url": "http://127.0.0.1:4000/a", "selector": "p", "snippet": "<p>",
                 "message": "Contrast cannot be told over an image", "wcag": ["1.4.3"]},
                {"rule_id": "x-content-type-options", "category": "security", "outcome": "failed", "impact": "minor",
                 "page_url": "http://127.0.0.1:4000/", "selector": "", "snippet": "",
                 "message": "No X-Content-Type-Options header", "wcag": [],
                 "occurrences": [
                    {"page_url": "http://127.0.0.1:4000/"},
                    {"page_url": "http://127.0.0.1:4000/a"},
                    {"page_url": "http://127.0.0.1:4000/gone"}
                 ]}
            ],
            "rules": [],
            "notes": [
                "rule `spelling` skipped: no dictionary for lang=\"de\"",
                "792 link and resource URLs were not checked (links = internal)"
            ]
        });
        serde_json::from_value(json).unwrap()
    }

    fn delivered() -> Delivered {
        Delivered {
            files: vec![
                Saved {
                    label: "JSON",
                    path: "/home/me/sitescan-127.0.0.1-4000-20261126-060000.json".into(),
                },
                Saved {
                    label: "HTML",
                    path: "/home/me/sitescan-127.0.0.1-4000-20261126-060000.html".into(),
                },
            ],
            opened: false,
            html_skipped: None,
        }
    }

    #[test]
    fn summary_of_a_report_reads_exactly() {
        let summary = Summary::of(&report()).unwrap();
        let text = render(&summary, &delivered(), false);
        let expected = "\
sitescan http://127.0.0.1:4000/
3 pages scanned in 3 min 05 s · 4 findings (2 critical, 1 serious, 1 minor) · 1 to review by hand

Category        Score  Critical  Serious  Moderate  Minor  To review
Accessibility      72         2        1         0      0          1
Security         95 B         0        0         0      1          0
Performance         —  not checked: no rule of the category ran

Top issues
  critical image-alt  Images have alternative text
           2 findings on 2 pages · e.g. http://127.0.0.1:4000/ img.hero
           Image has no text alternative
  serious  document-title  Page has a title
           1 finding on 1 page · e.g. http://127.0.0.1:4000/ html
           The page has no <title> element; screen readers announce the URL instead, which tells nobody what…
  minor    x-content-type-options  Responses forbid MIME sniffing
           1 finding at 3 places on 3 pages · e.g. http://127.0.0.1:4000/
           No X-Content-Type-Options header

To review by hand: color-contrast (1)

Notes
  - rule `spelling` skipped: no dictionary for lang=\"de\"
  - 792 link and resource URLs were not checked (links = internal)
  - errors while crawling: http_4xx 1 (each page's status and error are in the full report)
  - 2 URLs were disallowed by robots.txt and not fetched (--ignore-robots scans them on a site you own)
  - rules crashed on 1 page and were skipped there (pages[].rule_errors in the full report)

Full report
  JSON  /home/me/sitescan-127.0.0.1-4000-20261126-060000.json
  HTML  /home/me/sitescan-127.0.0.1-4000-20261126-060000.html
  Open the HTML report in a browser, or add --open next time.
";
        assert_eq!(text, expected, "\n{text}");
    }

    #[test]
    fn a_clean_report_says_so_briefly_and_an_opened_report_says_it_was_opened() {
        let mut r = report();
        r.findings.clear();
        r.notes.clear();
        r.stats = Default::default();
        r.stats.pages_fetched = 1;
        r.pages.truncate(1);
        r.summary.clear();
        r.finished_at = r.started_at + chrono::Duration::milliseconds(1234);
        let summary = Summary::of(&r).unwrap();
        let mut d = delivered();
        d.opened = true;
        let text = render(&summary, &d, false);
        assert_eq!(
            text,
            "\
sitescan http://127.0.0.1:4000/
1 page scanned in 1.2 s · 0 findings

Full report
  JSON  /home/me/sitescan-127.0.0.1-4000-20261126-060000.json
  HTML  /home/me/sitescan-127.0.0.1-4000-20261126-060000.html
  The HTML report was opened in your browser.
"
        );
    }

    #[test]
    fn colour_marks_scores_and_impacts_and_plain_has_no_escape() {
        let summary = Summary::of(&report()).unwrap();
        let plain = render(&summary, &delivered(), false);
        assert!(!plain.contains('\u{1b}'));
        let coloured = render(&summary, &delivered(), true);
        assert!(
            coloured.contains("\u{1b}[31m\u{1b}[1mcritical"),
            "{coloured}"
        );
        assert_eq!(console::strip_ansi_codes(&coloured), plain);
    }

    #[test]
    fn top_issues_are_capped_and_ordered_by_impact_then_places() {
        let mut r = report();
        let template = r.findings[4].clone();
        for i in 0..12 {
            let mut f = template.clone();
            f.rule_id = format!("rule-{i:02}");
            f.occurrences.clear();
            r.findings.push(f);
        }
        let s = Summary::of(&r).unwrap();
        assert_eq!(s.top.len(), TOP_RULES);
        assert_eq!(s.more_rules, 15 - TOP_RULES);
        assert_eq!(s.top[0].rule_id, "image-alt");
        assert_eq!(s.top[1].rule_id, "document-title");
        assert_eq!(s.top[2].rule_id, "x-content-type-options", "3 places first");
        assert_eq!(s.top[3].rule_id, "rule-00", "then by id");
        let text = render(&s, &Delivered::default(), false);
        assert!(text.contains("  and 5 more rules with findings (see the full report)\n"));
        assert!(
            !text.contains("Full report"),
            "nothing written, nothing said"
        );
    }

    #[test]
    fn a_report_too_large_for_html_says_how_to_get_it_anyway() {
        let summary = Summary::of(&report()).unwrap();
        let mut d = delivered();
        d.files.truncate(1);
        d.html_skipped = Some(250_000);
        let text = render(&summary, &d, false);
        assert!(text.ends_with(
            "\nFull report\n  JSON  /home/me/sitescan-127.0.0.1-4000-20261126-060000.json\n  \
             HTML  not written: 250000 findings are more than one page holds well \
             (`sitescan report /home/me/sitescan-127.0.0.1-4000-20261126-060000.json --format html --output report.html` writes it anyway)\n"
        ), "{text}");
    }

    #[test]
    fn durations_and_clipping_read_well() {
        assert_eq!(duration(0), "0.0 s");
        assert_eq!(duration(9_950), "9.9 s");
        assert_eq!(duration(42_000), "42 s");
        assert_eq!(duration(13 * 60_000 + 5_000), "13 min 05 s");
        assert_eq!(duration(3_600_000 + 120_000), "1 h 02 min");
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("a  b\nc", 10), "a b c");
        assert_eq!(clip("abcdef ghij", 8), "abcdef…");
        assert_eq!(clip("abcdefghij", 8), "abcdefg…");
        assert_eq!(
            clip("ab cdefghijklmnopqrstuvwxyz0123456789", 30),
            "ab cdefghijklmnopqrstuvwxyz01…"
        );
    }
}
