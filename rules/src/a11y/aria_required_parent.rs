//! `aria-required-parent`: roles with a required context role are inside it (ACT ff89c9).

use scraper::ElementRef;

use crate::aria::html::implicit_role;
use crate::aria::roles::{is_a, role_def};
use crate::aria::tree::{explicit_role, has_global_aria};
use crate::PageContext;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that elements with an explicit role that needs a context role (listitem, tab, option, row, ...) are owned by it.
pub struct AriaRequiredParent;

static META: RuleMeta = RuleMeta {
    id: "aria-required-parent",
    category: Category::Accessibility,
    title: "ARIA roles are contained by their required parent",
    help: "Put the element inside (or aria-owns it from) an element with the required role, e.g. a listitem in a list.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["ff89c9"],
    docs: r##"## What it checks
Each element included in the accessibility tree with an explicit role (different from its implicit role) that has a required context role is a child, in the accessibility tree, of an element with one of those roles. Presentational and role-less wrappers and plain `div`/`span` elements are looked through; `aria-owns` makes the owner the parent.

## Why it matters
A tab outside a tablist or a list item outside a list is announced without its set, so "tab 2 of 4" and list navigation break.

## Failing
```html
<div role="listitem">Item</div>
```

## Passing
```html
<div role="list"><div role="listitem">Item</div></div>
```
"##,
    ..RuleMeta::BASE
};

/// The accessibility parent: the `aria-owns` owner, else the nearest ancestor that is
/// exposed (not presentational, not a plain generic wrapper).
fn context_parent<'a>(cx: &'a PageContext<'_>, el: ElementRef<'a>) -> Option<ElementRef<'a>> {
    if let Some(id) = el.value().id() {
        let owner = cx.referrers("aria-owns", id).into_iter().next();
        if owner.is_some() {
            return owner;
        }
    }
    for a in el.ancestors().filter_map(ElementRef::wrap) {
        match cx.role(a) {
            None | Some("none" | "presentation") => continue,
            Some("generic") if !has_global_aria(a) && !cx.is_focusable(a) => continue,
            Some(_) => return Some(a),
        }
    }
    None
}

impl Rule for AriaRequiredParent {
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
        let page = cx.page();
        if page.role(el) != Some(role) || implicit_role(el) == Some(role) || page.is_hidden(el) {
            return;
        }
        let Some(def) = role_def(role) else {
            return;
        };
        if def.required_context.is_empty() {
            return;
        }
        let parent_role = context_parent(page, el).and_then(|p| page.role(p));
        let ok = parent_role.is_some_and(|p| def.required_context.iter().any(|c| is_a(p, c)));
        if ok {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!(
                    "Role `{role}` must be owned by {}; its parent is {}.",
                    def.required_context.join(" or "),
                    parent_role.map_or_else(|| "none".to_string(), |p| format!("`{p}`"))
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
        RuleTester::new(&AriaRequiredParent)
            .pass(&[
                ("html > body > div > div", r##"<div role=list><div role=listitem>a</div></div>"##),
                ("div", r##"<ul><div role=listitem>a</div></ul>"##),
                ("html > body > div > div > div", r##"<div role=list><div role=presentation><div role=listitem>a</div></div></div>"##),
                ("#i1", r##"<div role=list aria-owns="i1"></div><div id=i1 role=listitem>a</div>"##),
                ("span", r##"<div role=tablist><div><span role=tab>a</span></div></div>"##),
            ])
            .inapplicable(&[
                r##"<ul><li role=listitem>a</li></ul>"##,
                r##"<div role=listitem style="display:none">a</div>"##,
            ])
            .fail(&[
                ("div", r##"<div role=listitem>a</div>"##),
                ("html > body > div > div > div", r##"<div role=list><div role=tabpanel><div role=listitem>a</div></div></div>"##),
                ("html > body > div > div > div", r##"<div role=list><div aria-live=polite><div role=listitem>a</div></div></div>"##),
                ("span", r##"<span role=tab>a</span>"##),
            ])
            .run();
    }
}
