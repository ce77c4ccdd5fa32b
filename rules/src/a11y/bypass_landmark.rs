//! `bypass-landmark`: the page's own content is inside a landmark.

use crate::repeated::{landmark_reaches_main, layout};
use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// The page's own content is inside a landmark.
pub struct BypassLandmark;

static META: RuleMeta = RuleMeta {
    id: "bypass-landmark",
    category: Category::Accessibility,
    title: "The page's own content is inside a landmark",
    help: "Wrap the page's main content in <main> (or another landmark) so people can jump to it.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/aria/ARIA11",
    wcag: &[],
    level: None,
    impact: Impact::Moderate,
    act: &["b40fd1"],
    best_practice: true,
    manual_review: false,
    needs: &[],
    scope: crate::Scope::Page,
    defers_to: &[],
    measured: None,
    docs: r#"## What it checks
On an HTML page where some of the page's own content comes after a block of
repeated content, an element with a landmark role that is exposed to assistive
technologies contains some of that content. One of the ways to meet WCAG 2.4.1
(see `bypass`).

## Why it matters
Screen readers list landmarks and jump straight to them; a `main` landmark is
the quickest way past navigation.

## Failing
```html
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><p>Welcome to our shop.</p></body>
```

## Passing
```html
<body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main><p>Welcome to our shop.</p></main></body>
```
"#,
};

impl Rule for BypassLandmark {
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
        if landmark_reaches_main(page, l) {
            cx.pass();
        } else {
            cx.fail_page(
                "No exposed landmark contains the page's content that follows the repeated blocks.",
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
        RuleTester::new(&BypassLandmark)
            .pass(&[("(page)", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><main><p>Welcome</p></main>"#), ("(page)", r#"<nav><a href=/>Home</a></nav><div role=main><p>Welcome</p></div>"#), ("(page)", r#"<p>Only content</p>"#)])
            .fail(&[("(page)", r#"<nav><a href=/>Home</a> <a href=/s>Shop</a></nav><p>Welcome</p>"#), ("(page)", r#"<nav><a href=/>Home</a></nav><main aria-hidden=true><p>Welcome</p></main>"#), ("(page)", r#"<div><ol><li><a>One</a></li><li><a href=/2>Two</a></li></ol></div><p>Welcome</p>"#)])
            .run();
    }
}
