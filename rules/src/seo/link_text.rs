//! `link-text`: links say where they go.

use scraper::ElementRef;

use crate::dom::normalized_text;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails links whose whole text is generic ("click here", "read more").
pub struct LinkText;

/// Link texts that describe nothing (English; compared lowercased, trailing
/// punctuation removed), after Lighthouse's `link-text` list.
pub const GENERIC: &[&str] = &[
    "click here",
    "click this",
    "click",
    "go",
    "here",
    "this",
    "start",
    "right here",
    "more",
    "more info",
    "more information",
    "read more",
    "learn more",
    "see more",
    "find out more",
    "continue",
    "link",
    "details",
];

static META: RuleMeta = RuleMeta {
    id: "link-text",
    category: Category::Seo,
    title: "Links have descriptive text",
    help: "Write link text that names the destination (\"Shipping costs\") instead of \"click here\" or \"read more\".",
    help_url: "https://developer.chrome.com/docs/lighthouse/seo/link-text",
    impact: Impact::Minor,
    docs: r#"## What it checks
Each `<a href>` to an `http(s)` URL (fragments, `javascript:`, `mailto:` and `tel:`
are skipped) whose visible text, lowercased and without trailing punctuation, is one
of the generic phrases Lighthouse's `link-text` audit lists — "click here", "here",
"more", "read more", "learn more", "this", "go", … — fails. A link with a non-empty
`aria-label` or `title` is judged on that instead.

## Why it matters
Search engines use link text to understand the target page, and people scanning a
page (or a screen reader's list of links) cannot tell ten "read more" links apart.

## Failing
```html
<p>Our mugs are hand-made. <a href="/mugs">Read more</a></p>
```

## Passing
```html
<p><a href="/mugs">Read more about our hand-made mugs</a></p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LinkText {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(href) = el.value().attr("href").map(str::trim) else {
            return;
        };
        let Ok(url) = cx.page().page().final_url.join(href) else {
            return;
        };
        if !matches!(url.scheme(), "http" | "https") || href.starts_with('#') {
            return;
        }
        let label = ["aria-label", "title"]
            .iter()
            .filter_map(|a| el.value().attr(a))
            .map(str::trim)
            .find(|s| !s.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| normalized_text(el));
        let folded = label
            .to_lowercase()
            .trim_end_matches(['.', '!', '…', '»', '›', '>', ' ', ':'])
            .to_string();
        if folded.is_empty() {
            return;
        }
        if GENERIC.contains(&folded.as_str()) {
            cx.fail(
                el,
                format!("The link text \"{label}\" does not say where the link goes."),
            );
        } else {
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
        RuleTester::new(&LinkText)
            .pass(&[
                ("a", r#"<a href="/mugs">Hand-made mugs</a>"#),
                ("a", r#"<a href="/mugs" aria-label="Read more about mugs">Read more</a>"#),
            ])
            .inapplicable(&[
                r##"<a href="#top">here</a><a href="mailto:a@example.com">here</a>"##,
            ])
            .fail(&[
                ("a", r#"<a href="/mugs">Click here</a>"#),
                ("a", r#"<a href="https://other.example/">Read more…</a>"#),
                ("a", r#"<a href="/x"> MORE &raquo;</a>"#),
            ])
            .run();
    }
}
