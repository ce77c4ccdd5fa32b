//! `contact-links`: `mailto:` and `tel:` links are well formed.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Checks the addresses of `mailto:` and numbers of `tel:` links.
pub struct ContactLinks;

static META: RuleMeta = RuleMeta {
    id: "contact-links",
    category: Category::Quality,
    title: "Email and phone links are well formed",
    help: "Write mailto: links as `mailto:name@example.com` and tel: links in international form, e.g. `tel:+441234567890`.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/HTML/Element/a#linking_to_an_email_address",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Each `<a href="mailto:…">`: every address before the `?` (comma-separated,
percent-decoded) has one `@`, a non-empty local part without spaces, and a domain
with a dot and no empty labels; `mailto:` with no address but a `?to=` or other
query is accepted. Each `<a href="tel:…">`: after removing visual separators
(spaces, `-`, `.`, `(`, `)`) and any `;ext=` / `;phone-context=` parameter, the
number is an optional `+` followed by 3 to 15 digits (E.164 allows 15).

## Why it matters
A malformed contact link opens an email draft to nobody or dials a wrong number —
exactly when a customer tries to reach you.

## Failing
```html
<a href="mailto:info@example">Email us</a> <a href="tel:call-us-now">Call</a>
```

## Passing
```html
<a href="mailto:info@example.com">Email us</a> <a href="tel:+44 (0)20 7946-0958">Call</a>
```
"#,
    ..RuleMeta::BASE
};

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// Whether an email address is plausibly well formed.
pub fn valid_email(addr: &str) -> bool {
    let addr = addr.trim();
    let Some((local, domain)) = addr.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !local.contains(char::is_whitespace)
        && !domain.contains('@')
        && domain.contains('.')
        && domain
            .split('.')
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
}

/// Whether a `tel:` value is a plausible phone number.
pub fn valid_tel(value: &str) -> bool {
    let number = value.split(';').next().unwrap_or("");
    let cleaned: String = number
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.' | '(' | ')'))
        .collect();
    let digits = cleaned.strip_prefix('+').unwrap_or(&cleaned);
    (3..=15).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit())
}

impl Rule for ContactLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(href) = el.value().attr("href").map(str::trim) else {
            return;
        };
        let lower = href.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("mailto:").map(|_| &href[7..]) {
            let (to, query) = match rest.split_once('?') {
                Some((t, q)) => (t, Some(q)),
                None => (rest, None),
            };
            let to = percent_decode(to);
            let addrs: Vec<&str> = to
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .collect();
            if addrs.is_empty() && query.is_some() {
                cx.pass();
                return;
            }
            let bad: Vec<&str> = addrs.iter().copied().filter(|a| !valid_email(a)).collect();
            if addrs.is_empty() {
                cx.fail(el, "The mailto: link has no address.");
            } else if !bad.is_empty() {
                cx.fail(
                    el,
                    format!(
                        "The mailto: link has a malformed address: {}.",
                        bad.join(", ")
                    ),
                );
            } else {
                cx.pass();
            }
        } else if lower.starts_with("tel:") {
            let value = percent_decode(&href[4..]);
            if valid_tel(&value) {
                cx.pass();
            } else {
                cx.fail(
                    el,
                    format!("The tel: link `{value}` is not a phone number."),
                );
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
        RuleTester::new(&ContactLinks)
            .pass(&[
                ("a", r#"<a href="mailto:info@example.com">Mail</a>"#),
                ("a", r#"<a href="MAILTO:a@example.com,b@example.org?subject=Hi">Mail</a>"#),
                ("a", r#"<a href="mailto:?to=a@example.com">Mail</a>"#),
                ("a", r#"<a href="tel:+44 (0)20 7946-0958">Call</a>"#),
                ("a", r#"<a href="tel:%2B4930123456;ext=12">Call</a>"#),
            ])
            .fail(&[
                ("a", r#"<a href="mailto:info@example">Mail</a>"#),
                ("a", r#"<a href="mailto:">Mail</a>"#),
                ("a", r#"<a href="mailto:info at example.com">Mail</a>"#),
                ("a", r#"<a href="tel:call-us-now">Call</a>"#),
                ("a", r#"<a href="tel:12">Call</a>"#),
            ])
            .run();
    }
}
