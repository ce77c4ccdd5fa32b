//! `presentation-role-conflict`: elements marked decorative are not exposed (ACT 46ca7f).

use scraper::ElementRef;

use crate::aria::html::is_html;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that elements marked decorative (`role="none"`/`"presentation"`, `img alt=""`) really lose their semantics.
pub struct PresentationRoleConflict;

static META: RuleMeta = RuleMeta {
    id: "presentation-role-conflict",
    category: Category::Accessibility,
    title: "Decorative elements are not exposed",
    help: "Remove the global ARIA attributes or focusability, or drop the presentational role.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Minor,
    act: &["46ca7f"],
    best_practice: true,
    docs: r##"## What it checks
Each element marked as decorative (explicit role `none` or `presentation`, or an `img` with `alt=""`) that is included in the accessibility tree has a semantic role of `none` / `presentation`. Focusability or a global ARIA attribute (e.g. `aria-label`) makes browsers ignore the presentational role (WAI-ARIA 1.2 §9.4).

## Why it matters
Content an author meant to hide from assistive technology gets announced after all, usually with a confusing role.

## Failing
```html
<nav role="presentation" aria-label="global"><a href="/">Home</a></nav>
```

## Passing
```html
<nav role="presentation"><a href="/">Home</a></nav>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for PresentationRoleConflict {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let explicit = crate::dom::attr(el, "role").and_then(|r| {
            r.split_ascii_whitespace()
                .next()
                .map(|t| t.to_ascii_lowercase())
        });
        let by_role = matches!(explicit.as_deref(), Some("none" | "presentation"));
        let by_alt =
            is_html(el) && el.value().name() == "img" && crate::dom::attr(el, "alt") == Some("");
        if !by_role && !by_alt {
            return;
        }
        let page = cx.page();
        if page.is_hidden(el) {
            cx.pass();
            return;
        }
        match page.role(el) {
            None | Some("none" | "presentation") => cx.pass(),
            Some(role) => {
                cx.fail(
                    el,
                    format!("This element is marked decorative but is exposed with role `{role}` (focusable or has global ARIA attributes)."),
                );
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
        RuleTester::new(&PresentationRoleConflict)
            .pass(&[
                ("img", r##"<img src=a.png alt="">"##),
                ("img", r##"<img src=a.png alt="" aria-hidden=true>"##),
                ("nav", r##"<nav role=presentation><a href=/>x</a></nav>"##),
                ("svg", r##"<svg role=none><circle r=4></circle></svg>"##),
                ("img", r##"<img src=a.png role=presentation alt="Logo">"##),
            ])
            .fail(&[
                ("nav", r##"<nav role=presentation aria-label=global><a href=/>x</a></nav>"##),
                ("img", r##"<img src=a.png alt="" aria-labelledby=l><span hidden id=l>Logo</span>"##),
                ("svg", r##"<svg role=none aria-label="Circle"></svg>"##),
                ("button", r##"<button role=none>x</button>"##),
            ])
            .run();
    }
}
