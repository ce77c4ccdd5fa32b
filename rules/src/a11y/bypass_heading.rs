//! `bypass-heading`: the page's own content has a heading.

use crate::repeated::{heading_reaches_main, layout};
use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// The page's own content has a heading.
pub struct BypassHeading;

static META: RuleMeta = RuleMeta {
    id: "bypass-heading",
    category: Category::Accessibility,
    title: "The page's own content has a heading",
    help: "Start the main content with a real heading (h1-h6), visible and not hidden from assistive technologies.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/html/H69",
    wcag: &[],
    level: None,
    impact: Impact::Moderate,
    act: &["047fe0"],
    best_practice: true,
    manual_review: false,
    needs: &[],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r#"## What it checks
On an HTML page where some of the page's own content comes after a block of
repeated content, a heading that is visible, exposed to assistive technologies
and outside the repeated blocks comes after the first repeated content. One of
the ways to meet WCAG 2.4.1 (see `bypass`).

## Why it matters
Screen-reader users jump from heading to heading; a heading at the start of the
content lets them skip the navigation.

## Failing
```html
<body><nav><a href="/">Home</a></nav><div><strong>Shoes</strong><p>Our range.</p></div></body>
```

## Passing
```html
<body><nav><a href="/">Home</a></nav><div><h1>Shoes</h1><p>Our range.</p></div></body>
```
"#,
};

impl Rule for BypassHeading {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        if !page_is_html(cx) {
            return;
        }
        let page = cx.page();
        let l = layout(page);
        if heading_reaches_main(page, l) {
            cx.pass();
        } else {
            cx.fail_page(
                "No visible, exposed heading starts the page's content after the repeated blocks.",
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
        RuleTester::new(&BypassHeading)
            .pass(&[("(page)", r#"<nav><a href=/>Home</a></nav><div><h1>Shoes</h1><p>Range</p></div>"#), ("(page)", r#"<nav><a href=/>Home</a></nav><div><div role=heading aria-level=1>Shoes</div><p>Range</p></div>"#), ("(page)", r#"<p>Only content</p>"#)])
            .fail(&[("(page)", r#"<nav><a href=/>Home</a></nav><div><strong>Shoes</strong><p>Range</p></div>"#), ("(page)", r#"<nav><h1>Menu</h1><a href=/>Home</a></nav><div><p>Range</p></div>"#), ("(page)", r#"<nav><a href=/>Home</a></nav><div><h1 aria-hidden=true>Shoes</h1><p>Range</p></div>"#)])
            .run();
    }
}
