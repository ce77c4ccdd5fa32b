//! Blocks of repeated content and where the page's own content starts: the facts
//! the bypass rules (WCAG 2.4.1) stand on.
//!
//! Which content repeats across pages cannot be known from one page, so this
//! module uses the markers authors and the ACT examples use: content inside a
//! `banner`, `navigation`, `complementary`, `contentinfo` or `search` landmark, and
//! links and buttons that stand on their own (not inside running text such as a
//! paragraph or table cell) are *repeated*. The page's perceivable content is split into units
//! (non-white-space text that is visible or exposed, images with a text
//! alternative). The *main start* is the first unit that is not repeated and comes
//! after at least one repeated unit: the content a bypass mechanism must reach. A
//! page with no repeated unit before its own content needs no bypass.

use std::sync::OnceLock;

use ego_tree::NodeId;
use rustc_hash::FxHashMap;
use scraper::{ElementRef, Node};

use crate::structure::{ancestors, is_html, AncestorMemo};
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
    /// Document-order positions of every node, made on first use.
    order: OnceLock<FxHashMap<NodeId, usize>>,
    /// The bypass mechanisms' answers: several rules ask each of them.
    landmark: OnceLock<bool>,
    heading: OnceLock<bool>,
    skip_link: OnceLock<Option<NodeId>>,
}

impl Layout {
    /// The document-order position of a node of the page (`None` for another
    /// document's).
    fn position(&self, cx: &PageContext<'_>, node: NodeId) -> Option<usize> {
        let order = self.order.get_or_init(|| {
            cx.root()
                .descendants()
                .enumerate()
                .map(|(i, n)| (n.id(), i))
                .collect()
        });
        order.get(&node).copied()
    }
}

/// Whether `el` (or an ancestor) is a repeated-content landmark, or a link or
/// button standing on its own.
pub fn in_repeated_block(cx: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    let mut chain = std::iter::once(el).chain(ancestors(el));
    chain.any(|a| repeats(cx, a))
}

/// Whether `a` itself is a repeated-content landmark or a standalone link (see
/// [`in_repeated_block`]).
fn repeats(cx: &PageContext<'_>, a: ElementRef<'_>) -> bool {
    cx.role(a).is_some_and(|r| REPEATED_LANDMARKS.contains(&r))
        || (is_html(a)
            && a.value().name() == "a"
            && crate::dom::attr(a, "href").is_some()
            && standalone_link(a))
        || (is_html(a)
            && a.value().name() == "a"
            && crate::dom::attr(a, "href").is_none()
            && link_list_item(a))
        // A button standing on its own is a control of the page's frame
        // ("Menu", "Toggle the table of contents"), as a link standing on its
        // own is: its text is no start of the page's own content.
        || (cx.role(a) == Some("button") && standalone_link(a))
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
    // Text units share most of their ancestors: each element is judged once.
    let mut repeated_block = AncestorMemo::new(|a| repeats(cx, a));
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
        let repeated = repeated_block.any(element);
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

/// Whether a bypass is needed: some of the page's own content comes after
/// repeated content.
pub fn needs_bypass(layout: &Layout) -> bool {
    layout.main_start.is_some()
}

/// Landmark mechanism (ACT b40fd1): an exposed landmark contains a non-repeated
/// unit that comes after repeated content.
pub fn landmark_reaches_main(cx: &PageContext<'_>, layout: &Layout) -> bool {
    *layout.landmark.get_or_init(|| {
        let Some(first) = layout.first_repeated else {
            return true;
        };
        let mut in_landmark = AncestorMemo::new(|a| {
            cx.role(a).is_some_and(crate::aria::roles::is_landmark) && !cx.is_hidden(a)
        });
        layout.units[first..]
            .iter()
            .filter(|u| !u.repeated)
            .any(|u| cx.element(u.element).is_some_and(|el| in_landmark.any(el)))
    })
}

/// Heading mechanism (ACT 047fe0): a visible, exposed heading outside repeated
/// content comes after the first repeated unit.
pub fn heading_reaches_main(cx: &PageContext<'_>, layout: &Layout) -> bool {
    *layout.heading.get_or_init(|| {
        let Some(first) = layout.first_repeated else {
            return true;
        };
        let first_pos = layout.position(cx, layout.units[first].node).unwrap_or(0);
        cx.root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .any(|el| {
                cx.role(el) == Some("heading")
                    && layout.position(cx, el.id()).unwrap_or(0) > first_pos
                    && cx.is_visible(el)
                    && !cx.is_hidden(el)
                    && !in_repeated_block(cx, el)
            })
    })
}

/// Skip-link mechanism (ACT ye5d6e): a focusable same-page link before the main
/// start whose target is just before the main start (the first unit at or after
/// the target is the main start).
pub fn skip_link_target<'a>(cx: &'a PageContext<'_>, layout: &Layout) -> Option<ElementRef<'a>> {
    let link = layout.skip_link.get_or_init(|| {
        let main = layout.main_start?;
        let main_pos = layout.position(cx, layout.units[main].node)?;
        let pos = |node: NodeId| layout.position(cx, node);
        // Units come in document order, so their positions ascend: the first unit
        // at or after a target is a binary search away (a scan of every unit per
        // candidate link was most of this rule's time on long pages).
        let unit_positions: Vec<usize> = layout
            .units
            .iter()
            .map(|u| pos(u.node).unwrap_or(0))
            .collect();
        cx.root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .find(|link| {
                if !(is_html(*link) && matches!(link.value().name(), "a" | "area")) {
                    return false;
                }
                let Some(fragment) =
                    crate::dom::attr(*link, "href").and_then(|h| h.strip_prefix('#'))
                else {
                    return false;
                };
                if fragment.is_empty() || pos(link.id()).unwrap_or(usize::MAX) > main_pos {
                    return false;
                }
                if !cx.is_focusable(*link) {
                    return false;
                }
                let Some(target) = cx.element_by_id(fragment) else {
                    return false;
                };
                let target_pos = pos(target.id()).unwrap_or(usize::MAX);
                unit_positions.partition_point(|p| *p < target_pos) == main
            })
            .map(|link| link.id())
    });
    link.and_then(|node| cx.element(node))
}

/// Whether the page has a way past its repeated blocks that needs no script:
/// an exposed landmark holding its own content ([`landmark_reaches_main`]), a
/// heading in its own content ([`heading_reaches_main`]) or a skip link whose
/// target is just before it ([`skip_link_target`]). What `bypass` accepts
/// before it looks at scripted controls, and what makes
/// `repeated-block-collapsible` say nothing.
///
/// The mechanisms are asked in that order and the first that answers ends the
/// question (the skip link one is the costliest). Meaningful only when
/// [`needs_bypass`] holds; callers ask that first.
pub fn other_way_past(cx: &PageContext<'_>, layout: &Layout) -> bool {
    landmark_reaches_main(cx, layout)
        || heading_reaches_main(cx, layout)
        || skip_link_target(cx, layout).is_some()
}

/// Event handler attributes through which activating a control (click, key or
/// pointer) runs a script.
const ACTIVATION_HANDLERS: &[&str] = &[
    "onclick",
    "onkeydown",
    "onkeyup",
    "onkeypress",
    "onmousedown",
    "onmouseup",
    "onpointerdown",
    "onpointerup",
    "ontouchstart",
    "ontouchend",
];

/// The scripted controls that may be the bypass mechanism: focusable
/// elements before the main start that run a script when activated (an
/// activation handler attribute such as `onclick`, or a `javascript:` link)
/// and do not navigate to another page, in document order.
///
/// What the script does cannot be seen without running it: it may move focus to
/// the content (`<button onclick="location.assign('#main')">`), or collapse the
/// repeated block (ACT 3e12e1), both bypass mechanisms. Without a browser, a
/// page whose only candidates are such controls needs a person, not a
/// failure; render mode activates them ([`control_bypass`]). A link to
/// another page is left out: whatever its handler does (usually analytics),
/// activating it leaves the page.
pub fn scripted_controls<'a>(cx: &'a PageContext<'_>, layout: &Layout) -> Vec<ElementRef<'a>> {
    let Some(main) = layout.main_start else {
        return Vec::new();
    };
    let Some(main_pos) = layout.position(cx, layout.units[main].node) else {
        return Vec::new();
    };
    cx.root()
        .descendants()
        .filter_map(ElementRef::wrap)
        .take_while(|el| layout.position(cx, el.id()).is_some_and(|p| p < main_pos))
        .filter(|el| {
            let href = el.value().attr("href").map(str::trim);
            let javascript_url = href.is_some_and(|h| {
                h.get(..11)
                    .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"))
            });
            let handler = ACTIVATION_HANDLERS
                .iter()
                .any(|h| crate::dom::attr(*el, h).is_some_and(|v| !v.trim().is_empty()));
            let navigates_away = is_html(*el)
                && matches!(el.value().name(), "a" | "area")
                && href.is_some_and(|h| !h.is_empty() && !h.starts_with('#'))
                && !javascript_url;
            (handler || javascript_url) && !navigates_away && cx.is_focusable(*el)
        })
        .collect()
}

/// What activating a scripted control did, as far as bypassing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlBypass {
    /// No browser activated it (a static scan, or render mode's bounds).
    Unknown,
    /// It moved focus, or the sequential focus navigation starting point
    /// (a same-page fragment), just before the main start.
    MovesFocus,
    /// It took every block of repeated content between it and the main
    /// start off the screen and out of the accessibility tree (ACT 3e12e1's
    /// collapsible block).
    Collapses,
    /// The browser activated it and it did neither.
    Neither,
}

/// What the browser saw when it activated `control` (render mode's
/// [`crate::interaction::Interaction::activations`]); `None` when it did not
/// (a static scan, or render mode's bounds).
pub fn activation_of<'p>(
    cx: &'p PageContext<'_>,
    control: ElementRef<'_>,
) -> Option<&'p crate::interaction::Activation> {
    let walk = cx.page().interaction.as_ref()?;
    let root = cx.root();
    walk.activations.iter().find(|a| {
        crate::interaction::find_path(root, &a.path).is_some_and(|el| el.id() == control.id())
    })
}

/// What activating `control` did in the browser (render mode's
/// [`crate::interaction::Interaction::activations`]).
pub fn control_bypass(
    cx: &PageContext<'_>,
    layout: &Layout,
    control: ElementRef<'_>,
) -> ControlBypass {
    let root = cx.root();
    let Some(a) = activation_of(cx, control) else {
        return ControlBypass::Unknown;
    };
    let target = a
        .fragment
        .as_deref()
        .filter(|f| !f.is_empty())
        .and_then(|f| cx.element_by_id(f));
    let focused = a
        .focused
        .as_deref()
        .and_then(|p| crate::interaction::find_path(root, p));
    if target
        .into_iter()
        .chain(focused)
        .any(|t| just_before_main(cx, layout, t.id()))
    {
        return ControlBypass::MovesFocus;
    }
    let collapsed: Vec<NodeId> = a
        .collapsed
        .iter()
        .filter_map(|p| crate::interaction::find_path(root, p))
        .map(|el| el.id())
        .collect();
    if collapses_repeated(cx, layout, control, &collapsed) {
        return ControlBypass::Collapses;
    }
    ControlBypass::Neither
}

/// Whether the first unit at or after `node` is the main start.
fn just_before_main(cx: &PageContext<'_>, layout: &Layout, node: NodeId) -> bool {
    let (Some(main), Some(at)) = (layout.main_start, layout.position(cx, node)) else {
        return false;
    };
    let first = layout
        .units
        .iter()
        .position(|u| layout.position(cx, u.node).is_some_and(|p| p >= at));
    first == Some(main)
}

/// Whether every repeated unit after `control` and before the main start is
/// inside one of `collapsed` (and there is one).
fn collapses_repeated(
    cx: &PageContext<'_>,
    layout: &Layout,
    control: ElementRef<'_>,
    collapsed: &[NodeId],
) -> bool {
    let Some(main) = layout.main_start else {
        return false;
    };
    let Some(control_pos) = layout.position(cx, control.id()) else {
        return false;
    };
    let mut in_collapsed = AncestorMemo::new(|a| collapsed.contains(&a.id()));
    let mut any = false;
    for u in &layout.units[..main] {
        if !u.repeated || layout.position(cx, u.node).is_none_or(|p| p <= control_pos) {
            continue;
        }
        let Some(el) = cx.element(u.element) else {
            return false;
        };
        if el.id() == control.id() || ancestors(el).any(|a| a.id() == control.id()) {
            // The control's own text.
            continue;
        }
        if !in_collapsed.any(el) {
            return false;
        }
        any = true;
    }
    any
}

/// One block of repeated content before the main start: the outermost
/// element that makes its content repeated (a repeated-content landmark, or
/// a link standing on its own) and the units inside it.
#[derive(Debug, Clone)]
pub struct Block {
    /// The block's outermost repeated element.
    pub element: NodeId,
    /// Indexes in [`Layout::units`] of its units, in document order.
    pub units: Vec<usize>,
}

/// The blocks of repeated content before the main start, in document order
/// (empty when the page needs no bypass). ACT 3e12e1 asks of each of them
/// whether it can be collapsed.
pub fn blocks_before_main(cx: &PageContext<'_>, layout: &Layout) -> Vec<Block> {
    let Some(main) = layout.main_start else {
        return Vec::new();
    };
    // The outermost repeated element of each unit's element, remembered per
    // element: a block's units share most of their ancestors.
    let mut outermost: FxHashMap<NodeId, Option<NodeId>> = FxHashMap::default();
    let mut blocks: Vec<Block> = Vec::new();
    let mut index: FxHashMap<NodeId, usize> = FxHashMap::default();
    for (i, u) in layout.units[..main].iter().enumerate() {
        if !u.repeated {
            continue;
        }
        let Some(el) = cx.element(u.element) else {
            continue;
        };
        let root = *outermost.entry(el.id()).or_insert_with(|| {
            std::iter::once(el)
                .chain(ancestors(el))
                .filter(|a| repeats(cx, *a))
                .last()
                .map(|a| a.id())
        });
        let Some(root) = root else {
            continue;
        };
        let at = *index.entry(root).or_insert_with(|| {
            blocks.push(Block {
                element: root,
                units: Vec::new(),
            });
            blocks.len() - 1
        });
        blocks[at].units.push(i);
    }
    blocks
}
