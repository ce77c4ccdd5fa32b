//! `first-contentful-paint`: something of the page shows soon (render mode).

use crate::vitals::{judge_at, round3, Metric};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Judges each rendered page's First Contentful Paint against Lighthouse's
/// thresholds (good ≤ 1.8 s, poor > 3 s), naming the resources that blocked
/// the first render.
pub struct FirstContentfulPaint;

static META: RuleMeta = RuleMeta {
    id: "first-contentful-paint",
    category: Category::Performance,
    title: "First Contentful Paint is fast",
    help: "Show something within 1.8 s: speed up the server, inline the CSS of the first screen and load the rest without blocking, `defer` scripts, and preload the fonts the first screen uses.",
    help_url: "https://web.dev/articles/fcp",
    impact: Impact::Serious,
    needs: &[Need::WebVitals],
    docs: r#"## What it checks
Render mode only (`--render`): the time from the navigation until the browser
first painted text or an image (the `first-contentful-paint` paint timing),
plus the crawler's time to first byte of the page. Over 1.8 s fails with a
moderate impact ("needs improvement"); over 3 s with a serious one ("poor"),
Lighthouse's thresholds. The message names the resources that blocked the
first render (the browser's `renderBlockingStatus`), slowest first, and the
finding sits on the first of them the page links (`<link>` or
`<script src>`). A static scan reports nothing (see
`render-blocking-resources` for the static signal).

## Why it matters
Until the first paint a visitor looks at a blank screen and cannot tell
whether the page is loading at all.

## Failing
```html
<!-- a 2 MB stylesheet on a slow server, ready after 3.4 s -->
<link rel="stylesheet" href="/all.css">
<h1>Mugs</h1>
```

## Passing
```html
<style>h1 { font: 2rem serif }</style>
<link rel="stylesheet" href="/rest.css" media="print" onload="this.media='all'">
<h1>Mugs</h1>
```
"#,
    measured: Some(crate::Measured {
        value: "fcp_ms",
        limit: "good",
        margin: crate::Measured::TIMING_MARGIN,
    }),
    ..RuleMeta::BASE
};

impl Rule for FirstContentfulPaint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(v) = page.vitals.as_ref() else {
            return;
        };
        let names: Vec<&str> = v
            .render_blocking
            .iter()
            .take(3)
            .map(|r| r.url.as_str())
            .collect();
        let blame = if names.is_empty() {
            ".".to_string()
        } else {
            format!("; the first render waited for {}.", names.join(", "))
        };
        // The element is the first blocking resource the page links.
        let linked = v.render_blocking.iter().find_map(|r| {
            cx.page()
                .root()
                .descendants()
                .filter_map(scraper::ElementRef::wrap)
                .find(|el| {
                    let attr = match el.value().name() {
                        "link" => "href",
                        "script" => "src",
                        _ => return false,
                    };
                    el.value().attr(attr).is_some_and(|href| {
                        page.final_url
                            .join(href)
                            .is_ok_and(|u| u.as_str() == r.url)
                    })
                })
        });
        let blocking: Vec<_> = v
            .render_blocking
            .iter()
            .map(|r| serde_json::json!({"url": r.url, "end_ms": round3(r.end_ms)}))
            .collect();
        let extra = serde_json::json!({"render_blocking": blocking});
        judge_at(cx, Metric::Fcp, "First Contentful Paint", linked, &blame, extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::vitals::{BlockingResource, WebVitals};

    fn painted(fcp: Option<f64>) -> crate::Page {
        let mut p = RuleTester::page(r#"<link rel="stylesheet" href="/all.css"><h1>Mugs</h1>"#);
        p.vitals = Some(WebVitals {
            fcp_ms: fcp,
            render_blocking: vec![BlockingResource {
                url: "https://example.com/all.css".into(),
                end_ms: 3300.0,
            }],
            ..WebVitals::default()
        });
        p
    }

    #[test]
    fn examples() {
        RuleTester::new(&FirstContentfulPaint)
            .pass_page("link", painted(Some(600.0)))
            .pass_page("link", painted(Some(1800.0)))
            .fail_page("link", painted(Some(2400.0)))
            .fail_page("link", painted(Some(3400.0)))
            .inapplicable_page(painted(None))
            .run();
    }
}
