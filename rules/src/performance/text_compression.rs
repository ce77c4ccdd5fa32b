//! `text-compression`: the HTML response is compressed.

use crate::support::header_snippet;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails HTML responses over [`MIN_BYTES`] sent without `Content-Encoding`.
pub struct TextCompression;

/// Smallest body worth compressing (Lighthouse ignores responses under 1.4 KiB).
pub const MIN_BYTES: usize = 1400;

/// Encodings that count as compression.
pub const ENCODINGS: &[&str] = &["gzip", "br", "zstd", "deflate", "x-gzip", "compress"];

static META: RuleMeta = RuleMeta {
    id: "text-compression",
    category: Category::Performance,
    title: "HTML is served compressed",
    help: "Enable gzip, Brotli or Zstandard compression for HTML (and other text) responses on the server or CDN.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression",
    impact: Impact::Serious,
    docs: r#"## What it checks
HTML responses whose body is at least 1,400 bytes (Lighthouse ignores smaller ones)
carry a `Content-Encoding` of `gzip`, `br`, `zstd` or `deflate`. The crawler asks for
compression (`Accept-Encoding`) and records the header as the server sent it, before
decompressing.

## Why it matters
HTML compresses to a fifth of its size or less. Uncompressed documents take several
times longer to download on slow connections.

## Failing
```html
<!-- 60 KB of HTML, no Content-Encoding -->
<html lang="en"><head><title>Mugs</title></head><body>…</body></html>
```

## Passing
```html
<!-- Content-Encoding: br -->
<html lang="en"><head><title>Mugs</title></head><body>…</body></html>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for TextCompression {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if !page.is_html() || page.body.len() < MIN_BYTES {
            return;
        }
        let encodings: Vec<String> = page
            .header_all("content-encoding")
            .flat_map(|v| v.split(','))
            .map(|e| e.trim().to_ascii_lowercase())
            .collect();
        if encodings.iter().any(|e| ENCODINGS.contains(&e.as_str())) {
            cx.pass();
        } else {
            let f = cx.fail_page(format!(
                "The {}-byte HTML response is not compressed.",
                page.body.len()
            ));
            f.with_data(serde_json::json!({"bytes": page.body.len()}));
            if let Some(v) = page.header("content-encoding") {
                f.with_snippet(header_snippet("Content-Encoding", v));
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
        let big = || RuleTester::page(&format!("<p>{}</p>", "text ".repeat(400)));
        RuleTester::new(&TextCompression)
            .pass_page(big().with_header("Content-Encoding", "br"))
            .pass_page(big().with_header("Content-Encoding", "gzip"))
            .pass(&["<p>tiny</p>"])
            .fail_page(big())
            .fail_page(big().with_header("Content-Encoding", "identity"))
            .run();
    }
}
