//! The one list of rules, and the rule sets users select them by.
//!
//! A new rule is added in its own file and named once, in its category's
//! `rule_modules!` list (`scripts/new-rule` writes both); the registry test
//! checks ids are unique, docs carry both examples and WCAG criteria are real,
//! and `tests/doc_examples.rs` runs those examples.

use std::sync::LazyLock;

use serde::Serialize;
use thiserror::Error;

use crate::a11y;
use crate::meta::{Category, Level, RuleMeta};
use crate::performance;
use crate::quality;
use crate::run::Rule;
use crate::security;
use crate::seo;
use crate::site::{self, SiteRule};

/// Every page rule, in report order: the categories' lists (each declared once,
/// with its modules, by `rule_modules!` in the category's `mod.rs`).
static PAGE_RULES: LazyLock<Vec<&'static dyn Rule>> = LazyLock::new(|| {
    [
        a11y::RULES,
        security::RULES,
        seo::RULES,
        performance::RULES,
        quality::RULES,
    ]
    .concat()
});

/// Every site rule, in report order.
static SITE_RULES: &[&dyn SiteRule] = site::RULES;

/// Names of the rule sets, with what each holds.
pub const RULE_SETS: &[(&str, &str)] = &[
    ("wcag-a", "accessibility rules for WCAG 2.1 level A"),
    (
        "wcag-aa",
        "accessibility rules for WCAG 2.1 levels A and AA",
    ),
    (
        "best-practice",
        "accessibility best practices beyond WCAG conformance",
    ),
    (
        "review",
        "accessibility checks only a person can decide: every applicable element is a review item",
    ),
    (
        "accessibility",
        "every accessibility rule (wcag-aa, best-practice and review)",
    ),
    ("seo", "search engine optimisation rules"),
    ("security", "security rules"),
    ("performance", "performance rules"),
    ("quality", "content quality rules"),
    ("all", "every rule"),
];

/// Every page rule.
pub fn page_rules() -> &'static [&'static dyn Rule] {
    &PAGE_RULES
}

/// Every site rule.
pub fn site_rules() -> &'static [&'static dyn SiteRule] {
    SITE_RULES
}

/// Metadata of every rule, page rules first.
pub fn all_meta() -> impl Iterator<Item = &'static RuleMeta> {
    PAGE_RULES
        .iter()
        .map(|r| r.meta())
        .chain(SITE_RULES.iter().map(|r| r.meta()))
}

/// Looks up a rule's metadata by id.
pub fn meta(id: &str) -> Option<&'static RuleMeta> {
    all_meta().find(|m| m.id == id)
}

/// A resolved selection of rules.
#[derive(Clone, Default)]
pub struct Selection {
    /// Page rules to run on every page.
    pub page: Vec<&'static dyn Rule>,
    /// Site rules to run after the crawl.
    pub site: Vec<&'static dyn SiteRule>,
}

impl Selection {
    /// Ids of every selected rule.
    pub fn ids(&self) -> Vec<&'static str> {
        self.page
            .iter()
            .map(|r| r.meta().id)
            .chain(self.site.iter().map(|r| r.meta().id))
            .collect()
    }

    /// Whether any selected rule needs `need` gathered.
    pub fn needs(&self, need: crate::Need) -> bool {
        self.page
            .iter()
            .map(|r| r.meta())
            .chain(self.site.iter().map(|r| r.meta()))
            .any(|m| m.needs.contains(&need))
    }

    /// True when nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.page.is_empty() && self.site.is_empty()
    }
}

impl std::fmt::Debug for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.ids()).finish()
    }
}

/// A rule set or rule id that does not exist.
#[derive(Debug, Clone, Error, PartialEq, Eq, Serialize)]
#[error("unknown rule set or rule id `{name}`: use one of {known_sets} or a rule id listed by `sitescan rules`")]
pub struct UnknownRule {
    /// What the caller asked for.
    pub name: String,
    /// The rule sets that exist, comma-joined.
    pub known_sets: String,
}

/// Whether a rule belongs to a named rule set.
pub fn in_set(meta: &RuleMeta, set: &str) -> Option<bool> {
    let a11y = meta.category == Category::Accessibility;
    Some(match set {
        "wcag-a" => {
            a11y && !meta.best_practice && !meta.manual_review && meta.level == Some(Level::A)
        }
        "wcag-aa" => a11y && !meta.best_practice && !meta.manual_review && meta.level.is_some(),
        "review" => a11y && meta.manual_review,
        "best-practice" => a11y && meta.best_practice,
        "accessibility" => a11y,
        "seo" => meta.category == Category::Seo,
        "security" => meta.category == Category::Security,
        "performance" => meta.category == Category::Performance,
        "quality" => meta.category == Category::Quality,
        "all" => true,
        _ => return None,
    })
}

/// Resolves rule set names and rule ids (each entry may itself be comma-joined)
/// into a selection, in registry order and without duplicates.
pub fn select<S: AsRef<str>>(names: &[S]) -> Result<Selection, UnknownRule> {
    let mut wanted: Vec<&str> = Vec::new();
    for name in names {
        for part in name.as_ref().split(',') {
            let part = part.trim();
            if !part.is_empty() {
                wanted.push(part);
            }
        }
    }
    for name in &wanted {
        let known = RULE_SETS.iter().any(|(s, _)| s == name) || meta(name).is_some();
        if !known {
            return Err(UnknownRule {
                name: (*name).to_string(),
                known_sets: RULE_SETS
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    // `analysis-incomplete` is never selected: the runner reports it on any page
    // over its budget whatever the selection (see its rule file).
    let runner_reported = crate::quality::analysis_incomplete::AnalysisIncomplete.meta();
    let chosen = |m: &RuleMeta| {
        !std::ptr::eq(m, runner_reported)
            && wanted
                .iter()
                .any(|w| *w == m.id || in_set(m, w).unwrap_or(false))
    };
    Ok(Selection {
        page: PAGE_RULES
            .iter()
            .copied()
            .filter(|r| chosen(r.meta()))
            .collect(),
        site: SITE_RULES
            .iter()
            .copied()
            .filter(|r| chosen(r.meta()))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// WCAG 2.1 success criteria at levels A and AA.
    const WCAG21_A_AA: &[&str] = &[
        "1.1.1", "1.2.1", "1.2.2", "1.2.3", "1.2.4", "1.2.5", "1.3.1", "1.3.2", "1.3.3", "1.3.4",
        "1.3.5", "1.4.1", "1.4.2", "1.4.3", "1.4.4", "1.4.5", "1.4.10", "1.4.11", "1.4.12",
        "1.4.13", "2.1.1", "2.1.2", "2.1.4", "2.2.1", "2.2.2", "2.3.1", "2.4.1", "2.4.2", "2.4.3",
        "2.4.4", "2.4.5", "2.4.6", "2.4.7", "2.5.1", "2.5.2", "2.5.3", "2.5.4", "3.1.1", "3.1.2",
        "3.2.1", "3.2.2", "3.2.3", "3.2.4", "3.3.1", "3.3.2", "3.3.3", "3.3.4", "4.1.1", "4.1.2",
        "4.1.3",
    ];

    #[test]
    fn a_selection_needs_what_its_rules_declare() {
        use crate::Need::*;
        let all = [
            Subresources,
            LinkStatus,
            LinkPlaces,
            ResourceStatus,
            Robots,
            Tls,
            CorsProbe,
            HttpProbe,
            Dictionary,
            LanguageSkipNote,
            Interaction,
            NarrowViewport,
            WebVitals,
            MeasuredBackdrop,
            LinkStates,
        ];
        let needed = |names: &[&str]| -> Vec<crate::Need> {
            let selection = select(names).unwrap();
            all.into_iter().filter(|n| selection.needs(*n)).collect()
        };
        assert_eq!(needed(&["image-alt", "document-title"]), []);
        assert_eq!(needed(&["tls-version"]), [Tls]);
        assert_eq!(needed(&["broken-links"]), [LinkStatus, LinkPlaces]);
        assert_eq!(
            needed(&["broken-resources", "spelling"]),
            [Subresources, ResourceStatus, Dictionary]
        );
        assert_eq!(needed(&["readability"]), [LanguageSkipNote]);
        assert_eq!(needed(&["color-contrast"]), [MeasuredBackdrop]);
        assert_eq!(needed(&["link-in-text-block"]), [LinkStates]);
        assert_eq!(
            needed(&["keyboard-trap", "focus-visible-rendered"]),
            [Interaction]
        );
        assert_eq!(needed(&["character-key-shortcuts"]), [Interaction]);
        // Every need is some rule's: none is gathered for nothing, none is dead.
        let all_rules = select(&["all"]).unwrap();
        for need in all {
            assert!(all_rules.needs(need), "no rule needs {need:?}");
        }
    }

    #[test]
    fn ids_are_unique_kebab_case_and_documented() {
        let mut seen = HashSet::new();
        for m in all_meta() {
            assert!(seen.insert(m.id), "duplicate rule id {}", m.id);
            assert!(
                m.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{} is not kebab-case",
                m.id
            );
            assert!(
                !m.title.is_empty() && !m.help.is_empty(),
                "{} lacks title/help",
                m.id
            );
            assert!(
                m.help_url.starts_with("https://"),
                "{} lacks a help URL",
                m.id
            );
            assert!(
                m.docs.contains("## Failing") && m.docs.contains("## Passing"),
                "{} docs need both examples",
                m.id
            );
            for sc in m.wcag {
                assert!(
                    WCAG21_A_AA.contains(sc),
                    "{} cites unknown WCAG SC {sc}",
                    m.id
                );
            }
            if m.category == Category::Accessibility && !m.best_practice {
                assert!(
                    m.level.is_some() && !m.wcag.is_empty(),
                    "{} needs a WCAG level and SC",
                    m.id
                );
            }
        }
    }

    #[test]
    fn sets_resolve_and_unknown_names_are_errors() {
        let all = select(&["all"]).unwrap();
        // Every rule but `analysis-incomplete`, which the runner reports itself.
        assert_eq!(all.page.len() + all.site.len() + 1, all_meta().count());
        // Sets are category-pure: the API's type-specific endpoints restrict a
        // scan to the set of their category.
        let seo = select(&["seo"]).unwrap();
        assert!(seo
            .page
            .iter()
            .map(|r| r.meta())
            .chain(seo.site.iter().map(|r| r.meta()))
            .all(|m| m.category == Category::Seo));
        let one = select(&["document-title"]).unwrap();
        assert_eq!(one.ids(), vec!["document-title"]);
        let err = select(&["wcag-aa,nope"]).unwrap_err();
        assert_eq!(err.name, "nope");
        assert!(err.to_string().contains("wcag-aa"));
    }
}
