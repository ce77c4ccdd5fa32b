//! `summary-name`: a `<details>` disclosure's `<summary>` has an accessible name
//! (WCAG 4.1.2, ACT 2t702h).

use scraper::ElementRef;

use crate::structure::{is_html, is_html_tag, parent, role_tokens};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks the summary that opens and closes a `<details>` element.
pub struct SummaryName;

static META: RuleMeta = RuleMeta {
    id: "summary-name",
    category: Category::Accessibility,
    title: "Disclosure summaries have a name",
    help: "Give the <summary> of a <details> element text (or aria-label) saying what it reveals.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["2t702h"],
    docs: r#"## What it checks
The first `<summary>` child of each `<details>` element (the one browsers make
the toggle), when exposed to assistive technologies and without an explicit role
other than `none`/`presentation` (which a focusable summary ignores), has a
non-empty accessible name: its text, `aria-label` or `aria-labelledby`.

## Why it matters
The summary is a control. Without a name, screen readers announce an unlabelled
button and people cannot tell what it expands.

## Failing
```html
<details><summary></summary><p>We are open 24/7.</p></details>
```

## Passing
```html
<details><summary>Opening times</summary><p>We are open 24/7.</p></details>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for SummaryName {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["summary"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(details) = parent(el).filter(|p| is_html_tag(*p, "details")) else {
            return;
        };
        let first = details
            .children()
            .filter_map(ElementRef::wrap)
            .find(|c| is_html_tag(*c, "summary"));
        if first.map(|f| f.id()) != Some(el.id()) {
            return;
        }
        if role_tokens(el)
            .first()
            .is_some_and(|r| r != "none" && r != "presentation")
        {
            return;
        }
        let page = cx.page();
        if page.is_hidden(el) {
            return;
        }
        let name = page.accessible_name(el);
        let name = if name.trim().is_empty() {
            // Summaries take their name from their content even where the role
            // table has no entry for them.
            crate::dom::normalized_text(el)
        } else {
            name.to_string()
        };
        if name.trim().is_empty() {
            cx.fail(el, "This <summary> has no accessible name.");
        } else {
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
        RuleTester::new(&SummaryName)
            .pass(&[
                ("summary", "<details><summary>Opening times</summary><p>x</p></details>"),
                ("summary", "<details><summary aria-label='Opening times'></summary><p>x</p></details>"),
                ("summary", "<span id=t>Times</span><details><summary aria-labelledby=t></summary></details>"),
                ("summary", "<details><summary>Times</summary><summary></summary></details>"),
            ])
            .inapplicable(&[
                "<summary></summary>",
                "<details><div><summary></summary></div></details>",
                "<details><summary role=button>Hours</summary></details>",
                "<details style='display:none'><summary></summary></details>",
            ])
            .fail(&[
                ("summary", "<details><summary></summary><p>x</p></details>"),
                ("summary", "<details><summary role=none></summary><p>x</p></details>"),
                ("summary", "<details><summary></summary><summary>Times</summary></details>"),
            ])
            .run();
    }
}
