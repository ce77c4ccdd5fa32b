//! `unsized-images`: images declare their dimensions.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails `<img>` without both `width` and `height`.
pub struct UnsizedImages;

static META: RuleMeta = RuleMeta {
    id: "unsized-images",
    category: Category::Performance,
    title: "Images have explicit width and height",
    help: "Add width and height attributes (the intrinsic size) to every <img>; CSS can still scale it, and the browser reserves the space.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/unsized-images",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Each `<img>` has both a `width` and a `height` attribute with a number, or an inline
`style` that sets both `width` and `height` (or `aspect-ratio` with one of them).
Images hidden with `hidden` or 1×1 tracking pixels are checked like others (they
have sizes). Stylesheet rules are not evaluated (seonaut's `ERROR_IMG_SIZE_ATTR`;
Lighthouse's `unsized-images`).

## Why it matters
Without dimensions the browser does not know how much space an image needs until it
loads, so the text around it jumps (Cumulative Layout Shift) — a Core Web Vital.

## Failing
```html
<img src="/mug.webp" alt="Blue mug">
```

## Passing
```html
<img src="/mug.webp" alt="Blue mug" width="640" height="480">
```
"#,
    ..RuleMeta::BASE
};

fn numeric(v: Option<&str>) -> bool {
    v.map(str::trim)
        .and_then(|s| s.trim_end_matches("px").parse::<f64>().ok())
        .is_some_and(|n| n >= 0.0)
}

fn style_sets(style: &str, prop: &str) -> bool {
    style.split(';').any(|d| {
        d.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case(prop) && !v.trim().is_empty() && v.trim() != "auto"
        })
    })
}

impl Rule for UnsizedImages {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let v = el.value();
        let style = v.attr("style").unwrap_or("");
        let w = numeric(v.attr("width")) || style_sets(style, "width");
        let h = numeric(v.attr("height")) || style_sets(style, "height");
        let ratio = style_sets(style, "aspect-ratio");
        if (w && h) || (ratio && (w || h)) {
            cx.pass();
        } else {
            cx.fail(
                el,
                "The image has no explicit width and height; the layout will shift when it loads.",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&UnsizedImages)
            .pass(&[
                ("img", r#"<img src="a.webp" alt="" width="640" height="480">"#),
                ("img", r#"<img src="a.webp" alt="" style="width: 100%; aspect-ratio: 4/3">"#),
                ("img", r#"<img src="a.webp" alt="" style="width:10px;height:10px">"#),
            ])
            .fail(&[
                ("img", r#"<img src="a.webp" alt="">"#),
                ("img", r#"<img src="a.webp" alt="" width="640">"#),
                ("img", r#"<img src="a.webp" alt="" width="auto" height="auto">"#),
            ])
            .run();
    }
}
