//! `aria-treeitem-name`: elements with role `treeitem` have an accessible name.

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `treeitem` role have a non-empty accessible name.
pub struct AriaTreeitemName;

static META: RuleMeta = RuleMeta {
    id: "aria-treeitem-name",
    category: Category::Accessibility,
    title: "ARIA tree items have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Serious,
    best_practice: true,
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `treeitem` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<ul role="tree" aria-label="Files"><li role="treeitem"></li></ul>
```

## Passing
```html
<ul role="tree" aria-label="Files"><li role="treeitem">Documents</li></ul>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaTreeitemName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["treeitem"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This treeitem");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaTreeitemName)
            .pass(&[("li", r##"<ul role=tree aria-label=t><li role=treeitem>Docs</li></ul>"##)])
            .fail(&[("li", r##"<ul role=tree aria-label=t><li role=treeitem></li></ul>"##)])
            .run();
    }
}
