//! `select-name`: `select` elements have an accessible name (ACT e086e5).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `select` elements have a non-empty accessible name.
pub struct SelectName;

static META: RuleMeta = RuleMeta {
    id: "select-name",
    category: Category::Accessibility,
    title: "Select lists have labels",
    help: "Associate a <label> with the select, or add aria-label / aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["e086e5"],
    docs: r##"## What it checks
Each `select` element included in the accessibility tree has a non-empty accessible name (`label`, `aria-label`, `aria-labelledby`, `title`).

## Why it matters
A select list without a label is announced as "combo box" with its current value only; people cannot tell what it chooses.

## Failing
```html
<select><option>Red</option><option>Blue</option></select>
```

## Passing
```html
<label>Colour <select><option>Red</option><option>Blue</option></select></label>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for SelectName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["select"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || not_exposed(el, cx) {
            return;
        }
        if matches!(cx.page().role(el), Some("none" | "presentation")) {
            return;
        }
        require_name(el, cx, "This select list");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&SelectName)
            .pass(&[
                ("select", r##"<label>Colour <select><option>Red</select></label>"##),
                ("select", r##"<select aria-label="Colour"><option>Red</select>"##),
            ])
            .inapplicable(&[
                r##"<select hidden><option>Red</select>"##,
            ])
            .fail(&[
                ("select", r##"<select><option>Red</select>"##),
                ("select", r##"<label>Colour</label><select><option>Red</select>"##),
            ])
            .run();
    }
}
