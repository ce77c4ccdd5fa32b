//! `social-meta`: Open Graph and Twitter card basics for link previews.

use crate::support::{meta_contents, meta_property};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks the four required Open Graph properties and `twitter:card`.
pub struct SocialMeta;

/// Properties the Open Graph protocol requires of every page.
pub const REQUIRED_OG: &[&str] = &["og:title", "og:type", "og:image", "og:url"];

static META: RuleMeta = RuleMeta {
    id: "social-meta",
    category: Category::Seo,
    title: "Page has Open Graph and Twitter card basics",
    help:
        "Add og:title, og:type, og:image and og:url meta properties, and a twitter:card meta name.",
    help_url: "https://ogp.me/#metadata",
    impact: Impact::Minor,
    docs: r#"## What it checks
HTML pages (2xx) have non-empty `<meta property="og:title">`, `og:type`, `og:image`
and `og:url` (the Open Graph protocol's required properties), with `og:image` and
`og:url` absolute URLs, and a `<meta name="twitter:card">` (X/Twitter falls back to
Open Graph for the rest, but needs the card type).

## Why it matters
Chat apps and social networks build link previews from these tags. Without them a
shared link shows a bare URL or whatever image the crawler happens to pick.

## Failing
```html
<head><title>Mugs – Example Pottery</title></head>
```

## Passing
```html
<head>
<meta property="og:title" content="Hand-made mugs">
<meta property="og:type" content="website">
<meta property="og:image" content="https://example.com/mug.jpg">
<meta property="og:url" content="https://example.com/mugs">
<meta name="twitter:card" content="summary_large_image">
</head>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for SocialMeta {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !(200..300).contains(&pcx.page().status) {
            return;
        }
        let mut missing: Vec<&str> = Vec::new();
        let mut relative: Vec<&str> = Vec::new();
        for prop in REQUIRED_OG {
            match meta_property(pcx, prop).map(str::trim) {
                None | Some("") => missing.push(prop),
                Some(v)
                    if (*prop == "og:image" || *prop == "og:url")
                        && url::Url::parse(v).is_err() =>
                {
                    relative.push(prop)
                }
                Some(_) => {}
            }
        }
        let card = meta_contents(pcx, "twitter:card")
            .first()
            .and_then(|m| m.value().attr("content"))
            .is_some_and(|c| !c.trim().is_empty());
        if !card {
            missing.push("twitter:card");
        }
        if !missing.is_empty() {
            cx.fail_page(format!(
                "Missing link-preview metadata: {}.",
                missing.join(", ")
            ));
        }
        if !relative.is_empty() {
            cx.fail_page(format!("{} must be absolute URLs.", relative.join(" and ")));
        }
        if missing.is_empty() && relative.is_empty() {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const GOOD: &str = r#"<meta property="og:title" content="Mugs"><meta property="og:type" content="website">
<meta property="og:image" content="https://example.com/m.jpg"><meta property="og:url" content="https://example.com/">
<meta name="twitter:card" content="summary">"#;

    #[test]
    fn examples() {
        RuleTester::new(&SocialMeta)
            .pass(&[("(page)", GOOD)])
            .fail(&[
                ("(page)", "<p>none</p>"),
                ("(page)", &GOOD.replace("summary", "")),
                ("(page)", &GOOD.replace("https://example.com/m.jpg", "/m.jpg")),
            ])
            .run();
    }
}
