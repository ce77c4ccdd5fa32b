//! `frame-title`: `iframe` and `frame` elements have an accessible name (ACT cae760).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `iframe` and `frame` elements have a non-empty accessible name.
pub struct FrameTitle;

static META: RuleMeta = RuleMeta {
    id: "frame-title",
    category: Category::Accessibility,
    title: "Frames have a title",
    help: "Give the iframe a title attribute that says what it contains.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["cae760"],
    docs: r##"## What it checks
Each `iframe` and `frame` included in the accessibility tree has a non-empty accessible name, usually its `title` attribute.

## Why it matters
Screen readers announce frames by name when users move into them or list them; an unnamed frame gives no hint of its content.

## Failing
```html
<iframe src="/map.html"></iframe>
```

## Passing
```html
<iframe src="/map.html" title="Store locations map"></iframe>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for FrameTitle {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["iframe", "frame"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || not_exposed(el, cx) {
            return;
        }
        // Frames taken out of the tab order, or explicitly presentational, are not
        // something users move into.
        if crate::aria::tree::tabindex(el).is_some_and(|t| t < 0) {
            return;
        }
        let explicit = crate::dom::attr(el, "role").map(|r| r.trim().to_ascii_lowercase());
        if matches!(explicit.as_deref(), Some("none" | "presentation")) {
            return;
        }
        require_name(el, cx, "This frame");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&FrameTitle)
            .pass(&[
                ("iframe", r##"<iframe src=a.html title="Map"></iframe>"##),
                ("iframe", r##"<iframe src=a.html aria-label="Map"></iframe>"##),
            ])
            .inapplicable(&[
                r##"<iframe src=a.html hidden></iframe>"##,
                r##"<iframe src=a.html tabindex=-1></iframe>"##,
                r##"<iframe src=a.html role=none></iframe>"##,
            ])
            .fail(&[
                ("iframe", r##"<iframe src=a.html></iframe>"##),
                ("iframe", r##"<iframe src=a.html title=" "></iframe>"##),
            ])
            .run();
    }
}
