//! `image-alt`: `img` elements have a text alternative or are marked decorative (ACT 23a2a8).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that every exposed `img` has a non-empty accessible name, unless it is decorative.
pub struct ImageAlt;

static META: RuleMeta = RuleMeta {
    id: "image-alt",
    category: Category::Accessibility,
    title: "Images have alternative text",
    help: "Give the image an alt attribute that says what it shows, or alt=\"\" when it is decorative.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["23a2a8"],
    docs: r##"## What it checks
Each `img` element that is included in the accessibility tree has a non-empty accessible name (`alt`, `aria-label`, `aria-labelledby` or `title`). Images marked decorative (`alt=""`, `role="none"` or `role="presentation"`, with no conflicting focusability or global ARIA attribute) pass.

## Why it matters
Screen reader users hear the text alternative instead of seeing the image; without one they hear the file name or nothing.

## Failing
```html
<img src="chart.png">
```

## Passing
```html
<img src="chart.png" alt="Sales rose 20% in May">
<img src="flourish.png" alt="">
```
"##,
    ..RuleMeta::BASE
};

impl Rule for ImageAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if not_exposed(el, cx) {
            return;
        }
        if matches!(cx.page().role(el), Some("none" | "presentation")) {
            cx.pass();
            return;
        }
        require_name(el, cx, "This image");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ImageAlt)
            .pass(&[
                ("img", r##"<img src=a.png alt="Logo">"##),
                ("img", r##"<img src=a.png alt="">"##),
                ("img", r##"<img src=a.png role=presentation>"##),
                ("img", r##"<img src=a.png aria-label="Logo">"##),
                ("img", r##"<img src=a.png title="Logo">"##),
            ])
            .inapplicable(&[
                r##"<img src=a.png hidden>"##,
                r##"<div aria-hidden=true><img src=a.png></div>"##,
                r##"<button><img src=a.png></button>"##,
            ])
            .fail(&[
                ("img", r##"<img src=a.png>"##),
                ("img", r##"<img src=a.png alt=" ">"##),
                ("img", r##"<img src=a.png alt="" tabindex=0>"##),
                ("img", r##"<img src=a.png aria-labelledby=nothing>"##),
            ])
            .run();
    }
}
