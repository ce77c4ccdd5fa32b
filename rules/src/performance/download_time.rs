//! `download-time`: the HTML document downloads quickly.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages whose full download took more than [`MAX_TOTAL_MS`].
pub struct DownloadTime;

/// Longest acceptable time from request to the last byte of the HTML.
pub const MAX_TOTAL_MS: u64 = 2000;

static META: RuleMeta = RuleMeta {
    id: "download-time",
    category: Category::Performance,
    title: "HTML document downloads quickly",
    help: "Make the HTML smaller and the server faster (compression, caching, streaming) so the document arrives within 2 seconds.",
    help_url: "https://web.dev/articles/ttfb",
    impact: Impact::Moderate,
    docs: r#"## What it checks
The total time of each page's final response — request sent to last byte of the body
received, as measured by the crawler — is at most 2000 ms. The measured time is in
the finding's data. Like TTFB it depends on where the scanner runs.

Timings vary from run to run, so against a baseline (`--baseline`) a page that
passed there and now takes up to 1.5 × the limit (3000 ms) is not a *new*
finding: it is listed as `unchanged`, with `"noise": true` in its data. Only a
page more than 50 % over the limit, or one the baseline did not scan, is new.

## Why it matters
The browser cannot finish parsing, discover all subresources or fire
`DOMContentLoaded` before the whole document arrived. A slow download usually means a
huge document, no compression, or a server that streams slowly.

## Failing
```html
<!-- body complete after 3800 ms -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```

## Passing
```html
<!-- body complete after 240 ms -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```
"#,
    measured: Some(crate::Measured {
        value: "total_ms",
        limit: "max",
        margin: crate::Measured::TIMING_MARGIN,
    }),
    ..RuleMeta::BASE
};

impl Rule for DownloadTime {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if page.total_ms > MAX_TOTAL_MS {
            cx.fail_page(format!(
                "The document took {} ms to download (more than {MAX_TOTAL_MS} ms).",
                page.total_ms
            ))
            .with_data(serde_json::json!({"total_ms": page.total_ms, "max": MAX_TOTAL_MS}));
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
        let at = |ms: u64| {
            let mut p = RuleTester::page("<p>x</p>");
            p.total_ms = ms;
            p
        };
        RuleTester::new(&DownloadTime)
            .pass_page("(page)", at(240))
            .fail_page("(page)", at(3800))
            .run();
    }
}
