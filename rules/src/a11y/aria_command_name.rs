//! `aria-command-name`: elements with role `button`, `link` or `menuitem` have an accessible name (ACT 97a4e1, m6b1q3, c487ae).

use scraper::ElementRef;

use super::support::{has_explicit_role, not_exposed, require_name};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit `button`, `link` or `menuitem` role have a non-empty accessible name.
pub struct AriaCommandName;

static META: RuleMeta = RuleMeta {
    id: "aria-command-name",
    category: Category::Accessibility,
    title: "ARIA commands have an accessible name",
    help: "Give the element an accessible name: text content where the role allows it, aria-label or aria-labelledby.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["97a4e1", "m6b1q3", "c487ae"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose explicit role is `button`, `link` or `menuitem` has a non-empty accessible name.

## Why it matters
Assistive technology announces the role without a name, so people cannot tell what the control is for or what it shows.

## Failing
```html
<div role="button" tabindex="0"></div>
```

## Passing
```html
<div role="button" tabindex="0">Save</div>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for AriaCommandName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !has_explicit_role(el, cx, &["button", "link", "menuitem"]) || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This button, link or menuitem");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AriaCommandName)
            .pass(&[
                ("div", r##"<div role=button>Save</div>"##),
                ("span", r##"<span role=link aria-label="Home"></span>"##),
                ("li", r##"<ul role=menu><li role=menuitem>Open</li></ul>"##),
            ])
            .inapplicable(&[
                r##"<div role=button hidden></div>"##,
            ])
            .fail(&[
                ("span", r##"<span role=button></span>"##),
                ("div", r##"<div role=link tabindex=0></div>"##),
                ("li", r##"<ul role=menu><li role=menuitem></li></ul>"##),
            ])
            .run();
    }
}
