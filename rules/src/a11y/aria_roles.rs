//! `aria-roles`: `role` attributes name at least one valid WAI-ARIA role (ACT 674b10).

use scraper::ElementRef;

use crate::aria::roles::concrete_role;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that non-empty `role` attributes contain at least one valid (non-abstract) role token.
pub struct AriaRoles;

static META: RuleMeta = RuleMeta {
    id: "aria-roles",
    category: Category::Accessibility,
    title: "ARIA roles are valid",
    help: "Use a role defined in WAI-ARIA (or DPUB-ARIA / Graphics-ARIA); check the spelling.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["674b10"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose `role` attribute has at least one token has at least one token that is a valid, non-abstract role of WAI-ARIA, DPUB-ARIA or Graphics-ARIA. Browsers use the first valid token; the others are fallbacks.

## Why it matters
An invalid role is ignored, so a widget built on a `div` is exposed as plain text.

## Failing
```html
<span role="lnik" tabindex="0">ACT rules</span>
```

## Passing
```html
<span role="link" tabindex="0">ACT rules</span>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaRoles {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(value) = crate::dom::attr(el, "role") else {
            return;
        };
        if value.trim().is_empty() || cx.page().is_hidden(el) {
            return;
        }
        let valid = value
            .split_ascii_whitespace()
            .any(|t| concrete_role(&t.to_ascii_lowercase()).is_some());
        if valid {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("`role=\"{}\"` names no valid WAI-ARIA role.", value.trim()),
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
        RuleTester::new(&AriaRoles)
            .pass(&[
                ("div", r##"<div role=button>x</div>"##),
                ("div", r##"<div role="searchfield searchbox">x</div>"##),
                ("div", r##"<div role="doc-biblioref link">x</div>"##),
            ])
            .inapplicable(&[
                r##"<div role="">x</div>"##,
                r##"<div role=" ">x</div>"##,
                r##"<div aria-hidden=true role=bogus>x</div>"##,
            ])
            .fail(&[
                ("div", r##"<div role=lnik>x</div>"##),
                ("div", r##"<div role="bibliographic-reference lnik">x</div>"##),
                ("div", r##"<div role=widget>x</div>"##),
            ])
            .run();
    }
}
