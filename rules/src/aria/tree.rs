//! Accessibility tree facts for one document: which elements are hidden (from
//! assistive technology, or from sight), which are focusable, and each element's
//! computed role.
//!
//! [`TreeFacts::compute`] walks the document once, top-down, using the computed
//! styles; [`crate::PageContext`] caches the result so every rule shares it.
//! Definitions follow the ACT Rules glossary ("included in the accessibility tree",
//! "visible", "focusable", "semantic role") and WAI-ARIA 1.2 §9 "Presentational
//! Roles Conflict Resolution".

use rustc_hash::FxHashMap;

use ego_tree::NodeId;
use scraper::ElementRef;

use super::html::{implicit_role, input_type, is_html};
use super::roles::{concrete_role, role_def};
use crate::css::Styles;

/// Per-element facts for a whole document.
pub struct TreeFacts {
    nodes: FxHashMap<NodeId, Facts>,
    /// Exposed elements with a landmark role, in document order.
    landmarks: Vec<(NodeId, &'static str)>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Facts {
    /// Not included in the accessibility tree.
    hidden: bool,
    /// Not rendered visibly (display, visibility, opacity 0, clipped).
    invisible: bool,
    /// Hidden subtree (display:none, aria-hidden, content-visibility): descendants too.
    subtree_hidden: bool,
    subtree_invisible: bool,
    /// Inside an `inert` subtree, or outside the open modal dialog.
    inert: bool,
    /// Inside an element with the `inert` attribute.
    inert_attr: bool,
    /// The open modal dialog or inside it (render mode).
    in_modal: bool,
    /// Not rendered: `display: none` on it or an ancestor.
    not_rendered: bool,
    /// Own computed `visibility: hidden`.
    visibility_hidden: bool,
    /// Inside an element whose role makes its children presentational.
    presentational_child: bool,
    role: Option<&'static str>,
}

/// Attribute names (without values) that count as global ARIA attributes for
/// presentational role conflict resolution.
pub fn has_global_aria(el: ElementRef<'_>) -> bool {
    el.value().attrs().any(|(name, _)| {
        name.starts_with("aria-")
            && super::attrs::attr_def(name).is_some_and(|d| d.global)
            // Attributes a presentational role prohibits do not undo it.
            && !matches!(
                name,
                "aria-hidden"
                    | "aria-braillelabel"
                    | "aria-brailleroledescription"
                    | "aria-roledescription"
            )
    })
}

/// Whether a form control is disabled: its own `disabled`, or a disabled
/// `fieldset` ancestor (except inside that fieldset's first `legend`).
pub fn is_disabled(el: ElementRef<'_>) -> bool {
    if !is_html(el) {
        return false;
    }
    let name = el.value().name();
    let can_be_disabled = matches!(
        name,
        "button" | "input" | "select" | "textarea" | "optgroup" | "option" | "fieldset"
    );
    if !can_be_disabled {
        return false;
    }
    if crate::dom::attr(el, "disabled").is_some() {
        return true;
    }
    if name == "option" {
        if let Some(group) = el.parent().and_then(ElementRef::wrap) {
            if group.value().name() == "optgroup" && crate::dom::attr(group, "disabled").is_some() {
                return true;
            }
        }
    }
    let mut child = el;
    for anc in el.ancestors().filter_map(ElementRef::wrap) {
        if anc.value().name() == "fieldset" && crate::dom::attr(anc, "disabled").is_some() {
            let first_legend = anc
                .children()
                .filter_map(ElementRef::wrap)
                .find(|c| c.value().name() == "legend");
            let in_legend = first_legend.is_some_and(|l| l.id() == child.id());
            if !in_legend {
                return true;
            }
        }
        child = anc;
    }
    false
}

/// The parsed `tabindex`, when it is a valid integer.
pub fn tabindex(el: ElementRef<'_>) -> Option<i64> {
    crate::dom::attr(el, "tabindex")?.trim().parse().ok()
}

/// Whether the element is natively focusable (ignoring `tabindex`, styles and inertness).
pub fn natively_focusable(el: ElementRef<'_>) -> bool {
    if !is_html(el) {
        return el.value().name() == "a" && crate::dom::attr(el, "href").is_some()
            || crate::dom::attr(el, "xlink:href").is_some() && el.value().name() == "a";
    }
    let attr = |n: &str| crate::dom::attr(el, n).is_some();
    match el.value().name() {
        "a" | "area" => attr("href"),
        "button" | "select" | "textarea" | "iframe" | "embed" => true,
        "input" => input_type(el) != "hidden",
        "audio" | "video" => attr("controls"),
        "summary" => el.parent().and_then(ElementRef::wrap).is_some_and(|d| {
            d.value().name() == "details"
                && d.children()
                    .filter_map(ElementRef::wrap)
                    .find(|c| c.value().name() == "summary")
                    .is_some_and(|s| s.id() == el.id())
        }),
        _ => crate::dom::attr(el, "contenteditable")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false")),
    }
}

/// The explicit role: the first token of `role` naming a concrete role.
pub fn explicit_role(el: ElementRef<'_>) -> Option<&'static str> {
    let value = crate::dom::attr(el, "role")?;
    value
        .split_ascii_whitespace()
        .find_map(|t| concrete_role(&t.to_ascii_lowercase()).map(|r| r.name))
}

impl TreeFacts {
    /// Computes the facts for every element of the document rooted at `root`.
    pub fn compute(root: ElementRef<'_>, styles: &Styles) -> TreeFacts {
        TreeFacts::compute_with(root, styles, &|_| None, None)
    }

    /// [`TreeFacts::compute`] preferring what the browser measured
    /// (`rendered`, per element) over the cascade's estimates: whether it has
    /// a box, its `visibility` and `opacity`; and, when a modal dialog is open
    /// (`modal`), everything outside it is inert.
    pub fn compute_with<'r>(
        root: ElementRef<'_>,
        styles: &Styles,
        rendered: &dyn Fn(NodeId) -> Option<&'r crate::rendered::ElementFacts>,
        modal: Option<NodeId>,
    ) -> TreeFacts {
        let mut nodes: FxHashMap<NodeId, Facts> = FxHashMap::default();
        let mut landmarks = Vec::new();
        let mut stack: Vec<ElementRef<'_>> = vec![root];
        // Pre-order: elements come in document order.
        while let Some(el) = stack.pop() {
            let parent = el
                .parent()
                .and_then(ElementRef::wrap)
                .and_then(|p| nodes.get(&p.id()).copied())
                .unwrap_or_default();
            let facts = Self::facts_for(el, &parent, styles, rendered(el.id()), modal);
            if let Some(role) = facts.role {
                if !facts.hidden && super::roles::is_landmark(role) {
                    landmarks.push((el.id(), role));
                }
            }
            nodes.insert(el.id(), facts);
            let mut kids: Vec<ElementRef<'_>> =
                el.children().filter_map(ElementRef::wrap).collect();
            kids.reverse();
            stack.extend(kids);
        }
        TreeFacts { nodes, landmarks }
    }

    fn facts_for(
        el: ElementRef<'_>,
        parent: &Facts,
        styles: &Styles,
        rendered: Option<&crate::rendered::ElementFacts>,
        modal: Option<NodeId>,
    ) -> Facts {
        let style = styles.get(el.id());
        // The browser's box, when it laid the element out, settles what the
        // cascade estimates; an element without a box may be `display:
        // contents`, so its estimate stands.
        let boxed = rendered.filter(|f| f.bounds.is_some());
        let display_none = match boxed {
            Some(_) => false,
            None => style.is_some_and(|s| s.display == "none"),
        };
        let visibility_hidden = match boxed {
            Some(f) => matches!(f.visibility.as_str(), "hidden" | "collapse"),
            None => style.is_some_and(|s| s.visibility_hidden),
        };
        let cv_hidden = style.is_some_and(|s| s.content_visibility_hidden);
        let aria_hidden = crate::dom::attr(el, "aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let opacity_zero = match boxed {
            Some(f) => f.opacity <= 0.0,
            None => style.is_some_and(|s| s.opacity <= 0.0),
        };
        let clipped = style.is_some_and(|s| s.is_visually_clipped());

        let subtree_hidden = parent.subtree_hidden || display_none || aria_hidden;
        // content-visibility:hidden hides the element's content, not the element.
        let content_hidden =
            parent.subtree_hidden || parent_cv_hidden(el, styles) || display_none || aria_hidden;
        let hidden = content_hidden || visibility_hidden;
        let subtree_invisible = parent.subtree_invisible
            || display_none
            || opacity_zero
            || clipped
            || parent_cv_hidden(el, styles);
        let invisible = subtree_invisible || visibility_hidden;
        let inert_attr = parent.inert_attr || crate::dom::attr(el, "inert").is_some();
        let in_modal = parent.in_modal || modal == Some(el.id());
        let inert = inert_attr || (modal.is_some() && !in_modal);

        let parent_role = parent.role;
        let presentational_child = parent.presentational_child
            || parent_role
                .and_then(role_def)
                .is_some_and(|r| r.children_presentational);

        let _ = cv_hidden;
        let mut facts = Facts {
            hidden,
            invisible,
            subtree_hidden,
            subtree_invisible,
            inert,
            inert_attr,
            in_modal,
            not_rendered: parent.not_rendered || display_none,
            visibility_hidden,
            presentational_child,
            role: None,
        };
        facts.role = Self::role_for(el, parent_role, &facts);
        facts
    }

    fn role_for(
        el: ElementRef<'_>,
        parent_role: Option<&'static str>,
        facts: &Facts,
    ) -> Option<&'static str> {
        let implicit = implicit_role(el).filter(|r| role_def(r).is_some());
        let focusable = Self::focusable_with(el, facts);
        let conflict = |r: &'static str| -> Option<&'static str> {
            if matches!(r, "none" | "presentation") && (focusable || has_global_aria(el)) {
                implicit.filter(|i| !matches!(*i, "none" | "presentation"))
            } else {
                Some(r)
            }
        };
        if let Some(explicit) = explicit_role(el) {
            return conflict(explicit);
        }
        // Owned list items and table parts of a presentational container lose their
        // role too (HTML-AAM, "presentational role inheritance").
        let inherits_presentation = matches!(parent_role, Some("none" | "presentation"))
            && is_html(el)
            && matches!(
                el.value().name(),
                "li" | "dt" | "dd" | "tr" | "td" | "th" | "thead" | "tbody" | "tfoot"
            )
            && crate::dom::attr(el, "role").is_none();
        if inherits_presentation && !focusable && !has_global_aria(el) {
            return Some("none");
        }
        implicit.and_then(conflict)
    }

    fn focusable_with(el: ElementRef<'_>, facts: &Facts) -> bool {
        !facts.inert
            && !facts.not_rendered
            && !facts.visibility_hidden
            && !is_disabled(el)
            && (natively_focusable(el) || tabindex(el).is_some())
    }

    fn get(&self, node: NodeId) -> Facts {
        self.nodes.get(&node).copied().unwrap_or_default()
    }

    /// Not included in the accessibility tree (hidden by `aria-hidden`, `display`,
    /// `visibility`, the `hidden` attribute or a hidden ancestor).
    pub fn is_hidden(&self, node: NodeId) -> bool {
        self.get(node).hidden
    }

    /// Not visible on screen: not rendered, `visibility: hidden`, `opacity: 0`, or
    /// a visually-hidden (clipped / off-screen) pattern, on it or an ancestor.
    pub fn is_invisible(&self, node: NodeId) -> bool {
        self.get(node).invisible
    }

    /// Inside an `inert` subtree.
    pub fn is_inert(&self, node: NodeId) -> bool {
        self.get(node).inert
    }

    /// Inside an element whose role has presentational children (e.g. a `button`).
    pub fn is_presentational_child(&self, node: NodeId) -> bool {
        self.get(node).presentational_child
    }

    /// Exposed elements with a landmark role, and the role, in document order.
    pub fn landmarks(&self) -> &[(NodeId, &'static str)] {
        &self.landmarks
    }

    /// The computed role (explicit, else implicit, after conflict resolution).
    pub fn role(&self, node: NodeId) -> Option<&'static str> {
        self.get(node).role
    }

    /// Whether the element can take focus: natively or by `tabindex`, not disabled,
    /// not inert, and rendered (`aria-hidden` does not stop focus).
    pub fn is_focusable(&self, el: ElementRef<'_>) -> bool {
        Self::focusable_with(el, &self.get(el.id()))
    }

    /// Whether the element is in sequential focus navigation (focusable and its
    /// `tabindex`, if any, is not negative).
    pub fn in_tab_order(&self, el: ElementRef<'_>) -> bool {
        self.is_focusable(el) && tabindex(el).is_none_or(|t| t >= 0)
    }
}

fn parent_cv_hidden(el: ElementRef<'_>, styles: &Styles) -> bool {
    el.parent()
        .and_then(ElementRef::wrap)
        .and_then(|p| styles.get(p.id()))
        .is_some_and(|s| s.content_visibility_hidden)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::{Html, Selector};

    fn setup(html: &str) -> (Html, Styles) {
        let doc = Html::parse_document(html);
        let styles = Styles::compute(&doc, &[]);
        (doc, styles)
    }

    fn el<'a>(doc: &'a Html, sel: &str) -> ElementRef<'a> {
        doc.select(&Selector::parse(sel).unwrap()).next().unwrap()
    }

    #[test]
    fn hidden_and_visible() {
        let (doc, styles) = setup(
            r#"<style>.n{display:none}.v{visibility:hidden}</style><body>
            <div aria-hidden=true><p id=a>x</p></div><div class=n><p id=b>x</p></div>
            <div class=v><p id=c>x</p><p id=d style="visibility:visible">x</p></div>
            <div hidden><p id=e>x</p></div><p id=f>x</p>
            <p id=g style="position:absolute;left:-10000px">x</p><template><p>x</p></template>"#,
        );
        let t = TreeFacts::compute(doc.root_element(), &styles);
        let h = |s: &str| t.is_hidden(el(&doc, s).id());
        assert!(h("#a") && h("#b") && h("#c") && h("#e"));
        assert!(!h("#d") && !h("#f") && !h("#g"));
        assert!(t.is_invisible(el(&doc, "#g").id()));
        assert!(!t.is_invisible(el(&doc, "#f").id()));
    }

    #[test]
    fn roles_and_conflicts() {
        let (doc, styles) = setup(
            r#"<body><div id=a role="foo button link">x</div>
            <button id=b role=presentation>x</button><img id=c alt="" aria-label=x>
            <h1 id=d role=none>x</h1><h1 id=e role=none aria-describedby=x>x</h1>
            <ul role=none><li id=f>x</li></ul><div id=g role=widget>x</div>
            <button id=h><span id=i>x</span></button>"#,
        );
        let t = TreeFacts::compute(doc.root_element(), &styles);
        let r = |s: &str| t.role(el(&doc, s).id());
        assert_eq!(r("#a"), Some("button"));
        assert_eq!(r("#b"), Some("button"));
        assert_eq!(r("#c"), Some("img"));
        assert_eq!(r("#d"), Some("none"));
        assert_eq!(r("#e"), Some("heading"));
        assert_eq!(r("#f"), Some("none"));
        assert_eq!(r("#g"), Some("generic"));
        assert!(t.is_presentational_child(el(&doc, "#i").id()));
    }

    #[test]
    fn focusability() {
        let (doc, styles) = setup(
            r#"<body><a id=a href=x>x</a><a id=b>x</a><div id=c tabindex=-1>x</div>
            <button id=d disabled>x</button><fieldset disabled><input id=e></fieldset>
            <div inert><button id=f>x</button></div><button id=g style="display:none">x</button>
            <div aria-hidden=true><button id=h>x</button></div><input id=i type=hidden>"#,
        );
        let t = TreeFacts::compute(doc.root_element(), &styles);
        let f = |s: &str| t.is_focusable(el(&doc, s));
        assert!(f("#a") && f("#c") && f("#h"));
        assert!(!f("#b") && !f("#d") && !f("#e") && !f("#f") && !f("#g") && !f("#i"));
        assert!(!t.in_tab_order(el(&doc, "#c")));
        assert!(t.in_tab_order(el(&doc, "#a")));
    }
}
