//! `landmark-unique`: landmarks are distinguishable (best practice).

use crate::structure::{landmarks, page_is_html};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Landmarks are distinguishable.
pub struct LandmarkUnique;

static META: RuleMeta = RuleMeta {
    id: "landmark-unique",
    category: Category::Accessibility,
    title: "Landmarks are distinguishable",
    help: "Give landmarks of the same role different accessible names (aria-label or aria-labelledby).",
    help_url: "https://www.w3.org/WAI/ARIA/apg/practices/landmark-regions/",
    impact: Impact::Moderate,
    best_practice: true,
    docs: r#"## What it checks
No two exposed landmarks share both their role and their accessible name
(compared case-insensitively; an empty name counts as a name).

## Why it matters
Screen readers list landmarks by role and name. Two "navigation" entries with
the same name cannot be told apart.

## Failing
```html
<nav><a href="/">Home</a></nav><nav><a href="/help">Help</a></nav>
```

## Passing
```html
<nav aria-label="Main"><a href="/">Home</a></nav><nav aria-label="Footer"><a href="/help">Help</a></nav>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LandmarkUnique {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        if !page_is_html(cx) {
            return;
        }
        let page = cx.page();
        let found = landmarks(page);
        let keys: Vec<(&str, String)> = found
            .iter()
            .map(|(el, role)| (*role, page.accessible_name(*el).trim().to_lowercase()))
            .collect();
        for (i, (el, role)) in found.iter().enumerate() {
            if keys[..i].contains(&keys[i]) {
                cx.fail(
                    *el,
                    format!(
                        "Another {role} landmark has the same name \"{}\".",
                        keys[i].1
                    ),
                );
            } else {
                cx.pass_on(*el);
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
        RuleTester::new(&LandmarkUnique)
            .pass(&[("nav", r#"<nav aria-label=Main><a href=/>H</a></nav><nav aria-label=Footer><a href=/h>Help</a></nav>"#), ("nav", r#"<nav><a href=/>H</a></nav><main>x</main>"#)])
            .fail(&[("html > body > nav:nth-child(2)", r#"<nav><a href=/>H</a></nav><nav><a href=/h>Help</a></nav>"#), ("div", r#"<nav aria-label=Menu><a href=/>H</a></nav><div role=navigation aria-label=menu>x</div>"#)])
            .run();
    }
}
