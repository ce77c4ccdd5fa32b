//! `aria-hidden-body`: `aria-hidden="true"` is not set on the body.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that the document `body` does not have `aria-hidden="true"`.
pub struct AriaHiddenBody;

static META: RuleMeta = RuleMeta {
    id: "aria-hidden-body",
    category: Category::Accessibility,
    title: "The page body is not hidden from assistive technology",
    help: "Remove aria-hidden from <body>; hide only the content that should be hidden.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    docs: r##"## What it checks
The `body` element does not carry `aria-hidden="true"`.

## Why it matters
It hides the whole page from screen readers while it stays visible and operable for everyone else.

## Failing
```html
<body aria-hidden="true"><p>Welcome</p></body>
```

## Passing
```html
<body><p>Welcome</p></body>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaHiddenBody {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["body"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if crate::dom::attr(el, "aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        {
            cx.fail(el, "The body has aria-hidden=\"true\": the whole page is hidden from assistive technology.");
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
        RuleTester::new(&AriaHiddenBody)
            .pass(&[
                ("body", r##"<html><body><p>x</p></body></html>"##),
                ("body", r##"<html><body aria-hidden=false><p>x</p></body></html>"##),
            ])
            .fail(&[("body", r##"<html><body aria-hidden=true><p>x</p></body></html>"##),
            ])
            .run();
    }
}
