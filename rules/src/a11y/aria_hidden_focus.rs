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
            .find(|d| page.in_tab_order(*d));
        if let Some(f) = focusable {
            if focus_may_move(f, page.root()) {
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
}
