//! `definition-list`: `<dl>` contains only `<dt>`/`<dd>` groups, `<div>` groups,
//! `<script>` and `<template>` (WCAG 1.3.1).

use scraper::ElementRef;

use crate::a11y::list::bad_child;
use crate::structure::{has_explicit_role, is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks the direct children of definition lists.
pub struct DefinitionList;

static META: RuleMeta = RuleMeta {
    id: "definition-list",
    category: Category::Accessibility,
    title: "Definition lists contain only terms and definitions",
    help: "Put only <dt>, <dd> (optionally grouped in <div>), <script> and <template> directly inside <dl>.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
A `<dl>` without an explicit role directly contains only `<dt>`, `<dd>`,
`<script>`, `<template>` and `<div>` elements (each `<div>` holding only `<dt>`,
`<dd>`, `<script>` and `<template>`), and no non-white-space text.

## Why it matters
Screen readers expose terms and their definitions as pairs. Other content inside
the list breaks the pairing.

## Failing
```html
<dl><dt>Coffee</dt><p>Black hot drink</p></dl>
```

## Passing
```html
<dl><dt>Coffee</dt><dd>Black hot drink</dd></dl>
```
"#,
    ..RuleMeta::BASE
};

fn term_or_definition(c: ElementRef<'_>) -> bool {
    matches!(c.value().name(), "dt" | "dd" | "script" | "template") && !has_explicit_role(c)
}

impl Rule for DefinitionList {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["dl"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || has_explicit_role(el) {
            return;
        }
        let allowed = |c: ElementRef<'_>| {
            term_or_definition(c)
                || (c.value().name() == "div"
                    && !has_explicit_role(c)
                    && bad_child(c, &term_or_definition).is_none())
        };
        match bad_child(el, &allowed) {
            Some(what) => {
                cx.fail(
                    el,
                    format!(
                        "The <dl> directly contains {what}, which is not a term or definition."
                    ),
                );
            }
            None => cx.pass(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&DefinitionList)
            .pass(&[
                ("dl", "<dl><dt>a</dt><dd>b</dd></dl>"),
                ("dl", "<dl><div><dt>a</dt><dd>b</dd></div><script></script></dl>"),
            ])
            .inapplicable(&[
                "<dl role=list><li>x</li></dl>",
            ])
            .fail(&[
                ("dl", "<dl><dt>a</dt><p>b</p></dl>"),
                ("dl", "<dl>loose text<dd>b</dd></dl>"),
                ("dl", "<dl><div><p>a</p></div></dl>"),
                ("dl", "<dl><dt role=button>a</dt></dl>"),
            ])
            .run();
    }
}
