//! A Markdown summary short enough for a pull-request comment or a CI job summary
//! (`$GITHUB_STEP_SUMMARY`): scores and counts per category, the rules with the
//! most severe findings, the worst pages and, with a baseline, what is new and
//! what got fixed. The full detail lives in the other formats.

use std::fmt::Write as _;

use sitescan_rules::{BaselineState, Category, Finding, Outcome};

use super::{by_rule, count, totals, worst_pages};
use crate::report::Report;

/// Rules listed at most in "Top issues".
const TOP_RULES: usize = 10;
/// Pages listed at most in "Worst pages".
const WORST_PAGES: usize = 5;
/// New and fixed findings listed at most.
const LISTED_CHANGES: usize = 20;

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(out, "## sitescan report: {}\n", text(&report.site));
    let (by_impact, cant_tell) = totals(report);
    let failed: u64 = by_impact.iter().sum();
    let _ = write!(
        out,
        "{} scanned on {} · **{}**",
        count(report.stats.pages_fetched, "page", "pages"),
        report.started_at.format("%Y-%m-%d %H:%M UTC"),
        count(failed, "finding", "findings"),
    );
    if failed > 0 {
        let _ = write!(
            out,
            " ({} critical, {} serious, {} moderate, {} minor)",
            by_impact[0], by_impact[1], by_impact[2], by_impact[3]
        );
    }
    if cant_tell > 0 {
        let _ = write!(out, " · {cant_tell} to review by hand");
    }
    out.push('\n');
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "\nCompared with the baseline of {}: **{} new**, {} unchanged, **{} fixed**.",
            b.started_at.format("%Y-%m-%d %H:%M UTC"),
            b.new,
            b.unchanged,
            b.fixed
        );
    }
    if report.stats.truncated {
        let _ = writeln!(
            out,
            "\n> The crawl was cut short by a limit: {} URLs were left unscanned.",
            report.stats.urls_left
        );
    }

    out.push_str("\n| Category | Score | Critical | Serious | Moderate | Minor | To review |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for category in Category::ALL {
        let Some(s) = report.summary.get(&category) else {
            continue;
        };
        let score = match s.score {
            Some(n) => format!("{} {n}", badge(n)),
            None => "—".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            title_case(category.as_str()),
            score,
            s.critical,
            s.serious,
            s.moderate,
            s.minor,
            s.cant_tell
        );
    }

    let groups = by_rule(report);
    if !groups.is_empty() {
        out.push_str("\n### Top issues\n\n| Impact | Rule | Failed | To review | Pages |\n|---|---|---:|---:|---:|\n");
        for g in groups.iter().take(TOP_RULES) {
            let wcag = if g.rule.wcag.is_empty() {
                String::new()
            } else {
                format!(" (WCAG {})", g.rule.wcag.join(", "))
            };
            let _ = writeln!(
                out,
                "| {} | `{}` {}{} | {} | {} | {} |",
                g.rule.impact,
                g.rule.id,
                text(g.rule.title()),
                wcag,
                g.failed(),
                g.cant_tell(),
                g.pages()
            );
        }
        if groups.len() > TOP_RULES {
            let _ = writeln!(
                out,
                "\n…and {} more rules with findings.",
                groups.len() - TOP_RULES
            );
        }
    }

    let worst = worst_pages(report, WORST_PAGES);
    if !worst.is_empty() {
        out.push_str("\n### Worst pages\n\n");
        for (i, p) in worst.iter().enumerate() {
            let counts: Vec<String> = ["critical", "serious", "moderate", "minor"]
                .iter()
                .zip(p.by_impact)
                .filter(|(_, n)| *n > 0)
                .map(|(name, n)| format!("{n} {name}"))
                .collect();
            let _ = writeln!(out, "{}. {} — {}", i + 1, link(p.url), counts.join(", "));
        }
    }

    if report.baseline.is_some() {
        let new: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.baseline == Some(BaselineState::New))
            .collect();
        changes(&mut out, "New findings", &new);
        let fixed: Vec<&Finding> = report.fixed.iter().flatten().collect();
        changes(&mut out, "Fixed since the baseline", &fixed);
    }
    if failed == 0 && cant_tell == 0 {
        out.push_str("\nNo findings. ✅\n");
    }
    out
}

fn changes(out: &mut String, heading: &str, findings: &[&Finding]) {
    if findings.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n<details><summary>{heading} ({})</summary>\n",
        findings.len()
    );
    for f in findings.iter().take(LISTED_CHANGES) {
        let review = if f.outcome == Outcome::CantTell {
            " (to review)"
        } else {
            ""
        };
        let at = if f.selector.is_empty() {
            String::new()
        } else {
            format!(" `{}`", code(&f.selector))
        };
        let elsewhere = if f.occurrence_count() > 1 {
            format!(" (and {} more)", f.occurrence_count() - 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "- **{}** `{}`{} on {}{}{}: {}",
            f.impact,
            f.rule_id,
            review,
            link(&f.page_url),
            at,
            elsewhere,
            text(&f.message)
        );
    }
    if findings.len() > LISTED_CHANGES {
        let _ = writeln!(out, "- …and {} more", findings.len() - LISTED_CHANGES);
    }
    out.push_str("\n</details>\n");
}

fn badge(score: u8) -> &'static str {
    match score {
        90..=100 => "🟢",
        50..=89 => "🟠",
        _ => "🔴",
    }
}

fn title_case(s: &str) -> String {
    match s {
        "seo" => "SEO".into(),
        _ => {
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        }
    }
}

/// Plain text in Markdown (tables included): Markdown and HTML syntax escaped,
/// line breaks folded, so a finding's message can never break the layout or
/// inject markup into a pull-request comment.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Text inside a code span: backticks and line breaks cannot appear.
fn code(s: &str) -> String {
    s.replace('`', "'")
        .replace(['\n', '\r'], " ")
        .replace('|', "\\|")
}

/// A link to a page showing its URL.
fn link(url: &str) -> String {
    let target = url
        .replace('(', "%28")
        .replace(')', "%29")
        .replace(' ', "%20");
    format!("[{}]({})", text(url), target)
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn summary_has_scores_top_rules_and_worst_pages_escaped() {
        let md = render(&sample::report());
        assert!(
            md.starts_with("## sitescan report: https://shop.example/\n"),
            "{md}"
        );
        assert!(md.contains("5 pages scanned on 2026-11-21 09:00 UTC · **8 findings** (2 critical, 3 serious, 2 moderate, 1 minor) · 1 to review by hand"), "{md}");
        assert!(md.contains("| Accessibility | "), "{md}");
        // meta-description (moderate) fails 1 of 4 pages: ⌊100 × (1 − 0.15 × √¼)⌋.
        assert!(md.contains("| SEO | 🟢 92 | 0 | 0 | 1 | 0 | 0 |"), "{md}");
        let row = format!(
            "| critical | `image-alt` {} (WCAG 1.1.1) | 2 | 0 | 2 |",
            text(sample::title("image-alt"))
        );
        assert!(md.contains(&row), "{row} not in {md}");
        assert!(
            md.contains("| serious | `document-title` Page has a title (WCAG 2.4.2) | 1 | 0 | 1 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "1. [https://shop.example/](https://shop.example/) — 1 critical, 2 serious"
            ),
            "{md}"
        );
        // Only plain text from findings reaches the output.
        assert!(!md.contains("<script>"), "{md}");
        assert!(!md.contains("New findings"), "{md}");
        assert!(md.lines().count() < 40, "too long for a PR comment:\n{md}");
    }

    #[test]
    fn escaping_neutralises_markdown_and_html() {
        assert_eq!(
            text("a|b <i>*x*</i>\nc"),
            "a\\|b &lt;i&gt;\\*x\\*&lt;/i&gt; c"
        );
        assert_eq!(
            link("https://x.example/a_(b)"),
            "[https://x.example/a\\_(b)](https://x.example/a_%28b%29)"
        );
    }

    #[test]
    fn clean_report_says_so() {
        let md = render(&sample::empty_report());
        assert!(
            md.contains("1 page scanned on 2026-11-21 09:00 UTC · **0 findings**"),
            "{md}"
        );
        assert!(md.contains("No findings."), "{md}");
        assert!(!md.contains("Top issues"), "{md}");
    }
}
