//! `url-hygiene`: the page's URL is short, lowercase and cleanly formed.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks the page URL for spaces, underscores, uppercase, repeated slashes, length.
pub struct UrlHygiene;

/// Longest URL (characters) before it counts as too long (Screaming Frog's "Over 115
/// Characters" filter).
pub const MAX_URL_CHARS: usize = 115;

static META: RuleMeta = RuleMeta {
    id: "url-hygiene",
    category: Category::Seo,
    title: "URL is short, lowercase and cleanly formed",
    help: "Use lowercase, hyphen-separated paths without spaces or repeated slashes, under 115 characters.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/url-structure",
    impact: Impact::Minor,
    docs: r#"## What it checks
The final URL of each HTML page (2xx): its path has no spaces (`%20` or `+`), no
underscores (seonaut's `ERROR_UNDERSCORE_URL`; hyphens separate words for search
engines), no uppercase letters, no repeated slashes (`ERROR_MULTIPLE_SLASHES`), and
the whole URL is at most 115 characters. One finding per problem.

## Why it matters
Clean URLs are easier to read, share and link; uppercase and repeated-slash
variants create duplicate URLs for the same content; underscores join words.

## Failing
```html
<!-- https://example.com/Products//Ceramic_Mugs%20Big -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```

## Passing
```html
<!-- https://example.com/products/ceramic-mugs -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```
"#,
    ..RuleMeta::BASE
};

/// The problems of a URL, in a fixed order.
pub fn url_problems(url: &url::Url) -> Vec<String> {
    let path = url.path();
    let mut out = Vec::new();
    if path.contains("%20") || path.contains('+') || path.contains(' ') {
        out.push("the path contains spaces".to_string());
    }
    if path.contains('_') {
        out.push("the path contains underscores".to_string());
    }
    if path.chars().any(|c| c.is_ascii_uppercase()) {
        out.push("the path contains uppercase letters".to_string());
    }
    if path.contains("//") {
        out.push("the path contains repeated slashes".to_string());
    }
    let n = url.as_str().chars().count();
    if n > MAX_URL_CHARS {
        out.push(format!(
            "the URL is {n} characters long (over {MAX_URL_CHARS})"
        ));
    }
    out
}

impl Rule for UrlHygiene {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() || !(200..300).contains(&page.status) {
            return;
        }
        let problems = url_problems(&page.final_url);
        if problems.is_empty() {
            cx.pass();
        }
        for p in problems {
            cx.fail_page(format!("URL hygiene: {p}."))
                .with_snippet(page.final_url.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Page;

    fn at(url: &str) -> Page {
        Page::from_html(
            url,
            "<html><head><title>T</title></head><body></body></html>",
        )
    }

    #[test]
    fn examples() {
        RuleTester::new(&UrlHygiene)
            .pass_page("(page)", at("https://example.com/products/ceramic-mugs?Sort=ASC"))
            .fail_page("(page)", at("https://example.com/ceramic_mugs"))
            .fail_page("(page)", at("https://example.com/Mugs"))
            .fail_page("(page)", at("https://example.com/a//b"))
            .fail_page("(page)", at("https://example.com/big mugs"))
            .fail_page("(page)", at(&format!("https://example.com/{}", "a".repeat(120))))
            .run();
    }
}
