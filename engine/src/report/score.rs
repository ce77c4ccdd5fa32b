//! Category scores.
//!
//! Formula (documented in the README, like Lighthouse's weighted audits):
//! every rule that applied to at least one page scores
//! `1 - pages_failed / pages_applicable`; a category scores
//! `round(100 * Σ(weight × rule score) / Σ weight)` where the weight is the rule's
//! impact weight (critical 10, serious 7, moderate 3, minor 1). A category whose
//! rules ran but never applied scores 100; one with no selected rule has no score.
//! Cant-tell outcomes do not lower a score (they are not failures) and never raise
//! it (they are not passes either: a page with only cant-tell outcomes for a rule
//! does not count as applicable).

use std::collections::BTreeMap;

use sitescan_rules::{registry, Category, Finding, Impact};

use super::model::{CategorySummary, RuleSummary};
use super::spool::FindingCounts;

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
    let mut weights: BTreeMap<Category, (f64, f64, bool)> = BTreeMap::new();
    for rule in rules {
        let Some(category) = rule.category else {
            continue;
        };
        let impact = registry::meta(&rule.rule_id)
            .map(|m| m.impact)
            .unwrap_or(Impact::Moderate);
        let entry = weights.entry(category).or_insert((0.0, 0.0, false));
        entry.2 = true;
        let applicable = rule.pages_applicable;
        if applicable == 0 {
            continue;
        }
        let w = f64::from(impact.weight());
        let s = 1.0 - (rule.pages_failed as f64 / applicable as f64);
        entry.0 += w * s;
        entry.1 += w;
    }
    for (category, (sum, total, ran)) in weights {
        if let Some(summary) = out.get_mut(&category) {
            if ran {
                summary.score = Some(if total == 0.0 {
                    100
                } else {
                    (100.0 * sum / total).round() as u8
                });
            }
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_by_impact() {
        let rules = vec![RuleSummary {
            rule_id: "document-title".into(),
            category: Some(Category::Accessibility),
            pages_applicable: 4,
            pages_failed: 1,
            ..Default::default()
        }];
        let s = summarize(&rules, &[]);
        assert_eq!(s[&Category::Accessibility].score, Some(75));
        assert_eq!(s[&Category::Seo].score, None);
    }
}
