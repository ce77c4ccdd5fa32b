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
    el.value()
        .attr("role")
        .map(|r| {
            r.split_ascii_whitespace()
                .map(|t| t.to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `el` has a non-empty `role` attribute.
pub fn has_explicit_role(el: ElementRef<'_>) -> bool {
    el.value()
        .attr("role")
        .is_some_and(|r| !r.trim().is_empty())
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
