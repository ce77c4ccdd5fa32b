//! `aria-prohibited-attr`: ARIA attributes prohibited on the element's role are not used (ACT kb1m8s).

use scraper::ElementRef;

use crate::aria::roles::role_def;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that naming and role-description attributes are not used on roles that prohibit them (generic, paragraph, none, ...).
pub struct AriaProhibitedAttr;

static META: RuleMeta = RuleMeta {
    id: "aria-prohibited-attr",
    category: Category::Accessibility,
    title: "ARIA attributes are not prohibited for the role",
    help: "Remove the attribute, or use an element or role that can be named (e.g. a heading or region).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["kb1m8s"],
    docs: r##"## What it checks
No element included in the accessibility tree has an ARIA attribute its semantic role prohibits: `aria-label`, `aria-labelledby` and `aria-braillelabel` on roles whose names are prohibited (`generic`, `paragraph`, `code`, `none`, ...), and `aria-roledescription` / `aria-brailleroledescription` on `generic`, `none` and `presentation`.

## Why it matters
Screen readers do not announce names on these roles, so the text authors put there is lost, often with important meaning.

## Failing
```html
<div aria-label="Previously 100, now 1 euro"><s>100</s> / <b>1</b></div>
```

## Passing
```html
<a href="/deal" aria-label="Previously 100, now 1 euro"><s>100</s> / <b>1</b></a>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaProhibitedAttr {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let has_aria = el.value().attrs().any(|(n, _)| n.starts_with("aria-"));
        if !has_aria {
            return;
        }
        let page = cx.page();
        if page.is_hidden(el) {
            return;
        }
        let Some(role) = page.role(el) else {
            return;
        };
        let Some(def) = role_def(role) else {
            return;
        };
        for (name, _) in el.value().attrs() {
            if !name.starts_with("aria-") {
                continue;
            }
            if def.prohibited.contains(&name) {
                cx.fail(el, format!("`{name}` is prohibited on role `{role}`."));
            } else {
                cx.pass();
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
        RuleTester::new(&AriaProhibitedAttr)
            .pass(&[
                ("div", r##"<div aria-live=polite>x</div>"##),
                ("a", r##"<a href=x aria-label="Home">x</a>"##),
                ("div", r##"<div role=heading aria-level=2 aria-braillelabel="x">x</div>"##),
                ("section", r##"<section aria-label="News">x</section>"##),
            ])
            .inapplicable(&[
                r##"<div aria-label=x hidden></div>"##,
            ])
            .fail(&[
                ("div", r##"<div aria-label="x">x</div>"##),
                ("p", r##"<p aria-labelledby=h>x</p><h1 id=h>t</h1>"##),
                ("p", r##"<p aria-braillelabel="x">x</p>"##),
                ("div", r##"<div aria-roledescription="x">x</div>"##),
                ("h1", r##"<h1 role=none aria-brailleroledescription="x">x</h1>"##),
            ])
            .run();
    }
}
