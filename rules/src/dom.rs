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
    selector_steps(el, id_unique, |node, parent| {
        let name = node.value().name();
        let index = parent
            .children()
            .filter_map(ElementRef::wrap)
            .position(|c| c.id() == node.id())
            .map(|i| i + 1)
            .unwrap_or(1);
        let same_name = parent
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| c.value().name() == name)
            .count();
        (index, same_name > 1)
    })
}

/// [`unique_selector_with`] reading each step's place among its siblings from
/// `index` instead of counting the siblings: a finding on each of 10,000
/// siblings counted 10,000 siblings each. Same result.
pub fn unique_selector_indexed(
    el: ElementRef<'_>,
    id_unique: impl Fn(ElementRef<'_>, &str) -> bool,
    index: &SiblingIndex,
) -> String {
    selector_steps(el, id_unique, |node, _| {
        index.place.get(&node.id()).copied().unwrap_or((1, false))
    })
}

/// Each element's place among its parent's element children: its position
/// (from 1) and whether a sibling has its name. Built once per document in one
/// pass, for [`unique_selector_indexed`].
#[derive(Debug, Default)]
pub struct SiblingIndex {
    place: rustc_hash::FxHashMap<NodeId, (usize, bool)>,
}

impl SiblingIndex {
    /// The places of every element of `doc`'s tree.
    pub fn new(doc: &Html) -> SiblingIndex {
        let mut place = rustc_hash::FxHashMap::default();
        let mut names: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
        for parent in doc.tree.nodes() {
            if !parent.value().is_element() || !parent.has_children() {
                continue;
            }
            names.clear();
            for child in parent.children().filter_map(ElementRef::wrap) {
                *names.entry(child.value().name()).or_insert(0) += 1;
            }
            for (i, child) in parent.children().filter_map(ElementRef::wrap).enumerate() {
                let repeated = names.get(child.value().name()).is_some_and(|n| *n > 1);
                place.insert(child.id(), (i + 1, repeated));
            }
        }
        SiblingIndex { place }
    }
}

/// The steps of a unique selector, up from `el`; `place` gives an element's
/// position among its parent's element children and whether its name repeats
/// there.
fn selector_steps(
    el: ElementRef<'_>,
    id_unique: impl Fn(ElementRef<'_>, &str) -> bool,
    place: impl Fn(ElementRef<'_>, ElementRef<'_>) -> (usize, bool),
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
                let (index, repeated) = place(node, p);
                if repeated {
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

/// Caps on what parsing a page may build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseLimits {
    /// Deepest element nesting opened (`<html>` is at depth 1). A start tag
    /// whose element would be deeper is not opened: the element is created
    /// empty, as the last child of the element at the cap, and what follows
    /// until its end tag lands in that element too, as Chromium does past its
    /// depth limit of 512. So elements past `max_depth` are leaves, but for the
    /// table sections (`tbody`, `tr`) the parser implies around a cell there.
    pub max_depth: usize,
    /// Most nodes built (elements, text, comments, doctypes; not the document
    /// itself nor a template's content fragment). Once reached, the rest of the
    /// document is not built.
    pub max_nodes: usize,
}

impl ParseLimits {
    /// Chromium's DOM depth limit, and room for any real page's nodes: real
    /// pages rarely have a tenth of 200,000 (Lighthouse calls 1,400 elements
    /// excessive), and the rules' per-node facts cost about 0.7 KB a node, so
    /// the cap keeps one page's analysis near 150 MB.
    pub const DEFAULT: ParseLimits = ParseLimits {
        max_depth: 512,
        max_nodes: 200_000,
    };
}

impl Default for ParseLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What the caps changed while parsing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseCapped {
    /// Start tags not opened because of [`ParseLimits::max_depth`].
    pub depth_flattened: usize,
    /// [`ParseLimits::max_nodes`] was reached and the rest was not built.
    pub nodes_dropped: bool,
}

/// Parses an HTML document into the tree a browser's DOM holds, within
/// [`ParseLimits::DEFAULT`].
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
    parse_document_with(html, &ParseLimits::DEFAULT).0
}

/// [`parse_document`] within `limits`, saying what the limits changed.
///
/// The caps keep the tree builder's work linear: html5ever looks through its
/// stack of open elements for most tags, so a page nesting 100,000 `<div>`s
/// took 46 s to parse; with the stack held to `max_depth` each tag costs at
/// most that. Past the depth cap, an element is created and closed at once
/// (its end tag is dropped when it comes), so its attributes (ids, links)
/// stay in the document and its content follows it in the element at the cap.
/// Void elements, raw-text elements (`script`, `style`, `textarea`, `title`,
/// …) and self-closing foreign elements are left alone: they nest nothing.
pub fn parse_document_with(html: &str, limits: &ParseLimits) -> (Html, ParseCapped) {
    let (doc, capped, _) = parse_inner(html, limits, false);
    (doc, capped)
}

/// [`parse_document_with`] for a rendered page: the engine's stamp
/// ([`crate::rendered::STAMP_ATTR`]) is removed from every element and
/// returned, per element, as its index into the browser's facts.
pub fn parse_document_stamped(
    html: &str,
    limits: &ParseLimits,
) -> (
    Html,
    ParseCapped,
    rustc_hash::FxHashMap<ego_tree::NodeId, u32>,
) {
    parse_inner(html, limits, true)
}

fn parse_inner(
    html: &str,
    limits: &ParseLimits,
    stamped: bool,
) -> (
    Html,
    ParseCapped,
    rustc_hash::FxHashMap<ego_tree::NodeId, u32>,
) {
    use html5ever::buffer_queue::BufferQueue;
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::{Tokenizer, TokenizerOpts};
    use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
    use html5ever::TokenizerResult;

    let mut sink =
        capped::CappedSink::new(scraper::HtmlTreeSink::new(Html::new_document()), limits);
    sink.stamped = stamped;
    let builder = TreeBuilder::new(sink, TreeBuilderOpts::default());
    let tokenizer = Tokenizer::new(capped::CappedTokens::new(builder), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // A script end tag suspends the tokenizer for the script to run; there is
    // none to run, so it goes on, as html5ever's own driver does.
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    let tokens = tokenizer.sink;
    let depth_flattened = tokens.flattened();
    let sink = tokens.into_builder().sink;
    let stamps = sink.stamps.take();
    let (mut doc, nodes_dropped) = sink.finish_capped();
    detach_template_contents(&mut doc);
    (
        doc,
        ParseCapped {
            depth_flattened,
            nodes_dropped,
        },
        stamps,
    )
}

/// The sinks that hold html5ever to [`ParseLimits`].
mod capped {
    use std::borrow::Cow;
    use std::cell::{Cell, Ref, RefCell};

    use ego_tree::NodeId;
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::{TagKind, Token, TokenSink, TokenSinkResult};
    use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilder, TreeSink};
    use html5ever::{Attribute, LocalName, QualName};
    use rustc_hash::{FxHashMap, FxHashSet};
    use scraper::{Html, HtmlTreeSink, Node};

    use super::ParseLimits;

    /// Elements the tree builder never keeps open: no end tag may be sent for
    /// them (`</br>` is read as `<br>`).
    const VOID: &[&str] = &[
        "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img",
        "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
    ];

    /// scraper's sink, counting the nodes it builds and refusing those past
    /// the node cap.
    pub(super) struct CappedSink {
        inner: HtmlTreeSink,
        max_depth: usize,
        max_nodes: usize,
        nodes: Cell<usize>,
        dropped: Cell<bool>,
        /// Nodes created past the cap: they are never attached to the tree.
        refused: RefCell<FxHashSet<NodeId>>,
        /// The last element created, so the token sink can find the element
        /// a start tag made.
        last_element: Cell<Option<NodeId>>,
        /// Whether to take the render stamp off each element.
        pub(super) stamped: bool,
        /// The stamps taken, per element.
        pub(super) stamps: RefCell<FxHashMap<NodeId, u32>>,
    }

    impl CappedSink {
        pub(super) fn new(inner: HtmlTreeSink, limits: &ParseLimits) -> Self {
            CappedSink {
                inner,
                max_depth: limits.max_depth,
                max_nodes: limits.max_nodes,
                nodes: Cell::new(0),
                dropped: Cell::new(false),
                refused: RefCell::new(FxHashSet::default()),
                last_element: Cell::new(None),
                stamped: false,
                stamps: RefCell::new(FxHashMap::default()),
            }
        }

        /// The document, and whether nodes were refused.
        pub(super) fn finish_capped(self) -> (Html, bool) {
            let dropped = self.dropped.get();
            (self.inner.finish(), dropped)
        }

        /// Counts one new node; `false` (and the cap noted) when there is no room.
        fn admit(&self) -> bool {
            if self.nodes.get() >= self.max_nodes {
                self.dropped.set(true);
                return false;
            }
            self.nodes.set(self.nodes.get() + 1);
            true
        }

        /// A node made for the tree builder, refused when over the cap.
        fn made(&self, id: NodeId) -> NodeId {
            if !self.admit() {
                self.refused.borrow_mut().insert(id);
            }
            id
        }

        fn is_refused(&self, child: &NodeOrText<NodeId>) -> bool {
            matches!(child, NodeOrText::AppendNode(id) if self.refused.borrow().contains(id))
        }

        /// Whether appending text under `parent` after `prev` (the node it would
        /// follow) makes a new node rather than joining a text node.
        fn text_is_new(&self, prev: Option<NodeId>) -> bool {
            let html = self.inner.0.borrow();
            !prev
                .and_then(|id| html.tree.get(id))
                .is_some_and(|n| n.value().is_text())
        }

        /// Whether `el` sits deeper than the depth cap: more than `max_depth`
        /// elements on its ancestor-or-self chain. Walks at most that far.
        pub(super) fn too_deep(&self, el: NodeId) -> bool {
            let html = self.inner.0.borrow();
            let mut depth = 0usize;
            let mut node = html.tree.get(el);
            while let Some(n) = node {
                if n.value().is_element() {
                    depth += 1;
                    if depth > self.max_depth {
                        return true;
                    }
                }
                node = n.parent();
            }
            false
        }

        /// The element's local name.
        pub(super) fn local_name(&self, el: NodeId) -> Option<LocalName> {
            let html = self.inner.0.borrow();
            let node = html.tree.get(el)?;
            match node.value() {
                Node::Element(e) => Some(e.name.local.clone()),
                _ => None,
            }
        }

        /// Whether the element is an HTML element (not SVG or MathML).
        pub(super) fn is_html(&self, el: NodeId) -> bool {
            let html = self.inner.0.borrow();
            html.tree
                .get(el)
                .and_then(|n| {
                    n.value()
                        .as_element()
                        .map(|e| e.name.ns == html5ever::ns!(html))
                })
                .unwrap_or(false)
        }

        pub(super) fn take_last_element(&self) -> Option<NodeId> {
            self.last_element.take()
        }

        pub(super) fn capped(&self) -> bool {
            self.dropped.get()
        }
    }

    impl TreeSink for CappedSink {
        type Handle = NodeId;
        type Output = (Html, bool);
        type ElemName<'a> = Ref<'a, QualName>;

        fn finish(self) -> (Html, bool) {
            self.finish_capped()
        }
        /// Dropped: no rule reads parse errors, and html5ever reports one
        /// per offending character (a 10 MiB body of NUL bytes made scraper's
        /// `Html` hold ten million messages, about 1 GB).
        fn parse_error(&self, _msg: Cow<'static, str>) {}
        fn get_document(&self) -> NodeId {
            self.inner.get_document()
        }
        fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
            self.inner.elem_name(target)
        }
        fn create_element(
            &self,
            name: QualName,
            mut attrs: Vec<Attribute>,
            flags: ElementFlags,
        ) -> NodeId {
            let mut stamp = None;
            if self.stamped {
                if let Some(at) = attrs.iter().position(|a| {
                    a.name.ns.is_empty() && &*a.name.local == crate::rendered::STAMP_ATTR
                }) {
                    stamp = attrs.remove(at).value.parse::<u32>().ok();
                }
            }
            let id = self.made(self.inner.create_element(name, attrs, flags));
            self.last_element.set(Some(id));
            if let Some(stamp) = stamp {
                self.stamps.borrow_mut().insert(id, stamp);
            }
            id
        }
        fn create_comment(&self, text: StrTendril) -> NodeId {
            self.made(self.inner.create_comment(text))
        }
        fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
            self.made(self.inner.create_pi(target, data))
        }
        fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
            if self.is_refused(&child) || self.refused.borrow().contains(parent) {
                return;
            }
            if let NodeOrText::AppendText(_) = &child {
                let last = self
                    .inner
                    .0
                    .borrow()
                    .tree
                    .get(*parent)
                    .and_then(|p| p.last_child().map(|c| c.id()));
                if self.text_is_new(last) && !self.admit() {
                    return;
                }
            }
            self.inner.append(parent, child);
        }
        fn append_based_on_parent_node(
            &self,
            element: &NodeId,
            prev_element: &NodeId,
            child: NodeOrText<NodeId>,
        ) {
            // As scraper does, through the capped appends.
            let has_parent = self
                .inner
                .0
                .borrow()
                .tree
                .get(*element)
                .is_some_and(|n| n.parent().is_some());
            if has_parent {
                self.append_before_sibling(element, child);
            } else {
                self.append(prev_element, child);
            }
        }
        fn append_doctype_to_document(
            &self,
            name: StrTendril,
            public_id: StrTendril,
            system_id: StrTendril,
        ) {
            if self.admit() {
                self.inner
                    .append_doctype_to_document(name, public_id, system_id);
            }
        }
        fn mark_script_already_started(&self, node: &NodeId) {
            self.inner.mark_script_already_started(node);
        }
        fn pop(&self, node: &NodeId) {
            self.inner.pop(node);
        }
        fn get_template_contents(&self, target: &NodeId) -> NodeId {
            self.inner.get_template_contents(target)
        }
        fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
            self.inner.same_node(x, y)
        }
        fn set_quirks_mode(&self, mode: QuirksMode) {
            self.inner.set_quirks_mode(mode);
        }
        fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
            if self.is_refused(&new_node) || self.refused.borrow().contains(sibling) {
                return;
            }
            if let NodeOrText::AppendText(_) = &new_node {
                let prev = self
                    .inner
                    .0
                    .borrow()
                    .tree
                    .get(*sibling)
                    .filter(|s| s.parent().is_some())
                    .and_then(|s| s.prev_sibling().map(|c| c.id()));
                let attached = self
                    .inner
                    .0
                    .borrow()
                    .tree
                    .get(*sibling)
                    .is_some_and(|s| s.parent().is_some());
                if attached && self.text_is_new(prev) && !self.admit() {
                    return;
                }
            }
            self.inner.append_before_sibling(sibling, new_node);
        }
        fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
            self.inner.add_attrs_if_missing(target, attrs);
        }
        fn associate_with_form(
            &self,
            target: &NodeId,
            form: &NodeId,
            nodes: (&NodeId, Option<&NodeId>),
        ) {
            self.inner.associate_with_form(target, form, nodes);
        }
        fn remove_from_parent(&self, target: &NodeId) {
            self.inner.remove_from_parent(target);
        }
        fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
            self.inner.reparent_children(node, new_parent);
        }
        fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
            self.inner
                .is_mathml_annotation_xml_integration_point(handle)
        }
        fn set_current_line(&self, line_number: u64) {
            self.inner.set_current_line(line_number);
        }
        fn allow_declarative_shadow_roots(&self, intended_parent: &NodeId) -> bool {
            self.inner.allow_declarative_shadow_roots(intended_parent)
        }
        fn attach_declarative_shadow(
            &self,
            location: &NodeId,
            template: &NodeId,
            attrs: &[Attribute],
        ) -> bool {
            self.inner
                .attach_declarative_shadow(location, template, attrs)
        }
        fn maybe_clone_an_option_into_selectedcontent(&self, option: &NodeId) {
            self.inner
                .maybe_clone_an_option_into_selectedcontent(option);
        }
    }

    /// The tree builder behind a token filter that holds its stack of open
    /// elements to the depth cap and stops feeding it at the node cap.
    pub(super) struct CappedTokens {
        builder: TreeBuilder<NodeId, CappedSink>,
        /// Start tags closed at once for the depth cap, innermost last: their
        /// end tags are dropped when they come.
        flattened: RefCell<Vec<LocalName>>,
        /// How many of each name `flattened` holds, so an end tag that closes
        /// none of them is passed on without a search.
        open: RefCell<FxHashMap<LocalName, usize>>,
        count: Cell<usize>,
    }

    impl CappedTokens {
        pub(super) fn new(builder: TreeBuilder<NodeId, CappedSink>) -> Self {
            CappedTokens {
                builder,
                flattened: RefCell::new(Vec::new()),
                open: RefCell::new(FxHashMap::default()),
                count: Cell::new(0),
            }
        }

        pub(super) fn flattened(&self) -> usize {
            self.count.get()
        }

        pub(super) fn into_builder(self) -> TreeBuilder<NodeId, CappedSink> {
            self.builder
        }

        /// An end tag that closes a flattened start tag: pops it (and those
        /// opened after it) and says the token is to be dropped.
        fn closes_flattened(&self, name: &LocalName) -> bool {
            let mut open = self.open.borrow_mut();
            if open.get(name).copied().unwrap_or(0) == 0 {
                return false;
            }
            let mut flattened = self.flattened.borrow_mut();
            while let Some(top) = flattened.pop() {
                if let Some(n) = open.get_mut(&top) {
                    *n -= 1;
                }
                if top == *name {
                    break;
                }
            }
            true
        }
    }

    impl TokenSink for CappedTokens {
        type Handle = NodeId;

        fn process_token(&self, token: Token, line_number: u64) -> TokenSinkResult<NodeId> {
            let sink = &self.builder.sink;
            if sink.capped() && !matches!(token, Token::EOFToken) {
                // The node cap is reached: the rest of the document is not built.
                return TokenSinkResult::Continue;
            }
            let start = match &token {
                Token::TagToken(tag) if tag.kind == TagKind::EndTag => {
                    if self.closes_flattened(&tag.name) {
                        return TokenSinkResult::Continue;
                    }
                    None
                }
                Token::TagToken(tag) => Some((tag.name.clone(), tag.self_closing)),
                _ => None,
            };
            sink.take_last_element();
            let result = self.builder.process_token(token, line_number);
            let Some((name, self_closing)) = start else {
                return result;
            };
            // Raw-text elements (the builder switches the tokenizer) and void
            // elements hold no elements; a self-closing foreign element is
            // already closed.
            if !matches!(result, TokenSinkResult::Continue) || VOID.contains(&&*name) {
                return result;
            }
            let Some(el) = sink.take_last_element() else {
                return result;
            };
            let made_by_tag = sink
                .local_name(el)
                .is_some_and(|n| n.eq_ignore_ascii_case(&name));
            if !made_by_tag || (self_closing && !sink.is_html(el)) || !sink.too_deep(el) {
                return result;
            }
            // Close it at once: it stays in the tree, empty, and what follows
            // goes to the element at the cap.
            let end = html5ever::tokenizer::Tag {
                kind: TagKind::EndTag,
                name: name.clone(),
                self_closing: false,
                attrs: Vec::new(),
                had_duplicate_attributes: false,
            };
            let closed = self
                .builder
                .process_token(Token::TagToken(end), line_number);
            self.count.set(self.count.get() + 1);
            *self.open.borrow_mut().entry(name.clone()).or_insert(0) += 1;
            self.flattened.borrow_mut().push(name);
            if matches!(closed, TokenSinkResult::Continue) {
                result
            } else {
                closed
            }
        }

        fn end(&self) {
            self.builder.end();
        }

        fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
            self.builder
                .adjusted_current_node_present_but_not_in_html_namespace()
        }
    }
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
    fn indexed_selectors_are_the_counted_ones() {
        let doc = parse_document(
            "<main><p>a<b>x</b><i>y</i><b id=k>z</b></p><p><img><img id='2'></p><ul><li><li><li id=x></ul></main><main id=m></main>",
        );
        let index = SiblingIndex::new(&doc);
        let ids = |_: ElementRef<'_>, _: &str| true;
        let all = Selector::parse("*").unwrap();
        let mut n = 0;
        for el in doc.select(&all) {
            assert_eq!(
                unique_selector_indexed(el, ids, &index),
                unique_selector_with(el, ids),
            );
            n += 1;
        }
        assert_eq!(n, 16);
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

    /// The body's markup, from the serializer.
    fn body_html(doc: &Html) -> String {
        let body = doc
            .select(&Selector::parse("body").unwrap())
            .next()
            .unwrap();
        body.inner_html()
    }

    #[test]
    fn depth_cap_flattens_past_the_cap() {
        let limits = ParseLimits {
            max_depth: 3,
            max_nodes: 1000,
        };
        // html (1) > body (2) > div (3): the inner three <div>s would be at
        // depth 4. Each is created empty in the div at the cap; its content and
        // what follows until its end tag land there; the three </div> close the
        // flattened ones, so <p> is still inside the outer div (as the source
        // says: four <div>, three </div>) and is flattened in turn.
        let (doc, capped) = parse_document_with(
            "<div><div id=a><div><div>x</div></div></div><p>after</p>",
            &limits,
        );
        assert_eq!(
            body_html(&doc),
            r#"<div><div id="a"></div><div></div><div></div>x<p></p>after</div>"#
        );
        assert_eq!(
            capped,
            ParseCapped {
                depth_flattened: 4,
                nodes_dropped: false
            }
        );
        // Void, raw-text and self-closing foreign elements are built as usual.
        let (doc, capped) = parse_document_with(
            "<div><span><img src=a.png><br><textarea><b>t</b></textarea><svg/><style>p{}</style></span></div>",
            &limits,
        );
        assert_eq!(
            body_html(&doc),
            "<div><span></span><img src=\"a.png\"><br><textarea>&lt;b&gt;t&lt;/b&gt;</textarea><svg></svg><style>p{}</style></div>"
        );
        assert_eq!(capped.depth_flattened, 1);
    }

    #[test]
    fn depth_cap_keeps_the_open_element_stack_bounded() {
        let limits = ParseLimits {
            max_depth: 10,
            max_nodes: 1_000_000,
        };
        for (open, close) in [
            ("<div>", "</div>"),
            ("<span>", "</span>"),
            ("<ul><li>", "</li></ul>"),
            ("<b>", "</b>"),
            ("<a href=/x><span>", "</span></a>"),
            ("<div><a href=/x>", "</a></div>"),
            ("<details><summary>s</summary>", "</details>"),
            ("<div lang=en><q>", "</q></div>"),
            ("<table><tr><td>", "</td></tr></table>"),
            ("<svg><g>", "</g></svg>"),
            ("<blockquote>", "</blockquote>"),
        ] {
            let html = format!(
                "{}x{}<p id=end>end</p>",
                open.repeat(300),
                close.repeat(300)
            );
            let (doc, capped) = parse_document_with(&html, &limits);
            // Elements past the cap are leaves in the element at the cap.
            for el in doc
                .root_element()
                .descendants()
                .filter_map(ElementRef::wrap)
            {
                let depth = el.ancestors().filter(|a| a.value().is_element()).count() + 1;
                assert!(depth <= limits.max_depth + 1, "{open}: depth {depth}");
                if depth > limits.max_depth {
                    assert!(!el.children().any(|c| c.value().is_element()), "{open}");
                }
            }
            // (`<a>` inside `<a>` closes the outer one: those do not nest.)
            assert_eq!(
                capped.depth_flattened > 0,
                !open.starts_with("<a"),
                "{open}"
            );
            assert!(!capped.nodes_dropped, "{open}");
            // Every end tag was matched: what follows is back at the body.
            let end = doc
                .select(&Selector::parse("#end").unwrap())
                .next()
                .unwrap();
            let parent = end.parent().and_then(ElementRef::wrap).unwrap();
            assert_eq!(parent.value().name(), "body", "{open}");
        }
    }

    #[test]
    fn node_cap_is_exact() {
        let html = "<!doctype html><p>a</p><p>b</p><!-- c --><p>d</p>";
        let (all, capped) = parse_document_with(html, &ParseLimits::DEFAULT);
        assert!(!capped.nodes_dropped);
        // doctype, html, head, body, 3 × (p, text), comment.
        let count = |doc: &Html| doc.tree.root().descendants().count() - 1;
        assert_eq!(count(&all), 11);
        for max_nodes in [1, 4, 5, 8, 10] {
            let limits = ParseLimits {
                max_depth: 512,
                max_nodes,
            };
            let (doc, capped) = parse_document_with(html, &limits);
            assert!(capped.nodes_dropped, "{max_nodes}");
            assert_eq!(count(&doc), max_nodes, "{max_nodes}");
        }
        let (doc, capped) = parse_document_with(
            html,
            &ParseLimits {
                max_depth: 512,
                max_nodes: 11,
            },
        );
        assert!(!capped.nodes_dropped);
        assert_eq!(doc, all);
        let (doc, _) = parse_document_with(
            html,
            &ParseLimits {
                max_depth: 512,
                max_nodes: 8,
            },
        );
        assert_eq!(body_html(&doc), "<p>a</p><p>b</p>");
    }

    #[test]
    fn default_parse_is_scrapers_parse() {
        let html = r#"<!doctype html><html lang=en><head><title>T</title><style>p{color:red}</style></head>
            <body><table><tr><td>a<td>b</table><p>x<b>y<i>z</p>w</b><ul><li>1<li>2</ul>
            <svg><g><circle r=1/></g></svg><math><mi>x</mi></math><select><option>o</select>
            <form><input name=q></form><script>if (a < b) {}</script><a href=/a>l</a></body></html>"#;
        let (doc, capped) = parse_document_with(html, &ParseLimits::DEFAULT);
        assert_eq!(capped, ParseCapped::default());
        let mut reference = Html::parse_document(html);
        detach_template_contents(&mut reference);
        assert_eq!(doc.html(), reference.html());
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
