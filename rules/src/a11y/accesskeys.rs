//! `accesskeys`: `accesskey` values are unique (best practice).

use std::collections::HashMap;

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Flags `accesskey` values used by more than one element.
pub struct Accesskeys;

static META: RuleMeta = RuleMeta {
    id: "accesskeys",
    category: Category::Accessibility,
    title: "Access keys are unique",
    help: "Give every accesskey a different key, or remove the duplicates.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/html/H91",
    impact: Impact::Serious,
    best_practice: true,
    docs: r#"## What it checks
No two elements share an `accesskey` value (compared case-insensitively after
trimming white space). A shared key is one finding, on the first element that
uses it, with the number of others in the message.

## Why it matters
When two elements share a key, the shortcut reaches only one of them (which one
depends on the browser), so keyboard users lose access to the other.

## Failing
```html
<a href="/" accesskey="h">Home</a> <a href="/help" accesskey="H">Help</a>
```

## Passing
```html
<a href="/" accesskey="h">Home</a> <a href="/help" accesskey="?">Help</a>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Accesskeys {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        // Per key: how many elements use it, and the first of them.
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut elements = Vec::new();
        for el in page.root().descendants().filter_map(ElementRef::wrap) {
            if let Some(key) = crate::dom::plain_attr(el, "accesskey") {
                let key = key.trim().to_lowercase();
                if key.is_empty() {
                    continue;
                }
                let n = seen.entry(key.clone()).or_default();
                *n += 1;
                if *n == 1 {
                    elements.push((el, key));
                }
            }
        }
        // One finding per shared key, on its first element: the problem is the
        // key, fixed once, however many elements share it.
        for (el, key) in elements {
            match seen.get(&key).copied().unwrap_or(0) {
                0 | 1 => cx.pass_on(el),
                n => {
                    let others = n - 1;
                    let plural = if others == 1 { "" } else { "s" };
                    cx.fail(
                        el,
                        format!(
                            "accesskey=\"{key}\" is also used by {others} other element{plural}."
                        ),
                    );
                }
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
        RuleTester::new(&Accesskeys)
            .pass(&[("a", "<a href=/ accesskey=h>Home</a><a href=/x accesskey=x>X</a>")])
            .fail(&[
                ("a", "<a href=/ accesskey=h>Home</a><a href=/x accesskey=' H'>X</a>"),
                ("a", "<a href=/ accesskey=h>Home</a><a href=/x accesskey=H>X</a><b accesskey=h>Y</b>"),
            ])
            .run();
    }
}
