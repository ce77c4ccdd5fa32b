//! `aria-tooltip-name`: elements with role `tooltip` have an accessible name.

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `tooltip` role have a non-empty accessible name.
pub struct AriaTooltipName;

static META: RuleMeta = RuleMeta {
    id: "aria-tooltip-name",
    category: Category::Accessibility,
    title: "ARIA tooltips have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `tooltip` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="tooltip" id="tip"></div>
```

## Passing
```html
<div role="tooltip" id="tip">Opens in a new window</div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaTooltipName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["tooltip"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This tooltip");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaTooltipName)
            .pass(&[
                ("div", r##"<div role=tooltip>Help text</div>"##),
                ("div", r##"<div role=tooltip aria-label="Help"></div>"##),
            ])
            .fail(&[
                ("div", r##"<div role=tooltip></div>"##),
                ("div", r##"<div role=tooltip><span aria-hidden=true>?</span></div>"##),
            ])
            .run();
    }
}
