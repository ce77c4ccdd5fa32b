//! Every WAI-ARIA state and property with its value type.
//!
//! Source: WAI-ARIA 1.2, §6.6 "Definitions of States and Properties (all aria-*
//! attributes)" and §6.7 value types; `aria-description`, `aria-braillelabel` and
//! `aria-brailleroledescription` come from the WAI-ARIA 1.3 draft, which browsers
//! already ship, so pages using them are not flagged as invalid.

/// The value type of an ARIA attribute (WAI-ARIA 1.2 §6.3 "Value types").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// `true` or `false`.
    TrueFalse,
    /// `true`, `false` or `undefined`.
    TrueFalseUndefined,
    /// `true`, `false`, `mixed` or `undefined`.
    Tristate,
    /// One id.
    IdRef,
    /// A space-separated list of ids.
    IdRefList,
    /// A whole number.
    Integer,
    /// A real number.
    Number,
    /// Any string.
    String,
    /// One of the listed tokens.
    Token(&'static [&'static str]),
    /// A space-separated list of the listed tokens.
    TokenList(&'static [&'static str]),
}

/// One `aria-*` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// Attribute name.
    pub name: &'static str,
    /// Its value type.
    pub value: ValueType,
    /// Global: allowed on every role (WAI-ARIA 1.2 §6.4 "Global States and Properties").
    pub global: bool,
    /// Deprecated in WAI-ARIA 1.2 (`aria-grabbed`, `aria-dropeffect`).
    pub deprecated: bool,
}

use ValueType::*;

const fn def(name: &'static str, value: ValueType, global: bool) -> AttrDef {
    AttrDef {
        name,
        value,
        global,
        deprecated: false,
    }
}

/// The attribute table, alphabetical.
pub static ATTRS: &[AttrDef] = &[
    def("aria-activedescendant", IdRef, false),
    def("aria-atomic", TrueFalse, true),
    def(
        "aria-autocomplete",
        Token(&["inline", "list", "both", "none"]),
        false,
    ),
    def("aria-braillelabel", String, true),
    def("aria-brailleroledescription", String, true),
    def("aria-busy", TrueFalse, true),
    def("aria-checked", Tristate, false),
    def("aria-colcount", Integer, false),
    def("aria-colindex", Integer, false),
    def("aria-colindextext", String, false),
    def("aria-colspan", Integer, false),
    def("aria-controls", IdRefList, true),
    def(
        "aria-current",
        Token(&["page", "step", "location", "date", "time", "true", "false"]),
        true,
    ),
    def("aria-describedby", IdRefList, true),
    def("aria-description", String, true),
    def("aria-details", IdRef, true),
    def("aria-disabled", TrueFalse, true),
    AttrDef {
        name: "aria-dropeffect",
        value: TokenList(&["copy", "execute", "link", "move", "none", "popup"]),
        global: true,
        deprecated: true,
    },
    def("aria-errormessage", IdRef, true),
    def("aria-expanded", TrueFalseUndefined, false),
    def("aria-flowto", IdRefList, true),
    AttrDef {
        name: "aria-grabbed",
        value: TrueFalseUndefined,
        global: true,
        deprecated: true,
    },
    def(
        "aria-haspopup",
        Token(&["false", "true", "menu", "listbox", "tree", "grid", "dialog"]),
        true,
    ),
    def("aria-hidden", TrueFalseUndefined, true),
    def(
        "aria-invalid",
        Token(&["grammar", "false", "spelling", "true"]),
        true,
    ),
    def("aria-keyshortcuts", String, true),
    def("aria-label", String, true),
    def("aria-labelledby", IdRefList, true),
    def("aria-level", Integer, false),
    def("aria-live", Token(&["assertive", "off", "polite"]), true),
    def("aria-modal", TrueFalse, false),
    def("aria-multiline", TrueFalse, false),
    def("aria-multiselectable", TrueFalse, false),
    def(
        "aria-orientation",
        Token(&["horizontal", "undefined", "vertical"]),
        false,
    ),
    def("aria-owns", IdRefList, true),
    def("aria-placeholder", String, false),
    def("aria-posinset", Integer, false),
    def("aria-pressed", Tristate, false),
    def("aria-readonly", TrueFalse, false),
    def(
        "aria-relevant",
        TokenList(&["additions", "all", "removals", "text"]),
        true,
    ),
    def("aria-required", TrueFalse, false),
    def("aria-roledescription", String, true),
    def("aria-rowcount", Integer, false),
    def("aria-rowindex", Integer, false),
    def("aria-rowindextext", String, false),
    def("aria-rowspan", Integer, false),
    def("aria-selected", TrueFalseUndefined, false),
    def("aria-setsize", Integer, false),
    def(
        "aria-sort",
        Token(&["ascending", "descending", "none", "other"]),
        false,
    ),
    def("aria-valuemax", Number, false),
    def("aria-valuemin", Number, false),
    def("aria-valuenow", Number, false),
    def("aria-valuetext", String, false),
];

/// Looks an attribute up by (lowercase) name.
pub fn attr_def(name: &str) -> Option<&'static AttrDef> {
    // Asked for every attribute of every element: a name index rather than a
    // linear scan.
    static INDEX: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, &'static AttrDef>> =
        std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| {
            // The first entry of a name wins, as a linear scan would find it.
            let mut map = rustc_hash::FxHashMap::default();
            for a in ATTRS {
                map.entry(a.name).or_insert(a);
            }
            map
        })
        .get(name)
        .copied()
}

/// Global attributes that WAI-ARIA 1.2 deprecates as global (they remain valid on
/// the roles that support them).
pub const DEPRECATED_GLOBAL: &[&str] = &[
    "aria-disabled",
    "aria-errormessage",
    "aria-haspopup",
    "aria-invalid",
];

/// Whether `value` is allowed for an attribute of type `ty`.
///
/// Tokens compare ASCII case-insensitively. Id references are checked for shape
/// only (an `IdRef` holds no white space); whether the ids exist is a separate
/// question. An empty value is treated as "not set" by browsers and accepted here.
pub fn value_is_valid(ty: ValueType, value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    match ty {
        TrueFalse => matches!(lower.as_str(), "true" | "false"),
        TrueFalseUndefined => matches!(lower.as_str(), "true" | "false" | "undefined"),
        Tristate => matches!(lower.as_str(), "true" | "false" | "mixed" | "undefined"),
        IdRef => !v.contains(char::is_whitespace),
        IdRefList | String => true,
        Integer => v.parse::<i64>().is_ok(),
        Number => is_number(v),
        Token(tokens) => tokens.contains(&lower.as_str()),
        TokenList(tokens) => lower.split_whitespace().all(|t| tokens.contains(&t)),
    }
}

/// A CSS/HTML real number: optional sign, digits with an optional fraction and exponent.
fn is_number(v: &str) -> bool {
    let re_ok = v.parse::<f64>().is_ok_and(f64::is_finite);
    re_ok && !v.eq_ignore_ascii_case("inf") && !v.contains(['n', 'N', 'i', 'I'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_and_values() {
        assert!(attr_def("aria-label").unwrap().global);
        assert!(!attr_def("aria-checked").unwrap().global);
        assert!(attr_def("aria-labeledby").is_none());
        let checked = attr_def("aria-checked").unwrap().value;
        assert!(value_is_valid(checked, "mixed"));
        assert!(value_is_valid(checked, "TRUE"));
        assert!(!value_is_valid(checked, "yes"));
        assert!(value_is_valid(Integer, "3"));
        assert!(!value_is_valid(Integer, "3.5"));
        assert!(value_is_valid(Number, "3.5"));
        assert!(!value_is_valid(Number, "NaN"));
        let rel = attr_def("aria-relevant").unwrap().value;
        assert!(value_is_valid(rel, "additions text"));
        assert!(!value_is_valid(rel, "additions everything"));
        assert!(!value_is_valid(IdRef, "a b"));
        assert!(attr_def("aria-grabbed").unwrap().deprecated);
    }

    #[test]
    fn table_is_sorted_and_unique() {
        for w in ATTRS.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
    }
}
