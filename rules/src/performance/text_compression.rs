//! `text-compression`: the HTML document and its text subresources are compressed.

use crate::resources::{self, bytes, Subresource};
use crate::support::header_snippet;
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Fails HTML responses over [`MIN_BYTES`] sent without `Content-Encoding`, and
/// text subresources (scripts, CSS, SVG, JSON …) sent uncompressed whose
/// compression would save at least [`MIN_SAVINGS`] bytes.
pub struct TextCompression;

/// Smallest body worth compressing (Lighthouse ignores responses under 1.4 KiB).
pub const MIN_BYTES: usize = 1400;

/// Smallest saving reported for a subresource (Lighthouse's
/// `uses-text-compression`: 1,400 bytes).
pub const MIN_SAVINGS: u64 = 1400;

/// A saving under [`LARGE_SAVINGS`] bytes is reported only when it is at least
/// this share of the resource (Lighthouse: 5 %).
pub const MIN_SAVINGS_SHARE: f64 = 0.05;

/// Savings from this many bytes on are reported whatever their share
/// (Lighthouse: 20,000 bytes).
pub const LARGE_SAVINGS: u64 = 20_000;

/// Encodings that count as compression.
pub const ENCODINGS: &[&str] = resources::ENCODINGS;

static META: RuleMeta = RuleMeta {
    id: "text-compression",
    category: Category::Performance,
    title: "HTML and text resources are served compressed",
    help: "Enable gzip, Brotli or Zstandard compression for HTML, JavaScript, CSS, SVG and JSON responses on the server or CDN.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/uses-text-compression",
    impact: Impact::Serious,
    needs: &[Need::Subresources],
    docs: r#"## What it checks
**The document:** HTML responses whose body is at least 1,400 bytes (Lighthouse
ignores smaller ones) carry a `Content-Encoding` of `gzip`, `br`, `zstd` or
`deflate`. The crawler asks for compression (`Accept-Encoding`) and records the
header as the server sent it, before decompressing.

**Its subresources:** every script, stylesheet, SVG image, JSON, XML or other
`text/*` resource the page loads (fetched once per scan; fonts are excluded: WOFF
and WOFF2 are compressed formats) that answers 2xx without compression. The engine
gzips the body it read to measure what compression would save, and — as
Lighthouse's `uses-text-compression` does — reports it when the saving is at least
1,400 bytes and either at least 20,000 bytes or at least 5 % of the resource. A
body too large to read whole is reported when its size is at least 1,400 bytes.
One finding per resource and scan, on the element that loads it on the first
page, the other pages listed as its occurrences; the uncompressed document is a
fact of the server: one finding per host, its pages listed as occurrences.

## Why it matters
HTML, JavaScript and CSS compress to a fifth of their size or less. Uncompressed
text takes several times longer to download on slow connections.

## Failing
```html
<!-- 60 KB of HTML, no Content-Encoding; app.js (90 KB) also sent without compression -->
<html lang="en"><head><title>Mugs</title><script src="/app.js" defer></script></head><body>…</body></html>
```

## Passing
```html
<!-- Content-Encoding: br on the document and on /app.js -->
<html lang="en"><head><title>Mugs</title><script src="/app.js" defer></script></head><body>…</body></html>
```
"#,
    scope: crate::Scope::Host,
    ..RuleMeta::BASE
};

/// What compressing an uncompressed text subresource would save, when worth
/// reporting.
fn savings(sub: &Subresource) -> Option<u64> {
    let f = &sub.facts;
    if !f.is_ok() || f.is_compressed() || !f.is_text() {
        return None;
    }
    let size = f.transfer_bytes?;
    match f.gzip_bytes {
        Some(gz) => {
            let saved = size.saturating_sub(gz);
            let share = if size == 0 {
                0.0
            } else {
                saved as f64 / size as f64
            };
            (saved >= MIN_SAVINGS && (saved >= LARGE_SAVINGS || share >= MIN_SAVINGS_SHARE))
                .then_some(saved)
        }
        // Not read whole (too large): judged on size alone.
        None => (size >= MIN_SAVINGS).then_some(0),
    }
}

impl Rule for TextCompression {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let page = pcx.page();
        if page.is_html() && page.body.len() >= MIN_BYTES {
            let encodings: Vec<String> = page
                .header_all("content-encoding")
                .flat_map(|v| v.split(','))
                .map(|e| e.trim().to_ascii_lowercase())
                .collect();
            if encodings.iter().any(|e| ENCODINGS.contains(&e.as_str())) {
                cx.pass();
            } else {
                // No size in the message: it is the host-wide fact the engine
                // groups pages on (each page's size stays in its data).
                let f = cx.fail_page("The server sends HTML responses uncompressed.");
                f.with_data(serde_json::json!({"bytes": page.body.len()}));
                if let Some(v) = page.header("content-encoding") {
                    f.with_snippet(header_snippet("Content-Encoding", v));
                }
            }
        }
        for sub in &page.subresources {
            let f = &sub.facts;
            if !f.is_ok() || !f.is_text() {
                continue;
            }
            if f.is_compressed() {
                cx.pass();
                continue;
            }
            let Some(saved) = savings(sub) else {
                continue;
            };
            let size = f.transfer_bytes.unwrap_or(0);
            let message = if saved > 0 {
                format!(
                    "The {} {} ({} bytes) is not compressed; gzip would save {} bytes.",
                    sub.kind.as_str(),
                    sub.url,
                    bytes(size),
                    bytes(saved)
                )
            } else {
                format!(
                    "The {} {} (at least {} bytes) is not compressed.",
                    sub.kind.as_str(),
                    sub.url,
                    bytes(size)
                )
            };
            let data = serde_json::json!({
                "url": sub.url,
                "kind": sub.kind,
                "content_type": f.content_type,
                "bytes": size,
                "gzip_bytes": f.gzip_bytes,
            });
            match resources::element_for(pcx, &sub.url) {
                Some(el) => cx.fail(el, message),
                None => cx.fail_page(message),
            }
            .with_data(data)
            .on_resource(sub.url.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{ResourceFacts, ResourceKind};
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        let big = || RuleTester::page(&format!("<p>{}</p>", "text ".repeat(400)));
        RuleTester::new(&TextCompression)
            .pass_page("(page)", big().with_header("Content-Encoding", "br"))
            .pass_page("(page)", big().with_header("Content-Encoding", "gzip"))
            .inapplicable(&["<p>tiny</p>"])
            .fail_page("(page)", big())
            .fail_page("(page)", big().with_header("Content-Encoding", "identity"))
            .run();
    }

    fn js(bytes: u64, gzip: Option<u64>, encoding: Option<&str>) -> ResourceFacts {
        ResourceFacts {
            final_url: "https://example.com/app.js".into(),
            status: 200,
            content_type: Some("text/javascript".into()),
            transfer_bytes: Some(bytes),
            gzip_bytes: gzip,
            content_encoding: encoding.map(str::to_string),
            ..ResourceFacts::default()
        }
    }

    fn with_js(facts: ResourceFacts) -> crate::Page {
        RuleTester::page(r#"<script src="/app.js"></script>"#).with_subresource(
            "https://example.com/app.js",
            ResourceKind::Script,
            facts,
        )
    }

    #[test]
    fn subresources() {
        RuleTester::new(&TextCompression)
            // Compressed, or too little to gain, or not text.
            .pass_page("(page)", with_js(js(90_000, None, Some("br"))))
            .inapplicable_page(with_js(js(1_000, Some(400), None)))
            .inapplicable_page(with_js(js(30_000, Some(29_000), None)))
            .inapplicable_page(with_js(ResourceFacts {
                content_type: Some("font/woff2".into()),
                ..js(90_000, None, None)
            }))
            .inapplicable_page(with_js(ResourceFacts {
                status: 404,
                ..js(90_000, Some(20_000), None)
            }))
            // Big savings, a large share, or too large to read whole.
            .fail_page("script", with_js(js(90_000, Some(20_000), None)))
            .fail_page("script", with_js(js(10_000, Some(2_000), None)))
            .fail_page("script", with_js(js(12_000_000, None, None)))
            .run();
    }

    #[test]
    fn findings_point_at_the_loading_element() {
        let page = with_js(js(90_000, Some(20_000), None));
        let analysis = crate::analyze(&page, &[&TextCompression]);
        assert_eq!(analysis.findings.len(), 1);
        let f = &analysis.findings[0];
        assert_eq!(
            f.message,
            "The script https://example.com/app.js (90,000 bytes) is not compressed; gzip would save 70,000 bytes."
        );
        assert_eq!(f.snippet, r#"<script src="/app.js"></script>"#);
        assert_eq!(f.data.as_ref().unwrap()["gzip_bytes"], 20_000);
    }
}
