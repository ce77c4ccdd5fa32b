//! `aria-valid-attr`: every `aria-*` attribute is defined in WAI-ARIA (ACT 5f99a7).

use scraper::ElementRef;

use crate::aria::attrs::attr_def;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that each `aria-*` attribute name exists in WAI-ARIA (catches typos such as `aria-labeledby`).
pub struct AriaValidAttr;

static META: RuleMeta = RuleMeta {
    id: "aria-valid-attr",
    category: Category::Accessibility,
    title: "ARIA attributes are valid",
    help: "Fix the attribute name; see the WAI-ARIA list of states and properties.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["5f99a7"],
    docs: r##"## What it checks
Each attribute whose name starts with `aria-` on an HTML or SVG element is a state or property defined in WAI-ARIA.

## Why it matters
A misspelled ARIA attribute is silently ignored, so the name, state or relationship it was meant to give never reaches assistive technology.

## Failing
```html
<div role="checkbox" aria-not-checked="true">Subscribe</div>
```

## Passing
```html
<div role="checkbox" aria-checked="false">Subscribe</div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaValidAttr {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        for (name, _) in el.value().attrs() {
            if !name.starts_with("aria-") {
                continue;
            }
            if attr_def(name).is_some() {
                cx.pass();
            } else {
                cx.fail(el, format!("`{name}` is not a WAI-ARIA attribute."));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaValidAttr)
            .pass(&[
                ("div", r##"<div aria-label="x">x</div>"##),
                ("div", r##"<div role=checkbox aria-checked=false>x</div>"##),
            ])
            .inapplicable(&[
                r##"<p>no aria</p>"##,
            ])
            .fail(&[
                ("div", r##"<div aria-labeledby="x">x</div>"##),
                ("div", r##"<div role=checkbox aria-not-checked=true>x</div>"##),
            ])
            .run();
    }
}
