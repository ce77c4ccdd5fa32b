//! `aria-deprecated-role`: deprecated ARIA roles are not used.

use scraper::ElementRef;

use crate::aria::roles::role_def;
use crate::aria::tree::explicit_role;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that no element uses a role WAI-ARIA 1.2 or DPUB-ARIA 1.1 deprecates.
pub struct AriaDeprecatedRole;

static META: RuleMeta = RuleMeta {
    id: "aria-deprecated-role",
    category: Category::Accessibility,
    title: "Deprecated ARIA roles are not used",
    help:
        "Replace the deprecated role (directory → list, doc-biblioentry / doc-endnote → listitem).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Minor,
    docs: r##"## What it checks
No element included in the accessibility tree has a deprecated role as its explicit role: `directory` (WAI-ARIA 1.2), `doc-biblioentry` and `doc-endnote` (DPUB-ARIA 1.1).

## Why it matters
Assistive technology may drop support for deprecated roles, leaving the content without semantics.

## Failing
```html
<ul role="directory"><li><a href="/a">A</a></li></ul>
```

## Passing
```html
<ul><li><a href="/a">A</a></li></ul>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaDeprecatedRole {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(role) = explicit_role(el) else {
            return;
        };
        if cx.page().is_hidden(el) {
            return;
        }
        if role_def(role).is_some_and(|r| r.deprecated) {
            cx.fail(el, format!("Role `{role}` is deprecated."));
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
        RuleTester::new(&AriaDeprecatedRole)
            .pass(&[
                ("ul", r##"<ul role=list><li>x</li></ul>"##),
                ("div", r##"<div role=button>x</div>"##),
            ])
            .fail(&[
                ("ul", r##"<ul role=directory><li>x</li></ul>"##),
                ("li", r##"<ol><li role=doc-endnote>x</li></ol>"##),
            ])
            .run();
    }
}
