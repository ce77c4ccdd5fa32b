//! `list`: `<ul>`, `<ol>` and `<menu>` contain only `<li>`, `<script>` and
//! `<template>` children (WCAG 1.3.1).

use scraper::{ElementRef, Node};

use crate::structure::{has_explicit_role, is_html, role_tokens};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks the direct children of lists.
pub struct List;

static META: RuleMeta = RuleMeta {
    id: "list",
    category: Category::Accessibility,
    title: "Lists contain only list items",
    help: "Put only <li> elements (and <script> or <template>) directly inside <ul>, <ol> and <menu>; wrap other content in an <li>.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
A `<ul>`, `<ol>` or `<menu>` (HTML's toolbar list, exposed as a list) that keeps
its list role has no direct child other than `<li>`
(without a role other than `listitem`), `<script>` and `<template>`, and no
non-white-space text directly inside it.

## Why it matters
Screen readers announce a list with its item count and let people jump between
items. Content placed directly in the list breaks that structure: it is read
outside any item or makes the count wrong.

## Failing
```html
<ul><li>Apples</li><p>Pears</p></ul>
```

## Passing
```html
<ul><li>Apples</li><li>Pears</li></ul>
```

## Differences from axe-core
axe-core checks `<ul>` and `<ol>` only. HTML gives `<menu>` the same content
model (list items and script-supporting elements) and browsers expose it as a
list, so its stray children break the item count in the same way; sitescan
checks it too.
"#,
    ..RuleMeta::BASE
};

/// The first disallowed child of a list container, described for a message.
pub(crate) fn bad_child(
    list: ElementRef<'_>,
    allowed: &dyn Fn(ElementRef<'_>) -> bool,
) -> Option<String> {
    for child in list.children() {
        match child.value() {
            Node::Text(t) if !t.trim().is_empty() => {
                return Some(format!(
                    "text \"{}\"",
                    crate::dom::truncate_chars(t.trim(), 40)
                ));
            }
            Node::Element(_) => {
                if let Some(el) = ElementRef::wrap(child) {
                    if !allowed(el) {
                        return Some(format!("<{}>", el.value().name()));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn keeps_role(el: ElementRef<'_>, role: &str) -> bool {
    !has_explicit_role(el) || role_tokens(el).first().is_some_and(|r| r == role)
}

impl Rule for List {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["ul", "ol", "menu"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || !keeps_role(el, "list") {
            return;
        }
        let allowed = |c: ElementRef<'_>| match c.value().name() {
            "li" => keeps_role(c, "listitem"),
            "script" | "template" => true,
            _ => false,
        };
        match bad_child(el, &allowed) {
            Some(what) => {
                cx.fail(
                    el,
                    format!(
                        "The <{}> list directly contains {what}, which is not a list item.",
                        el.value().name()
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
        RuleTester::new(&List)
            .pass(&[
                ("ul", "<ul><li>a</li> <li>b</li><script></script><template></template></ul>"),
                ("ol", "<ol><li role=listitem>a</li></ol>"),
                ("ul", "<ul></ul>"),
                ("menu", "<menu><li><button>Copy</button></li></menu>"),
            ])
            .inapplicable(&[
                "<ul role=tablist><div role=tab>x</div></ul>",
            ])
            .fail(&[
                ("ul", "<ul><li>a</li><p>b</p></ul>"),
                ("ol", "<ol>text<li>a</li></ol>"),
                ("ul", "<ul><li role=tab>a</li></ul>"),
                ("menu", "<menu><button>Copy</button></menu>"),
            ])
            .run();
    }
}
