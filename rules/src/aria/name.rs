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

// The computation is written as a machine over an explicit stack of frames, not
// as the specification's mutually recursive steps (name of an element -> text of
// its content -> name of each child, and through labels and references): a page
// decides how deep that goes, and recursion would spend a thread's stack on it.

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
}

/// Elements one name or description computation may visit (each visit, and each
/// copy of the visited set a reference or label traversal takes, counts). Names
/// are short in any page a person reads; a page built so that one name spans
/// more (or so that label chains multiply the work) gets the text gathered up to
/// this point.
const MAX_VISITS: usize = 20_000;

/// The accessible name of `el` (white space collapsed, trimmed).
pub fn compute_name(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    let mode = Mode {
        root: true,
        ..Mode::default()
    };
    collapse(&Machine::new(cx).run(Frame::name(el, mode)))
}

/// The accessible description of `el`: `aria-describedby`, else
/// `aria-description`, else `title` when the title was not used as the name.
pub fn compute_description(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    if let Some(ids) = crate::dom::attr(el, "aria-describedby") {
        let text = Machine::new(cx).run(Frame::references(cx, ids));
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

fn attr_text<'a>(el: ElementRef<'a>, name: &str) -> Option<&'a str> {
    crate::dom::attr(el, name).filter(|v| !v.trim().is_empty())
}

/// One suspended step of the computation.
enum Frame<'a> {
    /// The name of one element (accname step 2, A to I).
    Name {
        el: ElementRef<'a>,
        mode: Mode,
        stage: Stage,
    },
    /// The text of the elements an IDREF list names, joined by spaces (2B).
    References {
        targets: Vec<ElementRef<'a>>,
        next: usize,
        parts: Vec<String>,
    },
    /// The text of the labels of a form control, joined by spaces (2E).
    Labels {
        control: ElementRef<'a>,
        labels: Vec<ElementRef<'a>>,
        next: usize,
        include_hidden: bool,
        parts: Vec<String>,
    },
    /// The text of an element's children (2F).
    Content {
        children: ego_tree::iter::Children<'a, Node>,
        child_mode: Mode,
        /// Whether the child being computed is a block (spaced) box.
        block: bool,
        out: String,
    },
}

/// Where a [`Frame::Name`] stands.
#[derive(Clone, Copy)]
enum Stage {
    Start,
    /// Waiting for the `aria-labelledby` text.
    AfterLabelledby,
    /// Waiting for a native text alternative, then finishing it as said.
    AfterNative(Native),
    /// Waiting for the text of the content.
    AfterContent,
}

/// What a native text alternative still needs once its sub-computation returned.
#[derive(Clone, Copy)]
enum Native {
    /// The labels' text, if any.
    Labels,
    /// The labels' text, else the default label of a submit or reset button.
    LabelsOrDefault(Option<&'static str>),
    /// A caption-like child's text, if any.
    Child,
    /// A `caption`'s text, else the table's `summary`.
    ChildOrSummary,
}

/// What a frame's step asks of the machine.
enum Step<'a> {
    /// The frame is done with this text.
    Return(String),
    /// Compute this frame first and resume the current one with its text;
    /// `Some(set)` gives the callee a visited set of its own (dropped after).
    Call(Frame<'a>, Option<HashSet<NodeId>>),
}

impl<'a> Frame<'a> {
    fn name(el: ElementRef<'a>, mode: Mode) -> Self {
        Frame::Name {
            el,
            mode,
            stage: Stage::Start,
        }
    }

    fn references(cx: &'a PageContext<'_>, ids: &str) -> Self {
        Frame::References {
            targets: ids
                .split_ascii_whitespace()
                .filter_map(|id| cx.element_by_id(id))
                .collect(),
            next: 0,
            parts: Vec::new(),
        }
    }

    fn content(el: ElementRef<'a>, mode: Mode) -> Self {
        Frame::Content {
            children: el.children(),
            child_mode: Mode {
                root: false,
                in_content: true,
                ..mode
            },
            block: false,
            out: String::new(),
        }
    }
}

struct Machine<'c, 'p> {
    cx: &'c PageContext<'p>,
    /// Visited sets: the top one is the active traversal's. A reference or label
    /// traversal starts from a copy of its caller's and drops it when done, so
    /// the same node may be named once per reference.
    visited: Vec<HashSet<NodeId>>,
    visits: usize,
}

impl<'c, 'p> Machine<'c, 'p> {
    fn new(cx: &'c PageContext<'p>) -> Self {
        Machine {
            cx,
            visited: vec![HashSet::new()],
            visits: 0,
        }
    }

    fn run(&mut self, root: Frame<'c>) -> String {
        // Each entry: the frame, and whether it owns the top visited set.
        let mut stack: Vec<(Frame<'c>, bool)> = vec![(root, false)];
        let mut input: Option<String> = None;
        loop {
            let Some((frame, _)) = stack.last_mut() else {
                return input.unwrap_or_default();
            };
            match self.step(frame, input.take()) {
                Step::Return(text) => {
                    if let Some((_, owns_set)) = stack.pop() {
                        if owns_set {
                            self.visited.pop();
                        }
                    }
                    input = Some(text);
                }
                Step::Call(callee, set) => {
                    let owns_set = set.is_some();
                    if let Some(set) = set {
                        self.visits += set.len();
                        self.visited.push(set);
                    }
                    stack.push((callee, owns_set));
                }
            }
        }
    }

    /// A copy of the active visited set for a nested traversal.
    fn fork_visited(&self) -> HashSet<NodeId> {
        self.visited.last().cloned().unwrap_or_default()
    }

    fn step(&mut self, frame: &mut Frame<'c>, input: Option<String>) -> Step<'c> {
        match frame {
            Frame::Name { el, mode, stage } => self.step_name(*el, *mode, stage, input),
            Frame::References {
                targets,
                next,
                parts,
            } => {
                if let Some(text) = input {
                    let text = text.trim();
                    if !text.is_empty() {
                        parts.push(text.to_string());
                    }
                }
                let Some(&target) = targets.get(*next) else {
                    return Step::Return(parts.join(" "));
                };
                *next += 1;
                let mode = Mode {
                    in_labelledby: true,
                    include_hidden: self.cx.is_hidden(target),
                    ..Mode::default()
                };
                // Each reference starts a fresh traversal: the same node may be named twice.
                Step::Call(Frame::name(target, mode), Some(self.fork_visited()))
            }
            Frame::Labels {
                control,
                labels,
                next,
                include_hidden,
                parts,
            } => {
                if let Some(text) = input {
                    let text = collapse(&text);
                    if !text.is_empty() {
                        parts.push(text);
                    }
                }
                loop {
                    let Some(&label) = labels.get(*next) else {
                        return Step::Return(parts.join(" "));
                    };
                    *next += 1;
                    // The label itself: hidden, aria-label, else its content.
                    if !*include_hidden && self.cx.is_hidden(label) {
                        continue;
                    }
                    if let Some(l) = attr_text(label, "aria-label") {
                        let l = collapse(l);
                        if !l.is_empty() {
                            parts.push(l);
                        }
                        continue;
                    }
                    let mode = Mode {
                        in_content: true,
                        labelled: Some(control.id()),
                        include_hidden: *include_hidden,
                        ..Mode::default()
                    };
                    let mut seen = self.fork_visited();
                    seen.remove(&label.id());
                    return Step::Call(Frame::content(label, mode), Some(seen));
                }
            }
            Frame::Content {
                children,
                child_mode,
                block,
                out,
            } => {
                if let Some(text) = input {
                    if *block {
                        out.push(' ');
                        out.push_str(&text);
                        out.push(' ');
                    } else {
                        out.push_str(&text);
                    }
                }
                for child in children.by_ref() {
                    match child.value() {
                        Node::Text(t) => out.push_str(t),
                        Node::Element(_) => {
                            let Some(c) = ElementRef::wrap(child) else {
                                continue;
                            };
                            let tag = c.value().name();
                            if is_html(c)
                                && matches!(tag, "script" | "style" | "template" | "noscript")
                            {
                                continue;
                            }
                            if is_html(c) && tag == "br" {
                                out.push(' ');
                                continue;
                            }
                            *block = !matches!(
                                self.cx.style(c).display.as_str(),
                                "inline"
                                    | "inline-block"
                                    | "inline-flex"
                                    | "inline-grid"
                                    | "contents"
                            );
                            return Step::Call(Frame::name(c, *child_mode), None);
                        }
                        _ => {}
                    }
                }
                Step::Return(std::mem::take(out))
            }
        }
    }

    fn step_name(
        &mut self,
        el: ElementRef<'c>,
        mode: Mode,
        stage: &mut Stage,
        input: Option<String>,
    ) -> Step<'c> {
        let cx = self.cx;
        let role = cx.role(el);
        match *stage {
            Stage::Start => {
                // 2A: hidden, not referenced.
                if !mode.include_hidden && !mode.root && cx.is_hidden(el) {
                    return Step::Return(String::new());
                }
                self.visits += 1;
                let fresh = self
                    .visited
                    .last_mut()
                    .is_some_and(|set| set.insert(el.id()));
                if self.visits > MAX_VISITS || !fresh {
                    return Step::Return(String::new());
                }
                // 2B: aria-labelledby, not followed inside another labelledby traversal.
                if !mode.in_labelledby {
                    if let Some(ids) = crate::dom::attr(el, "aria-labelledby") {
                        *stage = Stage::AfterLabelledby;
                        return Step::Call(Frame::references(cx, ids), None);
                    }
                }
                self.after_labelledby(el, mode, role, stage)
            }
            Stage::AfterLabelledby => match input {
                Some(text) if !text.trim().is_empty() => Step::Return(text),
                _ => self.after_labelledby(el, mode, role, stage),
            },
            Stage::AfterNative(then) => {
                let text = input.unwrap_or_default();
                let native = match then {
                    Native::Labels | Native::Child => (!text.is_empty()).then_some(text),
                    Native::LabelsOrDefault(default) => {
                        if text.is_empty() {
                            default.map(str::to_string)
                        } else {
                            Some(text)
                        }
                    }
                    Native::ChildOrSummary => {
                        if text.trim().is_empty() {
                            attr_text(el, "summary").map(str::to_string)
                        } else {
                            Some(text)
                        }
                    }
                };
                match native {
                    Some(n) if !n.trim().is_empty() => Step::Return(n),
                    _ => self.name_from_content(el, mode, role, stage),
                }
            }
            Stage::AfterContent => match input {
                Some(text) if !text.trim().is_empty() => Step::Return(text),
                _ => Step::Return(fallback(el)),
            },
        }
    }

    /// 2C to 2E, once `aria-labelledby` gave nothing.
    fn after_labelledby(
        &mut self,
        el: ElementRef<'c>,
        mode: Mode,
        role: Option<&'static str>,
        stage: &mut Stage,
    ) -> Step<'c> {
        // 2C: embedded control inside a label or content being traversed.
        let embedded = !mode.root && (mode.in_content || mode.in_labelledby);
        if embedded && mode.labelled != Some(el.id()) {
            if let Some(value) = embedded_value(el, role) {
                return Step::Return(value);
            }
        } else if embedded && mode.labelled == Some(el.id()) && is_form_control(el) {
            return Step::Return(String::new());
        }

        // 2D: aria-label.
        if let Some(label) = attr_text(el, "aria-label") {
            return Step::Return(label.to_string());
        }

        // 2E: native text alternatives (not for presentational elements).
        let presentational = matches!(role, Some("none" | "presentation"));
        if !presentational || mode.in_content {
            match self.native_name(el, mode) {
                NativeStart::Done(Some(native)) if !native.trim().is_empty() => {
                    return Step::Return(native)
                }
                NativeStart::Done(_) => {}
                NativeStart::Call(callee, set, then) => {
                    *stage = Stage::AfterNative(then);
                    return Step::Call(callee, set);
                }
            }
        }
        self.name_from_content(el, mode, role, stage)
    }

    /// 2F, then 2I.
    fn name_from_content(
        &mut self,
        el: ElementRef<'c>,
        mode: Mode,
        role: Option<&'static str>,
        stage: &mut Stage,
    ) -> Step<'c> {
        let allows_content = role
            .and_then(role_def)
            .is_some_and(|r| r.name_from == NameFrom::Content)
            || (is_html(el)
                && matches!(
                    el.value().name(),
                    "label"
                        | "legend"
                        | "caption"
                        | "figcaption"
                        | "summary"
                        | "option"
                        | "th"
                        | "td"
                ));
        let prohibited = role
            .and_then(role_def)
            .is_some_and(|r| r.name_from == NameFrom::Prohibited)
            && mode.root;
        if (allows_content && !prohibited) || mode.in_content || mode.in_labelledby {
            *stage = Stage::AfterContent;
            return Step::Call(Frame::content(el, mode), None);
        }
        Step::Return(fallback(el))
    }

    /// 2E: host-language text alternatives (HTML-AAM §4.1): the text itself, or
    /// the traversal that gathers it.
    fn native_name(&self, el: ElementRef<'c>, mode: Mode) -> NativeStart<'c> {
        let cx = self.cx;
        let name = el.value().name();
        if !is_html(el) {
            if name == "svg" || cx.role(el).is_some() {
                // SVG-AAM: a direct <title> child.
                return NativeStart::Done(
                    el.children()
                        .filter_map(ElementRef::wrap)
                        .find(|c| c.value().name() == "title")
                        .map(|t| t.text().collect()),
                );
            }
            return NativeStart::Done(None);
        }
        let labels = |then: Native| {
            NativeStart::Call(
                Frame::Labels {
                    control: el,
                    labels: cx.labels(el),
                    next: 0,
                    include_hidden: mode.include_hidden,
                    parts: Vec::new(),
                },
                None,
                then,
            )
        };
        let child = |tag: &str, then: Native| {
            let Some(child) = el
                .children()
                .filter_map(ElementRef::wrap)
                .find(|c| c.value().name() == tag)
            else {
                return match then {
                    Native::ChildOrSummary => {
                        NativeStart::Done(attr_text(el, "summary").map(str::to_string))
                    }
                    _ => NativeStart::Done(None),
                };
            };
            let m = Mode {
                in_content: true,
                include_hidden: mode.include_hidden,
                ..Mode::default()
            };
            NativeStart::Call(Frame::name(child, m), None, then)
        };
        match name {
            "input" => {
                let ty = input_type(el);
                match ty.as_str() {
                    "button" | "submit" | "reset" => {
                        if let Some(v) = attr_text(el, "value") {
                            return NativeStart::Done(Some(v.to_string()));
                        }
                        let default = match (ty.as_str(), crate::dom::attr(el, "value")) {
                            ("submit", None) => Some("Submit"),
                            ("reset", None) => Some("Reset"),
                            _ => None,
                        };
                        labels(Native::LabelsOrDefault(default))
                    }
                    "image" => match attr_text(el, "alt") {
                        Some(alt) => NativeStart::Done(Some(alt.to_string())),
                        None => labels(Native::Labels),
                    },
                    "hidden" => NativeStart::Done(None),
                    _ => labels(Native::Labels),
                }
            }
            "select" | "textarea" | "meter" | "progress" | "output" | "button" => {
                labels(Native::Labels)
            }
            "img" | "area" => NativeStart::Done(attr_text(el, "alt").map(str::to_string)),
            "fieldset" => child("legend", Native::Child),
            "figure" => child("figcaption", Native::Child),
            "table" => child("caption", Native::ChildOrSummary),
            "optgroup" | "option" | "track" => {
                NativeStart::Done(attr_text(el, "label").map(str::to_string))
            }
            _ => NativeStart::Done(None),
        }
    }
}

/// How a native text alternative starts.
enum NativeStart<'a> {
    /// Known at once (`None`: the element has none).
    Done(Option<String>),
    /// Needs a traversal, then finishing as the [`Native`] says.
    Call(Frame<'a>, Option<HashSet<NodeId>>, Native),
}

/// 2I: tooltip attribute and placeholder, the last resort.
fn fallback(el: ElementRef<'_>) -> String {
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

    #[test]
    fn deep_content_is_named_without_recursion() {
        // Far deeper than a recursive computation could afford on a worker's
        // stack (the parser keeps 512 levels).
        let depth = 500;
        let html = format!(
            "<body><a class=t href=x>{}deep{}</a></body>",
            "<span>".repeat(depth),
            "</span>".repeat(depth)
        );
        assert_eq!(names(&html, ".t"), vec!["deep"]);
    }

    #[test]
    fn one_name_visits_a_bounded_number_of_elements() {
        // The root and then 19,999 spans fit in the visits a name may make:
        // each span past them adds nothing.
        let html = format!(
            "<body><div class=t role=button>{}</div></body>",
            "<span>x</span>".repeat(super::MAX_VISITS + 500)
        );
        let name = names(&html, ".t").remove(0);
        assert_eq!(name.len(), super::MAX_VISITS - 1);
        assert!(name.bytes().all(|b| b == b'x'));
    }
}
