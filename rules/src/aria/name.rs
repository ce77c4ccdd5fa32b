//! Accessible name and description, per "Accessible Name and Description
//! Computation 1.2" (accname) with the HTML-AAM §4.1 host-language rules.
//!
//! Implemented: hidden content excluded unless referenced; `aria-labelledby` (not
//! followed again while already inside a labelledby traversal); embedded controls
//! (textbox value, selected option, range value) inside a label or content;
//! `aria-label`; native labels (`label[for]`, wrapping `label`, `alt`, `value` of
//! input buttons, `caption`, `legend`, `figcaption`, SVG `title`, `optgroup@label`);
//! name from content with inline/block spacing from the computed `display`; `title`
//! and `placeholder` as the last resort. CSS generated content (`::before`) is
//! out of scope.
//!
//! Callers use [`crate::PageContext::accessible_name`], which caches results.

use std::collections::HashSet;

use ego_tree::NodeId;
use scraper::{ElementRef, Node};

use super::html::{input_type, is_html};
use super::roles::{role_def, NameFrom};
use crate::PageContext;

#[derive(Clone, Copy, Default)]
struct Mode {
    /// The element whose name is being computed (not a descendant or reference).
    root: bool,
    /// Inside an `aria-labelledby` / `aria-describedby` traversal.
    in_labelledby: bool,
    /// Traversing descendants for name from content (or a label's content).
    in_content: bool,
    /// Hidden nodes count: the directly referenced node was hidden.
    include_hidden: bool,
    /// The control a `label` traversal is naming: its own value is not part of it.
    labelled: Option<NodeId>,
    /// Recursion depth, bounded by [`MAX_DEPTH`] so absurdly deep markup cannot
    /// exhaust the stack.
    depth: u16,
}

/// Deepest element nesting the name computation descends into. The computation
/// recurses (name of an element -> text of its content -> name of each child,
/// and through labels and references), one level per element: this bound keeps
/// it to a small, fixed share of a rayon thread's stack however deep the page.
/// Text nested deeper below a named element than this is not part of its name.
const MAX_DEPTH: u16 = 64;

/// The accessible name of `el` (white space collapsed, trimmed).
pub fn compute_name(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    let mut visited = HashSet::new();
    let mode = Mode {
        root: true,
        ..Mode::default()
    };
    collapse(&name_of(cx, el, mode, &mut visited))
}

/// The accessible description of `el`: `aria-describedby`, else
/// `aria-description`, else `title` when the title was not used as the name.
pub fn compute_description(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    if let Some(ids) = crate::dom::attr(el, "aria-describedby") {
        let text = referenced_text(cx, ids, &mut HashSet::new(), 0);
        if !text.trim().is_empty() {
            return collapse(&text);
        }
    }
    if let Some(d) = crate::dom::attr(el, "aria-description") {
        if !d.trim().is_empty() {
            return collapse(d);
        }
    }
    if let Some(t) = crate::dom::attr(el, "title") {
        let t = collapse(t);
        if !t.is_empty() && *cx.accessible_name(el) != *t {
            return t;
        }
    }
    String::new()
}

/// Collapses runs of white space to one space and trims.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn referenced_text(
    cx: &PageContext<'_>,
    ids: &str,
    visited: &mut HashSet<NodeId>,
    depth: u16,
) -> String {
    let mut parts = Vec::new();
    for id in ids.split_ascii_whitespace() {
        let Some(target) = cx.element_by_id(id) else {
            continue;
        };
        let mode = Mode {
            in_labelledby: true,
            include_hidden: cx.is_hidden(target),
            depth: depth + 1,
            ..Mode::default()
        };
        // Each reference starts a fresh traversal: the same node may be named twice.
        let mut seen = visited.clone();
        let text = name_of(cx, target, mode, &mut seen);
        let text = text.trim();
        if !text.is_empty() {
            parts.push(text.to_string());
        }
    }
    parts.join(" ")
}

fn attr_text<'a>(el: ElementRef<'a>, name: &str) -> Option<&'a str> {
    crate::dom::attr(el, name).filter(|v| !v.trim().is_empty())
}

fn name_of(
    cx: &PageContext<'_>,
    el: ElementRef<'_>,
    mode: Mode,
    visited: &mut HashSet<NodeId>,
) -> String {
    // 2A: hidden, not referenced.
    if !mode.include_hidden && !mode.root && cx.is_hidden(el) {
        return String::new();
    }
    if mode.depth > MAX_DEPTH || !visited.insert(el.id()) {
        return String::new();
    }
    let role = cx.role(el);

    // 2B: aria-labelledby, not followed inside another labelledby traversal.
    if !mode.in_labelledby {
        if let Some(ids) = crate::dom::attr(el, "aria-labelledby") {
            let text = referenced_text(cx, ids, visited, mode.depth);
            if !text.trim().is_empty() {
                return text;
            }
        }
    }

    // 2C: embedded control inside a label or content being traversed.
    let embedded = !mode.root && (mode.in_content || mode.in_labelledby);
    if embedded && mode.labelled != Some(el.id()) {
        if let Some(value) = embedded_value(el, role) {
            return value;
        }
    } else if embedded && mode.labelled == Some(el.id()) && is_form_control(el) {
        return String::new();
    }

    // 2D: aria-label.
    if let Some(label) = attr_text(el, "aria-label") {
        return label.to_string();
    }

    // 2E: native text alternatives (not for presentational elements).
    let presentational = matches!(role, Some("none" | "presentation"));
    if !presentational || mode.in_content {
        if let Some(native) = native_name(cx, el, mode, visited) {
            if !native.trim().is_empty() {
                return native;
            }
        }
    }

    // 2F: name from content.
    let allows_content = role
        .and_then(role_def)
        .is_some_and(|r| r.name_from == NameFrom::Content)
        || (is_html(el)
            && matches!(
                el.value().name(),
                "label" | "legend" | "caption" | "figcaption" | "summary" | "option" | "th" | "td"
            ));
    let prohibited = role
        .and_then(role_def)
        .is_some_and(|r| r.name_from == NameFrom::Prohibited)
        && mode.root;
    if (allows_content && !prohibited) || mode.in_content || mode.in_labelledby {
        let text = content_text(cx, el, mode, visited);
        if !text.trim().is_empty() {
            return text;
        }
    }

    // 2I: tooltip attribute and placeholder.
    if let Some(t) = attr_text(el, "title") {
        return t.to_string();
    }
    if is_html(el) && matches!(el.value().name(), "input" | "textarea") {
        if let Some(p) = attr_text(el, "placeholder") {
            return p.to_string();
        }
    }
    if let Some(p) = attr_text(el, "aria-placeholder") {
        return p.to_string();
    }
    String::new()
}

fn is_form_control(el: ElementRef<'_>) -> bool {
    is_html(el) && matches!(el.value().name(), "input" | "select" | "textarea")
}

/// 2C: the value an embedded control contributes to a surrounding name.
fn embedded_value(el: ElementRef<'_>, role: Option<&str>) -> Option<String> {
    let role = role?;
    match role {
        "textbox" | "searchbox" => {
            if is_html(el) && el.value().name() == "input" {
                Some(crate::dom::attr(el, "value").unwrap_or("").to_string())
            } else {
                Some(el.text().collect())
            }
        }
        "combobox" | "listbox" => {
            if is_html(el) && el.value().name() == "select" {
                let options: Vec<ElementRef<'_>> = el
                    .descendants()
                    .filter_map(ElementRef::wrap)
                    .filter(|o| o.value().name() == "option")
                    .collect();
                let selected: Vec<String> = options
                    .iter()
                    .filter(|o| crate::dom::attr(**o, "selected").is_some())
                    .map(|o| collapse(&o.text().collect::<String>()))
                    .collect();
                if !selected.is_empty() {
                    return Some(selected.join(" "));
                }
                let multiple = crate::dom::attr(el, "multiple").is_some();
                if multiple {
                    return Some(String::new());
                }
                return Some(
                    options
                        .first()
                        .map(|o| collapse(&o.text().collect::<String>()))
                        .unwrap_or_default(),
                );
            }
            if role == "combobox" && is_html(el) && el.value().name() == "input" {
                return Some(crate::dom::attr(el, "value").unwrap_or("").to_string());
            }
            // ARIA listbox: the selected options' text.
            let selected: Vec<String> = el
                .descendants()
                .filter_map(ElementRef::wrap)
                .filter(|o| {
                    crate::dom::attr(*o, "role") == Some("option")
                        && crate::dom::attr(*o, "aria-selected") == Some("true")
                })
                .map(|o| collapse(&o.text().collect::<String>()))
                .collect();
            Some(selected.join(" "))
        }
        "slider" | "spinbutton" | "progressbar" | "meter" | "scrollbar" => {
            if let Some(t) = attr_text(el, "aria-valuetext") {
                return Some(t.to_string());
            }
            if let Some(n) = attr_text(el, "aria-valuenow") {
                return Some(n.trim().to_string());
            }
            if is_html(el) && el.value().name() == "input" {
                return Some(crate::dom::attr(el, "value").unwrap_or("").to_string());
            }
            None
        }
        _ => None,
    }
}

/// 2E: host-language text alternatives (HTML-AAM §4.1).
fn native_name(
    cx: &PageContext<'_>,
    el: ElementRef<'_>,
    mode: Mode,
    visited: &mut HashSet<NodeId>,
) -> Option<String> {
    let name = el.value().name();
    if !is_html(el) {
        if name == "svg" || cx.role(el).is_some() {
            // SVG-AAM: a direct <title> child.
            return el
                .children()
                .filter_map(ElementRef::wrap)
                .find(|c| c.value().name() == "title")
                .map(|t| t.text().collect());
        }
        return None;
    }
    let labels_text = |visited: &mut HashSet<NodeId>| -> String {
        let mut parts = Vec::new();
        for label in cx.labels(el) {
            let m = Mode {
                in_content: true,
                labelled: Some(el.id()),
                include_hidden: mode.include_hidden,
                depth: mode.depth + 1,
                ..Mode::default()
            };
            let mut seen = visited.clone();
            seen.remove(&label.id());
            let t = collapse(&name_of_label(cx, label, m, &mut seen));
            if !t.is_empty() {
                parts.push(t);
            }
        }
        parts.join(" ")
    };
    match name {
        "input" => {
            let ty = input_type(el);
            match ty.as_str() {
                "button" | "submit" | "reset" => {
                    if let Some(v) = crate::dom::attr(el, "value") {
                        if !v.trim().is_empty() {
                            return Some(v.to_string());
                        }
                    }
                    let labels = labels_text(visited);
                    if !labels.is_empty() {
                        return Some(labels);
                    }
                    match (ty.as_str(), crate::dom::attr(el, "value")) {
                        ("submit", None) => Some("Submit".into()),
                        ("reset", None) => Some("Reset".into()),
                        _ => None,
                    }
                }
                "image" => attr_text(el, "alt").map(str::to_string).or_else(|| {
                    let labels = labels_text(visited);
                    (!labels.is_empty()).then_some(labels)
                }),
                "hidden" => None,
                _ => {
                    let labels = labels_text(visited);
                    (!labels.is_empty()).then_some(labels)
                }
            }
        }
        "select" | "textarea" | "meter" | "progress" | "output" | "button" => {
            let labels = labels_text(visited);
            (!labels.is_empty()).then_some(labels)
        }
        "img" | "area" => attr_text(el, "alt").map(str::to_string),
        "fieldset" => child_text(cx, el, "legend", mode, visited),
        "figure" => child_text(cx, el, "figcaption", mode, visited),
        "table" => child_text(cx, el, "caption", mode, visited)
            .or_else(|| attr_text(el, "summary").map(str::to_string)),
        "optgroup" => attr_text(el, "label").map(str::to_string),
        "option" => attr_text(el, "label").map(str::to_string),
        "track" => attr_text(el, "label").map(str::to_string),
        _ => None,
    }
}

fn name_of_label(
    cx: &PageContext<'_>,
    label: ElementRef<'_>,
    mode: Mode,
    visited: &mut HashSet<NodeId>,
) -> String {
    if !mode.include_hidden && cx.is_hidden(label) {
        return String::new();
    }
    if let Some(l) = attr_text(label, "aria-label") {
        return l.to_string();
    }
    content_text(cx, label, mode, visited)
}

fn child_text(
    cx: &PageContext<'_>,
    el: ElementRef<'_>,
    tag: &str,
    mode: Mode,
    visited: &mut HashSet<NodeId>,
) -> Option<String> {
    let child = el
        .children()
        .filter_map(ElementRef::wrap)
        .find(|c| c.value().name() == tag)?;
    let m = Mode {
        in_content: true,
        root: false,
        include_hidden: mode.include_hidden,
        depth: mode.depth + 1,
        ..Mode::default()
    };
    let t = name_of(cx, child, m, visited);
    (!t.trim().is_empty()).then_some(t)
}

/// 2F: the text of the element's children, recursing through each.
fn content_text(
    cx: &PageContext<'_>,
    el: ElementRef<'_>,
    mode: Mode,
    visited: &mut HashSet<NodeId>,
) -> String {
    let mut out = String::new();
    let child_mode = Mode {
        root: false,
        in_content: true,
        depth: mode.depth + 1,
        ..mode
    };
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(_) => {
                let Some(c) = ElementRef::wrap(child) else {
                    continue;
                };
                let tag = c.value().name();
                if is_html(c) && matches!(tag, "script" | "style" | "template" | "noscript") {
                    continue;
                }
                if is_html(c) && tag == "br" {
                    out.push(' ');
                    continue;
                }
                let block = !matches!(
                    cx.style(c).display.as_str(),
                    "inline" | "inline-block" | "inline-flex" | "inline-grid" | "contents"
                );
                let text = name_of(cx, c, child_mode, visited);
                if block {
                    out.push(' ');
                    out.push_str(&text);
                    out.push(' ');
                } else {
                    out.push_str(&text);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::{Page, PageContext};
    use scraper::Selector;

    fn names(html: &str, sel: &str) -> Vec<String> {
        let page = Page::from_html("https://example.com/", html);
        let cx = PageContext::parse(&page);
        let s = Selector::parse(sel).unwrap();
        cx.doc()
            .select(&s)
            .map(|e| cx.accessible_name(e).to_string())
            .collect()
    }

    #[test]
    fn labelledby_label_and_content() {
        let html = r#"<body>
          <span id=a>Hello</span><span id=b hidden>hidden <i>world</i></span>
          <button class=t aria-labelledby="a b">ignored</button>
          <button class=t aria-label="  ">Save <span aria-hidden=true>×</span> now</button>
          <label for=f>First <em>name</em></label><input class=t id=f>
          <label>Email <input class=t type=email></label>
          <input class=t title="Search" placeholder="Type">
          <input class=t placeholder="Type">
          <img class=t alt="Logo"><img class=t alt="" title=t>
          <a class=t href=x><img alt="Home"> page</a>
          <input class=t type=submit><input class=t type=button>
          <fieldset class=t><legend>Shipping</legend></fieldset>
          <div class=t role=link>Go <div>far</div>away</div>
          <svg class=t role=img><title>Chart</title></svg>
        </body>"#;
        assert_eq!(
            names(html, ".t"),
            vec![
                "Hello hidden world",
                "Save now",
                "First name",
                "Email",
                "Search",
                "Type",
                "Logo",
                "t",
                "Home page",
                "Submit",
                "",
                "Shipping",
                "Go far away",
                "Chart"
            ]
        );
    }

    #[test]
    fn embedded_controls_and_cycles() {
        let html = r#"<body>
          <div class=t role=checkbox aria-labelledby="l1">x</div>
          <span id=l1>Flash <input value=5 aria-label=ignored> times <select><option>A<option selected>B</select></span>
          <div id=x class=t role=button aria-labelledby="y">x-content</div>
          <div id=y aria-labelledby="x">y-content</div>
          <label for=c>Count <input id=c class=t value=3></label>
        </body>"#;
        assert_eq!(
            names(html, ".t"),
            vec!["Flash 5 times B", "y-content", "Count"]
        );
    }
}
