//! The WAI-ARIA 1.2 role table.
//!
//! Source: WAI-ARIA 1.2 §5.3 "Categorization of Roles" and §5.4 "Definition of Roles"
//! (superclass, required / supported / prohibited states and properties, required
//! context role, required owned elements, name from, accessible name required,
//! children presentational). DPUB-ARIA 1.1 (`doc-*`) and Graphics-ARIA 1.0
//! (`graphics-*`) roles are listed with their superclass and name rules so that pages
//! using them are not reported as having invalid roles.
//!
//! `supported` lists the role-specific (non-global) attributes a role supports or
//! inherits, flattened, so one lookup answers "is this attribute allowed here".
//! Where WAI-ARIA 1.2 deprecated an attribute on a role but browsers still honour it
//! (`aria-expanded` on generic section roles), it stays supported, as assistive
//! technology still reads it.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

/// Where a role's accessible name may come from (WAI-ARIA 1.2 §5.2.8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFrom {
    /// Only from the author (`aria-label`, `aria-labelledby`, native labels).
    Author,
    /// From the author or from the element's content.
    Content,
    /// Naming is prohibited.
    Prohibited,
}

/// One role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleDef {
    /// Role name.
    pub name: &'static str,
    /// Abstract roles must not be used in content.
    pub is_abstract: bool,
    /// Direct superclass roles.
    pub superclass: &'static [&'static str],
    /// States and properties the author must set (unless a native element supplies them).
    pub required: &'static [&'static str],
    /// Role-specific states and properties supported or inherited (not the globals).
    pub supported: &'static [&'static str],
    /// Attributes prohibited on this role.
    pub prohibited: &'static [&'static str],
    /// Roles one of which must be the accessibility parent.
    pub required_context: &'static [&'static str],
    /// Roles the element must own at least one of.
    pub required_owned: &'static [&'static str],
    /// Where the name comes from.
    pub name_from: NameFrom,
    /// Whether an accessible name is required.
    pub name_required: bool,
    /// Descendants are presentational (their semantics are not exposed).
    pub children_presentational: bool,
    /// Deprecated role.
    pub deprecated: bool,
}

impl RoleDef {
    const fn new(name: &'static str, superclass: &'static [&'static str]) -> RoleDef {
        RoleDef {
            name,
            is_abstract: false,
            superclass,
            required: &[],
            supported: &[],
            prohibited: &[],
            required_context: &[],
            required_owned: &[],
            name_from: NameFrom::Author,
            name_required: false,
            children_presentational: false,
            deprecated: false,
        }
    }
    const fn abs(mut self) -> Self {
        self.is_abstract = true;
        self
    }
    const fn req(mut self, attrs: &'static [&'static str]) -> Self {
        self.required = attrs;
        self
    }
    const fn sup(mut self, attrs: &'static [&'static str]) -> Self {
        self.supported = attrs;
        self
    }
    const fn ctx(mut self, roles: &'static [&'static str]) -> Self {
        self.required_context = roles;
        self
    }
    const fn owns(mut self, roles: &'static [&'static str]) -> Self {
        self.required_owned = roles;
        self
    }
    const fn content(mut self) -> Self {
        self.name_from = NameFrom::Content;
        self
    }
    const fn no_name(mut self) -> Self {
        self.name_from = NameFrom::Prohibited;
        self.prohibited = &["aria-braillelabel", "aria-label", "aria-labelledby"];
        self
    }
    /// `generic`, `none`, `presentation`: no name and no role description either
    /// (WAI-ARIA 1.3 draft, which ACT rule kb1m8s follows).
    const fn no_description(mut self) -> Self {
        self.prohibited = &[
            "aria-braillelabel",
            "aria-brailleroledescription",
            "aria-label",
            "aria-labelledby",
            "aria-roledescription",
        ];
        self
    }
    const fn named(mut self) -> Self {
        self.name_required = true;
        self
    }
    const fn pres_children(mut self) -> Self {
        self.children_presentational = true;
        self
    }
    const fn deprecated(mut self) -> Self {
        self.deprecated = true;
        self
    }
}

const CELL: &[&str] = &[
    "aria-colindex",
    "aria-colindextext",
    "aria-colspan",
    "aria-rowindex",
    "aria-rowindextext",
    "aria-rowspan",
];
const GRIDCELL: &[&str] = &[
    "aria-colindex",
    "aria-colindextext",
    "aria-colspan",
    "aria-rowindex",
    "aria-rowindextext",
    "aria-rowspan",
    "aria-disabled",
    "aria-errormessage",
    "aria-expanded",
    "aria-haspopup",
    "aria-invalid",
    "aria-readonly",
    "aria-required",
    "aria-selected",
];
const HEADER_CELL: &[&str] = &[
    "aria-colindex",
    "aria-colindextext",
    "aria-colspan",
    "aria-rowindex",
    "aria-rowindextext",
    "aria-rowspan",
    "aria-disabled",
    "aria-errormessage",
    "aria-expanded",
    "aria-haspopup",
    "aria-invalid",
    "aria-readonly",
    "aria-required",
    "aria-selected",
    "aria-sort",
];
const RANGE: &[&str] = &[
    "aria-valuemax",
    "aria-valuemin",
    "aria-valuenow",
    "aria-valuetext",
];
const EXPANDED: &[&str] = &["aria-expanded"];
const LANDMARK: &[&str] = &["landmark"];
const SECTION: &[&str] = &["section"];
const MENU_ITEM: &[&str] = &[
    "aria-disabled",
    "aria-expanded",
    "aria-haspopup",
    "aria-posinset",
    "aria-setsize",
];
const MENU_CHECK: &[&str] = &[
    "aria-checked",
    "aria-disabled",
    "aria-expanded",
    "aria-haspopup",
    "aria-posinset",
    "aria-setsize",
];
const MENU_OWNED: &[&str] = &["group", "menuitem", "menuitemcheckbox", "menuitemradio"];
const MENU_CTX: &[&str] = &["group", "menu", "menubar"];
const MENU: &[&str] = &["aria-activedescendant", "aria-disabled", "aria-orientation"];
const GRID: &[&str] = &[
    "aria-activedescendant",
    "aria-colcount",
    "aria-disabled",
    "aria-multiselectable",
    "aria-readonly",
    "aria-rowcount",
];
const TREEGRID: &[&str] = &[
    "aria-activedescendant",
    "aria-colcount",
    "aria-disabled",
    "aria-errormessage",
    "aria-invalid",
    "aria-multiselectable",
    "aria-orientation",
    "aria-readonly",
    "aria-required",
    "aria-rowcount",
];
const TEXTBOX: &[&str] = &[
    "aria-activedescendant",
    "aria-autocomplete",
    "aria-errormessage",
    "aria-haspopup",
    "aria-invalid",
    "aria-multiline",
    "aria-placeholder",
    "aria-readonly",
    "aria-required",
];

/// Every role, alphabetical within each group (WAI-ARIA, Graphics-ARIA, DPUB-ARIA).
pub static ROLES: &[RoleDef] = &[
    // Abstract roles (WAI-ARIA 1.2 §5.3.1).
    RoleDef::new("command", &["widget"]).abs(),
    RoleDef::new("composite", &["widget"])
        .abs()
        .sup(&["aria-activedescendant", "aria-disabled"]),
    RoleDef::new("input", &["widget"])
        .abs()
        .sup(&["aria-disabled"]),
    RoleDef::new("landmark", SECTION).abs(),
    RoleDef::new("range", &["structure"]).abs().sup(RANGE),
    RoleDef::new("roletype", &[]).abs(),
    RoleDef::new("section", &["structure"]).abs(),
    RoleDef::new("sectionhead", &["structure"]).abs(),
    RoleDef::new("select", &["composite", "group"])
        .abs()
        .sup(&["aria-orientation"]),
    RoleDef::new("structure", &["roletype"]).abs(),
    RoleDef::new("widget", &["roletype"]).abs(),
    RoleDef::new("window", &["roletype"])
        .abs()
        .sup(&["aria-modal"]),
    // Concrete roles (WAI-ARIA 1.2 §5.4).
    RoleDef::new("alert", SECTION).sup(EXPANDED),
    RoleDef::new("alertdialog", &["alert", "dialog"])
        .sup(&["aria-expanded", "aria-modal"])
        .named(),
    RoleDef::new("application", &["structure"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-haspopup",
            "aria-invalid",
        ])
        .named(),
    RoleDef::new("article", &["document"]).sup(&["aria-expanded", "aria-posinset", "aria-setsize"]),
    RoleDef::new("banner", LANDMARK),
    RoleDef::new("blockquote", SECTION),
    RoleDef::new("button", &["command"])
        .sup(&[
            "aria-disabled",
            "aria-expanded",
            "aria-haspopup",
            "aria-pressed",
        ])
        .content()
        .named()
        .pres_children(),
    RoleDef::new("caption", SECTION)
        .no_name()
        .ctx(&["figure", "grid", "table", "treegrid"]),
    RoleDef::new("cell", SECTION)
        .sup(CELL)
        .ctx(&["row"])
        .content(),
    RoleDef::new("checkbox", &["input"])
        .req(&["aria-checked"])
        .sup(&[
            "aria-checked",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-invalid",
            "aria-readonly",
            "aria-required",
        ])
        .content()
        .named()
        .pres_children(),
    RoleDef::new("code", SECTION).no_name(),
    RoleDef::new("columnheader", &["cell", "gridcell", "sectionhead"])
        .sup(HEADER_CELL)
        .ctx(&["row"])
        .content()
        .named(),
    RoleDef::new("combobox", &["input"])
        .req(&["aria-expanded"])
        .sup(&[
            "aria-activedescendant",
            "aria-autocomplete",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-haspopup",
            "aria-invalid",
            "aria-readonly",
            "aria-required",
        ])
        .named(),
    RoleDef::new("complementary", LANDMARK),
    RoleDef::new("contentinfo", LANDMARK),
    RoleDef::new("definition", SECTION),
    RoleDef::new("deletion", SECTION).no_name(),
    RoleDef::new("dialog", &["window"])
        .sup(&["aria-modal"])
        .named(),
    RoleDef::new("directory", &["list"])
        .sup(EXPANDED)
        .deprecated(),
    RoleDef::new("document", &["structure"]).sup(EXPANDED),
    RoleDef::new("emphasis", SECTION).no_name(),
    RoleDef::new("feed", &["list"]).owns(&["article"]),
    RoleDef::new("figure", SECTION),
    RoleDef::new("form", LANDMARK),
    RoleDef::new("generic", &["structure"])
        .no_name()
        .no_description(),
    RoleDef::new("grid", &["composite", "table"])
        .sup(GRID)
        .owns(&["row", "rowgroup"])
        .named(),
    RoleDef::new("gridcell", &["cell", "widget"])
        .sup(GRIDCELL)
        .ctx(&["row"])
        .content(),
    RoleDef::new("group", SECTION).sup(&[
        "aria-activedescendant",
        "aria-disabled",
        "aria-expanded",
    ]),
    RoleDef::new("heading", &["sectionhead"])
        .req(&["aria-level"])
        .sup(&["aria-expanded", "aria-level"])
        .content()
        .named(),
    RoleDef::new("img", SECTION).named().pres_children(),
    RoleDef::new("insertion", SECTION).no_name(),
    RoleDef::new("link", &["command"])
        .sup(&["aria-disabled", "aria-expanded", "aria-haspopup"])
        .content()
        .named(),
    RoleDef::new("list", SECTION).owns(&["listitem"]),
    RoleDef::new("listbox", &["select"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-invalid",
            "aria-multiselectable",
            "aria-orientation",
            "aria-readonly",
            "aria-required",
        ])
        .owns(&["group", "option"])
        .named(),
    RoleDef::new("listitem", SECTION)
        .sup(&[
            "aria-expanded",
            "aria-level",
            "aria-posinset",
            "aria-setsize",
        ])
        .ctx(&["directory", "list"]),
    RoleDef::new("log", SECTION),
    RoleDef::new("main", LANDMARK),
    RoleDef::new("marquee", SECTION),
    RoleDef::new("math", SECTION).pres_children(),
    RoleDef::new("menu", &["select"]).sup(MENU).owns(MENU_OWNED),
    RoleDef::new("menubar", &["menu"])
        .sup(MENU)
        .owns(MENU_OWNED),
    RoleDef::new("menuitem", &["command"])
        .sup(MENU_ITEM)
        .ctx(MENU_CTX)
        .content()
        .named(),
    RoleDef::new("menuitemcheckbox", &["checkbox", "menuitem"])
        .req(&["aria-checked"])
        .sup(MENU_CHECK)
        .ctx(MENU_CTX)
        .content()
        .named()
        .pres_children(),
    RoleDef::new("menuitemradio", &["menuitemcheckbox", "radio"])
        .req(&["aria-checked"])
        .sup(MENU_CHECK)
        .ctx(MENU_CTX)
        .content()
        .named()
        .pres_children(),
    RoleDef::new("meter", &["range"])
        .req(&["aria-valuenow"])
        .sup(RANGE)
        .named()
        .pres_children(),
    RoleDef::new("navigation", LANDMARK),
    RoleDef::new("none", &["structure"])
        .no_name()
        .no_description(),
    RoleDef::new("note", SECTION),
    RoleDef::new("option", &["input"])
        .sup(&[
            "aria-checked",
            "aria-disabled",
            "aria-posinset",
            "aria-selected",
            "aria-setsize",
        ])
        .ctx(&["group", "listbox"])
        .content()
        .named()
        .pres_children(),
    RoleDef::new("paragraph", SECTION).no_name(),
    RoleDef::new("presentation", &["structure"])
        .no_name()
        .no_description(),
    RoleDef::new("progressbar", &["range", "widget"])
        .sup(RANGE)
        .named()
        .pres_children(),
    RoleDef::new("radio", &["input"])
        .req(&["aria-checked"])
        .sup(&[
            "aria-checked",
            "aria-disabled",
            "aria-posinset",
            "aria-setsize",
        ])
        .content()
        .named()
        .pres_children(),
    RoleDef::new("radiogroup", &["select"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-invalid",
            "aria-orientation",
            "aria-readonly",
            "aria-required",
        ])
        .named(),
    RoleDef::new("region", LANDMARK).named(),
    RoleDef::new("row", &["group", "widget"])
        .sup(&[
            "aria-activedescendant",
            "aria-colindex",
            "aria-disabled",
            "aria-expanded",
            "aria-level",
            "aria-posinset",
            "aria-rowindex",
            "aria-rowindextext",
            "aria-selected",
            "aria-setsize",
        ])
        .ctx(&["grid", "rowgroup", "table", "treegrid"])
        .owns(&["cell", "columnheader", "gridcell", "rowheader"])
        .content(),
    RoleDef::new("rowgroup", &["structure"])
        .ctx(&["grid", "table", "treegrid"])
        .owns(&["row"])
        .content(),
    RoleDef::new("rowheader", &["cell", "gridcell", "sectionhead"])
        .sup(HEADER_CELL)
        .ctx(&["row"])
        .content()
        .named(),
    RoleDef::new("scrollbar", &["range", "widget"])
        .req(&["aria-controls", "aria-valuenow"])
        .sup(&[
            "aria-disabled",
            "aria-orientation",
            "aria-valuemax",
            "aria-valuemin",
            "aria-valuenow",
            "aria-valuetext",
        ])
        .pres_children(),
    RoleDef::new("search", LANDMARK),
    RoleDef::new("searchbox", &["textbox"]).sup(TEXTBOX).named(),
    RoleDef::new("separator", &["structure", "widget"])
        .sup(&[
            "aria-disabled",
            "aria-orientation",
            "aria-valuemax",
            "aria-valuemin",
            "aria-valuenow",
            "aria-valuetext",
        ])
        .pres_children(),
    RoleDef::new("slider", &["input", "range"])
        .req(&["aria-valuenow"])
        .sup(&[
            "aria-disabled",
            "aria-errormessage",
            "aria-haspopup",
            "aria-invalid",
            "aria-orientation",
            "aria-readonly",
            "aria-valuemax",
            "aria-valuemin",
            "aria-valuenow",
            "aria-valuetext",
        ])
        .named()
        .pres_children(),
    RoleDef::new("spinbutton", &["composite", "input", "range"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-errormessage",
            "aria-invalid",
            "aria-readonly",
            "aria-required",
            "aria-valuemax",
            "aria-valuemin",
            "aria-valuenow",
            "aria-valuetext",
        ])
        .named(),
    RoleDef::new("status", SECTION),
    RoleDef::new("strong", SECTION).no_name(),
    RoleDef::new("subscript", SECTION).no_name(),
    RoleDef::new("superscript", SECTION).no_name(),
    RoleDef::new("switch", &["checkbox"])
        .req(&["aria-checked"])
        .sup(&[
            "aria-checked",
            "aria-disabled",
            "aria-errormessage",
            "aria-expanded",
            "aria-invalid",
            "aria-readonly",
            "aria-required",
        ])
        .content()
        .named()
        .pres_children(),
    RoleDef::new("tab", &["widget"])
        .sup(&[
            "aria-disabled",
            "aria-expanded",
            "aria-haspopup",
            "aria-posinset",
            "aria-selected",
            "aria-setsize",
        ])
        .ctx(&["tablist"])
        .content()
        .pres_children(),
    RoleDef::new("table", SECTION)
        .sup(&["aria-colcount", "aria-rowcount"])
        .owns(&["row", "rowgroup"])
        .named(),
    RoleDef::new("tablist", &["composite"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-multiselectable",
            "aria-orientation",
        ])
        .owns(&["tab"]),
    RoleDef::new("tabpanel", SECTION).named(),
    RoleDef::new("term", SECTION),
    RoleDef::new("textbox", &["input"]).sup(TEXTBOX).named(),
    RoleDef::new("time", SECTION),
    RoleDef::new("timer", &["status"]),
    RoleDef::new("toolbar", &["group"]).sup(&[
        "aria-activedescendant",
        "aria-disabled",
        "aria-expanded",
        "aria-orientation",
    ]),
    RoleDef::new("tooltip", SECTION).content().named(),
    RoleDef::new("tree", &["select"])
        .sup(&[
            "aria-activedescendant",
            "aria-disabled",
            "aria-errormessage",
            "aria-invalid",
            "aria-multiselectable",
            "aria-orientation",
            "aria-required",
        ])
        .owns(&["group", "treeitem"])
        .named(),
    RoleDef::new("treegrid", &["grid", "tree"])
        .sup(TREEGRID)
        .owns(&["row", "rowgroup"])
        .named(),
    RoleDef::new("treeitem", &["listitem", "option"])
        .sup(&[
            "aria-checked",
            "aria-disabled",
            "aria-expanded",
            "aria-haspopup",
            "aria-level",
            "aria-posinset",
            "aria-selected",
            "aria-setsize",
        ])
        .ctx(&["group", "tree"])
        .content()
        .named(),
    // Graphics-ARIA 1.0.
    RoleDef::new("graphics-document", &["document"])
        .sup(EXPANDED)
        .named(),
    RoleDef::new("graphics-object", &["group"]).sup(&[
        "aria-activedescendant",
        "aria-disabled",
        "aria-expanded",
    ]),
    RoleDef::new("graphics-symbol", &["img"])
        .named()
        .pres_children(),
    // DPUB-ARIA 1.1.
    RoleDef::new("doc-abstract", SECTION),
    RoleDef::new("doc-acknowledgments", LANDMARK),
    RoleDef::new("doc-afterword", LANDMARK),
    RoleDef::new("doc-appendix", LANDMARK),
    RoleDef::new("doc-backlink", &["link"])
        .sup(&["aria-disabled", "aria-expanded", "aria-haspopup"])
        .content()
        .named(),
    RoleDef::new("doc-biblioentry", &["listitem"])
        .sup(&[
            "aria-expanded",
            "aria-level",
            "aria-posinset",
            "aria-setsize",
        ])
        .ctx(&["list"])
        .deprecated(),
    RoleDef::new("doc-bibliography", LANDMARK),
    RoleDef::new("doc-biblioref", &["link"])
        .sup(&["aria-disabled", "aria-expanded", "aria-haspopup"])
        .content()
        .named(),
    RoleDef::new("doc-chapter", LANDMARK),
    RoleDef::new("doc-colophon", SECTION),
    RoleDef::new("doc-conclusion", LANDMARK),
    RoleDef::new("doc-cover", &["img"]).pres_children(),
    RoleDef::new("doc-credit", SECTION),
    RoleDef::new("doc-credits", LANDMARK),
    RoleDef::new("doc-dedication", SECTION),
    RoleDef::new("doc-endnote", &["listitem"])
        .sup(&[
            "aria-expanded",
            "aria-level",
            "aria-posinset",
            "aria-setsize",
        ])
        .ctx(&["list"])
        .deprecated(),
    RoleDef::new("doc-endnotes", LANDMARK),
    RoleDef::new("doc-epigraph", SECTION),
    RoleDef::new("doc-epilogue", LANDMARK),
    RoleDef::new("doc-errata", LANDMARK),
    RoleDef::new("doc-example", SECTION),
    RoleDef::new("doc-footnote", SECTION),
    RoleDef::new("doc-foreword", LANDMARK),
    RoleDef::new("doc-glossary", LANDMARK),
    RoleDef::new("doc-glossref", &["link"])
        .sup(&["aria-disabled", "aria-expanded", "aria-haspopup"])
        .content()
        .named(),
    RoleDef::new("doc-index", &["navigation"]),
    RoleDef::new("doc-introduction", LANDMARK),
    RoleDef::new("doc-noteref", &["link"])
        .sup(&["aria-disabled", "aria-expanded", "aria-haspopup"])
        .content()
        .named(),
    RoleDef::new("doc-notice", &["note"]),
    RoleDef::new("doc-pagebreak", &["separator"])
        .sup(&["aria-orientation"])
        .pres_children(),
    RoleDef::new("doc-pagefooter", SECTION),
    RoleDef::new("doc-pageheader", SECTION),
    RoleDef::new("doc-pagelist", &["navigation"]),
    RoleDef::new("doc-part", LANDMARK),
    RoleDef::new("doc-preface", LANDMARK),
    RoleDef::new("doc-prologue", LANDMARK),
    RoleDef::new("doc-pullquote", &["none"]),
    RoleDef::new("doc-qna", SECTION),
    RoleDef::new("doc-subtitle", &["sectionhead"]),
    RoleDef::new("doc-tip", &["note"]),
    RoleDef::new("doc-toc", &["navigation"]),
];

/// Looks a role up by (lowercase) name, abstract roles included.
pub fn role_def(name: &str) -> Option<&'static RoleDef> {
    // Rules ask for role definitions for nearly every element of every page (and
    // `is_a` walks superclass chains through here): a name index instead of a
    // linear scan over ~90 string compares.
    static INDEX: OnceLock<FxHashMap<&'static str, &'static RoleDef>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            // The first entry of a name wins, as a linear scan would find it.
            let mut map = FxHashMap::default();
            for r in ROLES {
                map.entry(r.name).or_insert(r);
            }
            map
        })
        .get(name)
        .copied()
}

/// A concrete (non-abstract) role by name: what a `role` attribute token may name.
pub fn concrete_role(name: &str) -> Option<&'static RoleDef> {
    role_def(name).filter(|r| !r.is_abstract)
}

/// Whether `role` is `ancestor` or inherits from it through its superclass chain.
pub fn is_a(role: &str, ancestor: &str) -> bool {
    // Rules ask this for every ancestor of many elements: each role's superclass
    // chain is flattened once (depth-limited against bad data; the real chains are
    // at most ~6 deep), so a query is one lookup and a scan of a few names.
    static LINEAGE: OnceLock<FxHashMap<&'static str, Vec<&'static str>>> = OnceLock::new();
    fn collect(role: &'static str, depth: u32, out: &mut Vec<&'static str>) {
        if depth > 16 {
            return;
        }
        if let Some(def) = role_def(role) {
            for s in def.superclass {
                if !out.contains(s) {
                    out.push(s);
                }
                collect(s, depth + 1, out);
            }
        }
    }
    if role == ancestor {
        return true;
    }
    LINEAGE
        .get_or_init(|| {
            let mut map = FxHashMap::default();
            for r in ROLES {
                map.entry(r.name).or_insert_with(|| {
                    let mut out = Vec::new();
                    collect(r.name, 0, &mut out);
                    out
                });
            }
            map
        })
        .get(role)
        .is_some_and(|supers| supers.contains(&ancestor))
}

/// Whether `role` is a widget (interactive) role.
pub fn is_widget(role: &str) -> bool {
    is_a(role, "widget")
}

/// Whether `role` is a landmark role.
pub fn is_landmark(role: &str) -> bool {
    role != "landmark" && is_a(role, "landmark")
}

/// Whether `attr` (an `aria-*` name) is supported on `role`: a global attribute, or one
/// the role supports or inherits.
pub fn supports(role: &str, attr: &str) -> bool {
    let Some(def) = role_def(role) else {
        return false;
    };
    if def.prohibited.contains(&attr) {
        return false;
    }
    if super::attrs::attr_def(attr).is_some_and(|a| a.global) {
        return true;
    }
    def.supported.contains(&attr) || def.required.contains(&attr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inheritance() {
        assert!(is_a("menuitemradio", "radio"));
        assert!(is_a("menuitemradio", "widget"));
        assert!(is_a("searchbox", "textbox"));
        assert!(is_widget("button"));
        assert!(!is_widget("heading"));
        assert!(is_landmark("navigation"));
        assert!(is_landmark("doc-toc"));
        assert!(!is_landmark("landmark"));
        assert!(!is_a("img", "widget"));
    }

    #[test]
    fn attributes() {
        assert!(supports("checkbox", "aria-checked"));
        assert!(supports("checkbox", "aria-label"));
        assert!(!supports("link", "aria-checked"));
        assert!(!supports("generic", "aria-label"));
        assert!(supports("slider", "aria-valuenow"));
        assert_eq!(role_def("checkbox").unwrap().required, &["aria-checked"]);
        assert!(concrete_role("widget").is_none());
        assert!(concrete_role("button").is_some());
    }

    #[test]
    fn every_reference_names_a_role() {
        for r in ROLES {
            for s in r
                .superclass
                .iter()
                .chain(r.required_context)
                .chain(r.required_owned)
            {
                assert!(role_def(s).is_some(), "{} refers to unknown {s}", r.name);
            }
            for a in r.supported.iter().chain(r.required).chain(r.prohibited) {
                assert!(
                    super::super::attrs::attr_def(a).is_some(),
                    "{} refers to unknown {a}",
                    r.name
                );
            }
        }
    }
}
