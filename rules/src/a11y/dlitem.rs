//! `dlitem`: `<dt>` and `<dd>` are inside a `<dl>` (WCAG 1.3.1).

use scraper::ElementRef;

use crate::structure::{has_explicit_role, is_html, is_html_tag, parent};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that terms and definitions have a `<dl>` parent (or a `<div>` in a `<dl>`).
pub struct Dlitem;

static META: RuleMeta = RuleMeta {
    id: "dlitem",
    category: Category::Accessibility,
    title: "Terms and definitions are inside a definition list",
    help: "Put <dt> and <dd> directly inside a <dl> (or a <div> directly inside a <dl>).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/info-and-relationships.html",
    wcag: &["1.3.1"],
    level: Some(Level::A),
    impact: Impact::Serious,
    docs: r#"## What it checks
Every `<dt>` and `<dd>` without an explicit role has a `<dl>` parent, or a
`<div>` parent whose own parent is a `<dl>`; the `<dl>` has no explicit role.

## Why it matters
Outside a definition list, terms and definitions lose their pairing for
assistive technologies.

## Failing
```html
<div><dt>Coffee</dt><dd>Black hot drink</dd></div>
```

## Passing
```html
<dl><dt>Coffee</dt><dd>Black hot drink</dd></dl>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Dlitem {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["dt", "dd"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || has_explicit_role(el) {
            return;
        }
        let is_dl = |e: ElementRef<'_>| is_html_tag(e, "dl") && !has_explicit_role(e);
        let ok = match parent(el) {
            Some(p) if is_dl(p) => true,
            Some(p) if is_html_tag(p, "div") && !has_explicit_role(p) => {
                parent(p).is_some_and(is_dl)
            }
            _ => false,
        };
        if ok {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("This <{}> is not inside a <dl>.", el.value().name()),
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
        RuleTester::new(&Dlitem)
            .pass(&[
                ("dt", "<dl><dt>a</dt><dd>b</dd></dl>"),
                ("dt", "<dl><div><dt>a</dt><dd>b</dd></div></dl>"),
            ])
            .fail(&[
                ("dt", "<div><dt>a</dt></div>"),
                ("dd", "<dl role=list><dd>b</dd></dl>"),
                ("dd", "<section><div><dd>b</dd></div></section>"),
            ])
            .run();
    }
}
