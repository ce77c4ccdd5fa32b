//! `aria-allowed-attr`: ARIA states and properties are supported by the element's role (ACT 5c01ea).

use scraper::ElementRef;

use crate::aria::attrs::attr_def;
use crate::aria::html::{input_type, is_html};
use crate::aria::roles::{is_a, supports};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that each non-global WAI-ARIA attribute is supported or required by the element's semantic role.
pub struct AriaAllowedAttr;

static META: RuleMeta = RuleMeta {
    id: "aria-allowed-attr",
    category: Category::Accessibility,
    title: "ARIA attributes are allowed for the role",
    help: "Remove the attribute, or give the element a role that supports it.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/name-role-value.html",
    wcag: &["4.1.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["5c01ea"],
    docs: r##"## What it checks
Each WAI-ARIA state or property on an element included in the accessibility tree is global, or supported, inherited or required by the element's semantic role. Elements without a role (e.g. `input type=password`, `audio`) may carry the attributes ARIA in HTML allows for them.

`aria-expanded` on a role that had it in ARIA 1.1 and has it only deprecated in
ARIA 1.2 (landmarks such as `navigation` and `region`, `dialog`, `img`, `article`,
and the other roles under section, section head, window and document, except
those ARIA 1.2 added, such as `paragraph` and `generic`) is not reported:
browsers still expose it there and screen readers announce it as the author
meant.

## Why it matters
Assistive technology ignores states a role cannot have, so `aria-checked` on a link or `aria-sort` on a button conveys nothing.

## Failing
```html
<button aria-sort="ascending">Sort by year</button>
```

## Passing
```html
<button aria-pressed="false">Bold</button>
<nav aria-label="Site" aria-expanded="false">...</nav>
```

## Differences from axe-core
None known on purpose. Like axe-core, sitescan accepts `aria-expanded` where
ARIA 1.2 deprecates it rather than prohibits it, and reports it on roles that
never had it (`<p aria-expanded="true">`).
"##,
    ..RuleMeta::BASE
};

/// Roles ARIA 1.2 added, which never had the attributes ARIA 1.1 let every
/// section, section head, window and document role inherit.
const NEW_IN_ARIA_1_2: &[&str] = &[
    "blockquote",
    "caption",
    "code",
    "deletion",
    "emphasis",
    "generic",
    "insertion",
    "meter",
    "paragraph",
    "strong",
    "subscript",
    "superscript",
    "time",
];

/// Whether `attr` is one ARIA 1.2 deprecates on `role` rather than prohibits:
/// `aria-expanded`, which ARIA 1.1 gave to every role under section, section
/// head, window and document (landmarks, dialogs, images, ...). Browsers still
/// expose it there and screen readers announce it, so what the author wrote
/// is what users get: not a failure.
fn deprecated_on_role(role: &str, attr: &str) -> bool {
    attr == "aria-expanded"
        && !NEW_IN_ARIA_1_2.contains(&role)
        && ["section", "sectionhead", "window", "document"]
            .iter()
            .any(|a| is_a(role, a))
}

/// The role whose attributes an element without a semantic role may use (ARIA in
/// HTML: text-like inputs that map to no role accept textbox attributes).
fn fallback_role(el: ElementRef<'_>) -> Option<&'static str> {
    if !is_html(el) || el.value().name() != "input" {
        return None;
    }
    match input_type(el).as_str() {
        "password" | "date" | "datetime-local" | "month" | "time" | "week" | "email" | "tel"
        | "text" | "url" | "search" | "color" | "file" => Some("textbox"),
        _ => None,
    }
}

impl Rule for AriaAllowedAttr {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let page = cx.page();
        if page.is_hidden(el) {
            return;
        }
        let role = page.role(el).or_else(|| fallback_role(el));
        for (name, _) in el.value().attrs() {
            let Some(def) = attr_def(name) else {
                continue;
            };
            if def.global {
                cx.pass();
                continue;
            }
            let allowed = role.is_some_and(|r| {
                supports(r, name)
                    || deprecated_on_role(r, name)
                    // A focusable separator is a widget with a value.
                    || (r == "separator" && name.starts_with("aria-value"))
            });
            if allowed {
                cx.pass();
            } else {
                let what = role.map_or_else(
                    || "an element without a role".to_string(),
                    |r| format!("role `{r}`"),
                );
                cx.fail(el, format!("`{name}` is not allowed on {what}."));
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
        RuleTester::new(&AriaAllowedAttr)
            .pass(&[
                ("button", r##"<button aria-pressed=false>x</button>"##),
                ("div", r##"<div role=button aria-pressed=true>x</div>"##),
                ("div", r##"<div aria-busy=true>x</div>"##),
                ("div", r##"<div role=checkbox aria-checked=true>x</div>"##),
                ("input", r##"<input type=password aria-required=true>"##),
                ("input", r##"<input type=file aria-required=true>"##),
                ("div", r##"<div role=switch aria-required=true aria-checked=false>x</div>"##),
                ("button", r##"<button role=none aria-pressed=true>x</button>"##),
                ("nav", r##"<nav aria-label=a aria-expanded=true>x</nav>"##),
                ("section", r##"<section aria-label=s aria-expanded=false>x</section>"##),
                ("aside", r##"<aside aria-expanded=true>x</aside>"##),
                ("div", r##"<div role=dialog aria-label=d aria-expanded=true>x</div>"##),
                ("img", r##"<img src=a.png alt=x aria-expanded=true>"##),
            ])
            .inapplicable(&[
                r##"<div aria-hidden=true aria-checked=true>x</div>"##,
            ])
            .fail(&[
                ("button", r##"<button aria-sort="">x</button>"##),
                ("a", r##"<a href=x aria-checked=true>x</a>"##),
                ("audio", r##"<audio src=a.mp3 controls aria-orientation=horizontal></audio>"##),
                ("p", r##"<p aria-expanded=true>x</p>"##),
                ("div", r##"<div aria-expanded=true>x</div>"##),
                ("hr", r##"<hr aria-expanded=true>"##),
            ])
            .run();
    }
}
