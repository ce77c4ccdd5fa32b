//! `aria-progressbar-name`: elements with role `progressbar` have an accessible name.

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `progressbar` role have a non-empty accessible name.
pub struct AriaProgressbarName;

static META: RuleMeta = RuleMeta {
    id: "aria-progressbar-name",
    category: Category::Accessibility,
    title: "ARIA progress bars have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `progressbar` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="progressbar" aria-valuenow="40"></div>
```

## Passing
```html
<div role="progressbar" aria-valuenow="40" aria-label="Upload progress"></div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaProgressbarName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["progressbar"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This progressbar");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaProgressbarName)
            .pass(&[
                ("div", r##"<div role=progressbar aria-label="Upload"></div>"##),
                ("div", r##"<div role=progressbar aria-labelledby=l></div><p id=l>Upload</p>"##),
            ])
            .fail(&[
                ("div", r##"<div role=progressbar aria-valuenow=40></div>"##),
                ("div", r##"<div role=progressbar aria-label=""></div>"##),
            ])
            .run();
    }
}
