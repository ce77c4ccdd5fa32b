//! Small structural facts the structural accessibility rules share (lists,
//! tables, landmarks, language): element namespace, explicit role tokens, and the
//! parsing of `<meta>` content values. Accessibility-tree facts (hidden, computed
//! role, accessible name) live in the foundations, not here.

use scraper::ElementRef;

/// The XHTML namespace html5ever puts HTML elements in.
pub const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Whether `el` is an HTML element (not SVG or MathML) with local name `name`.
pub fn is_html_tag(el: ElementRef<'_>, name: &str) -> bool {
    &*el.value().name.ns == HTML_NS && el.value().name() == name
}

/// Whether `el` is in the HTML namespace.
pub fn is_html(el: ElementRef<'_>) -> bool {
    &*el.value().name.ns == HTML_NS
}

/// The explicit role tokens of `el`, lowercased, in order.
pub fn role_tokens(el: ElementRef<'_>) -> Vec<String> {
    crate::dom::plain_attr(el, "role")
        .map(|r| {
            r.split_ascii_whitespace()
                .map(|t| t.to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `el` has a non-empty `role` attribute.
pub fn has_explicit_role(el: ElementRef<'_>) -> bool {
    crate::dom::plain_attr(el, "role").is_some_and(|r| !r.trim().is_empty())
}

/// The parent element, if any.
pub fn parent(el: ElementRef<'_>) -> Option<ElementRef<'_>> {
    el.parent().and_then(ElementRef::wrap)
}

/// Element ancestors, nearest first.
pub fn ancestors(el: ElementRef<'_>) -> impl Iterator<Item = ElementRef<'_>> {
    el.ancestors().filter_map(ElementRef::wrap)
}

/// Whether the document is served as HTML (SVG and XML documents are out of scope
/// of the HTML page rules).
pub fn page_is_html(cx: &crate::Check<'_, '_>) -> bool {
    cx.page().page().is_html()
}

/// The heading level of `el`: `h1`–`h6` (unless a role overrides it), or an
/// element with `role="heading"` and its `aria-level` (default 2, as WAI-ARIA
/// says). `None` when `el` is no heading.
pub fn heading_level(el: ElementRef<'_>) -> Option<u32> {
    let roles = role_tokens(el);
    let tag_level = match el.value().name() {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
    .filter(|_| is_html(el));
    let aria_level = || {
        crate::dom::plain_attr(el, "aria-level")
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|n| *n >= 1)
    };
    match roles.first().map(String::as_str) {
        Some("heading") => Some(aria_level().or(tag_level).unwrap_or(2)),
        Some(_) => None,
        None => tag_level.map(|n| aria_level().unwrap_or(n)),
    }
}

/// Exposed elements with a landmark role, in document order (listed once per
/// page with the accessibility tree facts).
pub fn landmarks<'a>(cx: &'a crate::PageContext<'_>) -> Vec<(ElementRef<'a>, &'static str)> {
    cx.tree()
        .landmarks()
        .iter()
        .filter_map(|&(node, role)| Some((cx.element(node)?, role)))
        .collect()
}

/// "This element or one of its ancestors is such that...", remembered per
/// element: rules that ask it of every text unit of a page would otherwise walk
/// the same ancestors again and again.
pub struct AncestorMemo<P> {
    pred: P,
    seen: rustc_hash::FxHashMap<ego_tree::NodeId, bool>,
}

impl<P: FnMut(ElementRef<'_>) -> bool> AncestorMemo<P> {
    /// A memo of `pred` over elements and their [`ancestors`].
    pub fn new(pred: P) -> Self {
        AncestorMemo {
            pred,
            seen: rustc_hash::FxHashMap::default(),
        }
    }

    /// Whether `pred` holds for `el` or any of its ancestors.
    pub fn any(&mut self, el: ElementRef<'_>) -> bool {
        let mut chain = Vec::new();
        let mut found = false;
        let mut next = Some(el);
        while let Some(e) = next {
            if let Some(&known) = self.seen.get(&e.id()) {
                found = known;
                break;
            }
            chain.push(e);
            next = ancestors(e).next();
        }
        // Outermost first, so each element's answer covers its ancestors.
        for e in chain.into_iter().rev() {
            found = found || (self.pred)(e);
            self.seen.insert(e.id(), found);
        }
        found
    }
}

/// The shared check of the `landmark-no-duplicate-*` rules: passes a page with
/// exactly one exposed landmark of `role`, fails every one after the first.
pub fn at_most_one_landmark(cx: &mut crate::Check<'_, '_>, role: &str) {
    if !page_is_html(cx) {
        return;
    }
    let page = cx.page();
    let found: Vec<_> = landmarks(page)
        .into_iter()
        .filter(|(_, r)| *r == role)
        .collect();
    match found.as_slice() {
        [] => {}
        [_] => cx.pass(),
        [_, rest @ ..] => {
            for (el, _) in rest {
                cx.fail(*el, format!("The page has more than one {role} landmark."));
            }
        }
    }
}
