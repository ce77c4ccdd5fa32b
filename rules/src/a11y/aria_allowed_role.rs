//! `aria-allowed-role`: explicit roles are allowed on their HTML element.

use scraper::ElementRef;

use crate::aria::html::{is_html, role_allowed};
use crate::aria::tree::explicit_role;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks that an explicit role is one ARIA in HTML allows for the element.
pub struct AriaAllowedRole;

static META: RuleMeta = RuleMeta {
    id: "aria-allowed-role",
    category: Category::Accessibility,
    title: "ARIA role is appropriate for the element",
    help: "Use an element whose native role fits, or a role ARIA in HTML allows on this element.",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/names-and-descriptions/",
    impact: Impact::Minor,
    best_practice: true,
    docs: r##"## What it checks
Each HTML element with a valid explicit role uses a role that ARIA in HTML allows for that element (e.g. a `button` may become a `tab` or `switch`, but a `textarea` takes no role and a heading cannot become a button). Repeating the implicit role is allowed.

## Why it matters
Overriding native semantics with an unrelated role breaks the element's built-in behaviour for assistive technology and confuses users.

## Failing
```html
<h2 role="button">Details</h2>
```

## Passing
```html
<h2><button aria-expanded="false">Details</button></h2>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaAllowedRole {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(role) = explicit_role(el) else {
            return;
        };
        if cx.page().is_hidden(el) {
            return;
        }
        if role_allowed(el, role) {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!(
                    "Role `{role}` is not allowed on a `{}` element.",
                    el.value().name()
                ),
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
        RuleTester::new(&AriaAllowedRole)
            .pass(&[
                ("button", r##"<button role=tab>x</button>"##),
                ("div", r##"<div role=button>x</div>"##),
                ("ul", r##"<ul role=menu><li role=menuitem>x</li></ul>"##),
                ("img", r##"<img src=a.png alt="" role=presentation>"##),
                ("nav", r##"<nav role=navigation>x</nav>"##),
                ("li", r##"<div role=list><li role=listitem>x</li></div>"##),
            ])
            .fail(&[
                ("h2", r##"<h2 role=button>x</h2>"##),
                ("textarea", r##"<textarea role=button></textarea>"##),
                ("a", r##"<a href=x role=heading>x</a>"##),
            ])
            .run();
    }
}
