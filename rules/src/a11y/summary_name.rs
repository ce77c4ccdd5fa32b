//! `summary-name`: the `summary` of a `details` element has an accessible name (ACT 2t702h).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::aria::tree::explicit_role;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that the summary (disclosure button) of each `details` element has a non-empty accessible name.
pub struct SummaryName;

static META: RuleMeta = RuleMeta {
    id: "summary-name",
    category: Category::Accessibility,
    title: "Summary elements have discernible text",
    help: "Put text in the <summary>, or give it an aria-label.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["2t702h"],
    docs: r##"## What it checks
Each `summary` element that is the first `summary` child of a `details` element, included in the accessibility tree and without an explicit role other than `none`/`presentation` (which focusability overrides), has a non-empty accessible name.

## Why it matters
The summary is the button that opens the details; without a name, screen readers announce an unnamed disclosure control.

## Failing
```html
<details><summary></summary><p>Open 9 to 5.</p></details>
```

## Passing
```html
<details><summary>Opening times</summary><p>Open 9 to 5.</p></details>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for SummaryName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["summary"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(details) = el.parent().and_then(ElementRef::wrap) else {
            return;
        };
        if details.value().name() != "details" {
            return;
        }
        let first = details
            .children()
            .filter_map(ElementRef::wrap)
            .find(|c| c.value().name() == "summary");
        if first.is_none_or(|f| f.id() != el.id()) {
            return;
        }
        if explicit_role(el).is_some_and(|r| !matches!(r, "none" | "presentation")) {
            return;
        }
        if not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This summary");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&SummaryName)
            .pass(&[
                r##"<details><summary>Opening times</summary><p>x</p></details>"##,
                r##"<details><summary aria-label="Opening times"></summary><p>x</p></details>"##,
                r##"<details><p>x</p><summary>Times</summary></details>"##,
                r##"<details><summary>Times</summary><summary></summary></details>"##,
                r##"<summary></summary>"##,
                r##"<details><div><summary></summary></div></details>"##,
                r##"<details><summary role=button>Times</summary></details>"##,
                r##"<details style="display:none"><summary></summary></details>"##,
            ])
            .fail(&[
                r##"<details><summary></summary><p>x</p></details>"##,
                r##"<details><summary role=none></summary><p>x</p></details>"##,
                r##"<details><summary></summary><summary>Times</summary></details>"##,
            ])
            .run();
    }
}
