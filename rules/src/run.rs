//! The [`Rule`] trait and the runner that walks a document once and dispatches each
//! element to the rules that visit its tag (as linters visit an AST once).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use scraper::ElementRef;

use crate::budget::{Cancel, PageBudget};
use crate::context::{Check, PageAnalysis, PageContext, RuleError, Traced};
use crate::meta::RuleMeta;
use crate::page::Page;
use crate::quality::analysis_incomplete::AnalysisIncomplete;

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

/// Parses `page` and runs `rules` over it, with the default caps of
/// [`PageBudget`] and no time limit (see [`PageContext::parse`]).
pub fn analyze(page: &Page, rules: &[&'static dyn Rule]) -> PageAnalysis {
    let cx = PageContext::parse(page);
    analyze_parsed(&cx, rules)
}

/// Parses `page` within `budget` and runs `rules` over it, stopping when the
/// budget's time runs out or `cancel` is tripped (see [`analyze_parsed`]).
pub fn analyze_with(
    page: &Page,
    rules: &[&'static dyn Rule],
    budget: PageBudget,
    cancel: Cancel,
) -> PageAnalysis {
    let cx = PageContext::parse_with(page, budget, cancel);
    analyze_parsed(&cx, rules)
}

/// Elements visited between two checks of [`PageContext::should_stop`] in the
/// traversal: a check is a clock read, an element's rules cost far more.
const STOP_EVERY: usize = 8;

/// Runs `rules` over an already parsed page: one traversal, dispatch by tag.
///
/// A rule that panics loses its outcomes for this page and is reported in
/// [`PageAnalysis::errors`]; the other rules are unaffected.
///
/// The page's budget is checked between rules and every few elements of the
/// traversal (and inside the long loops of the shared facts): once its time
/// runs out or its scan is canceled, no further rule runs, and the rules that
/// did not finish leave nothing, neither findings nor a tally (they did not
/// pass). A page that went over any limit of its budget (time, cancel, or a
/// cap on what was parsed, recorded before or during the analysis) gets one
/// `analysis-incomplete` finding naming each limit, whatever `rules` holds,
/// and [`PageAnalysis::incomplete`] says the same.
pub fn analyze_parsed(cx: &PageContext<'_>, rules: &[&'static dyn Rule]) -> PageAnalysis {
    analyze_inner(cx, rules, false).0
}

/// [`analyze_parsed`] keeping, for each rule that finished, where each of its
/// outcomes was recorded: what [`RuleTester`](crate::testing::RuleTester)
/// checks examples against.
pub(crate) fn analyze_traced(
    cx: &PageContext<'_>,
    rules: &[&'static dyn Rule],
) -> (PageAnalysis, Vec<Vec<Traced>>) {
    analyze_inner(cx, rules, true)
}

fn analyze_inner(
    cx: &PageContext<'_>,
    rules: &[&'static dyn Rule],
    traced: bool,
) -> (PageAnalysis, Vec<Vec<Traced>>) {
    // The runner reports `analysis-incomplete` itself; as a selected rule it has
    // nothing to check.
    let own = AnalysisIncomplete.meta();
    let rules: Vec<&'static dyn Rule> = rules
        .iter()
        .copied()
        .filter(|r| !std::ptr::eq(r.meta(), own))
        .collect();
    let mut by_tag: HashMap<&'static str, Vec<usize>> = HashMap::new();
    let mut every: Vec<usize> = Vec::new();
    let mut visiting: Vec<usize> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        match rule.visits() {
            Visits::Document => {}
            Visits::Tags(tags) => {
                visiting.push(i);
                for tag in tags {
                    by_tag.entry(tag).or_default().push(i);
                }
            }
            Visits::AllElements => {
                visiting.push(i);
                every.push(i);
            }
        }
    }

    let mut checks: Vec<Check<'_, '_>> = rules
        .iter()
        .map(|r| {
            let check = Check::new(cx, r.meta());
            if traced {
                check.traced()
            } else {
                check
            }
        })
        .collect();
    let mut crashed: Vec<Option<String>> = vec![None; rules.len()];
    // Whether each rule ran to its end (or crashed) before the analysis stopped.
    let mut finished = vec![false; rules.len()];

    let mut traversed = !cx.should_stop();
    if traversed && !visiting.is_empty() {
        for (n, el) in cx
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .enumerate()
        {
            if n % STOP_EVERY == 0 && cx.should_stop() {
                traversed = false;
                break;
            }
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
                check.current = Some(el.id());
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| rule.check_element(el, check)))
                {
                    crashed[i] = Some(
                        panic_message(&*panic)
                            .unwrap_or("rule panicked")
                            .to_string(),
                    );
                }
                check.current = None;
            }
        }
    }

    if traversed {
        for (i, check) in checks.iter_mut().enumerate() {
            if cx.should_stop() {
                break;
            }
            let rule = rules[i];
            if crashed[i].is_none() {
                if let Err(panic) = catch_unwind(AssertUnwindSafe(|| rule.check_document(check))) {
                    crashed[i] = Some(
                        panic_message(&*panic)
                            .unwrap_or("rule panicked")
                            .to_string(),
                    );
                }
            }
            // A rule during which the budget ran out may have been cut short
            // by a shared fact that stopped early: it did not finish.
            finished[i] = crashed[i].is_some() || !cx.should_stop();
        }
    }
    // A rule that crashed during an interrupted traversal still crashed.
    for (i, crash) in crashed.iter().enumerate() {
        if crash.is_some() {
            finished[i] = true;
        }
    }

    let mut analysis = PageAnalysis::default();
    let mut traces = Vec::new();
    let mut not_run: Vec<&'static str> = Vec::new();
    for (i, check) in checks.into_iter().enumerate() {
        let rule = rules[i];
        if !finished[i] {
            not_run.push(rule.meta().id);
            continue;
        }
        match crashed[i].take() {
            Some(message) => analysis.errors.push(RuleError {
                rule_id: rule.meta().id.to_string(),
                message,
            }),
            None => {
                let (tally, findings, trace) = check.finish_traced();
                analysis.tallies.push(tally);
                analysis.findings.extend(findings);
                traces.push(trace);
            }
        }
    }

    drop_deferred(&mut analysis, &rules);

    let overruns = cx.overruns();
    let missing = &cx.page().stylesheets_missing;
    if !overruns.is_empty() || !missing.is_empty() {
        let budget = cx.budget();
        let mut parts: Vec<String> = overruns
            .iter()
            .map(|o| o.describe(budget, not_run.len(), rules.len()))
            .collect();
        if !missing.is_empty() {
            parts.push(missing_note(missing));
        }
        let message = parts.join("; ");
        let limits: Vec<serde_json::Value> = overruns
            .iter()
            .map(|o| {
                serde_json::json!({
                    "limit": o.limit,
                    "value": budget.value(o.limit),
                    "count": o.count,
                })
            })
            .collect();
        let mut data = serde_json::json!({
            "limits": limits,
            "rules_not_run": not_run,
        });
        if !missing.is_empty() {
            data["stylesheets_missing"] = serde_json::json!(missing);
        }
        let mut check = Check::new(cx, own);
        check.cant_tell_page(message.clone()).with_data(data);
        let (tally, findings) = check.finish();
        analysis.tallies.push(tally);
        analysis.findings.extend(findings);
        analysis.incomplete = Some(message);
        analysis.overruns = overruns;
    }
    (analysis, traces)
}

/// The sentence of the page's note naming the stylesheets it could not load.
fn missing_note(missing: &[crate::MissingStylesheet]) -> String {
    const NAMED: usize = 3;
    let mut named: Vec<String> = missing
        .iter()
        .take(NAMED)
        .map(|m| {
            if m.browser_too {
                format!("{} ({}, for browsers too)", m.url, m.reason)
            } else {
                format!("{} ({})", m.url, m.reason)
            }
        })
        .collect();
    if missing.len() > NAMED {
        named.push(format!("{} more", missing.len() - NAMED));
    }
    let sheets = if missing.len() == 1 {
        "stylesheet"
    } else {
        "stylesheets"
    };
    let consequence = if missing.iter().all(|m| m.browser_too) {
        "styles were computed without them, as browsers render the page"
    } else {
        "styles were computed without them, so rules built on the cascade (color-contrast and others) report cannot tell where they could change the answer"
    };
    format!(
        "{} {sheets} of the page could not be loaded: {}; {consequence}",
        missing.len(),
        named.join(", ")
    )
}

/// Drops the findings of rules that defer to another rule
/// ([`RuleMeta::defers_to`]) on elements that rule reported on this page (or
/// on the page itself, for page-level findings: an empty selector), and takes
/// them out of the deferring rule's tally: the same mistake on the same element
/// is one problem, reported by its owner.
fn drop_deferred(analysis: &mut PageAnalysis, rules: &[&'static dyn Rule]) {
    let deferring: Vec<&'static RuleMeta> = rules
        .iter()
        .map(|r| r.meta())
        .filter(|m| !m.defers_to.is_empty())
        .collect();
    if deferring.is_empty() {
        return;
    }
    // Elements each owner reported, by (owner id, selector).
    let owned: std::collections::HashSet<(String, String)> = analysis
        .findings
        .iter()
        .filter(|f| {
            deferring
                .iter()
                .any(|m| m.defers_to.contains(&f.rule_id.as_str()))
        })
        .map(|f| (f.rule_id.clone(), f.selector.clone()))
        .collect();
    if owned.is_empty() {
        return;
    }
    let mut dropped: Vec<(String, crate::Outcome)> = Vec::new();
    let mut kept = Vec::with_capacity(analysis.findings.len());
    for f in std::mem::take(&mut analysis.findings) {
        let owner_reported = deferring.iter().any(|m| {
            m.id == f.rule_id
                && m.defers_to
                    .iter()
                    .any(|owner| owned.contains(&((*owner).to_string(), f.selector.clone())))
        });
        if owner_reported {
            dropped.push((f.rule_id.clone(), f.outcome));
        } else {
            kept.push(f);
        }
    }
    analysis.findings = kept;
    for (rule_id, outcome) in dropped {
        if let Some(t) = analysis.tallies.iter_mut().find(|t| t.rule_id == rule_id) {
            match outcome {
                crate::Outcome::Failed => t.failed = t.failed.saturating_sub(1),
                crate::Outcome::CantTell => t.cant_tell = t.cant_tell.saturating_sub(1),
                crate::Outcome::Passed => {}
            }
        }
    }
}

/// The message a caught panic carries (`panic!("…")` with a literal or a
/// formatted string), or `None` for any other payload: the one helper every
/// crate uses when it turns a caught panic into an error (rules here and in
/// `site`, the engine's page analysis, the daemon's HTTP handlers).
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> Option<&str> {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
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

    /// Template contents are inert (not in the document, not rendered, not in
    /// the accessibility tree): adding a `<template>` full of what would be
    /// findings, duplicate ids, a second title and landmarks changes no page
    /// rule's outcome.
    #[test]
    fn template_contents_change_no_outcome() {
        let page = |head: &str, body: &str| {
            Page::from_html(
                "https://example.com/",
                &format!(
                    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Shop</title>{head}</head>\
                     <body><nav><a href=/>Home</a> <a href=/a>About</a></nav><main id=m><h1>Shop</h1>\
                     <p>Welcome.</p><label for=q>Search</label><input id=q></main>{body}</body></html>"
                ),
            )
        };
        let inert = r#"<template><img src=a.png><p id=q>1</p><input id=q>
            <div aria-labelledby=q role=button></div><main></main><main></main><header></header>
            <h1></h1><h5>Deep</h5><a href=/x></a><iframe src=/f></iframe><ul><div>x</div></ul>
            <p style="color:#eee">Faint</p><div role=banana aria-bogus=1></div>
            <a href=#m>Skip</a><span lang=zz-!!>x</span><video src=v.mp4></video>
            <template><img src=b.png></template></template>"#;
        let outcomes = |page: &Page| {
            let analysis = analyze(page, crate::registry::page_rules());
            let mut findings: Vec<String> = analysis
                .findings
                .iter()
                .map(|f| format!("{} {:?} {} {}", f.rule_id, f.outcome, f.selector, f.message))
                .collect();
            findings.sort();
            (findings, analysis.tallies, analysis.errors)
        };
        let plain = outcomes(&page("", ""));
        assert!(plain.2.is_empty(), "{:?}", plain.2);
        for (head, body) in [
            (inert, ""),
            ("", inert),
            ("<template><title></title></template>", ""),
        ] {
            let with = outcomes(&page(head, body));
            assert_eq!(with.0, plain.0, "findings differ with {head}{body}");
            assert_eq!(with.1, plain.1, "tallies differ with {head}{body}");
        }

        // A title only inside a template is no title (ACT 2779a5 failed example 6).
        let only_template = Page::from_html(
            "https://example.com/",
            "<html><body><template><title>Title</title></template></body></html>",
        );
        let analysis = analyze(
            &only_template,
            &[&crate::a11y::document_title::DocumentTitle],
        );
        assert_eq!(analysis.tallies[0].failed, 1);
    }

    /// The token [`CancelsMidway`] trips while it runs, as a cancel arriving
    /// during a rule would.
    static MIDWAY: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();

    struct CancelsMidway;
    static CANCELS_MIDWAY: RuleMeta = RuleMeta {
        id: "test-cancels-midway",
        ..RuleMeta::BASE
    };
    impl Rule for CancelsMidway {
        fn meta(&self) -> &'static RuleMeta {
            &CANCELS_MIDWAY
        }
        fn check_document(&self, cx: &mut Check<'_, '_>) {
            cx.pass();
            if let Some(cancel) = MIDWAY.get() {
                cancel.cancel();
            }
            cx.pass();
        }
    }

    #[test]
    fn a_rule_cut_short_and_the_rules_after_it_leave_no_result() {
        let cancel = MIDWAY.get_or_init(Cancel::new).clone();
        let page = Page::from_html("https://example.com/", "<p>no title, no lang</p>");
        let rules: Vec<&'static dyn Rule> = vec![
            &crate::a11y::document_title::DocumentTitle,
            &CancelsMidway,
            &crate::a11y::html_has_lang::HtmlHasLang,
        ];
        let analysis = analyze_with(&page, &rules, PageBudget::DEFAULT, cancel);
        let ids: Vec<&str> = analysis
            .tallies
            .iter()
            .map(|t| t.rule_id.as_str())
            .collect();
        assert_eq!(ids, ["document-title", "analysis-incomplete"]);
        let findings: Vec<(&str, &str)> = analysis
            .findings
            .iter()
            .map(|f| (f.rule_id.as_str(), f.message.as_str()))
            .collect();
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0].0, "document-title");
        assert_eq!(
            findings[1],
            (
                "analysis-incomplete",
                "Analysis stopped because the scan was canceled: 2 of 3 rules did not run; their results for this page are missing"
            )
        );
        assert_eq!(
            analysis.findings[1].data,
            Some(serde_json::json!({
                "limits": [{"limit": "canceled", "value": null, "count": 0}],
                "rules_not_run": ["test-cancels-midway", "html-has-lang"],
            }))
        );
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
