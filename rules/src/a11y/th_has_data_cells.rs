//! `th-has-data-cells`: every table header heads at least one cell (WCAG 1.3.1,
//! ACT d0f69e).

use std::collections::HashSet;

use ego_tree::NodeId;
use scraper::ElementRef;

use crate::table::{assigned_headers, grid, header_kind, HeaderKind, MAX_GRID_SLOTS};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that column and row headers have cells assigned to them.
pub struct ThHasDataCells;

static META: RuleMeta = RuleMeta {
    id: "th-has-data-cells",
    category: Category::Accessibility,
    title: "Table headers have cells to head",
    help: "Remove header cells that head no cell, or add the cells they describe; check headers attributes do not bypass them.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["d0f69e"],
    docs: r#"## What it checks
In every table (`<table>` or an element with role `table`, `grid` or
`treegrid`) exposed to assistive technologies, each cell with role
`columnheader` or `rowheader` that is exposed is assigned to at least one other
cell: by position (cells below a column header, to the right of a row header)
or by a `headers` attribute. A cell with a `headers` attribute is assigned only
the headers it names.

## Why it matters
A header that describes nothing misleads screen-reader users navigating the
table, and usually means columns or rows are missing or mis-marked.

## Failing
```html
<table><tr><th>Rate</th><th>Value</th></tr><tr><td>15%</td></tr></table>
```

## Passing
```html
<table><tr><th>Rate</th><th>Value</th></tr><tr><td>15%</td><td>3</td></tr></table>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for ThHasDataCells {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, table: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if !matches!(page.role(table), Some("table" | "grid" | "treegrid")) || page.is_hidden(table)
        {
            return;
        }
        let g = grid(page, table);
        if g.oversized {
            for cell in &g.cells {
                if header_kind(page, cell.el) != HeaderKind::None && !page.is_hidden(cell.el) {
                    cx.cant_tell(
                        cell.el,
                        format!(
                            "This table is too large to lay out (over {MAX_GRID_SLOTS} slots), \
                             so whether this header is assigned to a cell was not checked."
                        ),
                    );
                }
            }
            return;
        }
        let assigned = assigned_headers(page, &g);
        let used: HashSet<NodeId> = assigned.iter().flatten().copied().collect();
        for cell in &g.cells {
            if header_kind(page, cell.el) == HeaderKind::None || page.is_hidden(cell.el) {
                continue;
            }
            if used.contains(&cell.el.id()) {
                cx.pass();
            } else {
                cx.fail(cell.el, "This table header is not assigned to any cell.");
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
        RuleTester::new(&ThHasDataCells)
            .pass(&[
                ("table", "<table><tr><th>Time</th></tr><tr><td>05:41</td></tr></table>"),
                ("table", "<table><thead><tr><th>P</th><th>E</th></tr></thead><tbody><tr><td colspan=2>15%</td></tr></tbody></table>"),
                ("table", "<table><tr><th id=c1>C</th><th id=c2>N</th></tr><tr><td>Paris</td></tr><tr><td headers=c2>1</td></tr></table>"),
                ("div", "<div role=table aria-label=T><div role=row><span role=columnheader>M</span></div><div role=row><span role=cell>July</span></div></div>"),
            ])
            .inapplicable(&[
                "<table role=presentation><tr><th>Time</th></tr></table>",
                "<table><tr><th aria-hidden=true>O</th></tr><tr><td>W3C</td></tr></table>",
            ])
            .fail(&[
                ("html > body > table > thead > tr > th:nth-child(2)", "<table><thead><tr><th>Rate</th><th>Value</th></tr></thead><tbody><tr><td>15%</td></tr></tbody></table>"),
                ("#c2", "<table><tr><th id=c1>C</th><th id=c2>Z</th></tr><tr><td>Zambia</td><td headers=c1>Zim</td></tr></table>"),
                ("html > body > div > div:nth-child(1) > div:nth-child(2)", "<div role=grid><div role=row><div role=columnheader>Room</div><div role=columnheader>Occupant</div></div><div role=row><div role=gridcell>1A</div></div></div>"),
            ])
            .run();
    }
}
