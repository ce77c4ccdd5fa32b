//! `region`: all content is inside landmarks (best practice).

use scraper::ElementRef;

use crate::repeated::layout;
use crate::structure::{ancestors, is_html_tag, page_is_html, AncestorMemo};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// All content is inside landmarks.
pub struct Region;

static META: RuleMeta = RuleMeta {
    id: "region",
    category: Category::Accessibility,
    title: "All content is inside landmarks",
    help: "Put all visible content inside landmarks (header, nav, main, aside, footer).",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
Every perceivable piece of content in `<body>` (visible or exposed text, images
with a text alternative) is inside an exposed landmark. A skip link (a link to
`#id` on the same page) is allowed outside. Each top-level block holding content
outside landmarks is reported once.

## Why it matters
Screen-reader users who navigate by landmarks miss content that sits outside all
of them.

## Failing
```html
<body><main><p>Welcome</p></main><p>Stray text</p></body>
```

## Passing
```html
<body><main><p>Welcome</p></main><footer><p>Contact</p></footer></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Region {
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
        let Some(body) = page
            .root()
            .children()
            .filter_map(ElementRef::wrap)
            .find(|e| is_html_tag(*e, "body"))
        else {
            return;
        };
        let l = layout(page);
        let mut reported: Vec<ego_tree::NodeId> = Vec::new();
        let mut any = false;
        // Units share most of their ancestors: each element is judged once.
        let mut in_landmark = AncestorMemo::new(|a| {
            page.role(a).is_some_and(crate::aria::roles::is_landmark) && !page.is_hidden(a)
        });
        let mut in_skip_link = AncestorMemo::new(|a| {
            a.value().name() == "a"
                && a.value()
                    .attr("href")
                    .is_some_and(|h| h.starts_with('#') && h.len() > 1)
        });
        for unit in &l.units {
            let Some(el) = page.element(unit.element) else {
                continue;
            };
            any = true;
            if in_landmark.any(el) || in_skip_link.any(el) {
                continue;
            }
            let chain: Vec<ElementRef<'_>> = std::iter::once(el).chain(ancestors(el)).collect();
            // Report the outermost block below <body>.
            let top = chain
                .iter()
                .copied()
                .take_while(|a| a.id() != body.id())
                .last()
                .unwrap_or(el);
            if !reported.contains(&top.id()) {
                reported.push(top.id());
                cx.fail(top, "This content is not inside any landmark.");
            }
        }
        if any && reported.is_empty() {
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
        RuleTester::new(&Region)
            .pass(&[
                ("(page)", r#"<main><p>Welcome</p></main><footer><p>Contact</p></footer>"#),
                ("(page)", r#"<a href=#m>Skip</a><main id=m><p>Welcome</p></main>"#),
            ])
            .fail(&[
                ("html > body > p", r#"<main><p>Welcome</p></main><p>Stray</p>"#),
                ("div", r#"<div><p>No landmarks</p></div>"#),
            ])
            .run();
    }
}
