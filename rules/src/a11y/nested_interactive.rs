//! `nested-interactive`: controls with presentational children contain nothing focusable (ACT 307n5z).

use scraper::ElementRef;

use crate::aria::roles::role_def;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements whose role makes children presentational (buttons, checkboxes, tabs, ...) contain no focusable descendants.
pub struct NestedInteractive;

static META: RuleMeta = RuleMeta {
    id: "nested-interactive",
    category: Category::Accessibility,
    title: "Interactive controls are not nested",
    help: "Move the focusable element out of the control, or make it unfocusable.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["307n5z"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose semantic role has presentational children (`button`, `checkbox`, `img`, `tab`, `switch`, `option`, ...) has no descendant in sequential focus navigation.

## Why it matters
Screen readers do not expose the nested control, yet keyboard users tab to it: they land on something with no name or role.

## Failing
```html
<button>Save <span role="button" tabindex="0" aria-label="options">v</span></button>
```

## Passing
```html
<button>Save</button><button aria-label="options">v</button>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for NestedInteractive {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let Some(role) = page.role(el) else {
            return;
        };
        if !role_def(role).is_some_and(|r| r.children_presentational) || page.is_hidden(el) {
            return;
        }
        let nested = el
            .descendants()
            .skip(1)
            .filter_map(ElementRef::wrap)
            .find(|d| page.in_tab_order(*d));
        match nested {
            Some(d) => {
                let tag = d.value().name().to_string();
                cx.fail(el, format!("This `{role}` contains a focusable <{tag}>."));
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
        RuleTester::new(&NestedInteractive)
            .pass(&[
                ("button", r##"<button>Save</button>"##),
                ("button", r##"<button><a>x</a></button>"##),
                ("li", r##"<ul role=menu><li role=menuitemcheckbox aria-checked=true><input type=checkbox role=none disabled>x</li></ul>"##),
            ])
            .inapplicable(&[
                r##"<a href=x><span tabindex=0>x</span></a>"##,
                r##"<table><tr><th><a href=x>x</a></th></tr></table>"##,
            ])
            .fail(&[
                ("button", r##"<button>Save <span role=button tabindex=0>v</span></button>"##),
                ("p", r##"<p role=checkbox aria-checked=false tabindex=0>I agree <a href=/t>terms</a></p>"##),
                ("li", r##"<ul role=tablist><li role=tab><a href=#>t</a></li></ul>"##),
                ("span", r##"<span role=img aria-label=art>** <a href=#>x</a></span>"##),
            ])
            .run();
    }
}
