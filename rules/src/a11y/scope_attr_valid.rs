//! `scope-attr-valid`: `scope` is used on `<th>` only, with a valid value (WCAG 1.3.1).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks every `scope` attribute.
pub struct ScopeAttrValid;

static META: RuleMeta = RuleMeta {
    id: "scope-attr-valid",
    category: Category::Accessibility,
    title: "scope attributes are used correctly",
    help: "Use scope only on <th>, with one of row, col, rowgroup or colgroup.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/html/H63",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Moderate,
    docs: r#"## What it checks
Every HTML element with a `scope` attribute is a `<th>`, and the value is one of
`row`, `col`, `rowgroup` or `colgroup` (case-insensitive).

## Why it matters
Screen readers use `scope` to tell which data cells a header describes. A scope
on a data cell, or a misspelled value, gives wrong or no header announcements.

## Failing
```html
<table><tr><td scope="col">Name</td></tr><tr><td>Ada</td></tr></table>
```

## Passing
```html
<table><tr><th scope="col">Name</th></tr><tr><td>Ada</td></tr></table>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for ScopeAttrValid {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(scope) = crate::dom::plain_attr(el, "scope") else {
            return;
        };
        if !is_html(el) {
            return;
        }
        let name = el.value().name();
        if name != "th" {
            cx.fail(
                el,
                format!("scope is only meaningful on <th>, not on <{name}>."),
            );
            return;
        }
        let value = scope.trim().to_ascii_lowercase();
        if matches!(value.as_str(), "row" | "col" | "rowgroup" | "colgroup") {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("scope=\"{scope}\" is not one of row, col, rowgroup, colgroup."),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ScopeAttrValid)
            .pass(&[("th", "<table><tr><th scope=COL>a</th><th scope=rowgroup>b</th></tr></table>")])
            .fail(&[
                ("td", "<table><tr><td scope=col>a</td></tr></table>"),
                ("th", "<table><tr><th scope=column>a</th></tr></table>"),
            ])
            .run();
    }
}
