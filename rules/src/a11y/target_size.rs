//! `target-size`: pointer targets with a declared size are at least 24 by 24 CSS pixels.

use scraper::ElementRef;

use serde_json::json;

use crate::aria::roles::is_widget;
use super::support::{cant_tell_because, reason};
use crate::css::cascade::{is_unresolved, length_px};
use crate::css::ComputedStyle;
use crate::{Category, Check, Impact, PageContext, Rule, RuleMeta, Visits};

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

In [render mode](../render.md) the size is the border box the browser laid out (findings carry `data.measured = "browser"`), so sizes from custom properties, `calc()` or a stylesheet the scan could not load are measured rather than reviewed; which controls are checked stays the same.

## No silent pass
A control it applies to ends passed, failed or "needs review" (cannot tell) with the reason in `data.reason`, as in [`color-contrast`](color-contrast.md#no-silent-pass):
`styles-incomplete` (a stylesheet the page uses could not be loaded, so it may size the control otherwise), `size-unresolved` (a size or padding uses custom properties or `calc()` that do not resolve), `transform` (a `transform` on it or an ancestor scales what is drawn). A control with one axis known to be under 24 pixels fails whatever the unresolved other axis is; an unresolved `min-width` under a known size of 24 or more changes nothing.

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

## Cannot tell
```html
<button style="width:var(--size);height:var(--size);padding:0" aria-label="Close">x</button>
```
"##,
    ..RuleMeta::BASE
};

/// One axis of a control's size as the cascade declares it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Size {
    /// Fixed, in CSS pixels, padding counted.
    Px(f32),
    /// Declared, but with `var()` or a math function that does not resolve.
    Unresolved,
    /// Not fixed in CSS: content and layout decide.
    Auto,
}

/// Padding along one axis (`width`: left and right), `None` when a value
/// does not resolve.
fn padding(style: &ComputedStyle, size: &str) -> Option<f32> {
    let sides: [&str; 2] = if size == "width" {
        ["padding-left", "padding-right"]
    } else {
        ["padding-top", "padding-bottom"]
    };
    if sides.iter().any(|p| style.get(p).is_some_and(is_unresolved)) {
        return None;
    }
    let Some(p) = style.get("padding") else {
        return Some(0.0);
    };
    let parts: Vec<&str> = p.split_whitespace().collect();
    let all: Option<Vec<f32>> = parts.iter().map(|x| length_px(x)).collect();
    match all.as_deref() {
        Some([a]) => Some(2.0 * a),
        Some([v, h]) | Some([v, h, _]) => Some(if size == "width" { 2.0 * h } else { 2.0 * v }),
        Some([t, r, b, l]) => Some(if size == "width" { r + l } else { t + b }),
        _ => None,
    }
}

/// The declared size along one axis: the larger of the size and its minimum,
/// plus padding for content-box sizing.
fn declared(style: &ComputedStyle, size: &str, min: &str) -> Size {
    let (raw, raw_min) = (style.get(size), style.get(min));
    let base = raw.and_then(length_px);
    let minimum = raw_min.and_then(length_px);
    // A size the cascade cannot resolve is unknown, unless a known minimum
    // already makes the axis large enough whatever it is.
    let unresolved = raw.is_some_and(is_unresolved) || raw_min.is_some_and(is_unresolved);
    let value = match (base, minimum) {
        (Some(b), Some(m)) => b.max(m),
        // An unresolved minimum only raises the size.
        (Some(b), None) if !unresolved || b >= 24.0 => b,
        (None, Some(m)) if m >= 24.0 => m,
        _ if unresolved => return Size::Unresolved,
        _ => return Size::Auto,
    };
    let border_box = style.get("box-sizing") == Some("border-box");
    if border_box {
        return Size::Px(value);
    }
    match padding(style, size) {
        Some(p) => Size::Px(value + p),
        None if value >= 24.0 => Size::Px(value),
        None => Size::Unresolved,
    }
}

/// Whether a `transform` on `el` or an ancestor may scale it: the size drawn
/// then differs from the size declared.
fn scaled(page: &PageContext<'_>, el: ElementRef<'_>) -> bool {
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .any(|e| {
            let style = page.style(e);
            let scales = |v: &str| {
                ["scale", "matrix", "perspective"].iter().any(|f| v.contains(f)) || is_unresolved(v)
            };
            style.get("transform").is_some_and(scales)
        })
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
        let (w, h) = (
            declared(style, "width", "min-width"),
            declared(style, "height", "min-height"),
        );
        if w == Size::Auto || h == Size::Auto {
            return;
        }
        // Render mode: the browser's border box settles sizes the cascade
        // cannot resolve and sheets the scan could not load (a transform
        // still leaves what is drawn to review, below).
        if let Some(b) = page.rendered(el.id()).and_then(|f| f.bounds) {
            if !scaled(page, el) {
                if b.width >= 24.0 && b.height >= 24.0 {
                    cx.pass();
                } else {
                    cx.fail(
                        el,
                        format!(
                            "This target is {:.0}×{:.0} CSS pixels, below 24×24.",
                            b.width, b.height
                        ),
                    )
                    .with_data(json!({ "width": b.width, "height": b.height, "expected": 24, "measured": "browser" }));
                }
                return;
            }
        }
        // A sheet the page uses is missing: it may size the control otherwise.
        if let Some(why) = page.styles_incomplete() {
            cant_tell_because(
                cx,
                el,
                format!("Target size needs review: {why}."),
                reason::STYLES_INCOMPLETE,
            );
            return;
        }
        let small = |s: Size| matches!(s, Size::Px(v) if v < 24.0);
        if !small(w) && !small(h) && (w == Size::Unresolved || h == Size::Unresolved) {
            cant_tell_because(
                cx,
                el,
                "Target size needs review: its size uses custom properties or calc() that cannot be resolved.",
                reason::SIZE_UNRESOLVED,
            );
            return;
        }
        if scaled(page, el) {
            cant_tell_because(
                cx,
                el,
                "Target size needs review: a transform scales it, so the size drawn is not the size declared.",
                reason::TRANSFORM,
            );
            return;
        }
        match (w, h) {
            (Size::Px(w), Size::Px(h)) if w >= 24.0 && h >= 24.0 => cx.pass(),
            (Size::Px(w), Size::Px(h)) => {
                cx.fail(
                    el,
                    format!("This target is {w:.0}×{h:.0} CSS pixels, below 24×24."),
                )
                .with_data(json!({ "width": w, "height": h, "expected": 24 }));
            }
            // One axis is below 24 whatever the other resolves to.
            (Size::Px(w), _) => {
                cx.fail(
                    el,
                    format!("This target is {w:.0} CSS pixels wide, below 24, whatever its height."),
                )
                .with_data(json!({ "width": w, "expected": 24 }));
            }
            (_, Size::Px(h)) => {
                cx.fail(
                    el,
                    format!("This target is {h:.0} CSS pixels high, below 24, whatever its width."),
                )
                .with_data(json!({ "height": h, "expected": 24 }));
            }
            // Both unresolved: reported above.
            _ => {}
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
                // A custom property that resolves is known.
                ("button", r##"<button style="--s:32px;width:var(--s);height:var(--s)">x</button>"##),
                // An unresolved minimum cannot shrink a known size.
                ("button", r##"<button style="width:32px;height:32px;min-width:var(--m)">x</button>"##),
                // A rotation does not change the size.
                ("button", r##"<button style="width:32px;height:32px;transform:rotate(45deg)">x</button>"##),
            ])
            .inapplicable(&[
                r##"<button>Save</button>"##,
                r##"<button style="width:10px;height:10px;display:none">x</button>"##,
                r##"<button style="width:var(--w)">Sized by content in height</button>"##,
            ])
            .fail(&[
                ("button", r##"<button style="width:16px;height:16px;padding:0">x</button>"##),
                ("a", r##"<style>.i{display:inline-block;width:1em;height:1em;box-sizing:border-box;padding:2px}</style><a href=/ class=i>x</a>"##),
                // One axis is too small whatever the other resolves to.
                ("button", r##"<button style="width:var(--w);height:16px;padding:0">x</button>"##),
            ])
            .cant_tell(&[
                ("button", r##"<button style="width:var(--size);height:var(--size);padding:0">x</button>"##),
                ("button", r##"<button style="width:calc(1em + 4px);height:32px">x</button>"##),
                ("button", r##"<button style="width:16px;height:16px;padding:var(--pad)">x</button>"##),
                ("button", r##"<div style="transform:scale(2)"><button style="width:16px;height:16px;padding:0">x</button></div>"##),
                ("button", r##"<div style="transform:scale(.5)"><button style="width:32px;height:32px">x</button></div>"##),
            ])
            .run();
    }
}
