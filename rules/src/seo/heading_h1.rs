//! `heading-h1`: the page has exactly one non-empty `<h1>`.

use crate::dom::normalized_text;
use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks the page's `<h1>` elements.
pub struct HeadingH1;

static META: RuleMeta = RuleMeta {
    id: "heading-h1",
    category: Category::Seo,
    title: "Page has one main heading",
    help: "Give each page exactly one <h1> that states its topic.",
    help_url: "https://developers.google.com/search/docs/appearance/title-link#page-titles",
    impact: Impact::Moderate,
    defers_to: &["page-has-heading-one", "empty-heading"],
    docs: r#"## What it checks
HTML pages (2xx) have exactly one `<h1>` and its text (or, for an `<h1>` holding
only images, their `alt`) is not empty. Missing, empty and repeated `<h1>` fail
(seonaut's `ERROR_NO_H1`; Screaming Frog's "Multiple" H1 filter).

**Ownership:** a missing `<h1>` is owned by the accessibility rule
`page-has-heading-one` and an empty one by `empty-heading`: when they run and
report the page (or the heading), this rule's finding is dropped, so the
problem is reported once. Repeated `<h1>` stay this rule's own.

## Why it matters
The main heading is a strong signal of the page's topic for search engines and
tells readers at a glance where they are; several competing `<h1>` dilute it.

## Failing
```html
<body><h2>Our mugs</h2><p>…</p></body>
```

## Passing
```html
<body><h1>Hand-made ceramic mugs</h1><p>…</p></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HeadingH1 {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let h1s: Vec<_> = select(pcx, selector!("h1")).collect();
        match h1s.as_slice() {
            [] => {
                cx.fail_page("The page has no <h1>.");
            }
            [one] => {
                let alt = one
                    .select(selector!("img[alt]"))
                    .filter_map(|i| i.value().attr("alt"))
                    .any(|a| !a.trim().is_empty());
                if normalized_text(*one).is_empty() && !alt {
                    cx.fail(*one, "The <h1> is empty.");
                } else {
                    cx.pass_on(*one);
                }
            }
            [_, second, ..] => {
                cx.fail(
                    *second,
                    format!(
                        "The page has {} <h1> elements; keep one main heading.",
                        h1s.len()
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&HeadingH1)
            .pass(&[
                ("h1", "<h1>Hand-made mugs</h1><h2>Sizes</h2>"),
                ("h1", r#"<h1><img src="logo.svg" alt="Example Pottery"></h1>"#),
            ])
            .fail(&[("(page)", "<h2>No h1</h2>"), ("h1", "<h1> </h1>"), ("html > body > h1:nth-child(2)", "<h1>One</h1><h1>Two</h1>"),
            ])
            .run();
    }
}
