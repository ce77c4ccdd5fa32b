//! `aria-hidden-focus`: content hidden with `aria-hidden` is not focusable (ACT 6cfa84).

use scraper::ElementRef;

use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with `aria-hidden="true"` contain nothing in sequential focus navigation.
pub struct AriaHiddenFocus;

static META: RuleMeta = RuleMeta {
    id: "aria-hidden-focus",
    category: Category::Accessibility,
    title: "Hidden content is not focusable",
    help: "Make focusable content inside aria-hidden unfocusable (tabindex=\"-1\", disabled, or hide it with CSS), or remove aria-hidden.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["6cfa84"],
    docs: r##"## What it checks
Each element with `aria-hidden="true"` has no inclusive descendant in sequential focus navigation (focusable with no negative `tabindex`, not disabled, rendered).

A focusable element whose focus handler may move focus away (an `onfocus`
attribute, or a script naming its id that listens for focus, as a modal
dialog's focus "sentinel" does) needs a keyboard to judge. In a static scan it
is left for review. In render mode the browser's keyboard walk settles it: when
Tab left focus on it, it fails; when the complete walk never saw focus rest on
it (the page moved focus on each time it arrived there), it is not in the
focus order in effect and does not count.

## Why it matters
Keyboard users can tab to a control that screen readers do not announce, so they land on "nothing".

## Failing
```html
<div aria-hidden="true"><a href="/">Home</a></div>
```

## Passing
```html
<div aria-hidden="true"><a href="/" tabindex="-1">Home</a></div>
```
"##,
    ..RuleMeta::BASE
};

/// Whether a script may move focus when this element receives it: an inline
/// `onfocus` handler, or an inline script that names the element's id and listens
/// for focus. Then only a keyboard test can tell whether it is reachable.
fn focus_may_move(el: ElementRef<'_>, root: ElementRef<'_>) -> bool {
    if crate::dom::attr(el, "onfocus").is_some() || crate::dom::attr(el, "onfocusin").is_some() {
        return true;
    }
    let Some(id) = el.value().id() else {
        return false;
    };
    root.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|s| s.value().name() == "script")
        .any(|s| {
            let text: String = s.text().collect();
            text.contains(id)
                && (text.contains("'focus'")
                    || text.contains("\"focus\"")
                    || text.contains("'focusin'")
                    || text.contains(".onfocus"))
        })
}

/// What render mode's keyboard walk saw of `el`: `Some(true)` when Tab put
/// focus on it and it stayed; `Some(false)` when the walk judged the whole tab
/// order and never saw focus rest on it (the walk leaves out elements the page
/// moves focus away from whenever focus is put there); `None` without a walk
/// (a static scan) or when the walk cannot say.
fn focus_rests(page: &crate::PageContext<'_>, el: ElementRef<'_>) -> Option<bool> {
    let walk = page.page().interaction.as_ref()?;
    let listed = walk
        .elements
        .iter()
        .find(|e| e.find(page.root()).is_some_and(|found| found.id() == el.id()));
    match listed {
        Some(e) if e.tab_reached => Some(true),
        Some(_) => None,
        None if walk.complete && walk.elements.len() < crate::interaction::MAX_ELEMENTS => {
            Some(false)
        }
        None => None,
    }
}

impl Rule for AriaHiddenFocus {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let hidden = crate::dom::attr(el, "aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if !hidden {
            return;
        }
        let page = cx.page();
        let focusable = el
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|d| page.in_tab_order(*d))
            .find(|d| !(focus_may_move(*d, page.root()) && focus_rests(page, *d) == Some(false)));
        if let Some(f) = focusable {
            if focus_may_move(f, page.root()) && focus_rests(page, f) != Some(true) {
                cx.cant_tell(
                    el,
                    "A focusable element inside aria-hidden content has a focus handler that may move focus away; check by keyboard.",
                );
                return;
            }
        }
        match focusable {
            Some(f) if f.id() == el.id() => {
                cx.fail(el, "This element is aria-hidden but in the tab order.");
            }
            Some(f) => {
                let tag = f.value().name().to_string();
                cx.fail(
                    el,
                    format!("This aria-hidden element contains a focusable <{tag}>."),
                );
            }
            None => cx.pass(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaHiddenFocus)
            .pass(&[
                ("p", r##"<p aria-hidden=true>x</p>"##),
                ("div", r##"<div aria-hidden=true><a href=/ style="display:none">x</a></div>"##),
                ("input", r##"<input disabled aria-hidden=true>"##),
                ("div", r##"<div aria-hidden=true><button tabindex=-1>x</button></div>"##),
                ("svg", r##"<a href=x><svg aria-hidden=true></svg>x</a>"##),
            ])
            .fail(&[
                ("div", r##"<div aria-hidden=true><a href=/ style="position:absolute;top:-999em">x</a></div>"##),
                ("div", r##"<div aria-hidden=true><input aria-disabled=true></div>"##),
                ("div", r##"<div aria-hidden=true><div aria-hidden=false><button>x</button></div></div>"##),
                ("p", r##"<p tabindex=0 aria-hidden=true>x</p>"##),
                ("details", r##"<details aria-hidden=true><summary>x</summary><p>y</p></details>"##),
            ])
            .cant_tell(&[
                ("div", r##"<div aria-hidden=true><a href=/ onfocus="document.body.focus()">x</a></div>"##),
            ])
            .run();
    }

    /// In render mode the keyboard walk decides what a focus handler leaves
    /// open: focus that stayed fails, focus that never rested does not count,
    /// and an incomplete walk leaves it for review.
    #[test]
    fn the_keyboard_walk_settles_a_focus_handler() {
        use crate::interaction::{FocusedElement, Interaction};
        use crate::{Outcome, Page};
        // body > [div#d > input#first, button#close], div#s[aria-hidden] > a#sentinel
        let html = r##"<html><head></head><body><div id="d"><input id="first"><button id="close">Close</button></div><div id="s" aria-hidden="true"><a href="#" id="sentinel">wrap</a></div><script>document.getElementById('sentinel').addEventListener('focus', () => document.getElementById('first').focus())</script></body></html>"##;
        let held = |path: Vec<u32>, label: &str| FocusedElement {
            path,
            label: label.into(),
            tab_reached: true,
            leaves_page: Some(true),
            ..FocusedElement::default()
        };
        let outcomes = |page: &Page| -> Vec<(Outcome, String)> {
            crate::analyze(page, &[&AriaHiddenFocus])
                .findings
                .iter()
                .map(|f| (f.outcome, f.selector.clone()))
                .collect()
        };
        let mut page = Page::from_html("https://example.com/", html);
        assert_eq!(outcomes(&page), [(Outcome::CantTell, "#s".to_string())]);
        let walk = |elements: Vec<FocusedElement>, complete: bool| Interaction {
            elements,
            presses: 6,
            complete,
            script_moves_focus: true,
            activations: Vec::new(),
            shortcuts: None,
        };
        let dialog = vec![held(vec![1, 0, 0], "input#first"), held(vec![1, 0, 1], "button#close")];
        // Focus never rested on the sentinel: it does not count.
        page.interaction = Some(walk(dialog.clone(), true));
        assert_eq!(outcomes(&page), []);
        let tally = crate::analyze(&page, &[&AriaHiddenFocus])
            .tallies
            .into_iter()
            .find(|t| t.rule_id == "aria-hidden-focus")
            .unwrap();
        assert_eq!((tally.passed, tally.failed), (1, 0));
        // The walk stopped early: still for review.
        page.interaction = Some(walk(dialog.clone(), false));
        assert_eq!(outcomes(&page), [(Outcome::CantTell, "#s".to_string())]);
        // Tab left focus on it: hidden content in the focus order.
        let mut with_sentinel = dialog;
        with_sentinel.push(held(vec![1, 1, 0], "a#sentinel"));
        page.interaction = Some(walk(with_sentinel, true));
        assert_eq!(outcomes(&page), [(Outcome::Failed, "#s".to_string())]);
    }
}
