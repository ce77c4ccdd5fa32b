//! `landmark-no-duplicate-banner`: at most one banner landmark (best practice).

use crate::structure::at_most_one_landmark;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// At most one banner landmark.
pub struct LandmarkNoDuplicateBanner;

static META: RuleMeta = RuleMeta {
    id: "landmark-no-duplicate-banner",
    category: Category::Accessibility,
    title: "At most one banner landmark",
    help: "Keep a single banner landmark per page; turn the others into plain sections.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
The page exposes at most one element with the `banner` landmark role (a
`<header>` scoped to the body, or `role="banner"`). Hidden landmarks are not
counted.

## Why it matters
Screen-reader users jump to the banner landmark expecting one; several of them
make it unclear which holds what they look for.

## Failing
```html
<body><header>One</header><div role="banner">Two</div></body>
```

## Passing
```html
<body><header>One</header><div>Two</div></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LandmarkNoDuplicateBanner {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        at_most_one_landmark(cx, "banner");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LandmarkNoDuplicateBanner)
            .pass(&[
                ("(page)", r#"<header>One</header><div>Two</div>"#),
                ("(page)", r#"<header>One</header><div role=banner hidden>Two</div>"#),
            ])
            .fail(&[("div", r#"<header>One</header><div role=banner>Two</div>"#),
            ])
            .run();
    }
}
