//! `label-content-name-mismatch`: a widget's visible text is part of its accessible name (ACT 2ee8b8).

use scraper::ElementRef;

use crate::aria::roles::{is_widget, role_def, NameFrom};
use crate::PageContext;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that widgets named by `aria-label` / `aria-labelledby` include their visible text in the name.
pub struct LabelContentNameMismatch;

static META: RuleMeta = RuleMeta {
    id: "label-content-name-mismatch",
    category: Category::Accessibility,
    title: "Visible label is part of the accessible name",
    help: "Start the aria-label with the visible text (or drop aria-label and let the text name the control).",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/label-in-name.html",
    wcag: &["2.5.3"],
    level: Some(Level::A),
    impact: Impact::Serious,
    act: &["2ee8b8"],
    docs: r##"## What it checks
Each element included in the accessibility tree with a widget role that takes its name from content (`button`, `link`, `checkbox`, `menuitem`, `tab`, ...), with visible text content and an `aria-label` or `aria-labelledby`, has an accessible name that contains the visible text (case-insensitive, punctuation and white space folded).

## Why it matters
Voice control users say what they see ("click Send"); if the name differs, the command does not work.

## Failing
```html
<button aria-label="Submit form">Send</button>
```

## Passing
```html
<button aria-label="Send the form">Send</button>
```
"##,
    ..RuleMeta::BASE
};

/// Lowercase words of `s`, punctuation and symbols folded to spaces.
fn words(s: &str) -> String {
    let folded: String = s
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text of `el` a sighted user sees: text nodes of visible, rendered elements.
fn visible_text(cx: &PageContext<'_>, el: ElementRef<'_>) -> String {
    let mut out = String::new();
    for node in el.descendants() {
        if let Some(text) = node.value().as_text() {
            let parent_visible = node
                .parent()
                .and_then(ElementRef::wrap)
                .is_some_and(|p| cx.is_visible(p));
            if parent_visible {
                out.push_str(text);
                out.push(' ');
            }
        }
    }
    out
}

impl Rule for LabelContentNameMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let labelled = ["aria-label", "aria-labelledby"]
            .iter()
            .any(|a| el.value().attr(a).is_some_and(|v| !v.trim().is_empty()));
        if !labelled {
            return;
        }
        let page = cx.page();
        let Some(role) = page.role(el) else {
            return;
        };
        let from_content = role_def(role).is_some_and(|r| r.name_from == NameFrom::Content);
        if !is_widget(role) || !from_content || page.is_hidden(el) {
            return;
        }
        let text = words(&visible_text(page, el));
        if text.is_empty() {
            return;
        }
        let name = words(&page.accessible_name(el));
        if format!(" {name} ").contains(&format!(" {text} ")) {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!(
                    "The accessible name \"{name}\" does not contain the visible text \"{text}\"."
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
        RuleTester::new(&LabelContentNameMismatch)
            .pass(&[
                r##"<button aria-label="Send the form">Send</button>"##,
                r##"<a href=x aria-label="Next page">next page</a>"##,
                r##"<button>Send</button>"##,
                r##"<div role=link tabindex=0 aria-label="ACT rules page">ACT rules</div>"##,
                r##"<button aria-label="Search">Search…</button>"##,
            ])
            .fail(&[
                r##"<button aria-label="Submit form">Send</button>"##,
                r##"<a href=x aria-label="Home">Start</a>"##,
                r##"<div role=button aria-label="Dismiss">Close</div>"##,
            ])
            .run();
    }
}
