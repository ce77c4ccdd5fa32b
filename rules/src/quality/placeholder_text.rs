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

Text inside `<pre>`, `<code>`, `<kbd>`, `<samp>`, `<var>` and `<tt>` is left
alone: it is code, sample output or keyboard input, where `XXX` and `TODO` are
part of what is shown (a naming pattern, a program's own comment), not filler.

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

/// The filler phrases (any case) and markers (uppercase), whole words.
const PHRASES: &str = r"lorem ipsum|dolor sit amet|coming soon|under construction|insert (?:your )?text here|your text here|sample text|placeholder text";
const MARKERS: &str = r"TODO|FIXME|TBD|XXX";

/// The phrase and marker patterns, and a quick pre-check for either.
struct Patterns {
    phrases: Regex,
    markers: Regex,
    /// Both without word boundaries: it matches wherever one of the others
    /// does, and without Unicode `\b` the regex crate keeps to its fast
    /// automaton on non-ASCII text (with it, a page's whole text went through
    /// the slow engine), so a page's text is searched in one pass.
    quick: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static RE: OnceLock<Option<Patterns>> = OnceLock::new();
    RE.get_or_init(|| {
        Some(Patterns {
            phrases: Regex::new(&format!(r"(?i)\b({PHRASES})\b")).ok()?,
            markers: Regex::new(&format!(r"\b({MARKERS})\b")).ok()?,
            quick: Regex::new(&format!(r"(?i:{PHRASES})|{MARKERS}")).ok()?,
        })
    })
    .as_ref()
}

/// Elements whose text is left alone: not rendered (`script`, `style`,
/// `template`, `noscript`, as [`crate::dom::rendered_text_nodes`]), or code,
/// program output and keyboard input, where `XXX` and `TODO` are what is
/// shown rather than filler.
const SKIPPED: &[&str] = &[
    "script", "style", "template", "noscript", "pre", "code", "kbd", "samp", "var", "tt",
];

impl Rule for PlaceholderText {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let Some(Patterns {
            phrases,
            markers,
            quick,
        }) = patterns()
        else {
            return;
        };
        let nodes: Vec<_> = crate::dom::text_nodes_outside(pcx.root(), SKIPPED)
            .into_iter()
            .filter(|(_, t)| !t.trim().is_empty())
            .collect();
        if nodes.is_empty() {
            return;
        }
        // Most pages have no filler: one quick search over all the text (joined
        // with spaces, so a match inside one node is still a match) settles that,
        // where a search per text node paid the regex's set-up thousands of times.
        let joined = nodes.iter().map(|(_, t)| *t).collect::<Vec<_>>().join(" ");
        if !quick.is_match(&joined) {
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
                ("(page)", "<p>Our mugs are thrown by hand.</p>"),
                ("(page)", "<p>Things to do in town</p><script>// TODO later</script>"),
                ("(page)", "<p>Todo lists and tbd are fine in lowercase prose.</p>"),
                ("(page)", "<p>Ein ÄTODO-Eintrag ¶ und TODOs ¶</p>"),
            ])
            .fail(&[
                ("p", "<p>Lorem ipsum dolor sit amet.</p>"),
                ("p", "<h2>Shop</h2><p>Coming soon!</p>"),
                ("p", "<p>Price: TODO</p>"),
                ("p", "<p>Café ¶ Coming Soon ¶</p>"),
                ("title", "<html><head><title>Under construction</title></head><body><p>x</p></body></html>"),
            ])
            .run();
    }

    /// The quick pre-check never misses what the exact patterns find.
    #[test]
    fn quick_check_matches_wherever_the_patterns_do() {
        let p = patterns().unwrap();
        for text in [
            "lorem ipsum",
            "«Lorem Ipsum»",
            "é coming soon é",
            "ÄTODO",
            "TODO¶",
            "x_TODO",
            "(FIXME)",
            "ſample text",
            "under construction.",
        ] {
            let exact = p.phrases.is_match(text) || p.markers.is_match(text);
            assert!(!exact || p.quick.is_match(text), "{text:?}");
        }
    }
}
