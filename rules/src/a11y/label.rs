//! `label`: text inputs and textareas have an accessible name (ACT e086e5).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::{input_type, is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that native text-entry and choice inputs and textareas have a non-empty accessible name.
pub struct Label;

static META: RuleMeta = RuleMeta {
    id: "label",
    category: Category::Accessibility,
    title: "Form fields have labels",
    help: "Associate a <label> with the field (for/id or wrapping), or add aria-label / aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["e086e5"],
    docs: r##"## What it checks
Each `input` (other than hidden, button, submit, reset and image) and each `textarea` that is included in the accessibility tree has a non-empty accessible name: a `label`, `aria-label`, `aria-labelledby`, `title` or, as a last resort, `placeholder`.

## Why it matters
Without a label, screen reader users hear "edit text" with no idea what to type, and voice control users cannot target the field.

## Failing
```html
<input type="text" name="email">
```

## Passing
```html
<label for="email">Email</label> <input type="text" id="email" name="email">
```
"##,
    ..RuleMeta::BASE
};

impl Rule for Label {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["input", "textarea"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || not_exposed(el, cx) {
            return;
        }
        if el.value().name() == "input"
            && matches!(
                input_type(el).as_str(),
                "hidden" | "button" | "submit" | "reset" | "image"
            )
        {
            return;
        }
        if matches!(cx.page().role(el), Some("none" | "presentation")) {
            return;
        }
        require_name(el, cx, "This form field");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&Label)
            .pass(&[
                ("input", r##"<label for=a>Name</label><input id=a>"##),
                ("input", r##"<label>Name <input></label>"##),
                ("input", r##"<input aria-label="Name">"##),
                ("input", r##"<input title="Name">"##),
                ("textarea", r##"<textarea aria-labelledby=l></textarea><p id=l>Bio</p>"##),
                ("input", r##"<input placeholder="Search">"##),
                ("input", r##"<input type=checkbox id=c><label for=c>Agree</label>"##),
            ])
            .inapplicable(&[
                r##"<input type=hidden>"##,
                r##"<input type=submit>"##,
            ])
            .fail(&[
                ("input", r##"<input>"##),
                ("textarea", r##"<textarea></textarea>"##),
                ("input", r##"<label>Name</label><input>"##),
                ("input", r##"<label for=x>Name</label><input id=y>"##),
                ("input", r##"<input type=checkbox>"##),
                ("input", r##"<input aria-label=" ">"##),
            ])
            .run();
    }
}
