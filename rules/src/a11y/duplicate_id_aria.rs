//! `duplicate-id-aria`: ids that ARIA and label relationships point to are unique
//! (WCAG 4.1.1).

use std::collections::BTreeSet;

use scraper::ElementRef;

use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Flags duplicated ids that are the target of an id reference.
pub struct DuplicateIdAria;

static META: RuleMeta = RuleMeta {
    id: "duplicate-id-aria",
    category: Category::Accessibility,
    title: "Ids used by ARIA and labels are unique",
    help: "Give each element referenced by aria-labelledby, aria-describedby, for, headers and the like a unique id.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/parsing.html",
    wcag: &["4.1.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    docs: r#"## What it checks
Every id referenced from an id-reference attribute (`aria-labelledby`,
`aria-describedby`, `aria-controls`, `aria-owns`, `aria-activedescendant`,
`aria-details`, `aria-errormessage`, `aria-flowto`, `label[for]`, `headers`,
`list`, `form`) belongs to at most one element.

## Why it matters
When an id occurs twice, browsers resolve the reference to the first element
only, so a field can get another field's label or a cell the wrong header.

## Failing
```html
<label for="email">Email</label><input id="email"><input id="email">
```

## Passing
```html
<label for="email">Email</label><input id="email"><input id="phone">
```
"#,
    ..RuleMeta::BASE
};

/// Attributes whose value is an id reference or a list of them.
const IDREF_ATTRS: &[&str] = &[
    "aria-labelledby",
    "aria-describedby",
    "aria-controls",
    "aria-owns",
    "aria-activedescendant",
    "aria-details",
    "aria-errormessage",
    "aria-flowto",
    "for",
    "headers",
    "list",
    "form",
];

impl Rule for DuplicateIdAria {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        let mut referenced: BTreeSet<&str> = BTreeSet::new();
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            // One pass over the element's attributes: looking each name up with
            // `attr()` interns it as an atom, a dozen times per element.
            for (name, v) in el.value().attrs() {
                if IDREF_ATTRS.contains(&name) {
                    referenced.extend(v.split_ascii_whitespace());
                }
            }
        }
        for id in referenced {
            let Some(nodes) = page.ids().get(id) else {
                continue;
            };
            if nodes.len() > 1 {
                for node in &nodes[1..] {
                    if let Some(el) = page.element(*node) {
                        cx.fail(
                            el,
                            format!("id=\"{id}\" is referenced by an ARIA or label attribute and used by {} elements.", nodes.len()),
                        );
                    }
                }
            } else if let Some(el) = nodes.first().and_then(|n| page.element(*n)) {
                cx.pass_on(el);
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
        RuleTester::new(&DuplicateIdAria)
            .pass(&[
                ("input", "<label for=a>A</label><input id=a><input id=b>"),
            ])
            .inapplicable(&[
                "<p id=x>1</p><p id=x>2</p>",
            ])
            .fail(&[
                ("html > body > input:nth-child(3)", "<label for=a>A</label><input id=a><input id=a>"),
                ("html > body > span:nth-child(3)", "<div aria-labelledby='t x'>d</div><span id=t>1</span><span id=t>2</span>"),
            ])
            .run();
    }
}
