//! Category scores.
//!
//! A score says how far a category is from "nothing failed", so that no
//! number of passing rules can hide a failing one, and it counts pages, as a
//! person reading the site does:
//!
//! - every rule that applied to at least one page has a **reach**
//!   `f = pages_failed / pages_applicable` (pages, never elements or links;
//!   cant-tell outcomes are neither failures nor passes and count for nothing);
//! - a failing rule takes away `D(impact) × √f` of what is left, with
//!   `D` = critical 0.5, serious 0.3, moderate 0.15, minor 0.05 ([`deduction`]):
//!   the square root makes the first pages with a problem cost most (a problem on
//!   1 page in 100 costs a tenth of its full deduction, on a quarter of the pages
//!   half of it);
//! - the category scores `⌊100 × Π (1 − D(impact) × √f)⌋` over its rules.
//!
//! So a category scores 100 exactly when none of its rules failed on any page,
//! and any failure, of any impact, takes it below 100 (the floor makes sure of
//! that); one serious rule failing on every page leaves 70, one critical 50.
//! A category whose rules ran but never applied scores 100; one with no selected
//! rule has no score (`null`).

use std::collections::BTreeMap;

use sitescan_rules::{registry, Category, Finding, Impact};

use super::model::{CategorySummary, RuleSummary};
use super::spool::FindingCounts;

/// The share of a category's score a rule of this impact takes away when it
/// fails on every page it applies to.
pub fn deduction(impact: Impact) -> f64 {
    match impact {
        Impact::Critical => 0.5,
        Impact::Serious => 0.3,
        Impact::Moderate => 0.15,
        Impact::Minor => 0.05,
    }
}

/// The score of one category from its rules' `(impact, pages_applicable,
/// pages_failed)` (see the module doc).
pub fn category_score(rules: impl IntoIterator<Item = (Impact, u64, u64)>) -> u8 {
    let mut kept = 1.0_f64;
    for (impact, applicable, failed) in rules {
        if applicable == 0 || failed == 0 {
            continue;
        }
        let reach = (failed.min(applicable) as f64 / applicable as f64).sqrt();
        kept *= 1.0 - deduction(impact) * reach;
    }
    // A failure that rounds away still shows: ⌊99.97⌋ is 99. The small
    // epsilon keeps exact products (0.7 × 100 = 69.999…) at their value.
    let score = (100.0 * kept + 1e-9).floor();
    if kept < 1.0 {
        score.clamp(0.0, 99.0) as u8
    } else {
        100
    }
}

/// Summary per category of the given rule summaries and findings.
pub fn summarize(
    rules: &[RuleSummary],
    findings: &[Finding],
) -> BTreeMap<Category, CategorySummary> {
    summarize_counts(rules, &FindingCounts::of(findings))
}

/// Summary per category of the given rule summaries and counts of findings
/// (what a scan keeps in memory instead of the findings themselves).
pub fn summarize_counts(
    rules: &[RuleSummary],
    counts: &FindingCounts,
) -> BTreeMap<Category, CategorySummary> {
    let mut out: BTreeMap<Category, CategorySummary> = Category::ALL
        .iter()
        .map(|c| (*c, CategorySummary::default()))
        .collect();
    let mut by_category: BTreeMap<Category, Vec<(Impact, u64, u64)>> = BTreeMap::new();
    for rule in rules {
        let Some(category) = rule.category else {
            continue;
        };
        let impact = registry::meta(&rule.rule_id)
            .map(|m| m.impact)
            .unwrap_or(Impact::Moderate);
        by_category.entry(category).or_default().push((
            impact,
            rule.pages_applicable,
            rule.pages_failed,
        ));
    }
    for (category, rules) in by_category {
        if let Some(summary) = out.get_mut(&category) {
            summary.score = Some(category_score(rules));
        }
    }
    for (category, c) in &counts.by_category {
        let Some(summary) = out.get_mut(category) else {
            continue;
        };
        let [critical, serious, moderate, minor] = c.failed;
        summary.critical += critical;
        summary.serious += serious;
        summary.moderate += moderate;
        summary.minor += minor;
        summary.cant_tell += c.cant_tell;
    }
    for (category, n) in &counts.marked {
        if let Some(summary) = out.get_mut(category) {
            summary.marked = Some(summary.marked.unwrap_or(0) + n);
        }
    }
    // Failed findings without a failed page behind them (a rule whose tally was
    // lost, a report edited by hand) still keep a category off 100.
    for summary in out.values_mut() {
        let failed = summary.critical + summary.serious + summary.moderate + summary.minor;
        if failed > 0 {
            summary.score = summary.score.map(|s| s.min(99));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str, category: Category, applicable: u64, failed: u64) -> RuleSummary {
        RuleSummary {
            rule_id: id.into(),
            category: Some(category),
            pages_applicable: applicable,
            pages_failed: failed,
            ..Default::default()
        }
    }

    #[test]
    fn each_failing_rule_takes_its_share_of_what_is_left() {
        // document-title is serious: on 1 page of 4, √¼ × 0.3 = 0.15.
        let s = summarize(
            &[rule("document-title", Category::Accessibility, 4, 1)],
            &[],
        );
        assert_eq!(s[&Category::Accessibility].score, Some(85));
        assert_eq!(s[&Category::Seo].score, None);
        // Passing rules cannot dilute a failure: ninety more rules that passed
        // everywhere change nothing.
        let mut rules = vec![rule("document-title", Category::Accessibility, 4, 1)];
        rules.extend((0..90).map(|_| rule("image-alt", Category::Accessibility, 4, 0)));
        assert_eq!(
            summarize(&rules, &[])
                .get(&Category::Accessibility)
                .unwrap()
                .score,
            Some(85)
        );
        // Two rules: 0.85 × (1 − 0.5 × 1) for image-alt (critical) on every page.
        rules.push(rule("image-alt", Category::Accessibility, 2, 2));
        assert_eq!(
            summarize(&rules, &[])
                .get(&Category::Accessibility)
                .unwrap()
                .score,
            Some(42)
        );
    }

    #[test]
    fn any_failure_keeps_a_category_below_100_and_none_leaves_it_at_100() {
        assert_eq!(category_score([(Impact::Minor, 10_000, 1)]), 99);
        assert_eq!(category_score([(Impact::Critical, 100, 0)]), 100);
        assert_eq!(category_score(std::iter::empty()), 100);
        assert_eq!(category_score([(Impact::Serious, 100, 100)]), 70);
        assert_eq!(category_score([(Impact::Critical, 100, 100)]), 50);
        assert_eq!(category_score([(Impact::Moderate, 100, 25)]), 92);
    }
}
