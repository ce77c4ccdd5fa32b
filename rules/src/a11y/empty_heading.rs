//! `empty-heading`: headings have an accessible name (best practice).

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Flags exposed headings whose accessible name is empty.
pub struct EmptyHeading;

static META: RuleMeta = RuleMeta {
    id: "empty-heading",
    category: Category::Accessibility,
    title: "Headings are not empty",
    help: "Give every heading text (or an image with alt text), or remove the empty heading.",
    help_url: "https://www.w3.org/WAI/tutorials/page-structure/headings/",
    impact: Impact::Minor,
    best_practice: true,
    act: &["ffd0e9"],
    docs: r#"## What it checks
Every element with the role `heading` (`h1`–`h6`, `role="heading"`) that is
exposed to assistive technologies has a non-empty accessible name (its text,
image alternatives, or `aria-label` / `aria-labelledby`).

## Why it matters
Screen-reader users navigating by headings hear "heading level 2" and nothing
else, which tells them nothing about the section.

## Failing
```html
<h2></h2>
```

## Passing
```html
<h2>Opening hours</h2>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for EmptyHeading {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if page.role(el) != Some("heading") || page.is_hidden(el) {
            return;
        }
        if page.accessible_name(el).trim().is_empty() {
            cx.fail(el, "This heading has no accessible name.");
        } else {
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
        RuleTester::new(&EmptyHeading)
            .pass(&[
                ("h2", "<h2>Hours</h2>"),
                ("h1", "<h1><img src=a.png alt=Logo></h1>"),
                ("div", "<div role=heading aria-label=Hours></div>"),
            ])
            .inapplicable(&[
                "<h2 hidden></h2>",
            ])
            .fail(&[
                ("h2", "<h2></h2>"),
                ("h3", "<h3> <span></span> </h3>"),
                ("div", "<div role=heading aria-level=2></div>"),
            ])
            .run();
    }
}
