//! Rule documentation generated from the registry, for the book under `docs/`:
//! one Markdown page per rule ([`RULE_DOCS_DIR`]`/<id>.md`), the rule index in
//! [`INDEX_PATH`] between [`INDEX_START`] and [`INDEX_END`], and the rules'
//! entries of the book's table of contents ([`SUMMARY_PATH`]) between
//! [`SUMMARY_START`] and [`SUMMARY_END`] (mdBook renders only the pages its
//! `SUMMARY.md` lists).
//!
//! The test `rules/tests/docs.rs` fails when the checked-in files differ from what
//! this module generates, so the docs cannot drift from the code; regenerate with
//! `SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs`.

use crate::registry;
use crate::{Category, RuleMeta};

/// Marker line opening the generated part of the rule index.
pub const INDEX_START: &str = "<!-- rules:start (generated from the registry; SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs) -->";
/// Marker line closing it.
pub const INDEX_END: &str = "<!-- rules:end -->";
/// Marker line opening the generated rule entries of the table of contents.
pub const SUMMARY_START: &str = "<!-- rules-summary:start (generated: SITESCAN_BLESS=1 cargo test -p sitescan-rules --test docs) -->";
/// Marker line closing them.
pub const SUMMARY_END: &str = "<!-- rules-summary:end -->";

/// Folder of the per-rule pages, relative to the repository root.
pub const RULE_DOCS_DIR: &str = "docs/src/rules";
/// The rule index page, relative to the repository root (beside [`RULE_DOCS_DIR`],
/// so its links are `rules/<id>.md`).
pub const INDEX_PATH: &str = "docs/src/rules.md";
/// The book's table of contents, relative to the repository root.
pub const SUMMARY_PATH: &str = "docs/src/SUMMARY.md";

/// The Markdown page of one rule.
pub fn rule_page(m: &RuleMeta) -> String {
    let mut out = format!("# `{}` — {}\n\n", m.id, md_text(m.title));
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

/// Plain text made safe for Markdown: a `<` would open an HTML tag (a title
/// such as "No render-blocking scripts in <head>").
fn md_text(text: &str) -> String {
    text.replace('<', "\\<")
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

/// Every rule of a category, in registry order (page rules, then site rules).
fn rules_of(c: Category) -> Vec<&'static RuleMeta> {
    registry::all_meta().filter(|m| m.category == c).collect()
}

/// The rule index's generated part: per category a table of every rule (page
/// rules, then site rules) with a link to its page.
pub fn index_section() -> String {
    let mut out = String::new();
    out.push_str(INDEX_START);
    out.push('\n');
    let page_ids: Vec<&str> = registry::page_rules().iter().map(|r| r.meta().id).collect();
    for c in Category::ALL {
        let metas = rules_of(c);
        if metas.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n## {} ({} rules)\n\n| Rule | Checks | Impact | Scope |\n|---|---|---|---|\n",
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
                "| [`{id}`](rules/{id}.md) | {title}{wcag} | {impact} | {scope} |\n",
                id = m.id,
                title = md_text(m.title).replace('|', "\\|"),
                impact = m.impact,
            ));
        }
    }
    out.push('\n');
    out.push_str(INDEX_END);
    out
}

/// The rules' entries of the book's table of contents: one unlinked entry per
/// category (an mdBook draft chapter) holding a link to each of its rule pages,
/// indented to sit under the index's own entry.
pub fn summary_section() -> String {
    let mut out = String::new();
    out.push_str(SUMMARY_START);
    out.push('\n');
    for c in Category::ALL {
        let metas = rules_of(c);
        if metas.is_empty() {
            continue;
        }
        out.push_str(&format!("  - [{}]()\n", category_heading(c)));
        for m in metas {
            out.push_str(&format!("    - [`{id}`](rules/{id}.md)\n", id = m.id));
        }
    }
    out.push_str(SUMMARY_END);
    out
}

/// Replaces the text between `start` and `end` (markers included) with
/// `section`, or `None` when the markers are missing or out of order.
fn splice(text: &str, start: &str, end: &str, section: &str) -> Option<String> {
    let a = text.find(start)?;
    let b = text[a..].find(end)? + a;
    Some(format!(
        "{}{}{}",
        &text[..a],
        section,
        &text[b + end.len()..]
    ))
}

/// The rule index page with its generated part replaced, or `None` when it
/// lacks the markers.
pub fn splice_index(index: &str) -> Option<String> {
    splice(index, INDEX_START, INDEX_END, &index_section())
}

/// The table of contents with its generated rule entries replaced, or `None`
/// when it lacks the markers.
pub fn splice_summary(summary: &str) -> Option<String> {
    splice(summary, SUMMARY_START, SUMMARY_END, &summary_section())
}
