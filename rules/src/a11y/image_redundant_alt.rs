//! `image-redundant-alt`: image text alternatives do not repeat the surrounding link or button text.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that an image inside a link or button does not have alt text repeating the text next to it.
pub struct ImageRedundantAlt;

static META: RuleMeta = RuleMeta {
    id: "image-redundant-alt",
    category: Category::Accessibility,
    title: "Image alt text is not redundant",
    help: "Use alt=\"\" for an image whose meaning the adjacent text already gives.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Minor,
    best_practice: true,
    docs: r##"## What it checks
Each `img` with a non-empty `alt` inside a link or button: the rest of the link or button text is not the same as the `alt` (case-insensitive).

## Why it matters
Screen readers read the same words twice ("Home Home"), which is noise.

## Failing
```html
<a href="/"><img src="home.png" alt="Home"> Home</a>
```

## Passing
```html
<a href="/"><img src="home.png" alt=""> Home</a>
```
"##,
    ..RuleMeta::BASE
};

fn fold(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Rule for ImageRedundantAlt {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(alt) = crate::dom::attr(el, "alt")
            .map(fold)
            .filter(|a| !a.is_empty())
        else {
            return;
        };
        let page = cx.page();
        if page.is_hidden(el) {
            return;
        }
        let Some(control) = el
            .ancestors()
            .filter_map(ElementRef::wrap)
            .find(|a| matches!(page.role(*a), Some("link" | "button")))
        else {
            return;
        };
        let text = fold(&control.text().collect::<String>());
        if text == alt {
            cx.fail(
                el,
                format!("The alt text \"{alt}\" repeats the text next to it."),
            );
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&ImageRedundantAlt)
            .pass(&[
                ("img", r##"<a href=/><img src=a.png alt="Logo"> Home</a>"##),
            ])
            .inapplicable(&[
                r##"<a href=/><img src=a.png alt=""> Home</a>"##,
                r##"<img src=a.png alt="Home">"##,
            ])
            .fail(&[
                ("img", r##"<a href=/><img src=a.png alt="Home"> Home</a>"##),
                ("img", r##"<button><img src=a.png alt="Save"> save</button>"##),
            ])
            .run();
    }
}
