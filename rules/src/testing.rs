//! [`RuleTester`]: runs a rule's pass and fail examples, used by every rule's tests.

use crate::context::Outcome;
use crate::page::Page;
use crate::run::{analyze, Rule};

/// Runs pass/fail/cant-tell examples through one rule and panics with a readable
/// report when any example disagrees.
///
/// A fragment (no `<html`) is wrapped in a minimal valid document with
/// `lang="en"` and a title, so only the rule under test matters.
pub struct RuleTester {
    rule: &'static dyn Rule,
    cases: Vec<(Expect, Page)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Pass,
    Fail,
    CantTell,
}

impl RuleTester {
    /// A tester for `rule`.
    pub fn new(rule: &'static dyn Rule) -> RuleTester {
        RuleTester {
            rule,
            cases: Vec::new(),
        }
    }

    /// Wraps a fragment as a page at `https://example.com/`.
    pub fn page(html: &str) -> Page {
        let body = if html.contains("<html")
            || html.contains("<!DOCTYPE")
            || html.contains("<!doctype")
        {
            html.to_string()
        } else {
            format!("<!DOCTYPE html><html lang=\"en\"><head><title>Test</title></head><body>{html}</body></html>")
        };
        Page::from_html("https://example.com/", &body)
    }

    /// Examples that must produce no failed and no cant-tell finding.
    pub fn pass(mut self, cases: &[&str]) -> Self {
        self.cases
            .extend(cases.iter().map(|c| (Expect::Pass, Self::page(c))));
        self
    }

    /// Examples that must produce at least one failed finding.
    pub fn fail(mut self, cases: &[&str]) -> Self {
        self.cases
            .extend(cases.iter().map(|c| (Expect::Fail, Self::page(c))));
        self
    }

    /// Examples that must produce a cant-tell finding and no failure.
    pub fn cant_tell(mut self, cases: &[&str]) -> Self {
        self.cases
            .extend(cases.iter().map(|c| (Expect::CantTell, Self::page(c))));
        self
    }

    /// Adds a whole page (with headers) expected to pass.
    pub fn pass_page(mut self, page: Page) -> Self {
        self.cases.push((Expect::Pass, page));
        self
    }

    /// Adds a whole page (with headers) expected to fail.
    pub fn fail_page(mut self, page: Page) -> Self {
        self.cases.push((Expect::Fail, page));
        self
    }

    /// Runs every example; panics listing each one that disagreed.
    pub fn run(self) {
        let mut problems = Vec::new();
        for (expect, page) in &self.cases {
            let analysis = analyze(page, &[self.rule]);
            if let Some(err) = analysis.errors.first() {
                problems.push(format!(
                    "{expect:?} case panicked ({}):\n{}",
                    err.message, page.body
                ));
                continue;
            }
            let failed = analysis
                .findings
                .iter()
                .filter(|f| f.outcome == Outcome::Failed)
                .count();
            let cant = analysis
                .findings
                .iter()
                .filter(|f| f.outcome == Outcome::CantTell)
                .count();
            let ok = match expect {
                Expect::Pass => failed == 0 && cant == 0,
                Expect::Fail => failed > 0,
                Expect::CantTell => failed == 0 && cant > 0,
            };
            if !ok {
                problems.push(format!(
                    "expected {expect:?}, got {failed} failed / {cant} cant-tell:\n{}\nfindings: {:#?}",
                    page.body, analysis.findings
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "rule `{}` disagreed with {} example(s):\n\n{}",
            self.rule.meta().id,
            problems.len(),
            problems.join("\n\n")
        );
    }
}
