//! `aria-toggle-field-name`: elements with role `checkbox`, `menuitemcheckbox`, `menuitemradio`, `radio`, `switch` or `option` have an accessible name (ACT e086e5).

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `checkbox`, `menuitemcheckbox`, `menuitemradio`, `radio`, `switch` or `option` role have a non-empty accessible name.
pub struct AriaToggleFieldName;

static META: RuleMeta = RuleMeta {
    id: "aria-toggle-field-name",
    category: Category::Accessibility,
    title: "ARIA toggle fields have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["e086e5"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `checkbox`, `menuitemcheckbox`, `menuitemradio`, `radio`, `switch` or `option` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="checkbox" aria-checked="false" tabindex="0"></div>
```

## Passing
```html
<div role="checkbox" aria-checked="false" tabindex="0">Subscribe</div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaToggleFieldName {
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
                "checkbox",
                "menuitemcheckbox",
                "menuitemradio",
                "radio",
                "switch",
                "option",
            ],
        ) || not_exposed(el, cx)
        {
            return;
        }
        require_name(
            el,
            cx,
            "This checkbox, menuitemcheckbox, menuitemradio, radio, switch or option",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaToggleFieldName)
            .pass(&[
                ("div", r##"<div role=checkbox aria-checked=false>Subscribe</div>"##),
                ("div", r##"<div role=switch aria-checked=true aria-label="Wi-Fi"></div>"##),
                ("html > body > div > div", r##"<div role=listbox aria-label=x><div role=option>Apple</div></div>"##),
            ])
            .fail(&[
                ("div", r##"<div role=checkbox aria-checked=false></div>"##),
                ("div", r##"<div role=radio aria-checked=false> </div>"##),
            ])
            .run();
    }
}
