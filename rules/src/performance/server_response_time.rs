//! `server-response-time`: the server answers quickly.

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails pages whose time to first byte exceeds [`MAX_TTFB_MS`].
pub struct ServerResponseTime;

/// Slowest acceptable time to first byte (Lighthouse's `server-response-time`).
pub const MAX_TTFB_MS: u64 = 600;

static META: RuleMeta = RuleMeta {
    id: "server-response-time",
    category: Category::Performance,
    title: "Server responds quickly",
    help: "Cut server response time below 600 ms: cache rendered pages, speed up database queries, use a CDN close to your visitors.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/time-to-first-byte",
    impact: Impact::Serious,
    docs: r#"## What it checks
The time to first byte of each page's final response, as measured by the crawler
(request sent to first byte of the response received), is at most 600 ms
(Lighthouse's `server-response-time` threshold; seonaut uses 800 ms). The measured
time is in the finding's data. The number depends on the network between scanner
and server, so compare scans made from the same place.

Timings vary from run to run, so against a baseline (`--baseline`) a page that
passed there and now answers within 1.5 × the limit (900 ms) is not a *new*
finding: it is listed as `unchanged`, with `"noise": true` in its data.

## Why it matters
Nothing can render before the first byte arrives; a slow server delays every other
metric (FCP, LCP) by the same amount.

## Failing
```html
<!-- first byte after 1450 ms -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```

## Passing
```html
<!-- first byte after 120 ms -->
<html lang="en"><head><title>Mugs</title></head><body></body></html>
```
"#,
    measured: Some(crate::Measured {
        value: "ttfb_ms",
        limit: "max",
        margin: crate::Measured::TIMING_MARGIN,
    }),
    ..RuleMeta::BASE
};

impl Rule for ServerResponseTime {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        if page.ttfb_ms > MAX_TTFB_MS {
            cx.fail_page(format!(
                "The server took {} ms to the first byte (more than {MAX_TTFB_MS} ms).",
                page.ttfb_ms
            ))
            .with_data(serde_json::json!({"ttfb_ms": page.ttfb_ms, "max": MAX_TTFB_MS}));
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
            p.ttfb_ms = ms;
            p
        };
        RuleTester::new(&ServerResponseTime)
            .pass_page("(page)", at(120))
            .pass_page("(page)", at(600))
            .fail_page("(page)", at(601))
            .run();
    }
}
