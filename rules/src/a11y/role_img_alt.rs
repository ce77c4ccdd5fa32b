//! `role-img-alt`: elements with `role="img"` have an accessible name (ACT 23a2a8).

use scraper::ElementRef;

use super::support::{has_explicit_role, is_tag};
use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that non-`img`, non-SVG elements with `role="img"` have a non-empty accessible name.
pub struct RoleImgAlt;

static META: RuleMeta = RuleMeta {
    id: "role-img-alt",
    category: Category::Accessibility,
    title: "Elements with role=\"img\" have alternative text",
    help: "Give the element an aria-label or aria-labelledby that says what the image shows.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["23a2a8"],
    docs: r##"## What it checks
HTML elements other than `img` whose role is `img` (explicitly) and that are included in the accessibility tree have a non-empty accessible name.

## Why it matters
Content built from CSS backgrounds or icon fonts and exposed as an image is announced as "image" with nothing else unless it is named.

## Failing
```html
<div role="img" style="background-image: url(map.png)"></div>
```

## Passing
```html
<div role="img" aria-label="Map of the campus" style="background-image: url(map.png)"></div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for RoleImgAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || is_tag(el, "img") || !has_explicit_role(el, cx, &["img"]) {
            return;
        }
        if not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This element with role=\"img\"");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&RoleImgAlt)
            .pass(&[
                ("div", r##"<div role=img aria-label="Map"></div>"##),
                ("span", r##"<span role=img title="Stars"></span>"##),
            ])
            .inapplicable(&[
                r##"<div role=img aria-hidden=true></div>"##,
                r##"<div>no role</div>"##,
            ])
            .fail(&[
                ("div", r##"<div role=img></div>"##),
                ("span", r##"<span role="img foo"> </span>"##),
            ])
            .run();
    }
}
