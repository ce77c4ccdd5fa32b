//! `label-descriptive`: visible labels of form fields describe their purpose
//! (WCAG 2.4.6, ACT cc0f0a); always a review item.

use scraper::ElementRef;

use crate::aria::html::{input_type, is_html};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Asks a person to judge whether each visible label says what its field is for.
pub struct LabelDescriptive;

static META: RuleMeta = RuleMeta {
    id: "label-descriptive",
    category: Category::Accessibility,
    title: "Form field labels describe their purpose",
    help: "Write labels that say what to enter (\"Billing street\", not \"Info\"), unique on the page or set apart by a visible heading or group.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/headings-and-labels.html",
    wcag: &["2.4.6"],
    level: Some(Level::AA),
    impact: Impact::Moderate,
    act: &["cc0f0a"],
    docs: r#"## What it checks
Every visible form field (an element whose role is `textbox`, `searchbox`,
`combobox`, `listbox`, `checkbox`, `radio`, `slider`, `spinbutton` or `switch`,
or a date, time, color or file `<input>`)
with a visible programmatic label: a `<label>` for it or around it, or an
element its `aria-labelledby` names. Whether the label describes the field's
purpose in its visual context is a matter of reading it, so each such field is
reported for review (*cannot tell*). Fields without a visible label are left
to the `label` rule.

## Why it matters
Vague labels ("Info", "Menu", the same "Name" twice without a visible group)
leave people guessing what to type, and speech and screen reader users cannot
tell the fields apart.

## Failing
```html
<label>Info <input type="date" name="dob"></label>
```
(reported for review: "Info" does not say that a date of birth is asked)

## Passing
```html
<p>A page without form fields.</p>
```
"#,
    manual_review: true,
    ..RuleMeta::BASE
};

/// Roles of the form fields whose labels this rule reviews.
const FIELD_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "checkbox",
    "radio",
    "slider",
    "spinbutton",
    "switch",
];

impl Rule for LabelDescriptive {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        // Date, time, color and file inputs have no ARIA role but are fields.
        let roleless_input = is_html(el)
            && el.value().name() == "input"
            && page.role(el).is_none()
            && matches!(
                input_type(el).as_str(),
                "date" | "datetime-local" | "month" | "week" | "time" | "color" | "file"
            );
        let field = roleless_input || page.role(el).is_some_and(|r| FIELD_ROLES.contains(&r));
        if !field || !page.is_visible(el) {
            return;
        }
        let mut labels: Vec<ElementRef<'_>> = if is_html(el) {
            page.labels(el)
        } else {
            Vec::new()
        };
        if let Some(ids) = el.value().attr("aria-labelledby") {
            labels.extend(
                ids.split_ascii_whitespace()
                    .filter_map(|id| page.element_by_id(id)),
            );
        }
        let visible_label = labels
            .iter()
            .any(|l| page.is_visible(*l) && l.text().any(|t| !t.trim().is_empty()));
        if visible_label {
            cx.cant_tell(
                el,
                "Check that the visible label of this field says what it is for.",
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
        RuleTester::new(&LabelDescriptive)
            .inapplicable(&[
                "<p>No fields</p>",
                "<label for=x>First name</label><p id=x></p>",
                "<label for=f style='position:absolute;left:-9999px'>First name</label><input id=f>",
                "<label>First name <input style='position:absolute;top:-9999px' role=none disabled></label>",
                "<input aria-label='First name'>",
                "<button>Go</button>",
            ])
            .cant_tell(&[
                ("input", "<label>Menu <input name=f></label>"),
                ("input", "<label for=f>First name</label><input id=f>"),
                ("input", "<p id=l aria-hidden=true>First name</p><input aria-labelledby=l>"),
                ("input", "<span id=s style='display:none'>Search</span><input aria-labelledby='b s'><button id=b>Go</button>"),
                ("input", "<label>Info <input type=date></label>"),
            ])
            .run();
    }
}
