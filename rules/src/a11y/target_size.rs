//! `target-size`: pointer targets with a declared size are at least 24 by 24 CSS pixels.

use scraper::ElementRef;

use serde_json::json;

use crate::aria::roles::is_widget;
use crate::css::cascade::length_px;
use crate::css::ComputedStyle;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that controls whose size CSS fixes in pixels are at least 24×24 CSS pixels.
pub struct TargetSize;

static META: RuleMeta = RuleMeta {
    id: "target-size",
    category: Category::Accessibility,
    title: "Pointer targets are large enough",
    help: "Make the control at least 24×24 CSS pixels (padding counts), or leave room around it.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Serious,
    best_practice: true,
    docs: r##"## What it checks
Each visible control in the tab order (links, buttons, form fields and ARIA widgets) whose `width` and `height` (or `min-width` / `min-height`) the cascade sets in absolute units is at least 24 by 24 CSS pixels, counting padding unless `box-sizing: border-box`. Controls sized by their content, and inline links in text, need layout to measure and are not checked (WCAG 2.2 SC 2.5.8 as a best practice; WCAG 2.1 has no AA target size criterion).

## Why it matters
Small targets are hard to hit for people with tremors or limited dexterity, and on touch screens.

## Failing
```html
<button style="width:16px;height:16px;padding:0" aria-label="Close">x</button>
```

## Passing
```html
<button style="width:32px;height:32px;padding:0" aria-label="Close">x</button>
```
"##,
    ..RuleMeta::BASE
};

/// The declared size along one axis, in CSS pixels: the larger of the size and its
/// minimum, plus padding for content-box sizing. `None` when not fixed in CSS.
fn declared(style: &ComputedStyle, size: &str, min: &str) -> Option<f32> {
    let base = style.get(size).and_then(length_px);
    let minimum = style.get(min).and_then(length_px);
    let value = match (base, minimum) {
        (Some(b), Some(m)) => b.max(m),
        (Some(b), None) => b,
        (None, Some(m)) if m >= 24.0 => m,
        _ => return None,
    };
    let border_box = style.get("box-sizing") == Some("border-box");
    let padding = if border_box {
        0.0
    } else {
        match style.get("padding") {
            None => 0.0,
            Some(p) => {
                let parts: Vec<&str> = p.split_whitespace().collect();
                let all: Option<Vec<f32>> = parts.iter().map(|x| length_px(x)).collect();
                match all.as_deref() {
                    Some([a]) => 2.0 * a,
                    Some([v, h]) | Some([v, h, _]) => {
                        if size == "width" {
                            2.0 * h
                        } else {
                            2.0 * v
                        }
                    }
                    Some([t, r, b, l]) => {
                        if size == "width" {
                            r + l
                        } else {
                            t + b
                        }
                    }
                    _ => return None,
                }
            }
        }
    };
    Some(value + padding)
}

impl Rule for TargetSize {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let Some(role) = page.role(el) else {
            return;
        };
        if !is_widget(role) || !page.in_tab_order(el) || !page.is_visible(el) {
            return;
        }
        let style = page.style(el);
        if style.display.starts_with("inline") && style.display != "inline-block" {
            return;
        }
        let (Some(w), Some(h)) = (
            declared(style, "width", "min-width"),
            declared(style, "height", "min-height"),
        ) else {
            return;
        };
        if w >= 24.0 && h >= 24.0 {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("This target is {w:.0}×{h:.0} CSS pixels, below 24×24."),
            )
            .with_data(json!({ "width": w, "height": h, "expected": 24 }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&TargetSize)
            .pass(&[
                ("button", r##"<button style="width:32px;height:32px">x</button>"##),
                ("button", r##"<button style="width:16px;height:16px;padding:4px">x</button>"##),
                ("a", r##"<a href=/ style="display:inline-block;width:40px;height:40px">x</a>"##),
            ])
            .inapplicable(&[
                r##"<button>Save</button>"##,
                r##"<button style="width:10px;height:10px;display:none">x</button>"##,
            ])
            .fail(&[
                ("button", r##"<button style="width:16px;height:16px;padding:0">x</button>"##),
                ("a", r##"<style>.i{display:inline-block;width:1em;height:1em;box-sizing:border-box;padding:2px}</style><a href=/ class=i>x</a>"##),
            ])
            .run();
    }
}
