//! `thin-content`: pages carry enough text to be worth indexing.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails HTML pages with fewer than [`MIN_WORDS`] words of visible text.
pub struct ThinContent;

/// Fewest words of visible body text (seonaut's `ERROR_LITTLE_CONTENT` threshold).
pub const MIN_WORDS: usize = 200;

static META: RuleMeta = RuleMeta {
    id: "thin-content",
    category: Category::Seo,
    title: "Page has enough content",
    help: "Give the page substantial, original text (200 words or more), or merge it into a fuller page and redirect.",
    help_url: "https://developers.google.com/search/docs/essentials/spam-policies#thin-affiliate-pages",
    impact: Impact::Minor,
    docs: r#"## What it checks
The visible text of `<body>` (without `<script>`, `<style>`, `<template>` and
`<noscript>`), split on white space, has at least 200 words (seonaut's
`ERROR_LITTLE_CONTENT` threshold). Only HTML pages that answer 2xx are checked.

## Why it matters
Pages with little text rarely answer a search well; many of them make a site look
low-quality as a whole.

## Failing
```html
<body><h1>Mugs</h1><p>Coming soon.</p></body>
```

## Passing
```html
<body><h1>Mugs</h1><p>… a description of 200 words or more …</p></body>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for ThinContent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !(200..300).contains(&pcx.page().status) {
            return;
        }
        let words = pcx.body_text().split_whitespace().count();
        if words < MIN_WORDS {
            cx.fail_page(format!(
                "The page has {words} words of text (fewer than {MIN_WORDS})."
            ))
            .with_data(serde_json::json!({"words": words, "min": MIN_WORDS}));
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
        let words = |n: usize| format!("<p>{}</p>", "word ".repeat(n));
        RuleTester::new(&ThinContent)
            .pass(&[("(page)", &words(200))])
            .fail(&[
                ("(page)", &words(199)),
                ("(page)", &format!("<p>few</p><script>{}</script>", "var x; ".repeat(300))),
            ])
            .run();
    }
}
