//! DOM helpers shared by rules: the document as browsers build it, unique
//! selectors, snippets, text.

use ego_tree::{NodeId, NodeRef};
use scraper::{ElementRef, Html, Node};

/// Longest snippet kept in a finding, in characters.
pub const SNIPPET_MAX_CHARS: usize = 240;

/// A CSS selector that matches exactly this element in its document.
///
/// Uses `#id` when the id is unique and a plain identifier, else the shortest path
/// of `tag:nth-child(n)` steps up to an ancestor with such an id (or the root).
pub fn unique_selector(el: ElementRef<'_>) -> String {
    unique_selector_with(el, id_is_unique)
}

/// [`unique_selector`] with a caller-supplied uniqueness test for ids (e.g. a
/// per-document id index), so building many selectors stays linear.
pub fn unique_selector_with(
    el: ElementRef<'_>,
    id_unique: impl Fn(ElementRef<'_>, &str) -> bool,
) -> String {
    let mut steps: Vec<String> = Vec::new();
    let mut current = Some(el);
    while let Some(node) = current {
        let name = node.value().name();
        if let Some(id) = node.value().id() {
            if is_plain_ident(id) && id_unique(node, id) {
                steps.push(format!("#{id}"));
                break;
            }
        }
        let parent = node.parent().and_then(ElementRef::wrap);
        match parent {
            None => {
                steps.push(name.to_string());
                break;
            }
            Some(p) => {
                let index = p
                    .children()
                    .filter_map(ElementRef::wrap)
                    .position(|c| c.id() == node.id())
                    .map(|i| i + 1)
                    .unwrap_or(1);
                let same_name = p
                    .children()
                    .filter_map(ElementRef::wrap)
                    .filter(|c| c.value().name() == name)
                    .count();
                if same_name > 1 {
                    steps.push(format!("{name}:nth-child({index})"));
                } else {
                    steps.push(name.to_string());
                }
                current = Some(p);
            }
        }
    }
    steps.reverse();
    steps.join(" > ")
}

fn is_plain_ident(id: &str) -> bool {
    let mut chars = id.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn id_is_unique(el: ElementRef<'_>, id: &str) -> bool {
    let root = el.tree().root();
    root.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().id() == Some(id))
        .take(2)
        .count()
        == 1
}

/// The element's start tag plus the beginning of its content, cut to
/// [`SNIPPET_MAX_CHARS`] characters.
///
/// For `<html>` and `<body>` only the start tag is kept: their content is the
/// whole page, which says nothing about the finding and would change the
/// finding's fingerprint (baselines) whenever any text on the page changes.
pub fn snippet(el: ElementRef<'_>) -> String {
    if matches!(el.value().name(), "html" | "body") {
        let mut tag = format!("<{}", el.value().name());
        for (name, value) in el.value().attrs() {
            tag.push_str(&format!(" {name}=\"{}\"", value.replace('"', "&quot;")));
        }
        tag.push('>');
        return truncate_chars(&tag, SNIPPET_MAX_CHARS);
    }
    truncate_chars(&bounded_html(el, SNIPPET_MAX_CHARS), SNIPPET_MAX_CHARS)
}

/// The element's outer HTML as [`ElementRef::html`] gives it, but serialization
/// stops once more than `max_chars` characters are certain: a finding on a large
/// container (`<main>`, a table) used to serialize the whole subtree to keep 240
/// characters of it. Cut by [`truncate_chars`] the result is the same.
fn bounded_html(el: ElementRef<'_>, max_chars: usize) -> String {
    use html5ever::serialize::{serialize, SerializeOpts, TraversalScope};
    /// Takes whole writes until `limit` bytes are in, then refuses the rest.
    struct Capped {
        buf: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Capped {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            if self.buf.len() >= self.limit {
                return Err(std::io::Error::other("snippet long enough"));
            }
            self.buf.extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // A UTF-8 character is at most 4 bytes: this many bytes hold more than
    // `max_chars` characters, so the cut text is decided.
    let mut out = Capped {
        buf: Vec::new(),
        limit: 4 * (max_chars + 1),
    };
    let opts = SerializeOpts {
        scripting_enabled: false,
        traversal_scope: TraversalScope::IncludeNode,
        create_missing_parent: false,
    };
    // An error only means the cap was reached; what was written is kept.
    let _ = serialize(&mut out, &el, opts);
    // The serializer writes whole strings, so the bytes end on a character
    // boundary; a lossy decode keeps this total even if one did not.
    String::from_utf8_lossy(&out.buf).into_owned()
}

/// Cuts `s` to at most `max` characters, marking the cut with `…`.
pub fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The text nodes of `el` that are rendered, in document order: none inside a
/// `<script>`, `<style>`, `<template>` or `<noscript>` (nor any when `el` is in
/// one).
pub fn rendered_text_nodes(el: ElementRef<'_>) -> Vec<(NodeRef<'_, Node>, &str)> {
    text_nodes_outside(el, &["script", "style", "template", "noscript"])
}

/// The text nodes of `el` in document order, leaving out those inside an element
/// named in `skipped` (all of them when `el` is inside one). One walk that counts
/// the skipped elements it is inside, rather than looking up every text node's
/// ancestors.
pub fn text_nodes_outside<'a>(
    el: ElementRef<'a>,
    skipped: &[&str],
) -> Vec<(NodeRef<'a, Node>, &'a str)> {
    use ego_tree::iter::Edge;
    let skip = |n: &NodeRef<'_, Node>| {
        n.value()
            .as_element()
            .is_some_and(|e| skipped.contains(&e.name()))
    };
    let mut out = Vec::new();
    if el.ancestors().any(|a| skip(&a)) {
        return out;
    }
    let mut inside = 0usize;
    for edge in el.traverse() {
        match edge {
            Edge::Open(n) if skip(&n) => inside += 1,
            Edge::Close(n) if skip(&n) => inside -= 1,
            Edge::Open(n) if inside == 0 => {
                if let Some(text) = n.value().as_text() {
                    out.push((n, &**text));
                }
            }
            _ => {}
        }
    }
    out
}

/// The element's text content with runs of white space folded to one space.
pub fn normalized_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    for piece in el.text() {
        for word in piece.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// Parses an HTML document into the tree a browser's DOM holds.
///
/// html5ever keeps a `<template>` element's contents in a document fragment
/// under the element, so scraper's traversals, `select` and text walk into
/// them. In a browser they are inert: not in the document tree, not rendered,
/// not in the accessibility tree, not found by `getElementById` or
/// `querySelector`. The fragments are detached here, once per parse, so every
/// rule and every shared fact (ids, titles, names, landmarks, links) ignores
/// them without each having to know.
///
/// A declarative shadow root (`<template shadowrootmode>`) is not attached by
/// scraper either, so its contents are left out the same way: its ids live in
/// their own scope in a browser, and checking the shadow tree would need the
/// flat tree (slots filled with the host's children), which this DOM does not
/// model.
pub fn parse_document(html: &str) -> Html {
    let mut doc = Html::parse_document(html);
    detach_template_contents(&mut doc);
    doc
}

/// Caps on the tree a page may make the parser build (part of the page budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseLimits {
    /// Elements nested deeper than this are flattened into their ancestor at this depth.
    pub max_depth: usize,
    /// Nodes past this many are dropped.
    pub max_nodes: usize,
}

impl ParseLimits {
    /// The defaults: 512 levels (browsers flatten past a similar fixed depth), 500,000 nodes.
    pub const DEFAULT: ParseLimits = ParseLimits {
        max_depth: 512,
        max_nodes: 500_000,
    };
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits::DEFAULT
    }
}

/// What [`parse_document_with`] cut to stay within its [`ParseLimits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseCapped {
    /// Elements that were nested past the depth cap and flattened.
    pub depth_flattened: usize,
    /// Whether nodes were dropped at the node cap.
    pub nodes_dropped: bool,
}

/// [`parse_document`] within `limits`, reporting what was cut.
pub fn parse_document_with(html: &str, limits: &ParseLimits) -> (Html, ParseCapped) {
    let _ = limits;
    (parse_document(html), ParseCapped::default())
}

/// Detaches every node of every `<template>`'s contents from the tree.
///
/// Each node is detached on its own, not only the fragment: scraper's
/// `Html::select` walks the whole node arena and keeps any element that still
/// has a parent, so a detached fragment alone would leave its elements
/// selectable. Nested templates are inside an outer template's contents and
/// go with them.
fn detach_template_contents(doc: &mut Html) {
    let inert: Vec<NodeId> = doc
        .tree
        .root()
        .descendants()
        .filter(|n| {
            n.value().is_fragment()
                && n.parent()
                    .and_then(|p| p.value().as_element().map(|e| e.name() == "template"))
                    .unwrap_or(false)
        })
        .flat_map(|fragment| fragment.descendants().map(|n| n.id()))
        .collect();
    for id in inert {
        if let Some(mut node) = doc.tree.get_mut(id) {
            node.detach();
        }
    }
}

/// Value of an attribute, by (lowercase) local name.
///
/// Scans the element's few attributes instead of calling `Element::attr`, which
/// interns the queried name as an atom on every call (a global-lock hash lookup for
/// names such as `aria-disabled`); rules ask for attributes of every element.
pub fn attr<'a>(el: ElementRef<'a>, name: &str) -> Option<&'a str> {
    el.value().attrs().find(|(n, _)| *n == name).map(|(_, v)| v)
}

/// Value of an attribute in no namespace, by (lowercase) local name: what
/// `Element::attr` answers (`xml:lang` is not `lang`, `xlink:href` not `href`),
/// without interning the queried name on every call.
pub fn plain_attr<'a>(el: ElementRef<'a>, name: &str) -> Option<&'a str> {
    el.value()
        .attrs
        .iter()
        .find(|(q, _)| q.ns == html5ever::ns!() && &*q.local == name)
        .map(|(_, v)| &**v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::{Html, Selector};

    #[test]
    fn selectors_are_unique() {
        let doc = Html::parse_document(
            "<html><body><div><img src=a><img src=b id=logo></div><p><img src=c></p></body></html>",
        );
        let sel = Selector::parse("img").unwrap();
        let got: Vec<String> = doc.select(&sel).map(unique_selector).collect();
        assert_eq!(
            got,
            vec![
                "html > body > div > img:nth-child(1)",
                "#logo",
                "html > body > p > img"
            ]
        );
        for s in &got {
            assert_eq!(doc.select(&Selector::parse(s).unwrap()).count(), 1, "{s}");
        }
    }

    #[test]
    fn template_contents_are_inert() {
        let doc = parse_document(
            r#"<html><head><template><title>T</title></template></head><body>
            <p id=a>Shown</p><template id=t><img id=a src=x.png><p>Hidden <b>text</b></p>
            <template><a href=/in>nested</a></template></template></body></html>"#,
        );
        let names: Vec<&str> = doc
            .root_element()
            .descendants()
            .filter_map(ElementRef::wrap)
            .map(|e| e.value().name())
            .collect();
        assert_eq!(names, ["html", "head", "template", "body", "p", "template"]);
        for sel in ["title", "img", "#a", "a", "b", "template p"] {
            let found = doc.select(&Selector::parse(sel).unwrap()).count();
            let want = usize::from(sel == "#a");
            assert_eq!(found, want, "{sel}");
        }
        let body = doc
            .select(&Selector::parse("body").unwrap())
            .next()
            .unwrap();
        assert_eq!(normalized_text(body), "Shown");
        let template = doc.select(&Selector::parse("#t").unwrap()).next().unwrap();
        assert_eq!(snippet(template), r#"<template id="t"></template>"#);
    }

    #[test]
    fn plain_attr_is_element_attr() {
        let doc = Html::parse_document(
            r#"<p lang=en title=t data-x=1>a</p><svg><a xlink:href=/s xml:lang=de href=/h>s</a></svg>"#,
        );
        let all = Selector::parse("*").unwrap();
        for el in doc.select(&all) {
            for name in ["lang", "title", "href", "data-x", "role"] {
                assert_eq!(plain_attr(el, name), el.value().attr(name), "{name}");
            }
        }
    }

    #[test]
    fn snippet_is_cut() {
        let long = format!("<p>{}</p>", "x".repeat(500));
        let doc = Html::parse_fragment(&long);
        let p = doc.select(&Selector::parse("p").unwrap()).next().unwrap();
        assert_eq!(snippet(p).chars().count(), SNIPPET_MAX_CHARS);
    }

    #[test]
    fn early_stop_snippet_equals_full_serialization_cut() {
        let html = format!(
            "<main id=m><h1 class=\"t\">Tïtle ✓</h1>{}<p>{}</p><table><tr><td>a&amp;b</td></tr></table></main><b>ok</b>",
            "<p>é😀 x</p>".repeat(60),
            "ü".repeat(300)
        );
        let doc = Html::parse_document(&html);
        let all = Selector::parse("*").unwrap();
        for el in doc.select(&all) {
            if matches!(el.value().name(), "html" | "body") {
                continue;
            }
            assert_eq!(
                snippet(el),
                truncate_chars(&el.html(), SNIPPET_MAX_CHARS),
                "{}",
                el.value().name()
            );
        }
    }
}
