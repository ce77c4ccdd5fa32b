//! `largest-contentful-paint`: the page's main content paints soon (render
//! mode).

use crate::vitals::{judge, Metric};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Judges each rendered page's Largest Contentful Paint against the Core Web
/// Vitals thresholds (good ≤ 2.5 s, poor > 4 s), naming the element painted.
pub struct LargestContentfulPaint;

static META: RuleMeta = RuleMeta {
    id: "largest-contentful-paint",
    category: Category::Performance,
    title: "Largest Contentful Paint is fast",
    help: "Make the largest element of the first screen paint within 2.5 s: serve its image small and early (no lazy loading, `fetchpriority=high`), cut render-blocking CSS and scripts, and speed up the server.",
    help_url: "https://web.dev/articles/lcp",
    impact: Impact::Serious,
    needs: &[Need::WebVitals],
    docs: r#"## What it checks
Render mode only (`--render`): the time from the navigation until the largest
image or text block in the viewport painted, as the browser reports it
(`largest-contentful-paint` entries of a `PerformanceObserver`), plus the
crawler's time to first byte of the page. Over 2.5 s fails with a moderate
impact ("needs improvement"); over 4 s with a serious one ("poor"), the Core
Web Vitals thresholds. The finding sits on the element painted, and its data
holds the value (`lcp_ms`) and the thresholds. A static scan has no browser and
this rule reports nothing there.

Lab values depend on the machine and network the scan runs on, and on the
throttling preset (`--throttle`); compare scans made the same way.

## Why it matters
LCP is when a visitor sees the page's main content. Google's Core Web Vitals
use it for search ranking; slow LCP loses visitors before they read anything.

## Failing
```html
<!-- the hero image arrives after 4.6 s -->
<img id="hero" src="/hero-6mb.jpg" alt="Our mugs">
```

## Passing
```html
<!-- the hero image, 80 kB, painted after 900 ms -->
<img id="hero" src="/hero.avif" alt="Our mugs" fetchpriority="high">
```
"#,
    measured: Some(crate::Measured {
        value: "lcp_ms",
        limit: "good",
        margin: crate::Measured::TIMING_MARGIN,
    }),
    ..RuleMeta::BASE
};

impl Rule for LargestContentfulPaint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(v) = page.vitals.as_ref() else {
            return;
        };
        let elements: Vec<_> = v.lcp_element.iter().collect();
        let blame = match elements.first() {
            Some(e) => format!("; the largest element painted is {}.", e.label),
            None => ".".to_string(),
        };
        let extra = serde_json::json!({
            "element": v.lcp_element.as_ref().map(|e| e.selector.as_str()),
        });
        judge(cx, Metric::Lcp, "Largest Contentful Paint", &elements, &blame, extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::vitals::{VitalElement, WebVitals};

    fn at(ms: Option<f64>) -> crate::Page {
        let mut p = RuleTester::page(r#"<img id="hero" src="/hero.jpg" alt="Mugs">"#);
        p.vitals = ms.map(|ms| WebVitals {
            lcp_ms: Some(ms),
            lcp_element: Some(VitalElement {
                stamp: None,
                selector: "#hero".into(),
                label: "img#hero".into(),
            }),
            ..WebVitals::default()
        });
        p
    }

    #[test]
    fn examples() {
        RuleTester::new(&LargestContentfulPaint)
            .pass_page("(page)", at(Some(900.0)))
            .pass_page("(page)", at(Some(2500.0)))
            .fail_page("(page)", at(Some(2501.0)))
            .fail_page("(page)", at(Some(4600.0)))
            .inapplicable_page(at(None))
            .run();
    }
}
