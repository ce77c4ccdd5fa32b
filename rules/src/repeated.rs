//! Blocks of repeated content and where the page's own content starts: the facts
//! the bypass rules (WCAG 2.4.1) stand on.
//!
//! Which content repeats across pages cannot be known from one page, so this
//! module uses the markers authors and the ACT examples use: content inside a
//! `banner`, `navigation`, `complementary`, `contentinfo` or `search` landmark, and
//! links that stand on their own (not inside running text such as a paragraph or
//! table cell) are *repeated*. The page's perceivable content is split into units
//! (non-white-space text that is visible or exposed, images with a text
//! alternative). The *main start* is the first unit that is not repeated and comes
//! after at least one repeated unit: the content a bypass mechanism must reach. A
//! page with no repeated unit before its own content needs no bypass.

use ego_tree::NodeId;
use scraper::{ElementRef, Node};

use crate::structure::{ancestors, is_html};
use crate::PageContext;

/// Landmark roles whose content counts as repeated.
const REPEATED_LANDMARKS: &[&str] = &[
    "banner",
    "navigation",
    "complementary",
    "contentinfo",
    "search",
];

/// Inline elements a link may sit in inside running text.
const INLINE: &[&str] = &[
    "span", "em", "strong", "b", "i", "small", "code", "abbr", "cite", "mark", "q", "sub", "sup",
    "u", "s", "label", "time", "bdi", "bdo", "kbd", "samp", "var", "dfn", "data",
];

/// Elements that hold running text: a link inside one is part of the content.
const TEXT_BLOCKS: &[&str] = &[
    "p",
    "td",
    "th",
    "dd",
    "blockquote",
    "figcaption",
    "caption",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
];

/// One perceivable piece of content, in document order.
#[derive(Debug, Clone, Copy)]
pub struct Unit {
    /// The text node or image.
    pub node: NodeId,
    /// Its element (the text's parent, or the image).
    pub element: NodeId,
    /// Whether it belongs to a block of repeated content.
    pub repeated: bool,
}

/// The page's content units and where its own content starts.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Every perceivable unit in document order.
    pub units: Vec<Unit>,
    /// Index in `units` of the first repeated unit.
    pub first_repeated: Option<usize>,
    /// Index in `units` of the main start (first non-repeated unit after a
    /// repeated one).
    pub main_start: Option<usize>,
}

/// Whether `el` (or an ancestor) is a repeated-content landmark or a standalone link.
pub fn in_repeated_block(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    let mut chain = std::iter::once(el).chain(ancestors(el));
    chain.any(|a| {
        cx.role(a).is_some_and(|r| REPEATED_LANDMARKS.contains(&r))
            || (is_html(a)
                && a.value().name() == "a"
                && a.value().attr("href").is_some()
                && standalone_link(a))
            || (is_html(a)
                && a.value().name() == "a"
                && a.value().attr("href").is_none()
                && link_list_item(a))
    })
}

/// A link that is not part of running text.
fn standalone_link(link: ElementRef<'_>) -> bool {
    for a in ancestors(link) {
        let name = a.value().name();
        if INLINE.contains(&name) {
            continue;
        }
        return !TEXT_BLOCKS.contains(&name);
    }
    true
}

/// An `a` without `href` inside a list of links (a "current page" entry of a menu).
fn link_list_item(a: ElementRef<'_>) -> bool {
    ancestors(a)
        .find(|p| p.value().name() == "li")
        .and_then(|li| li.parent().and_then(ElementRef::wrap))
        .is_some_and(|list| {
            list.descendants()
                .filter_map(ElementRef::wrap)
                .any(|e| e.value().name() == "a" && e.value().attr("href").is_some())
        })
}

/// The layout of the page's `<body>`, computed on first use and cached on the
/// [`PageContext`] (several rules need it; computing it walks every text node).
pub fn layout<'c>(cx: &'c PageContext<'_>) -> &'c Layout {
    cx.layout_cell().get_or_init(|| compute_layout(cx))
}

/// Computes the layout of the page's `<body>`.
fn compute_layout(cx: &PageContext<'_>) -> Layout {
    let mut out = Layout::default();
    let Some(body) = cx
        .root()
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "body")
    else {
        return out;
    };
    for node in body.descendants() {
        let (element, perceivable) = match node.value() {
            Node::Text(t) if !t.trim().is_empty() => {
                let Some(parent) = node.parent().and_then(ElementRef::wrap) else {
                    continue;
                };
                if matches!(
                    parent.value().name(),
                    "script" | "style" | "template" | "noscript" | "title"
                ) {
                    continue;
                }
                (parent, cx.is_visible(parent) || !cx.is_hidden(parent))
            }
            Node::Element(e) if e.name() == "img" => {
                let Some(img) = ElementRef::wrap(node) else {
                    continue;
                };
                let alt = e.attr("alt").is_some_and(|a| !a.trim().is_empty());
                (img, alt && !cx.is_hidden(img))
            }
            _ => continue,
        };
        if !perceivable {
            continue;
        }
        let repeated = in_repeated_block(cx, element);
        let index = out.units.len();
        out.units.push(Unit {
            node: node.id(),
            element: element.id(),
            repeated,
        });
        if repeated && out.first_repeated.is_none() {
            out.first_repeated = Some(index);
        }
        if !repeated && out.first_repeated.is_some() && out.main_start.is_none() {
            out.main_start = Some(index);
        }
    }
    out
}

/// Document-order position of every node (for "comes after" comparisons).
pub fn document_order(cx: &PageContext<'_>) -> std::collections::HashMap<NodeId, usize> {
    cx.root()
        .descendants()
        .enumerate()
        .map(|(i, n)| (n.id(), i))
        .collect()
}

/// Whether a bypass is needed: some of the page's own content comes after
/// repeated content.
pub fn needs_bypass(layout: &Layout) -> bool {
    layout.main_start.is_some()
}

/// Landmark mechanism (ACT b40fd1): an exposed landmark contains a non-repeated
/// unit that comes after repeated content.
pub fn landmark_reaches_main(cx: &PageContext<'_>, layout: &Layout) -> bool {
    let Some(first) = layout.first_repeated else {
        return true;
    };
    layout.units[first..]
        .iter()
        .filter(|u| !u.repeated)
        .any(|u| {
            cx.element(u.element).is_some_and(|el| {
                std::iter::once(el).chain(ancestors(el)).any(|a| {
                    cx.role(a).is_some_and(crate::aria::roles::is_landmark) && !cx.is_hidden(a)
                })
            })
        })
}

/// Heading mechanism (ACT 047fe0): a visible, exposed heading outside repeated
/// content comes after the first repeated unit.
pub fn heading_reaches_main(cx: &PageContext<'_>, layout: &Layout) -> bool {
    let Some(first) = layout.first_repeated else {
        return true;
    };
    let order = document_order(cx);
    let first_pos = order.get(&layout.units[first].node).copied().unwrap_or(0);
    cx.root()
        .descendants()
        .filter_map(ElementRef::wrap)
        .any(|el| {
            cx.role(el) == Some("heading")
                && order.get(&el.id()).copied().unwrap_or(0) > first_pos
                && cx.is_visible(el)
                && !cx.is_hidden(el)
                && !in_repeated_block(cx, el)
        })
}

/// Skip-link mechanism (ACT ye5d6e): a focusable same-page link before the main
/// start whose target is just before the main start (the first unit at or after
/// the target is the main start).
pub fn skip_link_target<'a>(cx: &'a PageContext<'_>, layout: &Layout) -> Option<ElementRef<'a>> {
    let main = layout.main_start?;
    let order = document_order(cx);
    let main_pos = order.get(&layout.units[main].node).copied()?;
    cx.root()
        .descendants()
        .filter_map(ElementRef::wrap)
        .find(|link| {
            if !(is_html(*link) && matches!(link.value().name(), "a" | "area")) {
                return false;
            }
            let Some(fragment) = link.value().attr("href").and_then(|h| h.strip_prefix('#')) else {
                return false;
            };
            if fragment.is_empty()
                || order.get(&link.id()).copied().unwrap_or(usize::MAX) > main_pos
            {
                return false;
            }
            if !cx.is_focusable(*link) {
                return false;
            }
            let Some(target) = cx.element_by_id(fragment) else {
                return false;
            };
            let target_pos = order.get(&target.id()).copied().unwrap_or(usize::MAX);
            let next = layout
                .units
                .iter()
                .position(|u| order.get(&u.node).copied().unwrap_or(0) >= target_pos);
            next == Some(main)
        })
}
