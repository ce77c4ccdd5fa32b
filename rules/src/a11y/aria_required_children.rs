//! `aria-required-children`: roles with required owned elements own only allowed roles (ACT bc4a75).

use scraper::ElementRef;

use crate::aria::roles::{is_a, role_def};
use crate::PageContext;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements whose role requires owned elements (lists, menus, tables, ...) own only elements with those roles.
pub struct AriaRequiredChildren;

static META: RuleMeta = RuleMeta {
    id: "aria-required-children",
    category: Category::Accessibility,
    title: "ARIA roles own their required children",
    help: "Give the owned elements the roles the container needs (e.g. listitem in a list), or mark wrappers role=\"none\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["bc4a75"],
    // A native list with stray children is `list`'s finding (the same problem,
    // told in HTML's terms); this rule keeps the ARIA-built containers.
    defers_to: &["list"],
    docs: r##"## What it checks
Each element included in the accessibility tree whose semantic role has required owned elements (`list` → `listitem`, `menu` → `menuitem`..., `table`/`grid` → `row`/`rowgroup`, `row` → cells, `tablist` → `tab`, `listbox` → `option`, ...) owns only elements with one of those roles (or a `group` that in turn owns them). Children with role `none`/`presentation` or no role are looked through; `aria-owns` adds owned elements. Elements with `aria-busy="true"` are skipped while they load.

## Why it matters
Assistive technology relies on the structure to announce "item 2 of 5", to navigate a menu or a grid; foreign children break that.

## Failing
```html
<div role="list"><span>Item 1</span></div>
```

## Passing
```html
<div role="list"><span role="listitem">Item 1</span></div>
```
"##,
    ..RuleMeta::BASE
};

/// The elements `el` owns in the accessibility tree: children (looking through
/// presentational and role-less wrappers, skipping hidden ones) plus `aria-owns`.
fn owned<'a>(cx: &'a PageContext<'_>, el: ElementRef<'a>) -> Vec<ElementRef<'a>> {
    let mut out = Vec::new();
    let mut stack: Vec<ElementRef<'a>> = el.children().filter_map(ElementRef::wrap).collect();
    stack.reverse();
    while let Some(c) = stack.pop() {
        if cx.is_hidden(c) {
            continue;
        }
        match cx.role(c) {
            None | Some("none" | "presentation") => {
                let mut kids: Vec<ElementRef<'a>> =
                    c.children().filter_map(ElementRef::wrap).collect();
                kids.reverse();
                stack.extend(kids);
            }
            Some(_) => out.push(c),
        }
    }
    if let Some(ids) = crate::dom::attr(el, "aria-owns") {
        for id in ids.split_ascii_whitespace() {
            if let Some(o) = cx.element_by_id(id) {
                if !cx.is_hidden(o) && o.id() != el.id() {
                    out.push(o);
                }
            }
        }
    }
    out
}

/// Roles allowed as owned elements besides the required ones.
fn also_allowed(role: &str) -> &'static [&'static str] {
    match role {
        "table" | "grid" | "treegrid" => &["caption"],
        "menu" | "menubar" => &["separator"],
        "listbox" => &["separator"],
        _ => &[],
    }
}

/// The first owned element (looking into allowed groups) whose role is not allowed.
fn first_foreign<'a>(
    cx: &'a PageContext<'_>,
    el: ElementRef<'a>,
    required: &[&str],
    extra: &[&str],
) -> Option<(ElementRef<'a>, Option<&'static str>)> {
    // Groups nested deeper than this are not looked into.
    const MAX_GROUP_DEPTH: usize = 8;
    // An explicit stack of the owned elements left to look at, per group level.
    let mut stack = vec![(owned(cx, el).into_iter(), 0usize)];
    while let Some((rest, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(o) = rest.next() else {
            stack.pop();
            continue;
        };
        let role = cx.role(o);
        let Some(r) = role else {
            return Some((o, None));
        };
        let ok = required.iter().any(|q| is_a(r, q)) || extra.contains(&r);
        if !ok {
            return Some((o, role));
        }
        if r == "group" && depth < MAX_GROUP_DEPTH {
            stack.push((owned(cx, o).into_iter(), depth + 1));
        }
    }
    None
}

impl Rule for AriaRequiredChildren {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let Some(role) = page.role(el) else {
            return;
        };
        let Some(def) = role_def(role) else {
            return;
        };
        if def.required_owned.is_empty() || page.is_hidden(el) {
            return;
        }
        if crate::dom::attr(el, "aria-busy").is_some_and(|v| v.trim() == "true") {
            return;
        }
        match first_foreign(page, el, def.required_owned, also_allowed(role)) {
            None => cx.pass(),
            Some((child, child_role)) => {
                let what =
                    child_role.map_or_else(|| "no role".to_string(), |r| format!("role `{r}`"));
                cx.fail(
                    el,
                    format!(
                        "Role `{role}` may own only {}, but owns a <{}> with {what}.",
                        def.required_owned.join(", "),
                        child.value().name()
                    ),
                );
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
        RuleTester::new(&AriaRequiredChildren)
            .pass(&[
                ("div", r##"<div role=list><span role=listitem>a</span></div>"##),
                ("ul", r##"<ul><li>a</li></ul>"##),
                ("table", r##"<table><tr><td>a</td></tr></table>"##),
                ("div", r##"<div role=menu><div role=none></div><div role=menuitem>a</div></div>"##),
                ("ul", r##"<ul role=tablist><li role=none><span role=tab>a</span></li></ul>"##),
                ("div", r##"<div role=list aria-owns=i></div><div id=i role=listitem>a</div>"##),
                ("div", r##"<div role=menu><div role=group><span role=menuitem>a</span></div></div>"##),
                ("select", r##"<select multiple><option>a</option></select>"##),
                ("table", r##"<table><caption>t</caption><tr><td>a</td></tr></table>"##),
                ("ul", r##"<ul></ul>"##),
            ])
            .inapplicable(&[
                r##"<ul role=menu aria-busy=true>Loading</ul>"##,
            ])
            .fail(&[
                ("div", r##"<div role=list><span>a</span></div>"##),
                ("ol", r##"<ol role=tablist><li role=listitem>a</li></ol>"##),
                ("html > body > div > div", r##"<div role=grid><div role=row><span>a</span></div></div>"##),
                ("div", r##"<div role=menu><div role=group><span role=treeitem>a</span></div></div>"##),
                ("ul", r##"<ul><div></div></ul>"##),
                ("div", r##"<div role=list><div role=group><span role=listitem>a</span></div></div>"##),
            ])
            .run();
    }
}
