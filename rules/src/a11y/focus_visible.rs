//! `focus-visible`: elements in the tab order keep a visible focus indicator; author
//! CSS does not remove the browser's focus outline without replacing it (WCAG 2.4.7,
//! ACT oj04fd).

use std::collections::HashSet;
use std::sync::Arc;

use ego_tree::NodeId;

use scraper::{ElementRef, Selector};

use super::support::{cant_tell_because, reason};
use crate::css::{split_selector_list, Declaration, SheetCaps};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that no element in sequential focus navigation loses its focus outline
/// to author CSS without another focus style taking its place.
pub struct FocusVisible;

static META: RuleMeta = RuleMeta {
    id: "focus-visible",
    category: Category::Accessibility,
    title: "Focused elements show a visible indicator",
    help: "Keep the focus outline, or replace it in a :focus / :focus-visible rule with another visible style (outline, border, box-shadow, background).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/focus-visible.html",
    wcag: &["2.4.7"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["oj04fd"],
    docs: r##"## What it checks
For each visible element in sequential focus navigation, the style sheets do not
remove the browser's focus outline (`outline: none`, `outline: 0`,
`outline-style: none`, `outline-width: 0`, in a rule for the element, with or
without `:focus` / `:focus-visible`) unless a `:focus` or `:focus-visible` rule for
the element sets another visible change (a new outline, border, box shadow,
background, color or text decoration). Elements whose indicator a script may draw
(an `onfocus` handler) need review. An `outline` set with custom properties
(`outline: var(--ring)`) is judged with the element's custom properties.

In render mode the browser measures how each element Tab reaches looks
focused, and [`focus-visible-rendered`](focus-visible-rendered.md) judges it
from that. On such an element (one with a box on the page), the questions this
estimate can only leave for review (a focus handler, an unresolved outline, a
missing style sheet) are settled by the measurement, so this rule says nothing
there; its passes and failures from the style sheets stand.

## No silent pass
An element it applies to ends passed, failed or "needs review" (cannot tell)
with the reason in `data.reason`, as in
[`color-contrast`](color-contrast.md#no-silent-pass): `focus-handler` (the
outline is removed and a script's focus handler may draw another indicator),
`outline-unresolved` (an `outline` uses custom properties that do not resolve,
so it may be removed or drawn), `styles-incomplete` (a stylesheet the page uses
could not be loaded, and may remove the outline or draw another indicator). A
`:focus` rule drawing a known indicator passes whatever the unresolved outline
is.

## Why it matters
Keyboard users must see where focus is to know what Enter or Space will act on.

## Failing
```html
<style>a:focus { outline: none }</style><a href="/">Home</a>
```

## Passing
```html
<style>a:focus { outline: none; box-shadow: 0 0 0 3px #1a73e8 }</style><a href="/">Home</a>
```

## Cannot tell
```html
<style>a:focus { outline: var(--focus-ring) }</style><a href="/">Home</a>
```
"##,
    defers_to: &["focus-visible-rendered"],
    ..RuleMeta::BASE
};

/// A style rule seen from the focus point of view.
struct FocusRule {
    /// The selector with `:focus` / `:focus-visible` stripped.
    selector: Selector,
    /// Whether it only applies while focused.
    on_focus: bool,
    /// It removes the outline.
    removes_outline: bool,
    /// It draws something else (or a new outline) on focus.
    indicates: bool,
    /// Its `outline` declarations that use `var()`: they remove the outline or
    /// draw one depending on the element's custom properties.
    deferred: Vec<Declaration>,
}

/// Whether an `outline` declaration waits for the element's custom
/// properties.
fn deferred(d: &Declaration) -> bool {
    d.name.starts_with("outline") && d.value.contains("var(")
}

fn removes_outline(d: &Declaration) -> bool {
    if deferred(d) {
        return false;
    }
    let v = d.value.trim().to_ascii_lowercase();
    match d.name.as_str() {
        "outline" => {
            v == "none"
                || v == "0"
                || v.split_whitespace()
                    .any(|t| t == "none" || t == "0" || t == "0px")
        }
        "outline-style" => v == "none" || v == "hidden",
        "outline-width" => v == "0" || v == "0px",
        "outline-color" => v == "transparent",
        _ => false,
    }
}

fn indicates(d: &Declaration) -> bool {
    if removes_outline(d) || deferred(d) {
        return false;
    }
    let n = d.name.as_str();
    n.starts_with("outline")
        || n.starts_with("border")
        || n.starts_with("background")
        || n.starts_with("text-decoration")
        || matches!(
            n,
            "box-shadow" | "color" | "text-shadow" | "font-weight" | "transform" | "filter"
        )
}

/// Removes `:focus` and `:focus-visible` from a selector; `None` when the selector
/// does not use them.
fn strip_focus(selector: &str) -> Option<String> {
    if !selector.contains(":focus") || selector.contains(":focus-within") {
        return None;
    }
    // A style on the focused element's ::before / ::after box is drawn on focus
    // too, so those pseudo-elements are stripped with the focus pseudo-class.
    let stripped = selector
        .replace(":focus-visible", "")
        .replace(":focus", "")
        .replace("::before", "")
        .replace("::after", "")
        .replace("::marker", "")
        .replace(":before", "")
        .replace(":after", "");
    let stripped = stripped.trim();
    Some(
        if stripped.is_empty() || stripped.ends_with([' ', '>', '+', '~']) {
            format!("{stripped}*")
        } else {
            stripped.to_string()
        },
    )
}

/// The focus rules of one stylesheet (cached per sheet text, see
/// [`crate::css::sheet_facts`]).
struct FocusRules(Vec<FocusRule>);

fn focus_rules(sheet: &str, caps: &mut SheetCaps) -> FocusRules {
    let mut out = Vec::new();
    for rule in caps.parse(sheet) {
        let removes = rule.declarations.iter().any(removes_outline);
        let draws = rule.declarations.iter().any(indicates);
        let later: Vec<Declaration> = rule.declarations.iter().filter(|d| deferred(d)).cloned().collect();
        if !removes && !draws && later.is_empty() {
            continue;
        }
        for part in split_selector_list(&rule.selectors) {
            if !caps.take_selector() {
                return FocusRules(out);
            }
            let (text, on_focus) = match strip_focus(part) {
                Some(s) => (s, true),
                None => (part.to_string(), false),
            };
            // Only outline removals (known, or depending on custom
            // properties) matter outside focus rules.
            if !on_focus && !removes && later.is_empty() {
                continue;
            }
            if let Ok(selector) = Selector::parse(&text) {
                out.push(FocusRule {
                    selector,
                    on_focus,
                    removes_outline: removes,
                    indicates: on_focus && draws,
                    deferred: later.clone(),
                });
            }
        }
    }
    FocusRules(out)
}

impl Rule for FocusVisible {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let sheets: Vec<Arc<FocusRules>> = page
            .author_sheets()
            .into_iter()
            .map(|(text, caps)| crate::css::sheet_facts(text, caps, focus_rules))
            .collect();
        let rules: Vec<&FocusRule> = sheets.iter().flat_map(|s| s.0.iter()).collect();
        // In render mode the browser measured how each element Tab reached
        // looks focused, and `focus-visible-rendered` judges it from that.
        // Where this estimate from the style sheets can only say "needs
        // review" (a script may draw the indicator, a sheet is missing, an
        // outline does not resolve), the measurement settles the question:
        // the estimate stays silent on those elements instead of asking it.
        let measured: HashSet<NodeId> = page
            .page()
            .interaction
            .iter()
            .flat_map(|walk| walk.elements.iter())
            .filter(|e| e.focus_style.as_ref().is_some_and(|s| s.visible))
            .filter_map(|e| e.find(page.root()))
            .map(|el| el.id())
            .collect();
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            if !page.in_tab_order(el) || !page.is_visible(el) {
                continue;
            }
            let matching: Vec<&FocusRule> = rules
                .iter()
                .copied()
                .filter(|r| r.selector.matches(&el))
                .collect();
            let mut removed = matching.iter().any(|r| r.removes_outline);
            let mut replaced = matching.iter().any(|r| r.on_focus && r.indicates);
            // `outline: var(--ring)`: judged with the element's custom
            // properties; one that does not resolve leaves the outline unknown.
            let mut unresolved = false;
            for r in &matching {
                for d in &r.deferred {
                    let Some(value) = page.style(el).resolve_vars(&d.value) else {
                        unresolved = true;
                        continue;
                    };
                    let d = Declaration {
                        name: d.name.clone(),
                        value,
                        important: d.important,
                    };
                    removed |= removes_outline(&d);
                    replaced |= r.on_focus && indicates(&d);
                }
            }
            let inline_removed = crate::dom::attr(el, "style").is_some_and(|s| {
                crate::css::parse_declarations(s)
                    .iter()
                    .any(removes_outline)
            });
            let settled = replaced || !(removed || inline_removed || unresolved);
            let handler = crate::dom::attr(el, "onfocus").is_some()
                || crate::dom::attr(el, "onfocusin").is_some();
            let open = page.styles_incomplete().is_some() || (!settled && (unresolved || handler));
            if open && measured.contains(&el.id()) {
                continue;
            }
            // A sheet the page uses is missing: it may remove the outline, or
            // draw another indicator.
            if let Some(why) = page.styles_incomplete() {
                cant_tell_because(
                    cx,
                    el,
                    format!("Whether focus stays visible needs review: {why}."),
                    reason::STYLES_INCOMPLETE,
                );
            } else if settled {
                cx.pass_on(el);
            } else if unresolved {
                cant_tell_because(
                    cx,
                    el,
                    "The focus outline is set with custom properties that cannot be resolved; check that focus stays visible.",
                    reason::OUTLINE_UNRESOLVED,
                );
            } else if handler {
                cant_tell_because(
                    cx,
                    el,
                    "The focus outline is removed; a focus handler may draw another indicator.",
                    reason::FOCUS_HANDLER,
                );
            } else {
                cx.fail(
                    el,
                    "The focus outline is removed by CSS and no :focus style replaces it.",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&FocusVisible)
            .pass(&[
                ("a", r##"<a href="/">Home</a>"##),
                ("span", r##"<span tabindex="0">Act</span>"##),
                ("a", r##"<style>a:focus { outline: none; box-shadow: 0 0 0 3px blue }</style><a href="/">Home</a>"##),
                ("a", r##"<style>a { outline: 0 } a:focus-visible { outline: 2px solid }</style><a href="/">Home</a>"##),
                ("a", r##"<style>.x:focus { outline: none }</style><a href="/">Home</a>"##),
                // Custom properties that resolve: a visible outline.
                ("a", r##"<style>:root { --ring: 2px solid #1a73e8 } a:focus { outline: var(--ring) }</style><a href="/">Home</a>"##),
                ("a", r##"<style>:root { --accent: #1a73e8 } a:focus { outline: 2px solid var(--accent) }</style><a href="/">Home</a>"##),
                // A known indicator whatever the unresolved outline is.
                ("a", r##"<style>a:focus { outline: var(--nope); box-shadow: 0 0 0 3px blue }</style><a href="/">Home</a>"##),
                ("summary", r##"<style>details>summary{outline:none}details>summary:focus-visible::before{outline:1px dotted #000}</style><details><summary>More</summary>x</details>"##),
            ])
            .inapplicable(&[
                r##"<style>a:focus { outline: none }</style><a href="/" tabindex="-1">Home</a>"##,
            ])
            .fail(&[
                ("a", r##"<style>.no-focus:focus { outline: none; }</style><a class="no-focus" href="/">Home</a>"##),
                ("button", r##"<style>*:focus { outline: 0 }</style><button>Go</button>"##),
                ("button", r##"<style>button { outline-style: none }</style><button>Go</button>"##),
                ("a", r##"<a href="/" style="outline: none">Home</a>"##),
                // Custom properties that resolve to no outline.
                ("a", r##"<style>:root { --ring: none } a:focus { outline: var(--ring) }</style><a href="/">Home</a>"##),
            ])
            .cant_tell(&[
                ("a", r##"<style>a:focus { outline: none }</style><a href="/" onfocus="mark(this)">Home</a>"##),
                ("a", r##"<style>a:focus { outline: var(--focus-ring) }</style><a href="/">Home</a>"##),
                ("button", r##"<style>button { outline: var(--ring, var(--nope)) }</style><button>Go</button>"##),
            ])
            .run();
    }

    /// In render mode an element the browser measured focused by Tab is
    /// judged by `focus-visible-rendered`: the open question of a focus
    /// handler is not asked again, while a failure from the sheets stands and
    /// an element without a box on the page is still left for review.
    #[test]
    fn a_measured_focus_settles_what_the_sheets_leave_open() {
        use crate::interaction::{FocusStyle, FocusedElement, Interaction};
        use crate::Outcome;
        let html = r##"<html><head><style>a:focus { outline: none }</style></head><body><a href="/" id="h" onfocus="mark(this)">Home</a><a href="/b" id="b">B</a><a href="/c" id="c" onfocus="mark(this)">C</a></body></html>"##;
        let focused = |i: u32, visible: bool| FocusedElement {
            path: vec![1, i],
            label: format!("a{i}"),
            tab_reached: true,
            leaves_page: Some(true),
            cycle: Vec::new(),
            focus_style: Some(FocusStyle {
                changed: Vec::new(),
                elsewhere: true,
                visible,
            }),
            exit: None,
        };
        let outcomes = |page: &crate::Page| -> Vec<(Outcome, String)> {
            crate::analyze(page, &[&FocusVisible])
                .findings
                .iter()
                .map(|f| (f.outcome, f.selector.clone()))
                .collect()
        };
        let mut page = crate::Page::from_html("https://example.com/", html);
        assert_eq!(
            outcomes(&page),
            [
                (Outcome::CantTell, "#h".to_string()),
                (Outcome::Failed, "#b".to_string()),
                (Outcome::CantTell, "#c".to_string()),
            ]
        );
        page.interaction = Some(Interaction {
            elements: vec![focused(0, true), focused(1, true), focused(2, false)],
            presses: 4,
            complete: true,
            script_moves_focus: false,
            activations: Vec::new(),
            shortcuts: None,
        });
        assert_eq!(
            outcomes(&page),
            [
                (Outcome::Failed, "#b".to_string()),
                (Outcome::CantTell, "#c".to_string()),
            ]
        );
    }

    /// The rule reads stylesheets itself; it reads them within what is left of
    /// the page's caps, as the cascade does, so a sheet past the caps costs it
    /// nothing and the page says its analysis is incomplete; what the unread
    /// rules could change is then cannot tell (`styles-incomplete`), not a pass.
    #[test]
    fn stylesheets_are_read_within_the_page_caps() {
        use crate::budget::{Cancel, Limit, PageBudget};
        use crate::Outcome;
        let rules: &[&'static dyn Rule] = &[&FocusVisible];
        let failed = |html: &str, budget: PageBudget| {
            let page = crate::Page::from_html("https://example.com/", html);
            let analysis = crate::run::analyze_with(&page, rules, budget, Cancel::new());
            let outcomes: Vec<(Outcome, Option<serde_json::Value>)> = analysis
                .findings
                .iter()
                .filter(|f| f.rule_id == "focus-visible")
                .map(|f| (f.outcome, f.data.clone()))
                .collect();
            let limits: Vec<Limit> = analysis.overruns.iter().map(|o| o.limit).collect();
            (outcomes, limits)
        };
        let fail = || vec![(Outcome::Failed, None)];
        let undecided = || {
            vec![(
                Outcome::CantTell,
                Some(serde_json::json!({ "reason": "styles-incomplete" })),
            )]
        };
        let by_rules = "<style>p { color: red }</style><style>a:focus { outline: none }</style><a href=/>Home</a>";
        assert_eq!(failed(by_rules, PageBudget::DEFAULT), (fail(), vec![]));
        let one_rule = PageBudget {
            max_css_rules: 1,
            ..PageBudget::DEFAULT
        };
        assert_eq!(
            failed(by_rules, one_rule),
            (undecided(), vec![Limit::CssRules])
        );
        let by_selectors = "<style>p, em, a:focus { outline: none }</style><a href=/>Home</a>";
        assert_eq!(failed(by_selectors, PageBudget::DEFAULT), (fail(), vec![]));
        let two_selectors = PageBudget {
            max_selectors: 2,
            ..PageBudget::DEFAULT
        };
        assert_eq!(
            failed(by_selectors, two_selectors),
            (undecided(), vec![Limit::Selectors])
        );
        let one_sheet = PageBudget {
            max_stylesheets: 1,
            ..PageBudget::DEFAULT
        };
        assert_eq!(
            failed(by_rules, one_sheet),
            (undecided(), vec![Limit::Stylesheets])
        );
    }
}
