//! `focus-visible-rendered`: focusing an element with Tab changes how the page
//! looks (WCAG 2.4.7, ACT oj04fd), measured in the browser. Render mode only
//! ([`crate::interaction`]).

use crate::{Category, Check, Impact, Level, Need, Rule, RuleMeta, Visits};

/// Fails elements that look the same focused by Tab as unfocused, from the
/// browser's keyboard walk of the rendered page.
pub struct FocusVisibleRendered;

static META: RuleMeta = RuleMeta {
    id: "focus-visible-rendered",
    category: Category::Accessibility,
    title: "Focusing an element with Tab shows a visible indicator (measured in the browser)",
    help: "Keep the browser's focus outline, or draw another indicator in a :focus or :focus-visible rule (outline, border, box-shadow, background).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/focus-visible.html",
    wcag: &["2.4.7"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["oj04fd"],
    needs: &[Need::Interaction],
    docs: r##"## What it checks
Render mode only (`--render`): the browser presses Tab through the page and,
for each element Tab focuses, compares the styles the browser computed for it
focused against the same element before the walk: its outline (when drawn:
a style other than `none`, a width, a colour that is not transparent), its
borders, box shadow, background, colour, text decoration, opacity, transform
and filter, and the same of its `::before` and `::after` boxes. Transitions
are run to their end before the look is read. An element **fails** when none
of these changed and no script changed another element's look while it had
focus (an indicator drawn elsewhere, which ACT allows). Elements without a
box on the page (zero-sized, or moved off the page as a "sentinel" is) are
not judged.

It is the measured form of [`focus-visible`](focus-visible.md), which
estimates the same from the style sheets in both kinds of scan. A static scan
does not run this rule's check: it reports nothing for it, neither a failure
nor a pass.

## Why it matters
Keyboard users must see where focus is to know what Enter or Space will act on.

## Failing
```html
<style>button { outline: none }</style><button>Go</button>
```

## Passing
```html
<style>button:focus-visible { outline: none; box-shadow: 0 0 0 3px #1a73e8 }</style><button>Go</button>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for FocusVisibleRendered {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        // No browser walked the page (a static scan): nothing to say.
        let Some(walk) = page.page().interaction.as_ref() else {
            return;
        };
        for e in &walk.elements {
            let Some(style) = &e.focus_style else {
                continue;
            };
            if !style.visible {
                continue;
            }
            let shows = !style.changed.is_empty() || style.elsewhere;
            let el = e.find(page.root());
            match (shows, el) {
                (true, Some(el)) => cx.pass_on(el),
                (true, None) => cx.pass(),
                (false, el) => {
                    let msg = format!(
                        "Focusing {} with Tab changes nothing visible: no outline, border, shadow, background or colour of it or another element changes.",
                        e.label
                    );
                    let data = serde_json::json!({ "label": e.label });
                    match el {
                        Some(el) => cx.fail(el, msg).with_data(data),
                        None => cx.fail_page(msg).with_data(data),
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interaction::{FocusStyle, FocusedElement, Interaction};
    use crate::{Outcome, Page};

    fn reached(path: Vec<u32>, label: &str, changed: &[&str], elsewhere: bool, visible: bool) -> FocusedElement {
        FocusedElement {
            path,
            label: label.into(),
            tab_reached: true,
            leaves_page: Some(true),
            cycle: Vec::new(),
            focus_style: Some(FocusStyle {
                changed: changed.iter().map(|s| s.to_string()).collect(),
                elsewhere,
                visible,
            }),
            exit: None,
        }
    }

    #[test]
    fn only_a_focus_that_changes_nothing_fails() {
        let html = "<html><head></head><body><a href=/ id=a>A</a><a href=/b id=b>B</a><a href=/c id=c>C</a><a href=/d id=d>D</a></body></html>";
        let mut page = Page::from_html("https://example.com/", html);
        let analysis = crate::analyze(&page, &[&FocusVisibleRendered]);
        assert!(analysis.findings.is_empty(), "a static scan reports nothing");
        page.interaction = Some(Interaction {
            elements: vec![
                reached(vec![1, 0], "a#a", &["outline"], false, true),
                reached(vec![1, 1], "a#b", &[], true, true),
                reached(vec![1, 2], "a#c", &[], false, true),
                reached(vec![1, 3], "a#d", &[], false, false),
            ],
            presses: 5,
            complete: true,
            script_moves_focus: false,
            activations: Vec::new(),
            shortcuts: None,
        });
        let analysis = crate::analyze(&page, &[&FocusVisibleRendered]);
        let got: Vec<(Outcome, &str)> = analysis
            .findings
            .iter()
            .map(|f| (f.outcome, f.selector.as_str()))
            .collect();
        assert_eq!(got, [(Outcome::Failed, "#c")]);
        let tally = analysis
            .tallies
            .iter()
            .find(|t| t.rule_id == "focus-visible-rendered")
            .unwrap();
        assert_eq!((tally.passed, tally.failed), (2, 1));
    }
}
