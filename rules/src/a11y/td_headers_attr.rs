//! `td-headers-attr`: every id in a cell's `headers` names another cell of the
//! same table (WCAG 1.3.1, ACT a25f45).

use scraper::ElementRef;

use crate::structure::is_html_tag;
use crate::table::{grid, owning_table};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks `headers` attributes of table cells.
pub struct TdHeadersAttr;

static META: RuleMeta = RuleMeta {
    id: "td-headers-attr",
    category: Category::Accessibility,
    title: "headers attributes point to cells of the same table",
    help: "Make every id in a cell's headers attribute the id of another cell (usually a <th>) in the same table.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/html/H43",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["a25f45"],
    docs: r#"## What it checks
For each cell (`td` or `th`) with a `headers` attribute in a `<table>` that is
visible, exposed to assistive technologies and has the role `table`, `grid` or
`treegrid`: every id in the attribute belongs to a cell of the same table, and
none is the cell's own id.

## Why it matters
Screen readers announce the headers a `headers` attribute names when reading a
cell. A reference to a missing id, an element that is not a cell, a cell of
another table, or the cell itself, announces nothing or nonsense.

## Failing
```html
<table><tr><th id="name">Name</th></tr><tr><td headers="nmae">Ada</td></tr></table>
```

## Passing
```html
<table><tr><th id="name">Name</th></tr><tr><td headers="name">Ada</td></tr></table>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for TdHeadersAttr {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["table"])
    }

    fn check_element(&self, table: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if !is_html_tag(table, "table")
            || !matches!(page.role(table), Some("table" | "grid" | "treegrid"))
            || page.is_hidden(table)
            || !page.is_visible(table)
        {
            return;
        }
        let g = grid(page, table);
        // Looked up per `headers` token: a scan of every cell each time was
        // quadratic in the table's size.
        let cell_ids: std::collections::HashSet<_> = g.cells.iter().map(|c| c.el.id()).collect();
        for cell in &g.cells {
            let Some(headers) = cell.el.value().attr("headers") else {
                continue;
            };
            let mut problems = Vec::new();
            for id in headers.split_ascii_whitespace() {
                match page.element_by_id(id) {
                    None => problems.push(format!("\"{id}\" matches no element")),
                    Some(target) if target.id() == cell.el.id() => {
                        problems.push(format!("\"{id}\" is the cell itself"))
                    }
                    Some(target) => {
                        let is_cell = cell_ids.contains(&target.id());
                        let same_table =
                            owning_table(page, target).is_some_and(|t| t.id() == table.id());
                        if !is_cell || !same_table {
                            problems.push(format!("\"{id}\" is not a cell of this table"));
                        }
                    }
                }
            }
            if problems.is_empty() {
                cx.pass();
            } else {
                cx.fail(
                    cell.el,
                    format!("headers=\"{headers}\": {}.", problems.join("; ")),
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
        RuleTester::new(&TdHeadersAttr)
            .pass(&[
                ("table", "<table><tr><th id=h1>P</th><th id=h2>O</th></tr><tr><td headers=h1>1</td><td headers='h1 h2'>2</td></tr></table>"),
            ])
            .inapplicable(&[
                "<table role=presentation><tr><td id=a>x</td></tr><tr><td headers=zz>1</td></tr></table>",
                "<table style='display:none'><tr><td headers=zz>1</td></tr></table>",
                "<table><tr><th scope=col>a</th></tr><tr><td>1</td></tr></table>",
            ])
            .fail(&[
                ("td", "<table><tr><th id=h1>P</th></tr><tr><td headers=hx>1</td></tr></table>"),
                ("td", "<table><tr><th id=h1>P</th></tr></table><table><tr><td headers=h1>1</td></tr></table>"),
                ("td", "<table><tr><th>E</th></tr><tr><td id=me headers=me>1</td></tr></table>"),
                ("html > body > table > tbody > tr:nth-child(2) > td", "<table><tr><td><span id=s>P</span></td></tr><tr><td headers=s>1</td></tr></table>"),
            ])
            .run();
    }
}
