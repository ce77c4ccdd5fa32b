//! `html-size`: the HTML document is not oversized.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails HTML documents larger than [`MAX_HTML_BYTES`] once decoded.
pub struct HtmlSize;

/// Largest decoded HTML document, in bytes: seonaut's 500,000-byte budget for a
/// single large resource, applied to the document itself.
pub const MAX_HTML_BYTES: usize = 500_000;

static META: RuleMeta = RuleMeta {
    id: "html-size",
    category: Category::Performance,
    title: "HTML document is not oversized",
    help: "Keep the HTML under 500 KB: move inline data, SVG sprites and styles into cacheable files, paginate long lists.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/total-byte-weight",
    impact: Impact::Moderate,
    docs: r#"## What it checks
The decoded HTML of each page (after decompression) is at most 500,000 bytes. The
size and the transfer size on the wire are in the finding's data.

## Why it matters
Every byte of HTML must be downloaded and parsed before the page is complete, and
unlike scripts and stylesheets the document is rarely cached. Huge documents usually
carry inlined data, base64 images or repeated markup.

## Failing
```html
<!-- 1.8 MB of HTML with an inlined product catalogue -->
<html lang="en"><head><title>Catalogue</title></head><body>…</body></html>
```

## Passing
```html
<!-- 40 KB of HTML -->
<html lang="en"><head><title>Catalogue</title></head><body>…</body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for HtmlSize {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() {
            return;
        }
        let n = page.body.len();
        if n > MAX_HTML_BYTES {
            cx.fail_page(format!(
                "The HTML is {n} bytes (more than {MAX_HTML_BYTES})."
            ))
            .with_data(serde_json::json!({
                "bytes": n,
                "transfer_bytes": page.transfer_bytes,
                "max": MAX_HTML_BYTES
            }));
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
        RuleTester::new(&HtmlSize)
            .pass(&[("(page)", "<p>small</p>")])
            .fail(&[("(page)", &format!("<p>{}</p>", "x".repeat(MAX_HTML_BYTES)))])
            .run();
    }
}
