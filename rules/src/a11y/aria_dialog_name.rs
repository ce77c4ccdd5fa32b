//! `aria-dialog-name`: elements with role `dialog` or `alertdialog` have an accessible name.

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `dialog` or `alertdialog` role have a non-empty accessible name.
pub struct AriaDialogName;

static META: RuleMeta = RuleMeta {
    id: "aria-dialog-name",
    category: Category::Accessibility,
    title: "ARIA dialogs have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Serious,
    best_practice: true,
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `dialog` or `alertdialog` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="dialog"><p>Saved.</p></div>
```

## Passing
```html
<div role="dialog" aria-labelledby="t"><h2 id="t">Saved</h2></div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaDialogName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["dialog", "alertdialog"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This dialog or alertdialog");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaDialogName)
            .pass(&[
                ("div", r##"<div role=dialog aria-label="Settings"><p>x</p></div>"##),
                ("div", r##"<div role=alertdialog aria-labelledby=t><h2 id=t>Delete?</h2></div>"##),
            ])
            .fail(&[
                ("div", r##"<div role=dialog><p>x</p></div>"##),
                ("div", r##"<div role=alertdialog aria-labelledby=missing><p>x</p></div>"##),
            ])
            .run();
    }
}
