//! `image-decorative`: images hidden from assistive technologies are purely
//! decorative (WCAG 1.1.1, ACT e88epe); always a review item.

use scraper::ElementRef;

use crate::aria::html::is_html;
use crate::structure::ancestors;
use crate::{Category, Check, Impact, Level, PageContext, Rule, RuleMeta, Visits};

/// Asks a person to confirm that each visible image kept out of the
/// accessibility tree is decoration.
pub struct ImageDecorative;

static META: RuleMeta = RuleMeta {
    id: "image-decorative",
    category: Category::Accessibility,
    title: "Images hidden from assistive technologies are decorative",
    help: "If the image conveys information, give it a text alternative instead of hiding it (alt text, or remove aria-hidden / role=\"none\").",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Moderate,
    act: &["e88epe"],
    defers_to: &["image-alt", "svg-img-alt", "role-img-alt"],
    docs: r#"## What it checks
Every visible image that assistive technologies ignore: an `<img>` with
`alt=""`, `role="none"`/`"presentation"` or inside `aria-hidden` content, an
outermost `<svg>` that is hidden, presentational or has no accessible name, and
a `<canvas>` on a page with scripts (without a script nothing is drawn on it)
that is hidden, presentational or unnamed. Whether the picture carries
information is a matter of looking at it, so each one is reported for review
(*cannot tell*). Images without a `src` or `srcset`, and images inside a link or button
with a name (the control's name carries their meaning, checked by `link-name`
and `button-name`) are left out.

**Ownership:** an image that has no text alternative at all where one is
required is owned by `image-alt`, `svg-img-alt` and `role-img-alt` (a
failure, not a review item): when one of them reports the element, this rule's
review item on it is dropped.

## Why it matters
Hiding an informative image (a chart, a logo that is the only label of
something, a photo the text refers to) leaves screen reader users without its
content.

## Failing
```html
<img src="sales-chart.png" alt="">
```
(reported for review: a person checks that the chart is decoration, which it is not)

## Passing
```html
<img src="sales-chart.png" alt="Sales doubled from 2023 to 2024">
```
"#,
    manual_review: true,
    ..RuleMeta::BASE
};

/// Whether `el` is an image kind this rule looks at, and which.
fn kind(el: ElementRef<'_>) -> Option<&'static str> {
    let name = el.value().name();
    if is_html(el) {
        return match name {
            "img" => Some("img"),
            "canvas" => Some("canvas"),
            _ => None,
        };
    }
    // The outermost `svg` of an SVG fragment embedded in HTML.
    let outermost = el.parent().and_then(ElementRef::wrap).is_some_and(is_html);
    (name == "svg" && outermost).then_some("svg")
}

/// Whether the page can draw on a canvas: only scripts paint one.
fn has_script(cx: &PageContext<'_>) -> bool {
    cx.root()
        .descendants()
        .filter_map(ElementRef::wrap)
        .any(|e| is_html(e) && e.value().name() == "script")
}

/// Whether assistive technologies ignore the image.
fn ignored(cx: &PageContext<'_>, el: ElementRef<'_>, kind: &str) -> bool {
    if cx.is_hidden(el) || matches!(cx.role(el), Some("none" | "presentation")) {
        return true;
    }
    match kind {
        "img" => el.value().attr("alt") == Some("") && cx.role(el).is_none_or(|r| r == "img"),
        // An unnamed svg or canvas is skipped by screen readers.
        _ => cx.accessible_name(el).trim().is_empty(),
    }
}

impl Rule for ImageDecorative {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img", "svg", "canvas"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(kind) = kind(el) else {
            return;
        };
        let page = cx.page();
        if !page.is_visible(el) || page.is_presentational_child(el) {
            return;
        }
        match kind {
            // An image with no source shows nothing.
            "img"
                if ["src", "srcset"]
                    .iter()
                    .all(|a| el.value().attr(a).is_none_or(|s| s.trim().is_empty())) =>
            {
                return
            }
            "canvas" if !has_script(page) => return,
            _ => {}
        }
        // Inside a named link or button the control's name carries the meaning.
        let in_named_control = ancestors(el).any(|a| {
            matches!(page.role(a), Some("link" | "button"))
                && !page.accessible_name(a).trim().is_empty()
        });
        if in_named_control || !ignored(page, el, kind) {
            return;
        }
        cx.cant_tell(
            el,
            format!("This <{kind}> is hidden from assistive technologies; check that it is purely decorative, or give it a text alternative."),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ImageDecorative)
            .inapplicable(&[
                r#"<img src="a.png" alt="Logo">"#,
                r#"<img src="a.png" alt="" style="display:none">"#,
                r#"<img alt="">"#,
                r#"<a href="/"><img src="a.png" alt="">Home</a>"#,
                r#"<a href="/" aria-label="Star"><svg role="none"><circle r="5"/></svg></a>"#,
                r#"<svg role="img" aria-label="Logo"><circle r="5"/></svg>"#,
                r#"<svg><title>Logo</title><circle r="5"/></svg>"#,
                r#"<canvas width="20" height="20"></canvas>"#,
                r#"<div style="background:url(a.png)"></div>"#,
            ])
            .cant_tell(&[
                ("img", r#"<img src="a.png" alt="">"#),
                ("img", r#"<img srcset="a.png 1x, a@2x.png 2x" alt="">"#),
                ("img", r#"<img src="a.png" alt="Logo" aria-hidden="true">"#),
                ("img", r#"<img src="a.png" alt="Logo" role="none">"#),
                ("svg", r#"<svg><circle r="5"/></svg>"#),
                ("canvas", r#"<canvas width="20" height="20"></canvas><script>draw()</script>"#),
            ])
            .run();
    }
}
