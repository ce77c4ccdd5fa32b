//! `aria-valid-attr-value`: ARIA attribute values are valid for their type (ACT 6a7281).

use scraper::ElementRef;

use crate::aria::attrs::{attr_def, value_is_valid};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that each WAI-ARIA attribute value matches its value type (true/false, tokens, numbers, ...).
pub struct AriaValidAttrValue;

static META: RuleMeta = RuleMeta {
    id: "aria-valid-attr-value",
    category: Category::Accessibility,
    title: "ARIA attributes have valid values",
    help: "Use a value the attribute allows, e.g. \"true\" or \"false\" for aria-expanded.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["6a7281"],
    docs: r##"## What it checks
Each WAI-ARIA state or property with a non-empty value has a value allowed by its value type: true/false, true/false/undefined, tristate, integer, number, one of the listed tokens, or a list of them. Whether id references point at existing elements is not part of this rule.

## Why it matters
Browsers ignore invalid values, so the state the author meant (expanded, checked, current page, ...) is not exposed.

## Failing
```html
<button aria-expanded="collapsed">Menu</button>
```

## Passing
```html
<button aria-expanded="false">Menu</button>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaValidAttrValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        for (name, value) in el.value().attrs() {
            let Some(def) = attr_def(name) else {
                continue;
            };
            if value.trim().is_empty() {
                continue;
            }
            if value_is_valid(def.value, value) {
                cx.pass();
            } else {
                cx.fail(
                    el,
                    format!("`{name}=\"{value}\"` is not a valid value for `{name}`."),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaValidAttrValue)
            .pass(&[
                ("button", r##"<button aria-expanded=false>x</button>"##),
                ("div", r##"<div role=checkbox aria-checked=mixed>x</div>"##),
                ("div", r##"<div role=slider aria-valuenow="2.5">x</div>"##),
                ("div", r##"<div aria-relevant="text removals">x</div>"##),
                ("div", r##"<div aria-errormessage=anything>x</div>"##),
            ])
            .inapplicable(&[
                r##"<div aria-live="">x</div>"##,
            ])
            .fail(&[
                ("button", r##"<button aria-expanded=collapsed>x</button>"##),
                ("div", r##"<div role=row aria-rowindex=2.5>x</div>"##),
                ("div", r##"<div aria-live=page>x</div>"##),
                ("div", r##"<div aria-relevant="text always">x</div>"##),
                ("div", r##"<div role=slider aria-valuenow=high>x</div>"##),
            ])
            .run();
    }
}
