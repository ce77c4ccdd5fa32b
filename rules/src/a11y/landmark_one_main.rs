//! `landmark-one-main`: page has a main landmark (best practice).

use crate::structure::{landmarks, page_is_html};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Page has a main landmark.
pub struct LandmarkOneMain;

static META: RuleMeta = RuleMeta {
    id: "landmark-one-main",
    category: Category::Accessibility,
    title: "Page has a main landmark",
    help: "Wrap the page's main content in a <main> element.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
An HTML page with a `<body>` exposes at least one element with the `main`
landmark role (`<main>` or `role="main"`).

## Why it matters
The main landmark is where screen-reader users jump to skip headers and
navigation.

## Failing
```html
<body><div><p>Welcome</p></div></body>
```

## Passing
```html
<body><main><p>Welcome</p></main></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LandmarkOneMain {
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
        if let Some((main, _)) = landmarks(page).into_iter().find(|(_, r)| *r == "main") {
            cx.pass_on(main);
        } else {
            cx.fail_page("The page has no main landmark.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LandmarkOneMain)
            .pass(&[
                ("main", r#"<main><p>Welcome</p></main>"#),
                ("div", r#"<div role=main><p>Welcome</p></div>"#),
            ])
            .fail(&[
                ("(page)", r#"<div><p>Welcome</p></div>"#),
                ("(page)", r#"<main hidden><p>x</p></main><p>Welcome</p>"#),
            ])
            .run();
    }
}
