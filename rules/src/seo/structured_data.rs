//! `structured-data`: JSON-LD blocks parse and say what they describe.

use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `<script type="application/ld+json">` blocks.
pub struct StructuredData;

static META: RuleMeta = RuleMeta {
    id: "structured-data",
    category: Category::Seo,
    title: "JSON-LD structured data is valid",
    help: "Make each JSON-LD block valid JSON with an @context (https://schema.org) and an @type on every top-level item.",
    help_url: "https://developers.google.com/search/docs/appearance/structured-data/intro-structured-data",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Each `<script type="application/ld+json">` must parse as JSON, and each top-level
item (the object, each element of a top-level array, or each member of `@graph`)
must have an `@type`, with an `@context` on the item or the enclosing object. Pages
without JSON-LD are not checked (Lighthouse's `structured-data` is a manual audit;
this covers the part a tool can decide).

## Why it matters
Search engines ignore structured data that does not parse or does not say what it
is, so rich results (ratings, prices, breadcrumbs, FAQs) silently disappear.

## Failing
```html
<script type="application/ld+json">{"@context": "https://schema.org", "name": "Mug",}</script>
```

## Passing
```html
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Mug"}</script>
```
"#,
    ..RuleMeta::BASE
};

/// The problems of the items in `root`, in document order. An explicit stack,
/// not recursion: serde_json bounds the nesting it parses, but this walk must not
/// depend on that.
fn item_problems(root: &serde_json::Value, out: &mut Vec<String>) {
    let mut stack: Vec<(&serde_json::Value, bool)> = vec![(root, false)];
    while let Some((v, context_above)) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => {
                stack.extend(items.iter().rev().map(|i| (i, context_above)));
            }
            serde_json::Value::Object(map) => {
                let ctx = context_above || map.contains_key("@context");
                if let Some(graph) = map.get("@graph") {
                    if !ctx {
                        out.push("the @graph has no @context".into());
                    }
                    stack.push((graph, true));
                    continue;
                }
                if !ctx {
                    out.push("an item has no @context".into());
                }
                if !map.contains_key("@type") {
                    out.push("an item has no @type".into());
                }
            }
            _ => out.push("the block is not a JSON object or array".into()),
        }
    }
}

impl Rule for StructuredData {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        for s in select(pcx, selector!("script[type]")) {
            let ty = s
                .value()
                .attr("type")
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if ty != "application/ld+json" {
                continue;
            }
            let text: String = s.text().collect();
            match serde_json::from_str::<serde_json::Value>(text.trim()) {
                Err(e) => {
                    cx.fail(s, format!("The JSON-LD does not parse: {e}."));
                }
                Ok(v) => {
                    let mut problems = Vec::new();
                    item_problems(&v, &mut problems);
                    problems.dedup();
                    if problems.is_empty() {
                        cx.pass_on(s);
                    } else {
                        cx.fail(s, format!("JSON-LD: {}.", problems.join("; ")));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&StructuredData)
            .pass(&[
                ("script", r#"<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Mug"}</script>"#),
                ("script", r#"<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "WebSite"}, {"@type": "Organization"}]}</script>"#),
            ])
            .inapplicable(&[
                "<p>no structured data</p>",
            ])
            .fail(&[
                ("script", r#"<script type="application/ld+json">{"@context": "https://schema.org", "name": "Mug",}</script>"#),
                ("script", r#"<script type="application/ld+json">{"@type": "Product"}</script>"#),
                ("script", r#"<script type="application/ld+json">{"@context": "https://schema.org", "name": "Mug"}</script>"#),
                ("script", r#"<script type="application/ld+json">"just a string"</script>"#),
            ])
            .run();
    }
}
