//! `heading-order`: heading levels increase by one at a time (best practice).

use scraper::ElementRef;

use crate::structure::heading_level;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Flags headings that skip levels after the previous heading.
pub struct HeadingOrder;

static META: RuleMeta = RuleMeta {
    id: "heading-order",
    category: Category::Accessibility,
    title: "Heading levels only increase by one",
    help: "Do not skip heading levels: follow an <h2> with an <h3>, not an <h4>. Style headings with CSS instead.",
    help_url: "https://www.w3.org/WAI/tutorials/page-structure/headings/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
In document order, each heading's level is at most one deeper than the previous
heading's (`h2` then `h4` fails; `h4` then `h2` is fine). Headings not exposed to
assistive technologies (`hidden`, `aria-hidden="true"`, `display: none`, …)
are skipped.

## Why it matters
Screen-reader users navigate by heading level to understand how a page is
organised. A skipped level suggests missing content and breaks that outline.

## Failing
```html
<h1>Shop</h1><h3>Shoes</h3>
```

## Passing
```html
<h1>Shop</h1><h2>Shoes</h2>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HeadingOrder {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let mut previous: Option<u32> = None;
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            let Some(level) = heading_level(el) else {
                continue;
            };
            if page.is_hidden(el) {
                continue;
            }
            match previous {
                Some(prev) if level > prev + 1 => {
                    cx.fail(
                        el,
                        format!("Heading level {level} follows level {prev}, skipping a level."),
                    );
                }
                _ => cx.pass_on(el),
            }
            previous = Some(level);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&HeadingOrder)
            .pass(&[
                ("h1", "<h1>a</h1><h2>b</h2><h3>c</h3><h2>d</h2>"),
                ("h2", "<h2>a</h2><h1>b</h1>"),
                ("h1", "<h1>a</h1><h3 hidden>x</h3><h2>b</h2>"),
                ("h1", "<h1>a</h1><h4 style='display:none'>x</h4><h2>b</h2>"),
                ("h1", "<h1>a</h1><div role=heading>b</div>"),
            ])
            .fail(&[
                ("h3", "<h1>a</h1><h3>b</h3>"),
                ("div", "<h1>a</h1><div role=heading aria-level=4>b</div>"),
            ])
            .run();
    }
}
