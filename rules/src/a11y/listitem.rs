//! `listitem`: `<li>` elements are inside a list (WCAG 1.3.1).

use scraper::ElementRef;

use crate::structure::{has_explicit_role, is_html, parent, role_tokens};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that each `<li>` has a `<ul>`, `<ol>` or `<menu>` (or `role=list`) parent.
pub struct Listitem;

static META: RuleMeta = RuleMeta {
    id: "listitem",
    category: Category::Accessibility,
    title: "List items are inside a list",
    help: "Put <li> elements directly inside a <ul>, <ol> or <menu>.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
Every `<li>` without an explicit role has as parent a `<ul>`, `<ol>` or `<menu>`
that keeps its list role, or an element with `role="list"`. An `<li>` whose
`<ul>`, `<ol>` or `<menu>` has role `none` or `presentation` is not checked: it
becomes presentational with its list (ARIA's presentational role inheritance), so
no list item is announced.

## Why it matters
A list item outside a list is not announced as part of a list, so people using a
screen reader miss the grouping and the item count.

## Failing
```html
<div><li>Apples</li><li>Pears</li></div>
```

## Passing
```html
<ul><li>Apples</li><li>Pears</li></ul>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Listitem {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["li"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || has_explicit_role(el) {
            return;
        }
        let Some(p) = parent(el) else {
            return;
        };
        let explicit = role_tokens(p);
        // A list whose role is none/presentation passes that role on to its
        // items (ARIA's presentational role inheritance): nothing is announced
        // as a list item, so there is no broken list to report.
        if matches!(p.value().name(), "ul" | "ol" | "menu")
            && is_html(p)
            && explicit
                .first()
                .is_some_and(|r| r == "none" || r == "presentation")
        {
            return;
        }
        let ok = match explicit.first() {
            Some(role) => role == "list" || role == "directory",
            None => matches!(p.value().name(), "ul" | "ol" | "menu") && is_html(p),
        };
        if ok {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("This <li> is inside a <{}>, not a list.", p.value().name()),
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
        RuleTester::new(&Listitem)
            .pass(&[
                ("li", "<ul><li>a</li></ul>"),
                ("li", "<menu><li>a</li></menu>"),
                ("li", "<div role=list><li>a</li></div>"),
            ])
            .inapplicable(&[
                "<div><li role=tab>a</li></div>",
                "<ul role=none><li>a</li></ul>",
                "<ol role=presentation><li>a</li></ol>",
            ])
            .fail(&[
                ("li", "<div><li>a</li></div>"),
                ("li", "<ul role=navigation><li>a</li></ul>"),
            ])
            .run();
    }
}
