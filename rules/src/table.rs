//! The table model the table rules share: HTML tables laid out on a grid of
//! slots (HTML's "forming a table", with `colspan` and `rowspan`), ARIA tables
//! (`role=table|grid|treegrid` with `row` and cell roles), and the header cells
//! assigned to each cell (HTML's "algorithm for assigning header cells":
//! the `headers` attribute, else column headers above and row headers to the left).

use std::collections::HashSet;

use ego_tree::NodeId;
use scraper::ElementRef;

use crate::structure::{is_html, is_html_tag, role_tokens};
use crate::PageContext;

/// One cell placed on the grid.
#[derive(Debug, Clone, Copy)]
pub struct Cell<'a> {
    /// The cell element (`td`, `th`, or an element with a cell role).
    pub el: ElementRef<'a>,
    /// First column.
    pub x: usize,
    /// First row.
    pub y: usize,
    /// Columns spanned (at least 1).
    pub width: usize,
    /// Rows spanned (at least 1).
    pub height: usize,
}

/// How a cell heads others, from its computed role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderKind {
    /// `columnheader`: heads the cells below it.
    Column,
    /// `rowheader`: heads the cells to its right.
    Row,
    /// A data cell.
    None,
}

/// A table's cells on a grid.
#[derive(Debug, Clone, Default)]
pub struct Grid<'a> {
    /// Cells in document (row, then column) order.
    pub cells: Vec<Cell<'a>>,
    /// Number of columns.
    pub width: usize,
    /// Number of rows.
    pub height: usize,
    /// The table's slots (columns × rows) would be more than
    /// [`MAX_GRID_SLOTS`]: the cells are all listed, but from the first cell
    /// past the limit on their positions ignore the slots taken by row spans,
    /// and [`assigned_headers`] assigns nothing. Rules that need the layout
    /// report such a table as cannot-tell.
    pub oversized: bool,
}

/// The most slots (columns × rows) a table is laid out on: a thousand by a
/// thousand. Larger tables exist only to hurt: `colspan` goes to 1000, so a
/// 30 KB table of a thousand rows under one row of wide cells would ask for a
/// billion slots.
pub const MAX_GRID_SLOTS: usize = 1 << 20;

fn span(el: ElementRef<'_>, name: &str, default: usize, max: usize) -> usize {
    el.value()
        .attr(name)
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map(|n| n.min(max))
        .unwrap_or(default)
}

/// The rows of an HTML table: `tr` children of the table and of its `thead`,
/// `tbody` and `tfoot` children, in document order.
fn html_rows(table: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    let mut rows = Vec::new();
    for child in table.children().filter_map(ElementRef::wrap) {
        if is_html_tag(child, "tr") {
            rows.push(child);
        } else if ["thead", "tbody", "tfoot"]
            .iter()
            .any(|t| is_html_tag(child, t))
        {
            rows.extend(
                child
                    .children()
                    .filter_map(ElementRef::wrap)
                    .filter(|r| is_html_tag(*r, "tr")),
            );
        }
    }
    rows
}

/// Lays out an HTML `<table>` on a grid (colspan up to 1000, rowspan up to
/// 65534; rowspan 0 extends to the last row).
pub fn html_grid(table: ElementRef<'_>) -> Grid<'_> {
    let rows = html_rows(table);
    let height = rows.len();
    let mut occupied: Vec<Vec<bool>> = vec![Vec::new(); height];
    // The widest extent of any cell: the grid's width.
    let mut wide = 0;
    let mut grid = Grid {
        height,
        ..Grid::default()
    };
    for (y, row) in rows.iter().enumerate() {
        let mut x = 0;
        for cell in row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| is_html_tag(*c, "td") || is_html_tag(*c, "th"))
        {
            while !grid.oversized && occupied[y].get(x).copied().unwrap_or(false) {
                x += 1;
            }
            let width = span(cell, "colspan", 1, 1000).max(1);
            let rowspan = span(cell, "rowspan", 1, 65534);
            let cell_height = if rowspan == 0 {
                height - y
            } else {
                rowspan.min(height - y)
            }
            .max(1);
            wide = wide.max(x + width);
            if !grid.oversized && wide.saturating_mul(height) > MAX_GRID_SLOTS {
                grid.oversized = true;
                // What was marked is no longer needed: free it now.
                occupied = Vec::new();
            }
            for row_slots in occupied.iter_mut().skip(y).take(cell_height) {
                if row_slots.len() < x + width {
                    row_slots.resize(x + width, false);
                }
                for slot in row_slots.iter_mut().skip(x).take(width) {
                    *slot = true;
                }
            }
            grid.cells.push(Cell {
                el: cell,
                x,
                y,
                width,
                height: cell_height,
            });
            x += width;
        }
    }
    grid.width = wide;
    grid
}

const CELL_ROLES: &[&str] = &["cell", "gridcell", "columnheader", "rowheader"];

/// Lays out an ARIA table (`role=table|grid|treegrid`): rows are descendants with
/// role `row` (not inside a nested table), cells their children with a cell role.
pub fn aria_grid<'a>(cx: &'a PageContext<'_>, table: ElementRef<'a>) -> Grid<'a> {
    let mut grid = Grid::default();
    let mut rows = Vec::new();
    let mut stack: Vec<ElementRef<'a>> = table
        .children()
        .filter_map(ElementRef::wrap)
        .rev()
        .collect();
    while let Some(el) = stack.pop() {
        let role = cx.role(el);
        if matches!(role, Some("table" | "grid" | "treegrid")) {
            continue;
        }
        if role == Some("row") {
            rows.push(el);
            continue;
        }
        stack.extend(el.children().filter_map(ElementRef::wrap).rev());
    }
    for (y, row) in rows.iter().enumerate() {
        let mut x = 0;
        for cell in row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| cx.role(*c).is_some_and(|r| CELL_ROLES.contains(&r)))
        {
            grid.cells.push(Cell {
                el: cell,
                x,
                y,
                width: 1,
                height: 1,
            });
            x += 1;
        }
        grid.width = grid.width.max(x);
    }
    grid.height = rows.len();
    grid
}

/// The grid of a table element, HTML or ARIA.
pub fn grid<'a>(cx: &'a PageContext<'_>, table: ElementRef<'a>) -> Grid<'a> {
    if is_html_tag(table, "table")
        && role_tokens(table)
            .first()
            .is_none_or(|r| matches!(r.as_str(), "table" | "grid" | "treegrid"))
    {
        html_grid(table)
    } else {
        aria_grid(cx, table)
    }
}

/// How `cell` heads others, from its computed role.
pub fn header_kind(cx: &PageContext<'_>, cell: ElementRef<'_>) -> HeaderKind {
    match cx.role(cell) {
        Some("columnheader") => HeaderKind::Column,
        Some("rowheader") => HeaderKind::Row,
        _ => HeaderKind::None,
    }
}

/// The nearest ancestor that is a table (`<table>` element or table role).
pub fn owning_table<'a>(cx: &PageContext<'_>, el: ElementRef<'a>) -> Option<ElementRef<'a>> {
    el.ancestors().filter_map(ElementRef::wrap).find(|a| {
        (is_html(*a) && a.value().name() == "table")
            || matches!(cx.role(*a), Some("table" | "grid" | "treegrid"))
    })
}

/// The header cells assigned to each cell of `grid`, as node ids, index-aligned
/// with `grid.cells`. Cells with a `headers` attribute get exactly the cells of
/// the grid it names; others get the column headers above them and the row
/// headers to their left (header cells included, as HTML assigns headers to
/// header cells too). Hidden header cells are skipped.
pub fn assigned_headers(cx: &PageContext<'_>, grid: &Grid<'_>) -> Vec<HashSet<NodeId>> {
    if grid.oversized {
        return vec![HashSet::new(); grid.cells.len()];
    }
    let mut slot: Vec<Vec<Option<usize>>> = vec![vec![None; grid.width]; grid.height];
    for (i, c) in grid.cells.iter().enumerate() {
        for row in slot.iter_mut().skip(c.y).take(c.height) {
            for s in row.iter_mut().skip(c.x).take(c.width) {
                *s = Some(i);
            }
        }
    }
    let kinds: Vec<HeaderKind> = grid
        .cells
        .iter()
        .map(|c| {
            if cx.is_hidden(c.el) {
                HeaderKind::None
            } else {
                header_kind(cx, c.el)
            }
        })
        .collect();
    let in_grid: HashSet<NodeId> = grid.cells.iter().map(|c| c.el.id()).collect();
    // The header slots of each column, top to bottom, and of each row, left to
    // right, listed once: scanning every row above and every slot to the left
    // per cell was quadratic in a tall or wide table.
    let mut column_heads: Vec<Vec<(usize, usize)>> = vec![Vec::new(); grid.width];
    let mut row_heads: Vec<Vec<(usize, usize)>> = vec![Vec::new(); grid.height];
    for (y, row) in slot.iter().enumerate() {
        for (x, s) in row.iter().enumerate() {
            let Some(j) = *s else {
                continue;
            };
            match kinds[j] {
                HeaderKind::Column => column_heads[x].push((y, j)),
                HeaderKind::Row => row_heads[y].push((x, j)),
                _ => {}
            }
        }
    }
    grid.cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut set = HashSet::new();
            if let Some(headers) = c.el.value().attr("headers") {
                for id in headers.split_ascii_whitespace() {
                    if let Some(target) = cx.element_by_id(id) {
                        if target.id() != c.el.id() && in_grid.contains(&target.id()) {
                            set.insert(target.id());
                        }
                    }
                }
                return set;
            }
            for heads in column_heads.iter().skip(c.x).take(c.width) {
                let above = heads.partition_point(|&(y, _)| y < c.y);
                for &(_, j) in &heads[..above] {
                    if j != i {
                        set.insert(grid.cells[j].el.id());
                    }
                }
            }
            for heads in row_heads.iter().skip(c.y).take(c.height) {
                let left = heads.partition_point(|&(x, _)| x < c.x);
                for &(_, j) in &heads[..left] {
                    if j != i {
                        set.insert(grid.cells[j].el.id());
                    }
                }
            }
            set
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Page;

    fn first_table<'a>(cx: &'a PageContext<'_>) -> ElementRef<'a> {
        cx.root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "table")
            .unwrap()
    }

    #[test]
    fn spans_are_laid_out() {
        let page = Page::from_html(
            "https://x.test/",
            "<table><tr><td rowspan=2>a</td><td colspan=2>b</td></tr><tr><td>c</td><td>d</td></tr></table>",
        );
        let cx = PageContext::parse(&page);
        let table = first_table(&cx);
        let g = html_grid(table);
        let pos: Vec<(usize, usize, usize, usize)> = g
            .cells
            .iter()
            .map(|c| (c.x, c.y, c.width, c.height))
            .collect();
        assert_eq!(
            pos,
            vec![(0, 0, 1, 2), (1, 0, 2, 1), (1, 1, 1, 1), (2, 1, 1, 1)]
        );
        assert_eq!((g.width, g.height), (3, 2));
    }

    /// A 30 KB table asking for a billion slots (a thousand rows under a row
    /// of a thousand cells each 1000 columns wide, one spanning every row) is
    /// listed whole but not laid out: nothing near the slots is allocated,
    /// and th-has-data-cells says it cannot tell.
    #[test]
    fn a_table_of_a_billion_slots_is_not_laid_out() {
        let mut html = String::from("<table><tr><th rowspan=0>h</th>");
        html.push_str(&"<td colspan=1000>x</td>".repeat(1000));
        html.push_str("</tr>");
        html.push_str(&"<tr><td>y</td></tr>".repeat(999));
        html.push_str("</table>");
        let page = Page::from_html("https://x.test/", &html);
        let cx = PageContext::parse(&page);
        let table = first_table(&cx);
        let g = html_grid(table);
        assert!(g.oversized);
        assert_eq!(g.height, 1000);
        assert_eq!(g.cells.len(), 1 + 1000 + 999);
        assert!(assigned_headers(&cx, &g).iter().all(HashSet::is_empty));

        let analysis = crate::analyze(&page, &[&crate::a11y::th_has_data_cells::ThHasDataCells]);
        let outcomes: Vec<_> = analysis
            .findings
            .iter()
            .map(|f| (f.outcome, f.selector.as_str()))
            .collect();
        assert_eq!(
            outcomes,
            [(
                crate::Outcome::CantTell,
                "html > body > table > tbody > tr:nth-child(1) > th"
            )]
        );
    }
}
