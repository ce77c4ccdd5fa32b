//! `empty-button`: buttons have content.

use scraper::ElementRef;

use super::empty_link::has_content;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails `<button>` and button-type `<input>` elements with no content or label.
pub struct EmptyButton;

static META: RuleMeta = RuleMeta {
    id: "empty-button",
    category: Category::Quality,
    title: "Buttons are not empty",
    help: "Put text in every button, or give icon buttons an aria-label.",
    help_url: "https://webaim.org/techniques/forms/controls#button",
    impact: Impact::Moderate,
    defers_to: &["button-name", "input-button-name"],
    docs: r#"## What it checks
Each `<button>` has text, an image with `alt`, an `<svg>` with a `<title>`, or a
non-empty `aria-label`, `aria-labelledby` or `title`; each `<input type="button">`
has a non-empty `value` (or one of those attributes). `<input type="submit">` and
`type="reset"` are fine without a value, since browsers show a default label.

**Ownership:** an empty button is one problem, owned by the accessibility rules
`button-name` (for `<button>`) and `input-button-name` (for `<input>` buttons),
which judge the full accessible name. When they run and report the element,
this rule's finding on it is dropped; it reports empty buttons on its own when
they are not selected (e.g. `--rules quality`).

## Why it matters
An empty button does something nobody can predict; it looks broken and cannot be
used with a screen reader.

## Failing
```html
<button class="close"></button>
```

## Passing
```html
<button class="close" aria-label="Close dialog">×</button>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for EmptyButton {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["button", "input"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let v = el.value();
        let ok = match v.name() {
            "button" => has_content(el),
            _ => {
                let ty = v.attr("type").unwrap_or("").trim().to_ascii_lowercase();
                if ty != "button" {
                    return;
                }
                v.attr("value").is_some_and(|s| !s.trim().is_empty()) || has_content(el)
            }
        };
        if ok {
            cx.pass();
        } else {
            cx.fail(el, "The button has no text or label.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&EmptyButton)
            .pass(&[
                ("button", "<button>Save</button>"),
                ("button", r#"<button aria-label="Close"><span class="x"></span></button>"#),
                ("input", r#"<input type="button" value="Go"><input type="submit">"#),
            ])
            .fail(&[
                ("button", r#"<button class="close"></button>"#),
                ("input", r#"<input type="button" value=" ">"#),
            ])
            .run();
    }
}
