//! `target-blank-noopener`: links opening new windows to other origins use `noopener`.

use scraper::ElementRef;

use crate::support::has_rel;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks `target=_blank` links to other origins for `rel=noopener`.
pub struct TargetBlankNoopener;

static META: RuleMeta = RuleMeta {
    id: "target-blank-noopener",
    category: Category::Security,
    title: "Links to other sites in new windows use rel=\"noopener\"",
    help: "Add `rel=\"noopener\"` (or `noreferrer`) to links with `target=\"_blank\"` that lead to other origins.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTML/Attributes/rel/noopener",
    impact: Impact::Minor,
    docs: r#"## What it checks
`<a>` and `<area>` elements with `target="_blank"` whose `href` is an absolute
`http(s)` URL on another origin than the page must have `noopener` or `noreferrer`
in `rel`. Current browsers imply `noopener` for `_blank`, so this is a best practice
for older browsers and for code that later sets `rel="opener"`.

## Why it matters
Without `noopener` the opened page gets `window.opener` and can navigate the
original tab to a phishing copy ("reverse tabnabbing").

## Failing
```html
<a href="https://other.example/" target="_blank">Partner</a>
```

## Passing
```html
<a href="https://other.example/" target="_blank" rel="noopener">Partner</a>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for TargetBlankNoopener {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a", "area"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let v = el.value();
        if !v
            .attr("target")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("_blank"))
        {
            return;
        }
        let page = cx.page().page();
        let Some(url) = v
            .attr("href")
            .and_then(|h| page.final_url.join(h.trim()).ok())
        else {
            return;
        };
        if !matches!(url.scheme(), "http" | "https") || url.origin() == page.final_url.origin() {
            return;
        }
        if has_rel(el, "noopener") || has_rel(el, "noreferrer") {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("The link opens {url} in a new window without rel=\"noopener\"."),
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
        RuleTester::new(&TargetBlankNoopener)
            .pass(&[
                ("a", r#"<a href="https://other.example/" target="_blank" rel="noopener">x</a>"#),
                ("a", r#"<a href="https://other.example/" target="_blank" rel="nofollow noreferrer">x</a>"#),
            ])
            .inapplicable(&[
                r#"<a href="/local" target="_blank">same origin</a>"#,
                r#"<a href="https://other.example/">same window</a>"#,
            ])
            .fail(&[
                ("a", r#"<a href="https://other.example/" target="_blank">x</a>"#),
                ("a", r#"<a href="//other.example/" target="_BLANK" rel="nofollow">x</a>"#),
            ])
            .run();
    }
}
