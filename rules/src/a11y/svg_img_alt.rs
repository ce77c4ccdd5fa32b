//! `svg-img-alt`: SVG elements with an image role have an accessible name (ACT 7d6734).

use scraper::ElementRef;

use super::support::has_explicit_role;
use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that SVG elements with an explicit `img`, `graphics-document` or `graphics-symbol` role are named.
pub struct SvgImgAlt;

static META: RuleMeta = RuleMeta {
    id: "svg-img-alt",
    category: Category::Accessibility,
    title: "SVG images have alternative text",
    help: "Add a <title> child, aria-label or aria-labelledby to the SVG element.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["7d6734"],
    docs: r##"## What it checks
Elements in the SVG namespace with an explicit role of `img`, `graphics-document` or `graphics-symbol` that are included in the accessibility tree have a non-empty accessible name, from a `title` child, `aria-label` or `aria-labelledby`.

## Why it matters
An SVG marked as an image is announced as one; without a name, its meaning is lost to screen reader users.

## Failing
```html
<svg role="img" viewBox="0 0 10 10"><circle r="5"/></svg>
```

## Passing
```html
<svg role="img" viewBox="0 0 10 10"><title>Status: online</title><circle r="5"/></svg>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for SvgImgAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if is_html(el)
            || !has_explicit_role(el, cx, &["img", "graphics-document", "graphics-symbol"])
        {
            return;
        }
        if not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This SVG image");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&SvgImgAlt)
            .pass(&[
                ("svg", r##"<svg role=img><title>Logo</title></svg>"##),
                ("svg", r##"<svg role=img aria-label="Logo"></svg>"##),
                ("svg", r##"<svg role=graphics-symbol aria-labelledby=t></svg><p id=t>Sun</p>"##),
            ])
            .inapplicable(&[
                r##"<svg role=img aria-hidden=true></svg>"##,
                r##"<svg><circle r=5 /></svg>"##,
            ])
            .fail(&[
                ("svg", r##"<svg role=img></svg>"##),
                ("svg", r##"<svg role=img><title> </title></svg>"##),
                ("circle", r##"<svg><circle role=graphics-symbol r=5 /></svg>"##),
            ])
            .run();
    }
}
