//! `dom-size`: the DOM is not excessively large, deep or wide.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails documents over Lighthouse's DOM size thresholds.
pub struct DomSize;

/// Most elements (Lighthouse's `dom-size` fails above 1,400).
pub const MAX_ELEMENTS: usize = 1400;
/// Deepest element nesting (Lighthouse warns above 32).
pub const MAX_DEPTH: usize = 32;
/// Most child elements of one parent (Lighthouse warns above 60).
pub const MAX_CHILDREN: usize = 60;

static META: RuleMeta = RuleMeta {
    id: "dom-size",
    category: Category::Performance,
    title: "DOM is not excessively large",
    help: "Render fewer elements: paginate or virtualise long lists, flatten wrapper divs, load hidden content on demand.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/dom-size",
    impact: Impact::Moderate,
    docs: r#"## What it checks
In the parsed document: the number of elements is at most 1,400; no element is
nested more than 32 levels deep; no element has more than 60 child elements
(Lighthouse's `dom-size` thresholds). One finding per exceeded limit, with the
measured values in the data (and the deepest / widest element as selector).

## Why it matters
A large DOM costs memory, makes every style recalculation and layout slower, and
slows down scripts that query it.

## Failing
```html
<ul><li>1</li><li>2</li> … 200 items … </ul>
```

## Passing
```html
<ul><li>1</li> … 20 items … </ul>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for DomSize {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let root = pcx.root();
        let mut elements = 0usize;
        let mut deepest: Option<(usize, ElementRef<'_>)> = None;
        let mut widest: Option<(usize, ElementRef<'_>)> = None;
        // Iterative walk with explicit depth so very deep documents cannot overflow
        // the stack.
        let mut stack: Vec<(ElementRef<'_>, usize)> = vec![(root, 1)];
        while let Some((el, depth)) = stack.pop() {
            elements += 1;
            if deepest.is_none_or(|(d, _)| depth > d) {
                deepest = Some((depth, el));
            }
            let children: Vec<ElementRef<'_>> =
                el.children().filter_map(ElementRef::wrap).collect();
            if widest.is_none_or(|(w, _)| children.len() > w) {
                widest = Some((children.len(), el));
            }
            stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
        }
        let mut failed = false;
        if elements > MAX_ELEMENTS {
            failed = true;
            cx.fail_page(format!(
                "The page has {elements} elements (more than {MAX_ELEMENTS})."
            ))
            .with_data(serde_json::json!({"elements": elements, "max": MAX_ELEMENTS}));
        }
        if let Some((d, el)) = deepest.filter(|(d, _)| *d > MAX_DEPTH) {
            failed = true;
            cx.fail(
                el,
                format!("Elements are nested {d} levels deep (more than {MAX_DEPTH})."),
            )
            .with_data(serde_json::json!({"depth": d, "max": MAX_DEPTH}));
        }
        if let Some((w, el)) = widest.filter(|(w, _)| *w > MAX_CHILDREN) {
            failed = true;
            cx.fail(
                el,
                format!("An element has {w} child elements (more than {MAX_CHILDREN})."),
            )
            .with_data(serde_json::json!({"children": w, "max": MAX_CHILDREN}));
        }
        if !failed {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        let items = |n: usize| format!("<ul>{}</ul>", "<li>x</li>".repeat(n));
        let many = (0..30).map(|_| items(50)).collect::<String>();
        RuleTester::new(&DomSize)
            .pass(&[
                ("(page)", &items(60)),
                ("(page)", &format!("{}x{}", "<div>".repeat(25), "</div>".repeat(25))),
            ])
            .fail(&[
                ("ul", &items(61)),
                ("html > body > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div > div", &format!("{}x{}", "<div>".repeat(40), "</div>".repeat(40))),
                ("(page)", &many),
            ])
            .run();
    }
}
