//! `cumulative-layout-shift`: the page's layout holds still while it loads
//! (render mode).

use crate::vitals::{judge, labels, round3, Metric};
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Judges each rendered page's Cumulative Layout Shift against the Core Web
/// Vitals thresholds (good ≤ 0.1, poor > 0.25), naming the elements that
/// moved.
pub struct CumulativeLayoutShift;

static META: RuleMeta = RuleMeta {
    id: "cumulative-layout-shift",
    category: Category::Performance,
    title: "Layout does not shift while the page loads",
    help: "Reserve space for what arrives late: give images and embeds `width` and `height` (or `aspect-ratio`), keep room for banners and ads, and insert content below the fold or on a user's action.",
    help_url: "https://web.dev/articles/cls",
    impact: Impact::Serious,
    needs: &[Need::WebVitals],
    docs: r#"## What it checks
Render mode only (`--render`): the layout shifts the browser reported while
the page loaded (`layout-shift` entries of a `PerformanceObserver`; shifts
right after a key press or click do not count), grouped in session windows
(shifts less than 1 s apart, at most 5 s in all) and scored by the worst
window, as Core Web Vitals do. Over 0.1 fails with a moderate impact ("needs
improvement"); over 0.25 with a serious one ("poor"). The finding sits on the
element that moved most, its message names the elements that moved (the
browser's shift sources: the content pushed, which points at what was
inserted above it), and its data lists them with their share of the score.
A static scan reports nothing.

## Why it matters
Content that jumps as a page loads makes visitors lose their place and click
the wrong thing (a button that moved under the pointer).

## Failing
```html
<main><h1>Mugs</h1><p>Our mugs hold 350 ml.</p></main>
<script>
  // a banner arrives after 1 s and pushes everything down
  setTimeout(() => document.body.insertAdjacentHTML('afterbegin',
    '<div class="banner" style="height:300px">Sale!</div>'), 1000);
</script>
```

## Passing
```html
<div class="banner" style="min-height:300px"></div>
<main><h1>Mugs</h1><p>Our mugs hold 350 ml.</p></main>
```
"#,
    measured: Some(crate::Measured {
        value: "cls",
        limit: "good",
        margin: 0.5,
    }),
    ..RuleMeta::BASE
};

impl Rule for CumulativeLayoutShift {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page().page();
        let Some(v) = page.vitals.as_ref() else {
            return;
        };
        let causes: Vec<_> = v.cls_causes.iter().map(|s| &s.element).collect();
        let moved: Vec<_> = v.cls_sources.iter().map(|s| &s.element).collect();
        let mut blame = String::new();
        if !causes.is_empty() {
            blame += &format!("; inserted or loaded just before: {}", labels(&causes, 3));
        }
        if !moved.is_empty() {
            blame += &format!("; what moved: {}", labels(&moved, 3));
        }
        blame.push('.');
        let list = |items: &[crate::vitals::ShiftSource]| -> Vec<serde_json::Value> {
            items
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "selector": s.element.selector,
                        "label": s.element.label,
                        "score": round3(s.score),
                    })
                })
                .collect()
        };
        let extra = serde_json::json!({
            "causes": list(&v.cls_causes),
            "sources": list(&v.cls_sources),
        });
        // The finding sits on the cause when there is one (the banner to
        // fix), else on what moved most.
        let elements: Vec<_> = causes.iter().chain(moved.iter()).copied().collect();
        judge(cx, Metric::Cls, "Cumulative Layout Shift", &elements, &blame, extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::vitals::{rendered_page, ShiftSource, VitalElement, WebVitals};

    fn shifted(cls: f64) -> crate::Page {
        let source = |stamp: u32, label: &str, score: f64| ShiftSource {
            element: VitalElement {
                stamp: Some(stamp),
                selector: format!("#{stamp}"),
                label: label.into(),
            },
            score,
        };
        rendered_page(
            r#"<div class="banner" data-sitescan-node="4">Sale</div><main data-sitescan-node="5"><p data-sitescan-node="6">Mugs</p></main>"#,
            7,
            WebVitals {
                cls: Some(cls),
                cls_sources: vec![source(5, "main", cls * 0.8), source(6, "p", cls * 0.2)],
                cls_causes: vec![source(4, "div.banner", cls)],
                ..WebVitals::default()
            },
        )
    }

    #[test]
    fn examples() {
        RuleTester::new(&CumulativeLayoutShift)
            .pass_page("div.banner", shifted(0.0))
            .pass_page("div.banner", shifted(0.1))
            .fail_page("div.banner", shifted(0.18))
            .fail_page("div.banner", shifted(0.4))
            .inapplicable_page(RuleTester::page("<p>static</p>"))
            .run();
    }

    #[test]
    fn poor_is_serious_and_needs_improvement_moderate() {
        let run = |cls| {
            let page = shifted(cls);
            let rules: [&'static dyn crate::Rule; 1] = [&CumulativeLayoutShift];
            crate::analyze(&page, &rules).findings.remove(0)
        };
        let ni = run(0.18);
        assert_eq!(ni.impact, Impact::Moderate);
        assert_eq!(
            ni.message,
            "Cumulative Layout Shift was 0.180 (needs improvement: over 0.100); inserted or loaded just before: div.banner; what moved: main and p."
        );
        assert_eq!(ni.data.as_ref().unwrap()["causes"][0]["selector"], "#4");
        let poor = run(0.4);
        assert_eq!(poor.impact, Impact::Serious);
        assert_eq!(poor.selector, "html > body > div");
    }
}
