//! Triage marks: findings a site's owners marked `ignored` (a real problem they
//! accept) or `false_positive` (the rule was wrong), by their
//! [`fingerprint`](crate::baseline::fingerprint), so that they leave the
//! scores, the counts and the gates of later scans while staying in the report
//! with their [`Mark`].
//!
//! A scan given [`Marks`] (see `ScannerBuilder::marks`) sets
//! [`Finding::mark`](sitescan_rules::Finding::mark) on each finding whose
//! fingerprint is marked and counts a marked failure as a pass in its rule's
//! tally: the page no longer fails that rule when every failure of the rule on
//! it is marked, so the category score is the one the site would have without
//! those findings. The summary's impact and cant-tell counts leave marked
//! findings out (their number is the summary's `marked`), and so do the gates.
//!
//! Marks are not part of the configuration (they do not show in the report's
//! `config`): they belong to the site, not to the scan.

use std::collections::{HashMap, HashSet};

use sitescan_rules::{Finding, Mark, Outcome, RuleTally};

use crate::baseline::fingerprint;

/// The marks a scan applies: mark per fingerprint. Empty by default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    by_fingerprint: HashMap<String, Mark>,
}

impl Marks {
    /// No marks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `fingerprint` (replacing an earlier mark of it).
    pub fn insert(&mut self, fingerprint: impl Into<String>, mark: Mark) {
        self.by_fingerprint.insert(fingerprint.into(), mark);
    }

    /// The mark of `fingerprint`, if any.
    pub fn get(&self, fingerprint: &str) -> Option<&Mark> {
        self.by_fingerprint.get(fingerprint)
    }

    /// How many fingerprints are marked.
    pub fn len(&self) -> usize {
        self.by_fingerprint.len()
    }

    /// True when nothing is marked.
    pub fn is_empty(&self) -> bool {
        self.by_fingerprint.is_empty()
    }

    /// Sets (or clears) the mark of each finding from these marks; returns how
    /// many are marked.
    pub fn apply(&self, findings: &mut [Finding]) -> usize {
        if self.is_empty() {
            return findings.iter().filter(|f| f.mark.is_some()).count();
        }
        let mut n = 0;
        for f in findings.iter_mut() {
            f.mark = self.get(&fingerprint(f)).cloned();
            n += usize::from(f.mark.is_some());
        }
        n
    }

    /// Marks one page's findings and moves their marked failures to the
    /// passes of their rules' tallies, so the page fails a rule only for an
    /// unmarked finding of it.
    pub(crate) fn apply_page(&self, findings: &mut [Finding], tallies: &mut [RuleTally]) {
        if self.is_empty() || self.apply(findings) == 0 {
            return;
        }
        let mut marked: HashMap<&str, u32> = HashMap::new();
        for f in findings
            .iter()
            .filter(|f| f.mark.is_some() && f.outcome == Outcome::Failed)
        {
            *marked.entry(f.rule_id.as_str()).or_default() += 1;
        }
        for t in tallies.iter_mut() {
            if let Some(n) = marked.get(t.rule_id.as_str()) {
                let moved = (*n).min(t.failed);
                t.failed -= moved;
                t.passed += moved;
            }
        }
    }

    /// Marks a site rule's findings and returns how many of the pages it
    /// failed on fail only for marked findings (their failures are all
    /// marked): the pages its tally should no longer count as failed.
    pub(crate) fn apply_site(&self, findings: &mut [Finding]) -> u64 {
        if self.is_empty() || self.apply(findings) == 0 {
            return 0;
        }
        let mut any: HashSet<&str> = HashSet::new();
        let mut unmarked: HashSet<&str> = HashSet::new();
        for f in findings.iter().filter(|f| f.outcome == Outcome::Failed) {
            let pages = std::iter::once(f.page_url.as_str())
                .chain(f.occurrences.iter().map(|o| o.page_url.as_str()));
            if f.mark.is_some() {
                any.extend(pages);
            } else {
                for p in pages {
                    any.insert(p);
                    unmarked.insert(p);
                }
            }
        }
        any.difference(&unmarked).count() as u64
    }
}

impl FromIterator<(String, Mark)> for Marks {
    fn from_iter<I: IntoIterator<Item = (String, Mark)>>(iter: I) -> Self {
        Marks {
            by_fingerprint: iter.into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use sitescan_rules::MarkStatus;

    fn mark() -> Mark {
        Mark {
            status: MarkStatus::FalsePositive,
            note: "decorative".into(),
            by: None,
            at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_page_fails_a_rule_only_for_its_unmarked_findings() {
        let mut findings = sample::findings();
        let image_alt: Vec<usize> = findings
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rule_id == "image-alt")
            .map(|(i, _)| i)
            .collect();
        assert!(!image_alt.is_empty());
        let marks: Marks = image_alt
            .iter()
            .map(|i| (fingerprint(&findings[*i]), mark()))
            .collect();
        let mut tallies = vec![RuleTally {
            rule_id: "image-alt".into(),
            passed: 1,
            failed: image_alt.len() as u32,
            cant_tell: 0,
        }];
        marks.apply_page(&mut findings, &mut tallies);
        assert_eq!(tallies[0].failed, 0);
        assert_eq!(tallies[0].passed, 1 + image_alt.len() as u32);
        for (i, f) in findings.iter().enumerate() {
            assert_eq!(f.mark.is_some(), image_alt.contains(&i), "{}", f.rule_id);
        }
        // No marks: nothing changes, and an earlier mark is kept.
        let before = tallies.clone();
        Marks::new().apply_page(&mut findings, &mut tallies);
        assert_eq!(tallies, before);
        assert!(findings[image_alt[0]].mark.is_some());
    }

    #[test]
    fn marked_findings_pass_every_gate_and_show_apart_in_html() {
        let mut report = sample::report();
        let gate = crate::gate::Gate {
            fail_on: Some(sitescan_rules::Impact::Minor),
            fail_on_new: Some(sitescan_rules::Impact::Minor),
            max_findings: Some(0),
            min_scores: Vec::new(),
        };
        assert!(!gate.evaluate(&report).passed());
        let failed = report
            .findings
            .iter()
            .filter(|f| f.outcome == Outcome::Failed)
            .count();
        let marks: Marks = report
            .findings
            .iter()
            .map(|f| (fingerprint(f), mark()))
            .collect();
        assert_eq!(marks.apply(&mut report.findings), report.findings.len());
        assert!(
            gate.evaluate(&report).passed(),
            "{:?}",
            gate.evaluate(&report)
        );
        let html =
            String::from_utf8(crate::render::render(&report, crate::render::Format::Html).unwrap())
                .unwrap();
        assert!(
            html.contains(&format!("Marked ({})", report.findings.len())),
            "{html}"
        );
        assert!(html.contains("No findings: every rule that ran passed."));
        assert!(failed > 0);
        // Counted apart in the summary.
        let counts = crate::report::FindingCounts::of(&report.findings);
        assert!(counts
            .by_category
            .values()
            .all(|c| c.failed == [0; 4] && c.cant_tell == 0));
        assert_eq!(
            counts.marked.values().sum::<u64>(),
            report.findings.len() as u64
        );
    }
}
