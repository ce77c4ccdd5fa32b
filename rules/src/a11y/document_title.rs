//! `document-title`: the page has a non-empty `<title>` (WCAG 2.4.2, ACT 2779a5).

use scraper::ElementRef;

use crate::dom::normalized_text;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that an HTML page has a non-empty `<title>` as its first title element.
pub struct DocumentTitle;

static META: RuleMeta = RuleMeta {
    id: "document-title",
    category: Category::Accessibility,
    title: "Page has a title",
    help: "Give the page a <title> in <head> that says what the page is about.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/page-titled.html",
    wcag: &["2.4.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["2779a5"],
    docs: r#"## What it checks
The document has a `title` element whose text is not only white space. Only the
first `title` in the document counts, as browsers use only that one.

## Why it matters
The title is the first thing screen readers announce and what tabs, bookmarks and
search results show. Without it people cannot tell pages apart.

## Failing
```html
<html lang="en"><head></head><body><p>Hello</p></body></html>
```

## Passing
```html
<html lang="en"><head><title>Order history – Example Shop</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for DocumentTitle {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if !page.page().is_html() {
            return;
        }
        // Titles inside <svg> are SVG titles, not the document's.
        let title = page
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| {
                e.value().name() == "title" && &*e.value().name.ns == "http://www.w3.org/1999/xhtml"
            });
        match title {
            None => {
                cx.fail_page("The page has no <title> element.");
            }
            Some(t) if normalized_text(t).is_empty() => {
                cx.fail(t, "The page's <title> is empty.");
            }
            Some(t) => cx.pass_on(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&DocumentTitle)
            .pass(&[
                ("title", "<html><head><title>Shop</title></head><body></body></html>"),
                ("title", "<html><head><title>A</title><title></title></head></html>"),
            ])
            .fail(&[
                ("(page)", "<html><head></head><body><p>x</p></body></html>"),
                ("title", "<html><head><title>  </title></head></html>"),
                ("(page)", "<html><body><svg><title>Only SVG</title></svg></body></html>"),
            ])
            .run();
    }
}
