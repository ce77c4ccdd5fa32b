//! `input-image-alt`: image buttons have an accessible name (ACT 59796f).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::{input_type, is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `<input type="image">` buttons have a non-empty accessible name.
pub struct InputImageAlt;

static META: RuleMeta = RuleMeta {
    id: "input-image-alt",
    category: Category::Accessibility,
    title: "Image buttons have alternative text",
    help: "Give the image button an alt attribute that says what the button does.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/non-text-content.html",
    wcag: &["1.1.1", "4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["59796f"],
    docs: r##"## What it checks
Each `input` element of type `image` included in the accessibility tree has a non-empty accessible name (`alt`, `aria-label`, `aria-labelledby`, `title`).

## Why it matters
The image is the button: without a text alternative, screen reader users cannot tell what pressing it does.

## Failing
```html
<input type="image" src="go.png">
```

## Passing
```html
<input type="image" src="go.png" alt="Search">
```
"##,
    ..RuleMeta::BASE
};

impl Rule for InputImageAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["input"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || input_type(el) != "image" || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This image button");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&InputImageAlt)
            .pass(&[
                ("input", r##"<input type=image src=a.png alt="Search">"##),
                ("input", r##"<input type=image src=a.png aria-label="Search">"##),
                ("input", r##"<input type=image src=a.png title="Search">"##),
            ])
            .inapplicable(&[
                r##"<input type=image src=a.png style="display:none">"##,
                r##"<input type=text>"##,
            ])
            .fail(&[
                ("input", r##"<input type=image src=a.png>"##),
                ("input", r##"<input type=image src=a.png alt="">"##),
            ])
            .run();
    }
}
