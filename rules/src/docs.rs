//! Rule documentation generated from the registry: one Markdown page per rule
//! (`docs/rules/<id>.md`) and the rule index in the README, between
//! [`README_START`] and [`README_END`].
//!
//! The test `rules/tests/docs.rs` fails when the checked-in files differ from what
//! this module generates, so the docs cannot drift from the code; regenerate with
//! `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`.

use crate::registry;
use crate::{Category, RuleMeta};

/// Marker line opening the generated section of the README.
pub const README_START: &str = "<!-- rules:start (generated from the registry; SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs) -->";
/// Marker line closing it.
pub const README_END: &str = "<!-- rules:end -->";

/// Folder of the per-rule pages, relative to the repository root.
pub const RULE_DOCS_DIR: &str = "docs/rules";

/// The Markdown page of one rule.
pub fn rule_page(m: &RuleMeta) -> String {
    let mut out = format!("# `{}` — {}\n\n", m.id, m.title);
    out.push_str(&format!(
        "| | |\n|---|---|\n| Category | {} |\n| Impact | {} |\n",
        m.category, m.impact
    ));
    if !m.wcag.is_empty() {
        let level = m
            .level
            .map(|l| format!(" (level {l:?})"))
            .unwrap_or_default();
        out.push_str(&format!("| WCAG 2.1 | {}{level} |\n", m.wcag.join(", ")));
    }
    if !m.act.is_empty() {
        out.push_str(&format!("| ACT rules | {} |\n", m.act.join(", ")));
    }
    if m.best_practice {
        out.push_str("| Best practice | yes |\n");
    }
    if m.manual_review {
        out.push_str("| Review only | yes: every applicable element is for a person to judge; rule set `review`, not in `wcag-a`/`wcag-aa` |\n");
    }
    if m.scope == crate::Scope::Host {
        out.push_str("| Reported | once per host: a fact of the whole server, its pages listed as occurrences |\n");
    }
    if !m.defers_to.is_empty() {
        let owners: Vec<String> = m.defers_to.iter().map(|o| format!("`{o}`")).collect();
        out.push_str(&format!(
            "| Owned by | {}: where it reports the same element, this rule's finding is dropped |\n",
            owners.join(", ")
        ));
    }
    out.push_str(&format!("| Reference | <{}> |\n\n", m.help_url));
    out.push_str(&format!("**How to fix:** {}\n\n", m.help));
    // Rule docs use `##` sections; keep them as they are.
    out.push_str(m.docs.trim());
    out.push('\n');
    out
}

fn category_heading(c: Category) -> &'static str {
    match c {
        Category::Accessibility => "Accessibility",
        Category::Seo => "SEO",
        Category::Security => "Security",
        Category::Performance => "Performance",
        Category::Quality => "Content quality",
    }
}

/// The README's rule index: per category a table of every rule (page rules, then
/// site rules) with a link to its page.
pub fn readme_section() -> String {
    let mut out = String::new();
    out.push_str(README_START);
    out.push('\n');
    let page_ids: Vec<&str> = registry::page_rules().iter().map(|r| r.meta().id).collect();
    for c in Category::ALL {
        let metas: Vec<&RuleMeta> = registry::all_meta().filter(|m| m.category == c).collect();
        if metas.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n### {} ({} rules)\n\n| Rule | Checks | Impact | Scope |\n|---|---|---|---|\n",
            category_heading(c),
            metas.len()
        ));
        for m in metas {
            let scope = if page_ids.contains(&m.id) {
                "page"
            } else {
                "site"
            };
            let wcag = if m.wcag.is_empty() {
                String::new()
            } else {
                format!(" (WCAG {})", m.wcag.join(", "))
            };
            out.push_str(&format!(
                "| [`{id}`]({dir}/{id}.md) | {title}{wcag} | {impact} | {scope} |\n",
                id = m.id,
                dir = RULE_DOCS_DIR,
                title = m.title.replace('|', "\\|"),
                impact = m.impact,
            ));
        }
    }
    out.push('\n');
    out.push_str(README_END);
    out
}

/// Replaces the generated section of a README text (appending it, under a
/// "## Rules" heading, when the markers are missing).
pub fn splice_readme(readme: &str) -> String {
    let section = readme_section();
    match (readme.find(README_START), readme.find(README_END)) {
        (Some(a), Some(b)) if b > a => {
            format!(
                "{}{}{}",
                &readme[..a],
                section,
                &readme[b + README_END.len()..]
            )
        }
        _ => format!("{}\n## Rules\n\n{}\n", readme.trim_end(), section),
    }
}
