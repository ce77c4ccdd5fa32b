//! Pipeline gates: thresholds evaluated over a finished report, giving pass or
//! fail with reasons a person can act on. The CLI maps a failed gate to exit
//! code 1 (DESIGN.md, "Command line").
//!
//! Only failed findings count; cant-tell findings need a person's review and never
//! fail a gate. Thresholds:
//!
//! - `fail_on`: any finding at or above this impact;
//! - `fail_on_new`: any finding at or above this impact that is new against the
//!   baseline; with no baseline applied every finding is new (a first run has
//!   nothing to compare with);
//! - `max_findings`: more than this many findings;
//! - `min_scores`: a category scoring below its minimum (a category that did not
//!   run has no score and fails its minimum, since nothing was checked).

use sitescan_rules::{BaselineState, Category, Impact, Outcome};

use crate::error::{Error, Result};
use crate::report::{Report, ReportSource};

/// The thresholds of a gate; the default passes every report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gate {
    /// Fail on any finding at or above this impact.
    pub fail_on: Option<Impact>,
    /// Fail on any new finding (against the baseline) at or above this impact.
    pub fail_on_new: Option<Impact>,
    /// Fail when there are more findings than this.
    pub max_findings: Option<u64>,
    /// Fail when a category scores below its minimum (0-100).
    pub min_scores: Vec<(Category, u8)>,
}

/// What a gate decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// One line per threshold that was crossed; empty when the gate passed.
    pub reasons: Vec<String>,
}

impl Verdict {
    /// True when no threshold was crossed.
    pub fn passed(&self) -> bool {
        self.reasons.is_empty()
    }
}

impl Gate {
    /// True when no threshold is set.
    pub fn is_empty(&self) -> bool {
        *self == Gate::default()
    }

    /// Evaluates the thresholds over a report.
    pub fn evaluate(&self, report: &Report) -> Verdict {
        let mut counts = Counts::default();
        report.findings.iter().for_each(|f| counts.add(f));
        self.verdict(report, &counts)
    }

    /// Evaluates the thresholds over a report in memory or spooled
    /// ([`crate::SpooledReport`]), reading its findings once; fails only when
    /// they cannot be read.
    pub fn evaluate_source(&self, source: &dyn ReportSource) -> Result<Verdict> {
        let mut counts = Counts::default();
        source.for_each_finding(&mut |f| {
            counts.add(f);
            Ok(())
        })?;
        Ok(self.verdict(source.head(), &counts))
    }

    fn verdict(&self, report: &Report, counts: &Counts) -> Verdict {
        let mut reasons = Vec::new();
        if let Some(threshold) = self.fail_on {
            let at_or_above = counts.failed.at_or_above(threshold);
            let n = total(&at_or_above);
            if n > 0 {
                reasons.push(format!(
                    "{n} {} at or above {threshold} impact (--fail-on {threshold}){}",
                    plural(n, "finding", "findings"),
                    breakdown(&at_or_above)
                ));
            }
        }
        if let Some(threshold) = self.fail_on_new {
            let at_or_above = counts.new.at_or_above(threshold);
            let n = total(&at_or_above);
            if n > 0 {
                let note = if report.baseline.is_none() {
                    "; no baseline was given, so every finding counts as new"
                } else {
                    ""
                };
                reasons.push(format!(
                    "{n} new {} at or above {threshold} impact (--fail-on-new {threshold}){}{note}",
                    plural(n, "finding", "findings"),
                    breakdown(&at_or_above)
                ));
            }
        }
        if let Some(max) = self.max_findings {
            let n = total(&counts.failed.0);
            if n > max {
                reasons.push(format!(
                    "{n} findings, more than the {max} allowed (--max-findings {max})"
                ));
            }
        }
        for (category, min) in &self.min_scores {
            match report.summary.get(category).and_then(|s| s.score) {
                Some(score) if score >= *min => {}
                Some(score) => reasons.push(format!(
                    "{category} scored {score}, below the minimum {min} (--min-score {category}={min})"
                )),
                None => reasons.push(format!(
                    "{category} has no score (none of its rules ran), so it cannot meet the minimum {min} (--min-score {category}={min}); select its rules with --rules"
                )),
            }
        }
        Verdict { reasons }
    }
}

/// Parses a `--min-score` value: `<category>=<0-100>`.
pub fn parse_min_score(s: &str) -> Result<(Category, u8)> {
    let (name, value) = s.split_once('=').ok_or_else(|| {
        Error::Threshold(format!(
            "`{s}`: write the minimum score as <category>=<0-100>, e.g. accessibility=90"
        ))
    })?;
    let name = name.trim().to_ascii_lowercase();
    let category = Category::ALL
        .into_iter()
        .find(|c| c.as_str() == name)
        .ok_or_else(|| {
            Error::Threshold(format!(
                "`{s}`: unknown category `{name}`; use accessibility, seo, security, performance or quality"
            ))
        })?;
    let min: u8 = value
        .trim()
        .parse()
        .ok()
        .filter(|n| *n <= 100)
        .ok_or_else(|| {
            Error::Threshold(format!(
                "`{s}`: the minimum score must be a whole number from 0 to 100"
            ))
        })?;
    Ok((category, min))
}

/// Parses an impact threshold (`critical`, `serious`, `moderate`, `minor`).
pub fn parse_impact(s: &str) -> Result<Impact> {
    s.parse::<Impact>().map_err(|_| {
        Error::Threshold(format!(
            "`{}` is not an impact: use critical, serious, moderate or minor",
            s.trim()
        ))
    })
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// Failed findings per impact, in the order of [`Impact::ALL`].
#[derive(Debug, Default)]
struct ByImpact([u64; 4]);

impl ByImpact {
    /// The counts with those below `threshold` zeroed.
    fn at_or_above(&self, threshold: Impact) -> [u64; 4] {
        let mut out = self.0;
        for (n, impact) in out.iter_mut().zip(Impact::ALL) {
            if impact < threshold {
                *n = 0;
            }
        }
        out
    }
}

/// What the thresholds need of the findings: failed ones per impact, all and
/// new only (not `unchanged` against a baseline).
#[derive(Debug, Default)]
struct Counts {
    failed: ByImpact,
    new: ByImpact,
}

impl Counts {
    fn add(&mut self, f: &sitescan_rules::Finding) {
        // Marked findings (crate::marks) are out of every gate.
        if f.outcome != Outcome::Failed || f.mark.is_some() {
            return;
        }
        let i = crate::render::impact_index(f.impact);
        self.failed.0[i] += 1;
        if f.baseline != Some(BaselineState::Unchanged) {
            self.new.0[i] += 1;
        }
    }
}

fn total(counts: &[u64; 4]) -> u64 {
    counts.iter().sum()
}

fn breakdown(counts: &[u64; 4]) -> String {
    let parts: Vec<String> = Impact::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| format!("{n} {i}"))
        .collect();
    format!(": {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;

    #[test]
    fn default_gate_passes_everything() {
        let gate = Gate::default();
        assert!(gate.is_empty());
        assert!(gate.evaluate(&sample::report()).passed());
    }

    #[test]
    fn fail_on_counts_failed_findings_at_or_above_the_impact() {
        let report = sample::report();
        let v = Gate {
            fail_on: Some(Impact::Serious),
            ..Default::default()
        }
        .evaluate(&report);
        // 2 critical + 3 serious failed; the serious cant-tell does not count.
        assert_eq!(
            v.reasons,
            vec![
                "5 findings at or above serious impact (--fail-on serious): 2 critical, 3 serious"
            ]
        );
        let only_critical = Gate {
            fail_on: Some(Impact::Critical),
            ..Default::default()
        };
        let mut clean = sample::report();
        clean.findings.retain(|f| f.impact != Impact::Critical);
        assert!(only_critical.evaluate(&clean).passed());
    }

    #[test]
    fn fail_on_new_fails_only_on_new_findings() {
        let baseline = sample::report();
        let mut same = sample::report();
        crate::baseline::apply_baseline(&mut same, &baseline);
        let gate = Gate {
            fail_on_new: Some(Impact::Moderate),
            ..Default::default()
        };
        assert!(gate.evaluate(&same).passed());

        let mut worse = sample::report();
        let mut broken = worse.findings[7].clone(); // moderate, seo
        broken.page_url = "https://shop.example/contact".into();
        worse.findings.push(broken);
        let mut minor = worse.findings[4].clone();
        minor.page_url = "https://shop.example/contact".into();
        worse.findings.push(minor);
        crate::baseline::apply_baseline(&mut worse, &baseline);
        assert_eq!(
            gate.evaluate(&worse).reasons,
            vec!["1 new finding at or above moderate impact (--fail-on-new moderate): 1 moderate"]
        );

        let no_baseline = gate.evaluate(&sample::report());
        assert_eq!(no_baseline.reasons.len(), 1);
        assert!(
            no_baseline.reasons[0].starts_with("7 new findings")
                && no_baseline.reasons[0].ends_with("every finding counts as new"),
            "{:?}",
            no_baseline.reasons
        );
    }

    #[test]
    fn max_findings_and_min_scores() {
        let report = sample::report();
        let acc = report.summary[&Category::Accessibility].score.unwrap();
        let gate = Gate {
            max_findings: Some(7),
            min_scores: vec![(Category::Accessibility, acc), (Category::Seo, 100)],
            ..Default::default()
        };
        let seo = report.summary[&Category::Seo].score.unwrap();
        assert_eq!(
            gate.evaluate(&report).reasons,
            vec![
                "8 findings, more than the 7 allowed (--max-findings 7)".to_string(),
                format!("seo scored {seo}, below the minimum 100 (--min-score seo=100)"),
            ]
        );
        assert!(Gate {
            max_findings: Some(8),
            ..Default::default()
        }
        .evaluate(&report)
        .passed());
        let unscored = Gate {
            min_scores: vec![(Category::Seo, 1)],
            ..Default::default()
        }
        .evaluate(&sample::empty_report());
        assert!(
            unscored.reasons[0].contains("seo has no score"),
            "{unscored:?}"
        );
    }

    #[test]
    fn threshold_parsing() {
        assert_eq!(
            parse_min_score("Accessibility=90").unwrap(),
            (Category::Accessibility, 90)
        );
        assert_eq!(parse_min_score(" seo = 0 ").unwrap(), (Category::Seo, 0));
        for (bad, says) in [
            ("accessibility", "<category>=<0-100>"),
            ("speed=90", "unknown category `speed`"),
            ("seo=101", "from 0 to 100"),
            ("seo=ninety", "from 0 to 100"),
        ] {
            let err = parse_min_score(bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert_eq!(parse_impact("Serious").unwrap(), Impact::Serious);
        assert!(parse_impact("high")
            .unwrap_err()
            .to_string()
            .contains("`high` is not an impact: use critical, serious, moderate or minor"));
    }
}
