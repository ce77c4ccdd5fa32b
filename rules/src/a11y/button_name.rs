//! `button-name`: `button` elements have an accessible name (ACT 97a4e1).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `button` elements with the `button` role have a non-empty accessible name.
pub struct ButtonName;

static META: RuleMeta = RuleMeta {
    id: "button-name",
    category: Category::Accessibility,
    title: "Buttons have discernible text",
    help: "Put text inside the button, or give it an aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["97a4e1"],
    docs: r##"## What it checks
Each `button` element whose role is `button` and that is included in the accessibility tree has a non-empty accessible name (content, `aria-label`, `aria-labelledby`, `title`).

## Why it matters
Screen readers announce a nameless button as just "button"; people cannot tell what it does.

## Failing
```html
<button><svg viewBox="0 0 10 10"><path d="M0 0h10v10z"/></svg></button>
```

## Passing
```html
<button aria-label="Close dialog"><svg viewBox="0 0 10 10"><path d="M0 0h10v10z"/></svg></button>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for ButtonName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["button"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || cx.page().role(el) != Some("button") || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This button");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ButtonName)
            .pass(&[
                ("button", r##"<button>Save</button>"##),
                ("button", r##"<button aria-label="Save"></button>"##),
                ("button", r##"<button title="Save"></button>"##),
                ("button", r##"<button><img src=a.png alt="Save"></button>"##),
                ("button", r##"<button aria-labelledby=l></button><span id=l>Go</span>"##),
            ])
            .inapplicable(&[
                r##"<button style="display:none"></button>"##,
                r##"<button role=link></button>"##,
            ])
            .fail(&[
                ("button", r##"<button></button>"##),
                ("button", r##"<button> <span aria-hidden=true>x</span></button>"##),
                ("button", r##"<button role=presentation></button>"##),
                ("button", r##"<button aria-labelledby=missing></button>"##),
            ])
            .run();
    }
}
