//! `form-field-multiple-labels`: form fields have at most one `label`.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that a form control is not labelled by more than one `label` element.
pub struct FormFieldMultipleLabels;

static META: RuleMeta = RuleMeta {
    id: "form-field-multiple-labels",
    category: Category::Accessibility,
    title: "Form fields have one label",
    help: "Keep one label per field; put extra hints in aria-describedby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/labels-or-instructions.html",
    wcag: &["3.3.2"],
    level: Some(Level::A),
    impact: Impact::Moderate,
    docs: r##"## What it checks
Each labelable form control (`input`, `select`, `textarea`, ...) included in the accessibility tree is labelled by at most one `label` element (`for` or wrapping).

## Why it matters
Screen readers and browsers handle several labels inconsistently: some read only the first, some join them, so people may miss part of the label.

## Failing
```html
<label for="e">Email</label><label for="e">Required</label><input id="e">
```

## Passing
```html
<label for="e">Email (required)</label><input id="e">
```
"##,
    ..RuleMeta::BASE
};

impl Rule for FormFieldMultipleLabels {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["input", "select", "textarea"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if page.is_hidden(el) {
            return;
        }
        let n = page.labels(el).len();
        if n > 1 {
            cx.fail(el, format!("This field is labelled by {n} label elements."));
        } else if n == 1 {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&FormFieldMultipleLabels)
            .pass(&[
                ("input", r##"<label for=e>Email</label><input id=e>"##),
                ("input", r##"<label>Email <input></label>"##),
            ])
            .inapplicable(&[
                r##"<input aria-label=x>"##,
            ])
            .fail(&[
                ("input", r##"<label for=e>Email</label><label for=e>Required</label><input id=e>"##),
                ("input", r##"<label for=e>Email <input id=e></label><label for=e>again</label>"##),
            ])
            .run();
    }
}
