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

/// The code blocks of one `## <heading>` section of a rule's docs (`Failing`,
/// `Passing`), in order.
pub fn examples<'d>(docs: &'d str, heading: &str) -> Vec<&'d str> {
    let marker = format!("## {heading}\n");
    let Some(start) = docs.find(&marker) else {
        return Vec::new();
    };
    let section = &docs[start + marker.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    let mut blocks = Vec::new();
    let mut rest = section;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let Some(line_end) = after.find('\n') else {
            break;
        };
        let body = &after[line_end + 1..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    blocks
}

/// Why a doc example cannot be run as a single page: its context is prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described(pub String);

/// The page a rule's doc example shows, so the example can be run.
///
/// The example is the page's HTML, optionally led by comments that state the
/// response, one fact a line:
///
/// - `HTTP/2 200` or `HTTP/1.1 404 Not Found`: version and status;
/// - `https://example.com/path` or `fetched from http://example.com/`: the URL;
/// - `Name: value`: a response header (repeatable, e.g. `Set-Cookie`).
///
/// Any other comment line describes context a page cannot hold (timings, a
/// crawl path, other resources): the example is [`Described`], not runnable.
pub fn example_page(example: &str) -> Result<crate::Page, Described> {
    let mut url = "https://example.com/".to_string();
    let mut status = None;
    let mut version = None;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut rest = example.trim_start();
    while let Some(comment) = rest.strip_prefix("<!--") {
        let Some(end) = comment.find("-->") else {
            break;
        };
        for line in comment[..end]
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
        {
            let fetched = line.strip_prefix("fetched from ").unwrap_or(line);
            let first = fetched.split_whitespace().next().unwrap_or("");
            if let Some(v) = line.strip_prefix("HTTP/") {
                let mut parts = v.split_whitespace();
                version = parts.next().map(|v| format!("HTTP/{v}"));
                status = parts.next().and_then(|s| s.parse::<u16>().ok());
                if status.is_none() {
                    return Err(Described(line.to_string()));
                }
            } else if (first.starts_with("https://") || first.starts_with("http://"))
                && (fetched == first || fetched == format!("{first} and not redirected"))
            {
                url = first.to_string();
            } else if line.starts_with("no ") && !line.contains(": ") {
                // An absence ("no X-Frame-Options"): the page has none to add.
            } else if let Some((name, value)) = line.split_once(": ").filter(|(n, _)| {
                !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && n.starts_with(|c: char| c.is_ascii_alphabetic())
            }) {
                headers.push((name.to_string(), value.to_string()));
            } else {
                return Err(Described(line.to_string()));
            }
        }
        rest = comment[end + 3..].trim_start();
    }
    let html = rest;
    let body = if html.contains("<html") || html.to_ascii_lowercase().contains("<!doctype") {
        html.to_string()
    } else if html.starts_with("<head") || html.starts_with("<body") {
        // A fragment that shows the head (or body) element itself.
        format!("<!DOCTYPE html><html lang=\"en\">{html}</html>")
    } else {
        format!("<!DOCTYPE html><html lang=\"en\"><head><title>Example</title></head><body>{html}</body></html>")
    };
    if url::Url::parse(&url).is_err() {
        return Err(Described(url));
    }
    let mut page = crate::Page::from_html(&url, &body);
    if let Some(status) = status {
        page.status = status;
    }
    if let Some(version) = version {
        page.http_version = version;
    }
    for (name, value) in headers {
        page = page.with_header(&name, &value);
    }
    Ok(page)
}
