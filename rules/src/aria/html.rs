//! HTML elements and ARIA: implicit roles and the roles authors may give them.
//!
//! Sources: HTML-AAM §4 "Mapping HTML to Accessibility APIs" (element role
//! mappings and their conditions) and ARIA in HTML §4 "Document conformance
//! requirements for use of ARIA attributes in HTML" (allowed roles per element).
//! Elements ARIA in HTML maps to "generic" (`div`, `span`, `b`, ...) get
//! `generic` here too.

use scraper::ElementRef;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Whether the element is in the HTML namespace.
pub fn is_html(el: ElementRef<'_>) -> bool {
    &*el.value().name.ns == HTML_NS
}

fn attr<'a>(el: ElementRef<'a>, name: &str) -> Option<&'a str> {
    crate::dom::attr(el, name)
}

fn parent_el(el: ElementRef<'_>) -> Option<ElementRef<'_>> {
    el.parent().and_then(ElementRef::wrap)
}

/// Whether the element has an author-supplied name source (`aria-label`,
/// `aria-labelledby` or `title`): what HTML-AAM asks of `section` and `form` before
/// they become landmarks. Checked without resolving references, to stay cheap.
fn has_author_name(el: ElementRef<'_>) -> bool {
    ["aria-label", "aria-labelledby", "title"]
        .iter()
        .any(|a| attr(el, a).is_some_and(|v| !v.trim().is_empty()))
}

/// The normalised `type` of an `input` (`text` when absent or unknown).
pub fn input_type(el: ElementRef<'_>) -> String {
    const KNOWN: &[&str] = &[
        "button",
        "checkbox",
        "color",
        "date",
        "datetime-local",
        "email",
        "file",
        "hidden",
        "image",
        "month",
        "number",
        "password",
        "radio",
        "range",
        "reset",
        "search",
        "submit",
        "tel",
        "text",
        "time",
        "url",
        "week",
    ];
    let t = attr(el, "type")
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if KNOWN.contains(&t.as_str()) {
        t
    } else {
        "text".to_string()
    }
}

/// Whether a `header`/`footer` is scoped to a sectioning element (then it is not a
/// banner/contentinfo landmark).
fn scoped_to_sectioning(el: ElementRef<'_>) -> bool {
    el.ancestors().filter_map(ElementRef::wrap).any(|a| {
        matches!(
            a.value().name(),
            "article" | "aside" | "main" | "nav" | "section"
        ) || matches!(
            attr(a, "role").map(str::trim),
            Some("article" | "complementary" | "main" | "navigation" | "region")
        )
    })
}

/// The table-like ancestor of a cell or row: `table`, `grid` or `treegrid` role.
fn table_kind(el: ElementRef<'_>) -> Option<&'static str> {
    let table = el
        .ancestors()
        .filter_map(ElementRef::wrap)
        .find(|a| a.value().name() == "table")?;
    match attr(table, "role").map(|r| r.trim().to_ascii_lowercase()) {
        Some(r) if r == "grid" => Some("grid"),
        Some(r) if r == "treegrid" => Some("treegrid"),
        Some(r) if r == "none" || r == "presentation" => None,
        _ => Some("table"),
    }
}

/// The `th` mapping: `columnheader`, `rowheader` or (in a grid) the same.
fn th_role(el: ElementRef<'_>) -> &'static str {
    match attr(el, "scope").map(|s| s.trim().to_ascii_lowercase()) {
        Some(s) if s == "row" || s == "rowgroup" => return "rowheader",
        Some(s) if s == "col" || s == "colgroup" => return "columnheader",
        _ => {}
    }
    // No scope: a header in a row with data cells heads that row; one in a row of
    // only headers (or in thead) heads its column.
    if let Some(row) = parent_el(el) {
        if parent_el(row).is_some_and(|g| g.value().name() == "thead") {
            return "columnheader";
        }
        let has_td = row
            .children()
            .filter_map(ElementRef::wrap)
            .any(|c| c.value().name() == "td");
        if has_td {
            return "rowheader";
        }
    }
    "columnheader"
}

/// The implicit ARIA role of an HTML element (HTML-AAM), or `None` when the element
/// has no corresponding role.
pub fn implicit_role(el: ElementRef<'_>) -> Option<&'static str> {
    if !is_html(el) {
        return match el.value().name() {
            "svg" => Some("graphics-document"),
            "math" => Some("math"),
            _ => None,
        };
    }
    let name = el.value().name();
    Some(match name {
        "a" | "area" => {
            if attr(el, "href").is_some() {
                "link"
            } else if name == "a" {
                "generic"
            } else {
                return None;
            }
        }
        "article" => "article",
        "aside" => "complementary",
        "b" | "bdi" | "bdo" | "data" | "div" | "i" | "pre" | "q" | "samp" | "small" | "span"
        | "u" => "generic",
        "address" | "details" | "fieldset" | "optgroup" | "hgroup" => "group",
        "blockquote" => "blockquote",
        "body" => "generic",
        "button" => "button",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "dd" => "definition",
        "del" | "s" => "deletion",
        "dfn" | "dt" => "term",
        "dialog" => "dialog",
        "em" => "emphasis",
        "figure" => "figure",
        "footer" => {
            if scoped_to_sectioning(el) {
                "generic"
            } else {
                "contentinfo"
            }
        }
        "form" => {
            if has_author_name(el) {
                "form"
            } else {
                "generic"
            }
        }
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "header" => {
            if scoped_to_sectioning(el) {
                "generic"
            } else {
                "banner"
            }
        }
        "hr" => "separator",
        "html" => "document",
        // `alt=""` marks the image decorative; only ARIA naming (a global ARIA
        // attribute, see presentational role conflict resolution) undoes it.
        "img" => match attr(el, "alt") {
            Some("")
                if !["aria-label", "aria-labelledby"]
                    .iter()
                    .any(|a| attr(el, a).is_some_and(|v| !v.trim().is_empty())) =>
            {
                "presentation"
            }
            _ => "img",
        },
        "input" => match input_type(el).as_str() {
            "button" | "image" | "reset" | "submit" => "button",
            "checkbox" => "checkbox",
            "radio" => "radio",
            "range" => "slider",
            "number" => "spinbutton",
            "search" => {
                if attr(el, "list").is_some() {
                    "combobox"
                } else {
                    "searchbox"
                }
            }
            "email" | "tel" | "text" | "url" => {
                if attr(el, "list").is_some() {
                    "combobox"
                } else {
                    "textbox"
                }
            }
            _ => return None,
        },
        "ins" => "insertion",
        "li" => {
            if parent_el(el).is_some_and(|p| matches!(p.value().name(), "ol" | "ul" | "menu")) {
                "listitem"
            } else {
                "generic"
            }
        }
        "main" => "main",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" => {
            if has_author_name(el) {
                "region"
            } else {
                "generic"
            }
        }
        "select" => {
            let size = attr(el, "size")
                .and_then(|s| s.trim().parse::<u32>().ok())
                .unwrap_or(0);
            if attr(el, "multiple").is_some() || size > 1 {
                "listbox"
            } else {
                "combobox"
            }
        }
        "strong" => "strong",
        "sub" => "subscript",
        "sup" => "superscript",
        "svg" => "graphics-document",
        "table" => "table",
        "tbody" | "tfoot" | "thead" => {
            table_kind(el)?;
            "rowgroup"
        }
        "td" => match table_kind(el)? {
            "table" => "cell",
            _ => "gridcell",
        },
        "textarea" => "textbox",
        "th" => {
            table_kind(el)?;
            th_role(el)
        }
        "time" => "time",
        "tr" => {
            table_kind(el)?;
            "row"
        }
        _ => return None,
    })
}

/// The roles ARIA in HTML allows an author to give this element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowedRoles {
    /// Any role.
    Any,
    /// No role at all (other than the implicit one).
    NoRole,
    /// Only these roles (and the implicit role).
    Only(&'static [&'static str]),
}

const DOC_SECTION: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "banner",
    "complementary",
    "contentinfo",
    "dialog",
    "document",
    "feed",
    "group",
    "log",
    "main",
    "marquee",
    "navigation",
    "none",
    "note",
    "presentation",
    "search",
    "status",
    "tabpanel",
    "doc-abstract",
    "doc-acknowledgments",
    "doc-afterword",
    "doc-appendix",
    "doc-bibliography",
    "doc-chapter",
    "doc-colophon",
    "doc-conclusion",
    "doc-credit",
    "doc-credits",
    "doc-dedication",
    "doc-endnotes",
    "doc-epigraph",
    "doc-epilogue",
    "doc-errata",
    "doc-example",
    "doc-foreword",
    "doc-glossary",
    "doc-index",
    "doc-introduction",
    "doc-notice",
    "doc-pagelist",
    "doc-part",
    "doc-preface",
    "doc-prologue",
    "doc-pullquote",
    "doc-qna",
    "doc-toc",
];
const BUTTON_ROLES: &[&str] = &[
    "checkbox",
    "combobox",
    "gridcell",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "separator",
    "slider",
    "switch",
    "tab",
    "treeitem",
];
const LIST_ROLES: &[&str] = &[
    "directory",
    "group",
    "listbox",
    "menu",
    "menubar",
    "none",
    "presentation",
    "radiogroup",
    "tablist",
    "toolbar",
    "tree",
];
const EMBED_ROLES: &[&str] = &["application", "document", "img", "none", "presentation"];

/// ARIA in HTML's allowed roles for an element.
pub fn allowed_roles(el: ElementRef<'_>) -> AllowedRoles {
    use AllowedRoles::*;
    if !is_html(el) {
        return Any;
    }
    match el.value().name() {
        "a" => {
            if attr(el, "href").is_some() {
                Only(&[
                    "button",
                    "checkbox",
                    "menuitem",
                    "menuitemcheckbox",
                    "menuitemradio",
                    "option",
                    "radio",
                    "switch",
                    "tab",
                    "treeitem",
                    "doc-backlink",
                    "doc-biblioref",
                    "doc-glossref",
                    "doc-noteref",
                ])
            } else {
                Any
            }
        }
        "article" => Only(&[
            "application",
            "document",
            "feed",
            "main",
            "none",
            "presentation",
            "region",
        ]),
        "aside" => Only(&[
            "doc-dedication",
            "doc-example",
            "doc-footnote",
            "doc-glossary",
            "doc-pullquote",
            "doc-tip",
            "feed",
            "none",
            "note",
            "presentation",
            "region",
            "search",
        ]),
        "audio" | "video" => Only(&["application"]),
        "button" => Only(BUTTON_ROLES),
        "dialog" => Only(&["alertdialog"]),
        "dl" => Only(&["group", "list", "none", "presentation"]),
        "dt" => Only(&["listitem"]),
        "embed" | "iframe" => Only(EMBED_ROLES),
        "fieldset" => Only(&["none", "presentation", "radiogroup"]),
        "figure" => {
            let has_caption = el
                .children()
                .filter_map(ElementRef::wrap)
                .any(|c| c.value().name() == "figcaption");
            if has_caption {
                Only(&["doc-example", "none", "presentation"])
            } else {
                Any
            }
        }
        "footer" => Only(&["doc-footnote", "group", "none", "presentation"]),
        "form" => Only(&["none", "presentation", "search"]),
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            Only(&["doc-subtitle", "none", "presentation", "tab"])
        }
        "header" => Only(&["group", "none", "presentation"]),
        "hr" => Only(&["doc-pagebreak", "none", "presentation"]),
        "img" => match attr(el, "alt") {
            Some("") => Only(&["none", "presentation"]),
            _ => Only(&[
                "button",
                "checkbox",
                "link",
                "menuitem",
                "menuitemcheckbox",
                "menuitemradio",
                "meter",
                "option",
                "progressbar",
                "radio",
                "scrollbar",
                "separator",
                "slider",
                "switch",
                "tab",
                "treeitem",
                "doc-cover",
                "none",
                "presentation",
            ]),
        },
        "input" => match input_type(el).as_str() {
            "button" => Only(BUTTON_ROLES),
            "checkbox" => Only(&["button", "menuitemcheckbox", "option", "switch"]),
            "image" => Only(&[
                "link",
                "menuitem",
                "menuitemcheckbox",
                "menuitemradio",
                "radio",
                "switch",
            ]),
            "radio" => Only(&["menuitemradio"]),
            "text" if attr(el, "list").is_none() => Only(&["combobox", "searchbox", "spinbutton"]),
            _ => NoRole,
        },
        // `listitem` is the li's own semantics, stated where a script or an
        // explicit role=list container is what makes it a list item.
        "li" => Only(&[
            "listitem",
            "menuitem",
            "menuitemcheckbox",
            "menuitemradio",
            "none",
            "option",
            "presentation",
            "radio",
            "separator",
            "tab",
            "treeitem",
            "doc-biblioentry",
            "doc-endnote",
        ]),
        "menu" | "ol" | "ul" => Only(LIST_ROLES),
        "nav" => Only(&[
            "doc-index",
            "doc-pagelist",
            "doc-toc",
            "menu",
            "menubar",
            "none",
            "presentation",
            "tablist",
        ]),
        "object" => Only(&["application", "document", "img"]),
        "section" => Only(DOC_SECTION),
        "select" => {
            let size = attr(el, "size")
                .and_then(|s| s.trim().parse::<u32>().ok())
                .unwrap_or(0);
            if attr(el, "multiple").is_none() && size <= 1 {
                Only(&["menu"])
            } else {
                NoRole
            }
        }
        "br" | "wbr" => Only(&["none", "presentation"]),
        "area" | "base" | "body" | "caption" | "col" | "colgroup" | "datalist" | "dd"
        | "details" | "head" | "html" | "label" | "legend" | "link" | "main" | "map" | "meta"
        | "meter" | "noscript" | "optgroup" | "option" | "param" | "picture" | "progress"
        | "script" | "slot" | "source" | "style" | "summary" | "template" | "textarea"
        | "title" | "track" | "figcaption" => NoRole,
        _ => Any,
    }
}

/// Whether `role` is allowed on the element by ARIA in HTML (its implicit role always is).
pub fn role_allowed(el: ElementRef<'_>, role: &str) -> bool {
    if implicit_role(el) == Some(role) {
        return true;
    }
    match allowed_roles(el) {
        AllowedRoles::Any => true,
        AllowedRoles::NoRole => false,
        AllowedRoles::Only(list) => list.contains(&role),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::{Html, Selector};

    fn first<'a>(doc: &'a Html, sel: &str) -> ElementRef<'a> {
        doc.select(&Selector::parse(sel).unwrap()).next().unwrap()
    }

    #[test]
    fn implicit_roles_follow_conditions() {
        let doc = Html::parse_document(
            r#"<body><a id=l href=x>x</a><a id=n>x</a><img id=p alt=""><img id=i alt="x">
            <header id=b></header><article><header id=h></header></article>
            <section id=s1></section><section id=s2 aria-label=x></section>
            <input id=t><input id=c type=checkbox><input id=cb list=d><input id=pw type=password>
            <select id=s></select><select id=m multiple></select>
            <table><tr><th id=ch>a</th></tr><tr><th id=rh>b</th><td id=td>c</td></tr></table>
            <table role=grid><tr><td id=gc>x</td></tr></table>
            <ul><li id=li>x</li></ul><li id=orphan>x</li></body>"#,
        );
        let r = |s: &str| implicit_role(first(&doc, s));
        assert_eq!(r("#l"), Some("link"));
        assert_eq!(r("#n"), Some("generic"));
        assert_eq!(r("#p"), Some("presentation"));
        assert_eq!(r("#i"), Some("img"));
        assert_eq!(r("#b"), Some("banner"));
        assert_eq!(r("#h"), Some("generic"));
        assert_eq!(r("#s1"), Some("generic"));
        assert_eq!(r("#s2"), Some("region"));
        assert_eq!(r("#t"), Some("textbox"));
        assert_eq!(r("#c"), Some("checkbox"));
        assert_eq!(r("#cb"), Some("combobox"));
        assert_eq!(r("#pw"), None);
        assert_eq!(r("#s"), Some("combobox"));
        assert_eq!(r("#m"), Some("listbox"));
        assert_eq!(r("#ch"), Some("columnheader"));
        assert_eq!(r("#rh"), Some("rowheader"));
        assert_eq!(r("#td"), Some("cell"));
        assert_eq!(r("#gc"), Some("gridcell"));
        assert_eq!(r("#li"), Some("listitem"));
        assert_eq!(r("#orphan"), Some("generic"));
    }

    #[test]
    fn allowed_roles_per_element() {
        let doc = Html::parse_document(
            r#"<body><a id=l href=x>x</a><button id=b>x</button><h1 id=h>x</h1>
            <input id=c type=checkbox><textarea id=ta></textarea><div id=d></div></body>"#,
        );
        assert!(role_allowed(first(&doc, "#l"), "button"));
        assert!(!role_allowed(first(&doc, "#l"), "heading"));
        assert!(role_allowed(first(&doc, "#b"), "tab"));
        assert!(!role_allowed(first(&doc, "#h"), "button"));
        assert!(role_allowed(first(&doc, "#c"), "switch"));
        assert!(role_allowed(first(&doc, "#c"), "checkbox"));
        assert!(!role_allowed(first(&doc, "#ta"), "button"));
        assert!(role_allowed(first(&doc, "#d"), "anything"));
    }
}
