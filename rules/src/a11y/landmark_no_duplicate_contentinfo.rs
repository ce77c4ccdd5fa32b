//! `landmark-no-duplicate-contentinfo`: at most one contentinfo landmark (best practice).

use crate::structure::at_most_one_landmark;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// At most one contentinfo landmark.
pub struct LandmarkNoDuplicateContentinfo;

static META: RuleMeta = RuleMeta {
    id: "landmark-no-duplicate-contentinfo",
    category: Category::Accessibility,
    title: "At most one contentinfo landmark",
    help: "Keep a single contentinfo landmark per page; turn the others into plain sections.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
The page exposes at most one element with the `contentinfo` landmark role (a
`<footer>` scoped to the body, or `role="contentinfo"`). Hidden landmarks are not
counted.

## Why it matters
Screen-reader users jump to the contentinfo landmark expecting one; several of them
make it unclear which holds what they look for.

## Failing
```html
<body><footer>One</footer><div role="contentinfo">Two</div></body>
```

## Passing
```html
<body><footer>One</footer><div>Two</div></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LandmarkNoDuplicateContentinfo {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        at_most_one_landmark(cx, "contentinfo");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LandmarkNoDuplicateContentinfo)
            .pass(&[
                ("(page)", r#"<footer>One</footer><div>Two</div>"#),
                ("(page)", r#"<footer>One</footer><div role=contentinfo hidden>Two</div>"#),
            ])
            .fail(&[("div", r#"<footer>One</footer><div role=contentinfo>Two</div>"#),
            ])
            .run();
    }
}
