//! `aria-required-attr`: elements with an explicit role have its required states and properties (ACT 4e8ab6).

use scraper::ElementRef;

use crate::aria::html::implicit_role;
use crate::aria::roles::role_def;
use crate::aria::tree::explicit_role;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit role set the states and properties that role requires.
pub struct AriaRequiredAttr;

static META: RuleMeta = RuleMeta {
    id: "aria-required-attr",
    category: Category::Accessibility,
    title: "Required ARIA attributes are present",
    help: "Add the required attribute, e.g. aria-checked for role=\"checkbox\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["4e8ab6"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role differs from its implicit role has every state and property its role requires (WAI-ARIA 1.2), e.g. `aria-checked` for `checkbox`, `aria-level` for `heading`, `aria-expanded` for `combobox`. A `separator` needs `aria-valuenow` only when focusable. Native elements whose implicit role is the explicit one get the state from HTML.

## Why it matters
Without the required state, assistive technology cannot say whether the checkbox is checked or the menu open.

## Failing
```html
<div role="switch" tabindex="0">Dark mode</div>
```

## Passing
```html
<div role="switch" tabindex="0" aria-checked="false">Dark mode</div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaRequiredAttr {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(explicit) = explicit_role(el) else {
            return;
        };
        let page = cx.page();
        if page.is_hidden(el) || page.role(el) != Some(explicit) {
            return;
        }
        if implicit_role(el) == Some(explicit) {
            return;
        }
        let Some(def) = role_def(explicit) else {
            return;
        };
        let mut required: Vec<&str> = def.required.to_vec();
        if explicit == "separator" && page.is_focusable(el) {
            required.push("aria-valuenow");
        }
        if required.is_empty() {
            return;
        }
        let missing: Vec<&str> = required
            .into_iter()
            .filter(|a| crate::dom::attr(el, a).is_none_or(|v| v.trim().is_empty()))
            .collect();
        if missing.is_empty() {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("Role `{explicit}` requires {}.", missing.join(", ")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaRequiredAttr)
            .pass(&[
                ("div", r##"<div role=checkbox aria-checked=false>x</div>"##),
                ("div", r##"<div role=heading aria-level=1>x</div>"##),
                ("div", r##"<div role=combobox aria-expanded=false aria-controls=l></div>"##),
            ])
            .inapplicable(&[
                r##"<div role=option>x</div>"##,
                r##"<hr role=separator>"##,
                r##"<div role=separator></div>"##,
                r##"<input type=checkbox role=checkbox>"##,
                r##"<div role=switch style="display:none"></div>"##,
            ])
            .fail(&[
                ("div", r##"<div role=heading>x</div>"##),
                ("div", r##"<div role=switch>x</div>"##),
                ("div", r##"<div role=separator tabindex=0></div>"##),
                ("div", r##"<div role=combobox aria-controls=l></div>"##),
                ("div", r##"<div role=slider aria-valuenow="">x</div>"##),
            ])
            .run();
    }
}
