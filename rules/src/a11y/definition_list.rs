//! `definition-list`: `<dl>` contains only `<dt>`/`<dd>` groups, `<div>` groups,
//! `<script>` and `<template>`, and every term has a description (WCAG 1.3.1).

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

Its terms and descriptions form groups, as HTML's content model of `<dl>` asks:
one or more `<dt>` followed by one or more `<dd>`, either directly in the `<dl>`
or one group in each `<div>`. A `<dt>` with no `<dd>` after it (the list or its
`<div>` ends, or another group's `<div>` follows) is a term without a
description, and a `<dd>` with no `<dt>` before it in the list or its `<div>` is
a description without a term: both fail. An empty `<dl>` is a valid list of no
groups.

## Why it matters
Screen readers expose terms and their definitions as pairs. Other content inside
the list breaks the pairing, and a term whose description is missing is
announced as the term of whatever description comes next, or of none.

## Failing
```html
<dl><dt>Coffee</dt><p>Black hot drink</p></dl>
<dl><dt>Coffee</dt><dd>Black hot drink</dd><dt>Milk</dt></dl>
<dl><div><dt>Coffee</dt></div></dl>
```

## Passing
```html
<dl><dt>Coffee</dt><dt>Kaffee</dt><dd>Black hot drink</dd><dd>Often with milk</dd></dl>
<dl><div><dt>Coffee</dt><dd>Black hot drink</dd></div></dl>
```

## Differences from axe-core
axe-core's `definition-list` only asks that a `<dl>` with terms or descriptions
has some `<dd>` after some `<dt>`, so it passes a list whose last terms, or whose
`<div>` groups, have no description. sitescan checks every group, since each
term left without a description is announced wrongly.
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
        if let Some(what) = bad_child(el, &allowed) {
            cx.fail(
                el,
                format!("The <dl> directly contains {what}, which is not a term or definition."),
            );
            return;
        }
        match broken_group(el) {
            Some(Broken::TermWithoutDescription) => {
                cx.fail(
                    el,
                    "The <dl> has a term (<dt>) with no description (<dd>) after it in its group.",
                );
            }
            Some(Broken::DescriptionWithoutTerm) => {
                cx.fail(
                    el,
                    "The <dl> has a description (<dd>) with no term (<dt>) before it in its group.",
                );
            }
            None => cx.pass(),
        }
    }
}

/// How a list's terms and descriptions fail to form groups.
#[derive(Debug, PartialEq)]
enum Broken {
    TermWithoutDescription,
    DescriptionWithoutTerm,
}

/// The first broken group of a `<dl>` whose children are already known to be
/// terms, descriptions, script-supporting elements and `<div>` groups: each
/// `<div>` holds its own group(s), and the `<dt>`/`<dd>` directly in the list
/// form groups between the `<div>`s.
fn broken_group(dl: ElementRef<'_>) -> Option<Broken> {
    groups(dl).err()
}

fn groups(dl: ElementRef<'_>) -> Result<(), Broken> {
    let mut run = GroupRun::default();
    for child in dl.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "div" => {
                // A `<div>` ends the loose group before it and holds its own.
                run.end()?;
                let mut inner = GroupRun::default();
                for c in child.children().filter_map(ElementRef::wrap) {
                    inner.push(c.value().name())?;
                }
                inner.end()?;
            }
            name => run.push(name)?,
        }
    }
    run.end()
}

/// One sequence of `<dt>`/`<dd>`: whether a term waits for its description,
/// and whether a term has been seen (a `<dd>` needs one before it).
#[derive(Default)]
struct GroupRun {
    open_term: bool,
    seen_term: bool,
}

impl GroupRun {
    /// One more child of the sequence (script-supporting elements change nothing).
    fn push(&mut self, name: &str) -> Result<(), Broken> {
        match name {
            "dt" => {
                self.open_term = true;
                self.seen_term = true;
            }
            "dd" if !self.seen_term => return Err(Broken::DescriptionWithoutTerm),
            "dd" => self.open_term = false,
            _ => {}
        }
        Ok(())
    }

    /// The sequence ends: a term still waiting has no description.
    fn end(&mut self) -> Result<(), Broken> {
        let open = self.open_term;
        *self = GroupRun::default();
        if open {
            Err(Broken::TermWithoutDescription)
        } else {
            Ok(())
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
                ("dl", "<dl></dl>"),
                ("dl", "<dl><dt>a</dt><dt>a2</dt><dd>b</dd><dd>b2</dd><dt>c</dt><dd>d</dd></dl>"),
                ("dl", "<dl><div><dt>a</dt><dd>b</dd></div><div><dt>c</dt><dd>d</dd></div></dl>"),
                ("dl", "<dl><dt>a</dt><script></script><dd>b</dd><template></template></dl>"),
            ])
            .inapplicable(&[
                "<dl role=list><li>x</li></dl>",
            ])
            .fail(&[
                ("dl", "<dl><dt>a</dt><p>b</p></dl>"),
                ("dl", "<dl>loose text<dd>b</dd></dl>"),
                ("dl", "<dl><div><p>a</p></div></dl>"),
                ("dl", "<dl><dt role=button>a</dt></dl>"),
                ("dl", "<dl><dt>a</dt></dl>"),
                ("dl", "<dl><dt>a</dt><dd>b</dd><dt>c</dt></dl>"),
                ("dl", "<dl><dd>b</dd></dl>"),
                ("dl", "<dl><dd>b</dd><dt>a</dt><dd>c</dd></dl>"),
                ("dl", "<dl><div><dt>a</dt></div></dl>"),
                ("dl", "<dl><div><dd>b</dd></div></dl>"),
                ("dl", "<dl><dt>a</dt><div><dt>c</dt><dd>d</dd></div></dl>"),
            ])
            .run();
    }
}
