//! `landmark-no-duplicate-main`: at most one main landmark (best practice).

use crate::structure::at_most_one_landmark;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// At most one main landmark.
pub struct LandmarkNoDuplicateMain;

static META: RuleMeta = RuleMeta {
    id: "landmark-no-duplicate-main",
    category: Category::Accessibility,
    title: "At most one main landmark",
    help: "Keep a single main landmark per page; turn the others into plain sections.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
The page exposes at most one element with the `main` landmark role (a
`<main>` scoped to the body, or `role="main"`). Hidden landmarks are not
counted.

## Why it matters
Screen-reader users jump to the main landmark expecting one; several of them
make it unclear which holds what they look for.

## Failing
```html
<body><main>One</main><div role="main">Two</div></body>
```

## Passing
```html
<body><main>One</main><div>Two</div></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LandmarkNoDuplicateMain {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        at_most_one_landmark(cx, "main");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LandmarkNoDuplicateMain)
            .pass(&[
                ("(page)", r#"<main>One</main><div>Two</div>"#),
                ("(page)", r#"<main>One</main><div role=main hidden>Two</div>"#),
            ])
            .fail(&[("div", r#"<main>One</main><div role=main>Two</div>"#),
            ])
            .run();
    }
}
