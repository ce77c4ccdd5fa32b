//! `meta-description`: one meta description of a length search results can show.

use crate::support::meta_contents;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks `<meta name="description">`: present, single, non-empty, 80–160 characters.
pub struct MetaDescription;

/// Shortest useful description (characters, seonaut's threshold).
pub const MIN_CHARS: usize = 80;
/// Longest description shown uncut (characters, seonaut's threshold).
pub const MAX_CHARS: usize = 160;

static META: RuleMeta = RuleMeta {
    id: "meta-description",
    category: Category::Seo,
    title: "Page has one meta description of a useful length",
    help: "Add one <meta name=\"description\"> of 80 to 160 characters summarising the page.",
    help_url: "https://developer.chrome.com/docs/lighthouse/seo/meta-description",
    impact: Impact::Moderate,
    docs: r#"## What it checks
HTML pages (2xx) have exactly one `<meta name="description">` whose `content`,
white space folded, is not empty and is 80 to 160 characters long (seonaut's
thresholds). Missing, empty, repeated, too short and too long each fail.

## Why it matters
Search engines often show the description as the snippet under the title. Without
one they pick arbitrary text from the page; a short one wastes the space, a long one
is cut off.

## Failing
```html
<html lang="en"><head><title>Mugs – Example Pottery</title></head><body></body></html>
```

## Passing
```html
<html lang="en"><head><title>Mugs – Example Pottery</title>
<meta name="description" content="Hand-made ceramic mugs, fired in a wood kiln and glazed by hand. Each one is unique; free shipping on orders over 50 euros.">
</head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for MetaDescription {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let metas = meta_contents(pcx, "description");
        let Some(first) = metas.first().copied() else {
            cx.fail_page("The page has no meta description.");
            return;
        };
        if metas.len() > 1 {
            cx.fail(
                metas[1],
                format!("The page has {} meta descriptions; keep one.", metas.len()),
            );
            return;
        }
        let text: String = first
            .value()
            .attr("content")
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let n = text.chars().count();
        let data = serde_json::json!({"length": n, "min": MIN_CHARS, "max": MAX_CHARS});
        if n == 0 {
            cx.fail(first, "The meta description is empty.");
        } else if n < MIN_CHARS {
            cx.fail(
                first,
                format!("The meta description is {n} characters long; use at least {MIN_CHARS}."),
            )
            .with_data(data);
        } else if n > MAX_CHARS {
            cx.fail(first, format!("The meta description is {n} characters long; search results cut it after about {MAX_CHARS}."))
                .with_data(data);
        } else {
            cx.pass_on(first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const GOOD: &str = "Hand-made ceramic mugs, fired in a wood kiln and glazed by hand. Each one is unique and ships free.";

    #[test]
    fn examples() {
        RuleTester::new(&MetaDescription)
            .pass(&[("meta", &format!(r#"<meta name="description" content="{GOOD}">"#))])
            .fail(&[
                ("(page)", "<p>no description</p>"),
                ("meta", r#"<meta name="description" content="  ">"#),
                ("meta", r#"<meta name="description" content="Mugs.">"#),
                ("meta", &format!(r#"<meta name="description" content="{}">"#, GOOD.repeat(2))),
                ("html > body > meta:nth-child(2)", &format!(r#"<meta name="description" content="{GOOD}"><meta name="Description" content="{GOOD}">"#)),
            ])
            .run();
    }
}
