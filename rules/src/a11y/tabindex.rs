//! `tabindex`: no positive `tabindex` values (best practice).

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Flags elements whose `tabindex` is greater than zero.
pub struct Tabindex;

static META: RuleMeta = RuleMeta {
    id: "tabindex",
    category: Category::Accessibility,
    title: "No positive tabindex",
    help: "Use tabindex=\"0\" (or -1) and order the markup instead of positive tabindex values.",
    help_url: "https://www.w3.org/WAI/WCAG21/Techniques/failures/F44",
    impact: Impact::Serious,
    best_practice: true,
    docs: r#"## What it checks
No element has a `tabindex` attribute whose value parses to an integer greater
than zero.

## Why it matters
Positive values pull elements ahead of the document order in keyboard navigation.
The focus order then jumps around the page, which confuses keyboard and screen
reader users, and every later change to the page has to renumber the values.

## Failing
```html
<button tabindex="3">Search</button>
```

## Passing
```html
<button>Search</button>
```
"#,
    ..RuleMeta::BASE
};

/// `tabindex` as HTML parses it ("rules for parsing integers"): optional white
/// space, an optional sign, digits; trailing junk ignored.
pub fn parse_tabindex(value: &str) -> Option<i64> {
    let s = value.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let n: i64 = digits[..end].parse().ok()?;
    Some(if neg { -n } else { n })
}

impl Rule for Tabindex {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(value) = crate::dom::plain_attr(el, "tabindex") else {
            return;
        };
        match parse_tabindex(value) {
            Some(n) if n > 0 => {
                cx.fail(
                    el,
                    format!("tabindex=\"{n}\" changes the keyboard focus order."),
                );
            }
            Some(_) => cx.pass(),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&Tabindex)
            .pass(&[
                ("button", "<button tabindex=0>a</button>"),
                ("div", "<div tabindex=-1>a</div>"),
            ])
            .inapplicable(&[
                "<div tabindex=x>a</div>",
            ])
            .fail(&[
                ("button", "<button tabindex=3>a</button>"),
                ("a", "<a href=# tabindex=' 1'>a</a>"),
            ])
            .run();
    }
}
