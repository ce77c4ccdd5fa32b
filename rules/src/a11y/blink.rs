//! `blink`: no `<blink>` elements (WCAG 2.2.2).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Flags `<blink>` elements, which cannot be paused.
pub struct Blink;

static META: RuleMeta = RuleMeta {
    id: "blink",
    category: Category::Accessibility,
    title: "No blinking content",
    help: "Remove the <blink> element; if something must draw attention, use static emphasis.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/pause-stop-hide.html",
    wcag: &["2.2.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
The page has no `<blink>` element. Blinking text cannot be paused, stopped or
hidden by the user.

## Why it matters
Blinking distracts people with attention or reading difficulties and is hard to
read for people with low vision.

## Failing
```html
<p><blink>Sale ends today!</blink></p>
```

## Passing
```html
<p><strong>Sale ends today!</strong></p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Blink {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["blink"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if is_html(el) {
            cx.fail(
                el,
                "A <blink> element makes text blink with no way to stop it.",
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
        RuleTester::new(&Blink)
            .inapplicable(&["<p><strong>Sale</strong></p>"])
            .fail(&[("blink", "<p><blink>Sale</blink></p>")])
            .run();
    }
}
