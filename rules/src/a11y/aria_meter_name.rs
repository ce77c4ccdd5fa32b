//! `aria-meter-name`: elements with role `meter` have an accessible name.

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `meter` role have a non-empty accessible name.
pub struct AriaMeterName;

static META: RuleMeta = RuleMeta {
    id: "aria-meter-name",
    category: Category::Accessibility,
    title: "ARIA meters have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `meter` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="meter" aria-valuenow="7" aria-valuemin="0" aria-valuemax="10"></div>
```

## Passing
```html
<div role="meter" aria-valuenow="7" aria-valuemin="0" aria-valuemax="10" aria-label="Disk usage"></div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaMeterName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["meter"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This meter");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaMeterName)
            .pass(&[
                ("div", r##"<div role=meter aria-valuenow=3 aria-label="Battery"></div>"##),
                ("div", r##"<div role=meter aria-valuenow=3 title="Battery"></div>"##),
            ])
            .fail(&[
                ("div", r##"<div role=meter aria-valuenow=3></div>"##),
                ("div", r##"<div role=meter aria-valuenow=3>30%</div>"##),
            ])
            .run();
    }
}
