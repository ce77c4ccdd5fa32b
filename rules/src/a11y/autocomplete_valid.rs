//! `autocomplete-valid`: `autocomplete` values are valid HTML autofill detail
//! tokens (WCAG 1.3.5, ACT 73f2c2).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks the autofill detail tokens of form fields.
pub struct AutocompleteValid;

static META: RuleMeta = RuleMeta {
    id: "autocomplete-valid",
    category: Category::Accessibility,
    title: "autocomplete values are valid",
    help: "Use the HTML autofill tokens in their order: [section-*] [shipping|billing] [home|work|mobile|fax|pager] field [webauthn], e.g. autocomplete=\"shipping postal-code\".",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/identify-input-purpose.html",
    wcag: &["1.3.5"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["73f2c2"],
    docs: r#"## What it checks
Every `<input>` (except types `hidden`, `button`, `submit`, `reset`, `image`),
`<select>` and `<textarea>` whose `autocomplete` is not empty, `on`, `off` or
one of the words written to switch autofill off or on (`none`, `false`, `true`,
`no`, `nope`, `yes`, `disabled`, `enabled`, `null`, `undefined`, `xoff`, `xon`,
`chrome-off`), and
that is not disabled (`disabled`, `aria-disabled="true"`) and is visible or exposed to
assistive technologies: the value, split on white space and compared
case-insensitively, is an optional `section-*` token, an optional `shipping` or
`billing`, an optional `home`, `work`, `mobile`, `fax` or `pager` (only before a
contact field: `tel…`, `email`, `impp`), exactly one field name from the HTML
standard's autofill list, and an optional final `webauthn`.

## Why it matters
Browsers and assistive tools fill in and label fields whose purpose they can
identify, which helps people with cognitive and motor disabilities. An invalid
value hides the purpose.

## Failing
```html
<label>Email <input autocomplete="work,email"></label>
```

## Passing
```html
<label>Email <input autocomplete="work email"></label>
<label>Search <input autocomplete="nope"></label>
```

## Differences from axe-core
Like axe-core, sitescan leaves alone the single words authors use to switch
autofill off or on (`none`, `false`, `disabled`, ...): the author meant no
purpose, and browsers present the field exactly as with `off`. sitescan also
leaves `no`, `nope`, `yes` and `chrome-off`, which axe-core reports, for the same
reason. axe-core also accepts the proposed field names `text`, `pronouns`,
`gender`, `message` and `content`, which are not in HTML's list; sitescan
reports them, since no browser or assistive tool identifies a purpose from them.
"#,
    ..RuleMeta::BASE
};

/// Field names of the HTML standard's autofill detail tokens (forms section
/// "Autofill", WHATWG HTML Living Standard) that are not contact fields.
const FIELDS: &[&str] = &[
    "name",
    "honorific-prefix",
    "given-name",
    "additional-name",
    "family-name",
    "honorific-suffix",
    "nickname",
    "username",
    "new-password",
    "current-password",
    "one-time-code",
    "organization-title",
    "organization",
    "street-address",
    "address-line1",
    "address-line2",
    "address-line3",
    "address-level4",
    "address-level3",
    "address-level2",
    "address-level1",
    "country",
    "country-name",
    "postal-code",
    "cc-name",
    "cc-given-name",
    "cc-additional-name",
    "cc-family-name",
    "cc-number",
    "cc-exp",
    "cc-exp-month",
    "cc-exp-year",
    "cc-csc",
    "cc-type",
    "transaction-currency",
    "transaction-amount",
    "language",
    "bday",
    "bday-day",
    "bday-month",
    "bday-year",
    "sex",
    "url",
    "photo",
];

/// Contact field names: may follow `home`, `work`, `mobile`, `fax` or `pager`.
const CONTACT_FIELDS: &[&str] = &[
    "tel",
    "tel-country-code",
    "tel-national",
    "tel-area-code",
    "tel-local",
    "tel-local-prefix",
    "tel-local-suffix",
    "tel-extension",
    "email",
    "impp",
];

/// Single words authors write to switch autofill off (or back on) because
/// browsers ignored `off` on some fields: no field purpose was meant, and
/// browsers treat the word like any unknown value, so nothing is lost to users
/// of the field's purpose. These are not checked, like `on` and `off`.
const SWITCH_WORDS: &[&str] = &[
    "none",
    "false",
    "true",
    "no",
    "nope",
    "yes",
    "disabled",
    "enabled",
    "null",
    "undefined",
    "xoff",
    "xon",
    "chrome-off",
];

/// Why `value` is not a valid autofill detail token list, or `None` when it is.
pub fn invalid_reason(value: &str) -> Option<String> {
    let tokens: Vec<String> = value
        .split_ascii_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let mut rest: &[String] = &tokens;
    if rest.len() == 1 && (rest[0] == "on" || rest[0] == "off") {
        return None;
    }
    if rest.first().is_some_and(|t| t.starts_with("section-")) {
        rest = &rest[1..];
    }
    if rest
        .first()
        .is_some_and(|t| t == "shipping" || t == "billing")
    {
        rest = &rest[1..];
    }
    let mut contact_kind = None;
    if let Some(t) = rest.first() {
        if matches!(t.as_str(), "home" | "work" | "mobile" | "fax" | "pager") {
            contact_kind = Some(t.clone());
            rest = &rest[1..];
        }
    }
    if rest.last().is_some_and(|t| t == "webauthn") {
        rest = &rest[..rest.len() - 1];
    }
    match rest {
        [] => Some("it has no field name".to_string()),
        [field] => {
            let contact = CONTACT_FIELDS.contains(&field.as_str());
            if !contact && !FIELDS.contains(&field.as_str()) {
                Some(format!(
                    "\"{field}\" is not an autofill field name or is out of order"
                ))
            } else if let (Some(kind), false) = (&contact_kind, contact) {
                Some(format!("\"{kind}\" can only precede a contact field (tel, email, impp), not \"{field}\""))
            } else {
                None
            }
        }
        [first, ..] => Some(format!(
            "it has more than one field name or unknown tokens (from \"{first}\")"
        )),
    }
}

fn is_disabled(el: ElementRef<'_>) -> bool {
    el.value().attr("disabled").is_some()
        || el
            .value()
            .attr("aria-disabled")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

impl Rule for AutocompleteValid {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["input", "select", "textarea"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let Some(value) = el.value().attr("autocomplete") else {
            return;
        };
        let trimmed = value.trim();
        if trimmed.is_empty()
            || trimmed.eq_ignore_ascii_case("on")
            || trimmed.eq_ignore_ascii_case("off")
            || SWITCH_WORDS
                .iter()
                .any(|w| trimmed.eq_ignore_ascii_case(w))
        {
            return;
        }
        if el.value().name() == "input" {
            let ty = el
                .value()
                .attr("type")
                .unwrap_or("text")
                .trim()
                .to_ascii_lowercase();
            if matches!(
                ty.as_str(),
                "hidden" | "button" | "submit" | "reset" | "image"
            ) {
                return;
            }
        }
        if is_disabled(el) || (!cx.page().is_visible(el) && cx.page().is_hidden(el)) {
            return;
        }
        match invalid_reason(value) {
            None => cx.pass(),
            Some(why) => {
                cx.fail(el, format!("autocomplete=\"{value}\" is invalid: {why}."));
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
        RuleTester::new(&AutocompleteValid)
            .pass(&[
                ("input", "<input autocomplete=username>"),
                ("select", "<select autocomplete=bday-month><option>1</option></select>"),
                ("textarea", "<textarea autocomplete=Street-Address></textarea>"),
                ("input", "<input autocomplete='work email'>"),
                ("input", "<input autocomplete='section-primary shipping work email'>"),
                ("input", "<input type=password autocomplete='current-password webauthn'>"),
            ])
            .inapplicable(&[
                "<input autocomplete=off>",
                "<input autocomplete=none>",
                "<input autocomplete=NOPE>",
                "<input autocomplete=' false '>",
                "<textarea autocomplete=chrome-off></textarea>",
                "<input autocomplete=badname disabled>",
                "<input autocomplete=badname style='display: none'>",
                "<input type=submit autocomplete=email>",
            ])
            .fail(&[
                ("input", "<input autocomplete=badname>"),
                ("input", "<input autocomplete='work photo'>"),
                ("input", "<input autocomplete='work shipping email'>"),
                ("input", "<input autocomplete='work,email'>"),
                ("input", "<input autocomplete=shipping>"),
                ("input", "<input autocomplete='address-line1 address-line2'>"),
                ("input", "<input autocomplete='current-password webauthn invalid'>"),
                ("input", "<input autocomplete='email invalid'>"),
                ("input", "<input autocomplete='none email'>"),
                ("input", "<input autocomplete=pronouns>"),
            ])
            .run();
    }
}
