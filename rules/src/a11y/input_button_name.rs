//! `input-button-name`: input buttons have an accessible name (ACT 97a4e1).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::{input_type, is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `input` elements of type button, submit and reset have a non-empty accessible name.
pub struct InputButtonName;

static META: RuleMeta = RuleMeta {
    id: "input-button-name",
    category: Category::Accessibility,
    title: "Input buttons have discernible text",
    help: "Give the input button a value attribute (or aria-label) that says what it does.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["97a4e1"],
    docs: r##"## What it checks
Each `input` of type `button`, `submit` or `reset` included in the accessibility tree has a non-empty accessible name. Submit and reset buttons without a `value` get the browser's default label ("Submit", "Reset") and pass; `value=""` removes it.

## Why it matters
A nameless button is announced as just "button".

## Failing
```html
<input type="button">
```

## Passing
```html
<input type="button" value="Add to cart">
```
"##,
    ..RuleMeta::BASE
};

impl Rule for InputButtonName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["input"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || !matches!(input_type(el).as_str(), "button" | "submit" | "reset") {
            return;
        }
        if cx.page().role(el) != Some("button") || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This input button");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&InputButtonName)
            .pass(&[
                ("input", r##"<input type=button value="Add">"##),
                ("input", r##"<input type=submit>"##),
                ("input", r##"<input type=reset>"##),
                ("input", r##"<input type=button aria-label="Add">"##),
                ("input", r##"<input type=button title="Add">"##),
            ])
            .inapplicable(&[
                r##"<input type=button hidden>"##,
            ])
            .fail(&[
                ("input", r##"<input type=button>"##),
                ("input", r##"<input type=submit value="">"##),
                ("input", r##"<input type=button value=" ">"##),
            ])
            .run();
    }
}
