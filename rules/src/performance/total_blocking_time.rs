//! `total-blocking-time`: the page's scripts leave the main thread free to
//! answer input (render mode).

use crate::vitals::{judge_at, round3, Metric};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Judges each rendered page's Total Blocking Time against Lighthouse's
/// thresholds (good ≤ 200 ms, poor > 600 ms), naming the scripts that ran
/// longest.
pub struct TotalBlockingTime;

static META: RuleMeta = RuleMeta {
    id: "total-blocking-time",
    category: Category::Performance,
    title: "Scripts do not block the main thread",
    help: "Break long scripts into tasks under 50 ms, defer what the first screen does not need, and drop unused third-party scripts.",
    help_url: "https://web.dev/articles/tbt",
    impact: Impact::Serious,
    needs: &[Need::WebVitals],
    docs: r#"## What it checks
Render mode only (`--render`): the long tasks (over 50 ms) the browser
reported (`longtask` entries of a `PerformanceObserver`) from the first
contentful paint until the page was quiet and its DOM taken; each counts for
its time past 50 ms, and the sum is the Total Blocking Time. Over 200 ms fails
with a moderate impact ("needs improvement"); over 600 ms with a serious one
("poor"), Lighthouse's thresholds. The message names the scripts that ran
longest in those frames (the browser's Long Animation Frames attribution),
and the finding sits on the first of them the page includes with a
`<script src>`. A static scan reports nothing.

## Why it matters
While a long task runs the page cannot answer a click or a key press. TBT is
the lab stand-in for Interaction to Next Paint, the Core Web Vital of
responsiveness.

## Failing
```html
<script>
  // 900 ms of work on load
  const end = performance.now() + 900; while (performance.now() < end) {}
</script>
```

## Passing
```html
<script type="module" src="/app.js"></script>
```
"#,
    measured: Some(crate::Measured {
        value: "tbt_ms",
        limit: "good",
        margin: crate::Measured::TIMING_MARGIN,
    }),
    ..RuleMeta::BASE
};

impl Rule for TotalBlockingTime {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(v) = page.vitals.as_ref() else {
            return;
        };
        let names: Vec<String> = v
            .blocking_scripts
            .iter()
            .take(3)
            .map(|s| format!("{} ({}, {:.0} ms)", s.url, s.invoker, s.ms))
            .collect();
        let blame = if names.is_empty() {
            format!(" in {} long tasks.", v.long_tasks)
        } else {
            format!(
                " in {} long tasks; the longest scripts: {}.",
                v.long_tasks,
                names.join(", ")
            )
        };
        // The element is the first blocking script the page includes by URL
        // (an inline script is named by the page's own URL: no element).
        let script = v.blocking_scripts.iter().find_map(|s| {
            cx.page()
                .root()
                .descendants()
                .filter_map(scraper::ElementRef::wrap)
                .find(|el| {
                    el.value().name() == "script"
                        && el.value().attr("src").is_some_and(|src| {
                            page.final_url
                                .join(src)
                                .is_ok_and(|u| u.as_str() == s.url)
                        })
                })
        });
        let scripts: Vec<_> = v
            .blocking_scripts
            .iter()
            .map(|s| serde_json::json!({"url": s.url, "invoker": s.invoker, "ms": round3(s.ms)}))
            .collect();
        let extra = serde_json::json!({"long_tasks": v.long_tasks, "scripts": scripts});
        judge_at(cx, Metric::Tbt, "Total Blocking Time", script, &blame, extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::vitals::{BlockingScript, WebVitals};

    fn blocked(tbt: Option<f64>) -> crate::Page {
        let mut p = RuleTester::page(r#"<script src="/app.js"></script><p>Mugs</p>"#);
        p.vitals = Some(WebVitals {
            tbt_ms: tbt,
            long_tasks: 3,
            blocking_scripts: vec![BlockingScript {
                url: "https://example.com/app.js".into(),
                invoker: "Window.onload".into(),
                ms: 700.0,
            }],
            ..WebVitals::default()
        });
        p
    }

    #[test]
    fn examples() {
        RuleTester::new(&TotalBlockingTime)
            .pass_page("script", blocked(Some(0.0)))
            .pass_page("script", blocked(Some(200.0)))
            .fail_page("script", blocked(Some(350.0)))
            .fail_page("script", blocked(Some(650.0)))
            .inapplicable_page(blocked(None))
            .run();
    }
}
