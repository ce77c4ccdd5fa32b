//! `table-duplicate-name`: a table's `<caption>` and `summary` differ (best practice).

use scraper::ElementRef;

use crate::dom::normalized_text;
use crate::structure::{is_html, is_html_tag};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Flags tables whose `summary` repeats the caption.
pub struct TableDuplicateName;

static META: RuleMeta = RuleMeta {
    id: "table-duplicate-name",
    category: Category::Accessibility,
    title: "Table caption and summary differ",
    help: "Let the caption name the table and the summary describe its structure, or drop the summary.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/html/H73",
    impact: Impact::Minor,
    best_practice: true,
    docs: r#"## What it checks
A `<table>` with both a non-empty `<caption>` and a `summary` attribute does not
use the same text (compared case-insensitively, white space folded) for both.

## Why it matters
Screen readers announce both: the same text twice is noise, and the summary no
longer explains how the table is organised.

## Failing
```html
<table summary="Prices"><caption>Prices</caption><tr><td>1</td></tr></table>
```

## Passing
```html
<table summary="One row per product, one column per size"><caption>Prices</caption><tr><td>1</td></tr></table>
```
"#,
    ..RuleMeta::BASE
};

fn fold(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Rule for TableDuplicateName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["table"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(summary) = el
            .value()
            .attr("summary")
            .map(fold)
            .filter(|s| !s.is_empty())
        else {
            return;
        };
        let caption = el
            .children()
            .filter_map(ElementRef::wrap)
            .find(|c| is_html_tag(*c, "caption"))
            .map(|c| fold(&normalized_text(c)))
            .filter(|c| !c.is_empty());
        let Some(caption) = caption else {
            return;
        };
        if caption == summary {
            cx.fail(el, "The table's summary repeats its caption.");
        } else {
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
        RuleTester::new(&TableDuplicateName)
            .pass(&[
                ("table", "<table summary='Rows are products'><caption>Prices</caption><tr><td>1</td></tr></table>"),
            ])
            .inapplicable(&[
                "<table><caption>Prices</caption><tr><td>1</td></tr></table>",
            ])
            .fail(&[("table", "<table summary=' prices '><caption>Prices</caption><tr><td>1</td></tr></table>"),
            ])
            .run();
    }
}
