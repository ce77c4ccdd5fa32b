//! `aria-input-field-name`: elements with role `combobox`, `listbox`, `searchbox`, `slider`, `spinbutton` or `textbox` have an accessible name (ACT e086e5).

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `combobox`, `listbox`, `searchbox`, `slider`, `spinbutton` or `textbox` role have a non-empty accessible name.
pub struct AriaInputFieldName;

static META: RuleMeta = RuleMeta {
    id: "aria-input-field-name",
    category: Category::Accessibility,
    title: "ARIA input fields have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["e086e5"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `combobox`, `listbox`, `searchbox`, `slider`, `spinbutton` or `textbox` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="textbox" contenteditable="true"></div>
```

## Passing
```html
<span id="l">Notes</span><div role="textbox" contenteditable="true" aria-labelledby="l"></div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaInputFieldName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(
            el,
            cx,
            &[
                "combobox",
                "listbox",
                "searchbox",
                "slider",
                "spinbutton",
                "textbox",
            ],
        ) || not_exposed(el, cx)
        {
            return;
        }
        require_name(
            el,
            cx,
            "This combobox, listbox, searchbox, slider, spinbutton or textbox",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaInputFieldName)
            .pass(&[
                ("div", r##"<div role=textbox aria-label="Notes"></div>"##),
                ("div", r##"<div role=listbox aria-labelledby=l></div><p id=l>Fruit</p>"##),
            ])
            .inapplicable(&[
                r##"<div role=textbox style="display:none"></div>"##,
            ])
            .fail(&[
                ("div", r##"<div role=textbox>first name</div>"##),
                ("div", r##"<label>first name <div role=textbox></div></label>"##),
                ("div", r##"<label for=f>first name</label><div role=textbox id=f></div>"##),
            ])
            .run();
    }
}
