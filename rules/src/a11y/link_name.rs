//! `link-name`: links have an accessible name (ACT c487ae).

use scraper::ElementRef;

use super::support::{not_exposed, require_name};
use crate::aria::html::is_html;
use crate::aria::roles::is_a;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that `a` elements with an `href` (role `link`) have a non-empty accessible name.
pub struct LinkName;

static META: RuleMeta = RuleMeta {
    id: "link-name",
    category: Category::Accessibility,
    title: "Links have discernible text",
    help: "Put text inside the link, give an image inside it alt text, or add an aria-label.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/link-purpose-in-context.html",
    wcag: &["2.4.4", "4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["c487ae"],
    docs: r##"## What it checks
Each HTML `a` element whose role is `link` and that is included in the accessibility tree has a non-empty accessible name.

## Why it matters
Screen reader users navigate by a list of links; a nameless link is announced by its URL or not at all.

## Failing
```html
<a href="/cart"><img src="cart.png"></a>
```

## Passing
```html
<a href="/cart"><img src="cart.png" alt="Shopping cart"></a>
```
"##,
    ..RuleMeta::BASE
};

impl Rule for LinkName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let is_link = cx.page().role(el).is_some_and(|r| is_a(r, "link"));
        if !is_html(el) || !is_link || not_exposed(el, cx) {
            return;
        }
        require_name(el, cx, "This link");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LinkName)
            .pass(&[
                ("a", r##"<a href=/a>Home</a>"##),
                ("a", r##"<a href=/a aria-label="Home"></a>"##),
                ("a", r##"<a href=/a><img src=a.png alt="Home"></a>"##),
                ("a", r##"<a href=/a title="Home"></a>"##),
                ("a", r##"<a href=/a role=doc-biblioref>[1]</a>"##),
            ])
            .inapplicable(&[
                r##"<a>no href</a>"##,
                r##"<a href=/a aria-hidden=true tabindex=-1></a>"##,
            ])
            .fail(&[
                ("a", r##"<a href=/a></a>"##),
                ("a", r##"<a href=/a><img src=a.png></a>"##),
                ("a", r##"<a href=/a><span hidden>Home</span></a>"##),
                ("a", r##"<a href=/a> &nbsp; </a>"##),
                ("a", r##"<a href=/a role=doc-biblioref><img src=a.png alt=""></a>"##),
            ])
            .run();
    }
}
