//! `analysis-incomplete`: the page's analysis went over its budget.
//!
//! Not a check of the page's content but of the scan's coverage of it: the
//! runner ([`crate::analyze_parsed`]) records it on any page whose analysis
//! stopped early (time, cancel) or whose input was cut at a cap of the page
//! budget ([`crate::budget::PageBudget`]). So it is reported whatever rule
//! set a scan selects: [`crate::registry::select`] never lists it (a
//! selection is what the runner checks; this is what the runner says about
//! its own work), and selecting it by id or set adds nothing. Its category is
//! content quality (the report's "what else to look at" area) and its impact
//! moderate: the page may hide any problem, but none is known. Its outcome is
//! always cant-tell, so it never lowers or raises a score; the rules that did
//! not run leave no tally for the page, so they are not counted as passed.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Reports a page whose analysis went over its budget (see the module doc).
pub struct AnalysisIncomplete;

static META: RuleMeta = RuleMeta {
    id: "analysis-incomplete",
    category: Category::Quality,
    title: "Page analyzed in full",
    help: "The page went over its analysis budget: some rules did not run or only part of it was analyzed. Review it by hand, simplify it, or raise the limit the finding names (for `sitescan scan` the flag it names; in the library and the API the scan's `budget` configuration).",
    help_url: "https://owasp.org/www-community/attacks/Denial_of_Service",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Every page's analysis has a budget: wall time (default 5 s, `--page-time`), nodes
(200,000, `--max-page-nodes`), nesting depth (512, deeper elements are flattened as
browsers do, `--max-page-depth`), links contributed to the crawl and link checks
(10,000, `--max-page-links`), style rules (20,000, `--max-css-rules`), selectors
(50,000, `--max-selectors`) and stylesheets (100, `--max-stylesheets`), over all the
page's stylesheets. A page that goes over any of them, or whose scan is canceled
while it is analyzed, gets one cant-tell finding naming each limit hit, its value
and how to change it, e.g. "Analysis stopped after 5 s (the page budget,
--page-time or config budget.time_ms): 37 of 152 rules did not run; their results
for this page are missing". Its data lists the limits and the rules that did not
run. The scan goes on with the next page.

It is reported whatever rule set is selected, since it is about the scan itself.

## Why it matters
Pages are written by strangers: a page of millions of nodes or a selector bomb
would otherwise hold a core or gigabytes for minutes. Cutting the work keeps the
scan going, but what was not analyzed was not checked: a missing finding on such
a page means nothing. The rules that did not run are left out of the page's
results rather than counted as passed.

## Failing
```html
<!-- With --max-page-links 2: the third link is neither crawled nor checked. -->
<a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a>
```

## Passing
```html
<a href="/a">A</a> <a href="/b">B</a>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for AnalysisIncomplete {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// Nothing: the runner records this rule's outcome when a page goes over
    /// its budget.
    fn check_document(&self, _cx: &mut Check<'_, '_>) {}
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::budget::{Cancel, PageBudget};
    use crate::{analyze_parsed, registry, Outcome, Page, PageContext};

    fn links(n: usize) -> Page {
        let body: String = (0..n)
            .map(|i| format!("<a href=/p{i}>Page {i}</a> "))
            .collect();
        Page::from_html(
            "https://example.com/",
            &format!("<html lang=en><head><title>Links</title></head><body><main><h1>Links</h1><p>{body}</p></main></body></html>"),
        )
    }

    #[test]
    fn a_page_within_budget_gets_no_finding_and_the_links_cap_is_named() {
        let rules = registry::select(&["all"]).unwrap().page;
        let page = links(3);
        let within = PageBudget {
            max_links: 3,
            ..PageBudget::DEFAULT
        };
        let cx = PageContext::parse_with(&page, within, Cancel::new());
        let _ = crate::links::extract(&cx);
        let analysis = analyze_parsed(&cx, &rules);
        assert!(analysis.incomplete.is_none());
        assert!(!analysis
            .findings
            .iter()
            .any(|f| f.rule_id == "analysis-incomplete"));

        let over = PageBudget {
            max_links: 2,
            ..PageBudget::DEFAULT
        };
        let cx = PageContext::parse_with(&page, over, Cancel::new());
        let extracted = crate::links::extract(&cx);
        assert_eq!(extracted.links.len(), 2);
        let analysis = analyze_parsed(&cx, &rules);
        let own: Vec<_> = analysis
            .findings
            .iter()
            .filter(|f| f.rule_id == "analysis-incomplete")
            .collect();
        assert_eq!(own.len(), 1);
        assert_eq!(own[0].outcome, Outcome::CantTell);
        assert_eq!(
            own[0].message,
            "The page has 3 links, more than 2 (the page budget, --max-page-links or config budget.max_links): links past the first 2 were not crawled or checked"
        );
        // A cap on the input stops no rule: every selected rule has its tally.
        assert_eq!(analysis.tallies.len(), rules.len() + 1);
    }

    #[test]
    fn no_time_left_runs_no_rule_whatever_the_selection() {
        let page = links(3);
        for names in [["all"], ["document-title"]] {
            let rules = registry::select(&names).unwrap().page;
            let budget = PageBudget {
                time: Duration::ZERO,
                ..PageBudget::DEFAULT
            };
            let cx = PageContext::parse_with(&page, budget, Cancel::new());
            let analysis = analyze_parsed(&cx, &rules);
            assert_eq!(analysis.findings.len(), 1, "{names:?}");
            let f = &analysis.findings[0];
            assert_eq!(f.rule_id, "analysis-incomplete");
            assert_eq!(
                f.message,
                format!("Analysis stopped after 0 ms (the page budget, --page-time or config budget.time_ms): {n} of {n} rules did not run; their results for this page are missing", n = rules.len())
            );
            // Only the finding's own tally: no rule is counted as passed.
            assert_eq!(analysis.tallies.len(), 1);
            assert_eq!(analysis.tallies[0].rule_id, "analysis-incomplete");
            assert_eq!(analysis.tallies[0].cant_tell, 1);
        }
    }

    #[test]
    fn a_tripped_cancel_stops_before_any_rule() {
        let page = links(3);
        let rules = registry::select(&["all"]).unwrap().page;
        let cancel = Cancel::new();
        let cx = PageContext::parse_with(&page, PageBudget::DEFAULT, cancel.clone());
        cancel.cancel();
        let analysis = analyze_parsed(&cx, &rules);
        assert_eq!(analysis.findings.len(), 1);
        assert!(
            analysis.findings[0]
                .message
                .starts_with("Analysis stopped because the scan was canceled"),
            "{}",
            analysis.findings[0].message
        );
    }

    #[test]
    fn never_part_of_a_selection() {
        for set in ["all", "quality", "analysis-incomplete,document-title"] {
            let selection = registry::select(&[set]).unwrap();
            assert!(!selection.ids().contains(&"analysis-incomplete"), "{set}");
        }
        assert!(registry::meta("analysis-incomplete").is_some());
    }
}
