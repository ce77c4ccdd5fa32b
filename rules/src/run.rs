//! The [`Rule`] trait and the runner that walks a document once and dispatches each
//! element to the rules that visit its tag (as linters visit an AST once).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use scraper::ElementRef;

use crate::context::{Check, PageAnalysis, PageContext, RuleError};
use crate::meta::RuleMeta;
use crate::page::Page;

/// Which elements a rule wants to see during the single traversal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visits {
    /// None: the rule only runs [`Rule::check_document`].
    Document,
    /// Elements with these local names (lowercase).
    Tags(&'static [&'static str]),
    /// Every element (ARIA attribute rules and the like).
    AllElements,
}

/// A check over one page.
///
/// Implementors record outcomes through [`Check`]: a pass, a failure or a
/// cannot-tell per applicable element. A rule that records nothing on a page was
/// inapplicable there.
pub trait Rule: Send + Sync + 'static {
    /// The rule's static metadata.
    fn meta(&self) -> &'static RuleMeta;

    /// Which elements [`Rule::check_element`] is called for.
    fn visits(&self) -> Visits {
        Visits::Document
    }

    /// Called for each visited element, in document order.
    fn check_element(&self, _el: ElementRef<'_>, _cx: &mut Check<'_, '_>) {}

    /// Called once per page after the traversal.
    fn check_document(&self, _cx: &mut Check<'_, '_>) {}
}

/// Parses `page` and runs `rules` over it.
pub fn analyze(page: &Page, rules: &[&'static dyn Rule]) -> PageAnalysis {
    let cx = PageContext::parse(page);
    analyze_parsed(&cx, rules)
}

/// Runs `rules` over an already parsed page: one traversal, dispatch by tag.
///
/// A rule that panics loses its outcomes for this page and is reported in
/// [`PageAnalysis::errors`]; the other rules are unaffected.
pub fn analyze_parsed(cx: &PageContext<'_>, rules: &[&'static dyn Rule]) -> PageAnalysis {
    let mut by_tag: HashMap<&'static str, Vec<usize>> = HashMap::new();
    let mut every: Vec<usize> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        match rule.visits() {
            Visits::Document => {}
            Visits::Tags(tags) => {
                for tag in tags {
                    by_tag.entry(tag).or_default().push(i);
                }
            }
            Visits::AllElements => every.push(i),
        }
    }

    let mut checks: Vec<Check<'_, '_>> = rules.iter().map(|r| Check::new(cx, r.meta())).collect();
    let mut crashed: Vec<Option<String>> = vec![None; rules.len()];

    if !by_tag.is_empty() || !every.is_empty() {
        for el in cx.root().descendants().filter_map(ElementRef::wrap) {
            let tagged = by_tag
                .get(el.value().name())
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for &i in every.iter().chain(tagged) {
                if crashed[i].is_some() {
                    continue;
                }
                let rule = rules[i];
                let check = &mut checks[i];
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| rule.check_element(el, check)))
                {
                    crashed[i] = Some(panic_message(panic));
                }
            }
        }
    }

    let mut analysis = PageAnalysis::default();
    for (i, mut check) in checks.into_iter().enumerate() {
        let rule = rules[i];
        if crashed[i].is_none() {
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| rule.check_document(&mut check))) {
                crashed[i] = Some(panic_message(panic));
            }
        }
        match crashed[i].take() {
            Some(message) => analysis.errors.push(RuleError {
                rule_id: rule.meta().id.to_string(),
                message,
            }),
            None => {
                let (tally, findings) = check.finish();
                analysis.tallies.push(tally);
                analysis.findings.extend(findings);
            }
        }
    }
    analysis
}

fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "rule panicked".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::RuleMeta;

    struct Panics;
    static PANICS: RuleMeta = RuleMeta {
        id: "test-panics",
        ..RuleMeta::BASE
    };
    impl Rule for Panics {
        fn meta(&self) -> &'static RuleMeta {
            &PANICS
        }
        fn visits(&self) -> Visits {
            Visits::Tags(&["p"])
        }
        fn check_element(&self, _el: ElementRef<'_>, _cx: &mut Check<'_, '_>) {
            panic!("boom");
        }
    }

    #[test]
    fn a_panicking_rule_becomes_an_error_entry() {
        let page = Page::from_html("https://example.com/", "<title>x</title><p>hi</p>");
        let rules: Vec<&'static dyn Rule> =
            vec![&Panics, &crate::a11y::document_title::DocumentTitle];
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let analysis = analyze(&page, &rules);
        std::panic::set_hook(hook);
        assert_eq!(analysis.errors.len(), 1);
        assert_eq!(analysis.errors[0].rule_id, "test-panics");
        assert_eq!(analysis.errors[0].message, "boom");
        assert_eq!(analysis.tallies.len(), 1);
        assert_eq!(analysis.tallies[0].passed, 1);
    }
}
