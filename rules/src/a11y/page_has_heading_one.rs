//! `page-has-heading-one`: the page has a level-one heading (best practice).

use scraper::ElementRef;

use crate::structure::{heading_level, page_is_html};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that the page has at least one level-one heading.
pub struct PageHasHeadingOne;

static META: RuleMeta = RuleMeta {
    id: "page-has-heading-one",
    category: Category::Accessibility,
    title: "Page has a level-one heading",
    help: "Start the main content with an <h1> that says what the page is about.",
    help_url: "https://www.w3.org/WAI/tutorials/page-structure/headings/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
An HTML page contains an `h1` (or an element with `role="heading"`
and `aria-level="1"`) exposed to assistive technologies.

## Why it matters
Screen-reader users often jump to the first level-one heading to reach the main
content; without one they have to read through everything before it.

## Failing
```html
<html lang="en"><body><h2>Shoes</h2></body></html>
```

## Passing
```html
<html lang="en"><body><h1>Shoes</h1></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for PageHasHeadingOne {
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
        let h1 = page
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| heading_level(*e) == Some(1) && !page.is_hidden(*e));
        if let Some(h1) = h1 {
            cx.pass_on(h1);
        } else {
            cx.fail_page("The page has no level-one heading.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&PageHasHeadingOne)
            .pass(&[("h1", "<h1>a</h1>"), ("div", "<div role=heading aria-level=1>a</div>")])
            .fail(&[("(page)", "<h2>a</h2>"), ("(page)", "<p>nothing</p>"), ("(page)", "<h1 hidden>a</h1>")])
            .run();
    }
}
