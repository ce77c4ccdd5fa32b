//! `placeholder-text`: no template filler left on the page.

use std::sync::OnceLock;

use regex::Regex;
use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails visible text with lorem ipsum, TODO markers or "coming soon" notes.
pub struct PlaceholderText;

static META: RuleMeta = RuleMeta {
    id: "placeholder-text",
    category: Category::Quality,
    title: "No placeholder text",
    help: "Replace filler text (lorem ipsum, TODO, \"coming soon\") with real content, or unpublish the page until it is ready.",
    help_url: "https://developers.google.com/search/docs/fundamentals/creating-helpful-content",
    impact: Impact::Serious,
    docs: r#"## What it checks
The page's visible text (in `<title>` and `<body>`, without scripts, styles,
templates and `<noscript>`) is searched for filler: "lorem ipsum" (and the usual
"dolor sit amet"), "coming soon", "under construction", "insert text here", "your
text here", "sample text", "placeholder text", and the markers `TODO`, `FIXME`,
`TBD` and `XXX` as uppercase whole words. One finding per element holding filler.

## Why it matters
Filler tells visitors the site is unfinished or abandoned, and search engines treat
such pages as low quality.

## Failing
```html
<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>
```

## Passing
```html
<p>Our mugs are thrown by hand and fired in a wood kiln.</p>
```
"#,
    ..RuleMeta::BASE
};

fn patterns() -> Option<&'static (Regex, Regex)> {
    static RE: OnceLock<Option<(Regex, Regex)>> = OnceLock::new();
    RE.get_or_init(|| {
        let phrases = Regex::new(
            r"(?i)\b(lorem ipsum|dolor sit amet|coming soon|under construction|insert (?:your )?text here|your text here|sample text|placeholder text)\b",
        )
        .ok()?;
        let markers = Regex::new(r"\b(TODO|FIXME|TBD|XXX)\b").ok()?;
        Some((phrases, markers))
    })
    .as_ref()
}

/// The document's rendered text nodes that are not white space, in document
/// order: one walk that counts the script, style, template and noscript
/// elements it is inside.
fn text_nodes<'a>(root: ElementRef<'a>) -> Vec<(ego_tree::NodeRef<'a, scraper::Node>, &'a str)> {
    use ego_tree::iter::Edge;
    let unrendered = |n: &ego_tree::NodeRef<'_, scraper::Node>| {
        n.value()
            .as_element()
            .is_some_and(|e| matches!(e.name(), "script" | "style" | "template" | "noscript"))
    };
    let mut out = Vec::new();
    let mut inside = 0usize;
    for edge in root.traverse() {
        match edge {
            Edge::Open(n) if unrendered(&n) => inside += 1,
            Edge::Close(n) if unrendered(&n) => inside -= 1,
            Edge::Open(n) if inside == 0 => {
                if let Some(text) = n.value().as_text() {
                    if !text.trim().is_empty() {
                        out.push((n, &**text));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

impl Rule for PlaceholderText {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let Some((phrases, markers)) = patterns() else {
            return;
        };
        let nodes = text_nodes(pcx.root());
        if nodes.is_empty() {
            return;
        }
        // Most pages have no filler: one search over all the text (joined with
        // spaces, so a match inside one node is still a match) settles that, where
        // a search per text node paid the regex's set-up thousands of times.
        let joined = nodes.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
        if !phrases.is_match(&joined) && !markers.is_match(&joined) {
            cx.pass();
            return;
        }
        let mut reported: Vec<ego_tree::NodeId> = Vec::new();
        for (node, text) in nodes {
            let found = phrases
                .find(text)
                .or_else(|| markers.find(text))
                .map(|m| m.as_str().to_string());
            let Some(found) = found else {
                continue;
            };
            let Some(parent) = node.parent().and_then(ElementRef::wrap) else {
                continue;
            };
            if reported.contains(&parent.id()) {
                continue;
            }
            reported.push(parent.id());
            cx.fail(parent, format!("Placeholder text: \"{found}\"."));
        }
        if reported.is_empty() {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&PlaceholderText)
            .pass(&[
                "<p>Our mugs are thrown by hand.</p>",
                "<p>Things to do in town</p><script>// TODO later</script>",
                "<p>Todo lists and tbd are fine in lowercase prose.</p>",
            ])
            .fail(&[
                "<p>Lorem ipsum dolor sit amet.</p>",
                "<h2>Shop</h2><p>Coming soon!</p>",
                "<p>Price: TODO</p>",
                "<html><head><title>Under construction</title></head><body><p>x</p></body></html>",
            ])
            .run();
    }
}
