//! `seo-title`: one `<title>` of a length search results can show.

use crate::dom::normalized_text;
use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks the count and length of the page's `<title>` for search results.
pub struct SeoTitle;

/// Shortest title length (characters) that describes a page (seonaut's threshold).
pub const MIN_CHARS: usize = 20;
/// Longest title length (characters) search results show uncut (seonaut's threshold).
pub const MAX_CHARS: usize = 60;

static META: RuleMeta = RuleMeta {
    id: "seo-title",
    category: Category::Seo,
    title: "Page has one title of a useful length",
    help: "Give each page exactly one <title> of 20 to 60 characters that names the page and the site.",
    help_url: "https://developers.google.com/search/docs/appearance/title-link",
    impact: Impact::Moderate,
    docs: r#"## What it checks
HTML pages (2xx) have exactly one non-empty `<title>` in the document (SVG titles
excluded), and its text, white space folded, is between 20 and 60 characters long
(seonaut's thresholds; search results cut longer titles at about 600 pixels). A
missing title is left to the accessibility rule `document-title`; an empty one, a
second one, or a title outside the length range fails here.

## Why it matters
The title is the headline of the search result and the main signal of what the page
is about. Too short says nothing; too long is cut off; two titles leave the choice to
the search engine.

## Failing
```html
<html lang="en"><head><title>Home</title></head><body></body></html>
```

## Passing
```html
<html lang="en"><head><title>Hand-made ceramic mugs – Example Pottery</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for SeoTitle {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let titles: Vec<_> = select(pcx, selector!("title"))
            .filter(|t| &*t.value().name.ns == "http://www.w3.org/1999/xhtml")
            .collect();
        let Some(first) = titles.first().copied() else {
            return;
        };
        if titles.len() > 1 {
            cx.fail(
                titles[1],
                format!("The page has {} <title> elements; keep one.", titles.len()),
            );
            return;
        }
        let text = normalized_text(first);
        let n = text.chars().count();
        if n == 0 {
            cx.fail(first, "The <title> is empty.");
        } else if n < MIN_CHARS {
            cx.fail(
                first,
                format!("The title is {n} characters long; use at least {MIN_CHARS}."),
            )
            .with_data(serde_json::json!({"length": n, "min": MIN_CHARS, "max": MAX_CHARS}));
        } else if n > MAX_CHARS {
            cx.fail(first, format!("The title is {n} characters long; search results cut it after about {MAX_CHARS}."))
                .with_data(serde_json::json!({"length": n, "min": MIN_CHARS, "max": MAX_CHARS}));
        } else {
            cx.pass_on(first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&SeoTitle)
            .pass(&[
                ("title", "<html><head><title>Hand-made ceramic mugs – Example Pottery</title></head></html>"),
            ])
            .inapplicable(&[
                "<html><head></head><body>no title is document-title's business</body></html>",
            ])
            .fail(&[
                ("title", "<html><head><title>Home</title></head></html>"),
                ("title", "<html><head><title> </title></head></html>"),
                ("title", &format!("<html><head><title>{}</title></head></html>", "word ".repeat(20))),
                ("html > head > title:nth-child(2)", "<html><head><title>Hand-made ceramic mugs – Example</title><title>Second title of the page here</title></head></html>"),
            ])
            .run();
    }
}
