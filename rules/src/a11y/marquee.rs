//! `marquee`: no `<marquee>` elements (WCAG 2.2.2).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Flags `<marquee>` elements, whose scrolling cannot be paused.
pub struct Marquee;

static META: RuleMeta = RuleMeta {
    id: "marquee",
    category: Category::Accessibility,
    title: "No scrolling marquee",
    help: "Replace the <marquee> with static text, or with a carousel that people can pause.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/pause-stop-hide.html",
    wcag: &["2.2.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
The page has no `<marquee>` element. Its scrolling text moves for more than five
seconds and browsers offer no way to pause it.

## Why it matters
Moving text is hard or impossible to read for people with low vision, reading
difficulties or attention disorders, and distracts everyone from the rest of the
page.

## Failing
```html
<marquee>Breaking news: all prices halved</marquee>
```

## Passing
```html
<p>Breaking news: all prices halved</p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Marquee {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["marquee"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if is_html(el) {
            cx.fail(
                el,
                "A <marquee> element scrolls text with no way to pause it.",
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
        RuleTester::new(&Marquee)
            .inapplicable(&["<p>News</p>"])
            .fail(&[("marquee", "<marquee>News</marquee>")])
            .run();
    }
}
