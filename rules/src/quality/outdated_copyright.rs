//! `outdated-copyright`: the copyright notice is current.

use std::sync::OnceLock;

use chrono::Datelike;
use regex::Regex;

use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails copyright notices whose latest year is behind the current year.
pub struct OutdatedCopyright;

static META: RuleMeta = RuleMeta {
    id: "outdated-copyright",
    category: Category::Quality,
    title: "Copyright year is current",
    help: "Update the copyright notice (or generate its year) so it shows the current year.",
    help_url: "https://www.copyright.gov/circs/circ03.pdf",
    impact: Impact::Minor,
    docs: r#"## What it checks
The page's visible text is searched for copyright notices — `©`, `(c)`, `&copy;` or
the word "Copyright" followed within a few characters by a year or a range of
years (`© 2019–2024`). The latest year of the notices is compared with the current
year, taken from the response's `Date` header (the server's clock) or, without one,
the scanner's clock. A notice older than the current year fails; in January the
previous year is still accepted.

## Why it matters
An old copyright year is the first sign visitors notice of a site nobody maintains,
and it makes them doubt that prices, opening hours or contact details are current.

## Failing
```html
<footer>© 2019 Example Pottery</footer>
```

## Passing
```html
<footer>© 2012–2026 Example Pottery</footer>
```
"#,
    ..RuleMeta::BASE
};

fn pattern() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)(?:©|\(c\)|copyright)[^0-9]{0,20}((?:19|20)\d\d)(?:\s*[-–—/]\s*((?:19|20)\d\d))?",
        )
        .ok()
    })
    .as_ref()
}

/// The latest copyright year named in a text.
pub fn latest_year(text: &str) -> Option<i32> {
    pattern()?
        .captures_iter(text)
        .flat_map(|c| {
            [c.get(1), c.get(2)]
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().parse::<i32>().ok())
                .collect::<Vec<_>>()
        })
        .max()
}

/// The reference date: the response's `Date` header, else now.
fn today(page: &crate::Page) -> chrono::NaiveDate {
    page.header("date")
        .and_then(crate::support::http_date)
        .map(|d| d.date_naive())
        .unwrap_or_else(|| chrono::Utc::now().date_naive())
}

impl Rule for OutdatedCopyright {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() {
            return;
        }
        let Some(year) = latest_year(pcx.body_text()) else {
            return;
        };
        let now = today(pcx.page());
        let accepted = if now.month() == 1 {
            now.year() - 1
        } else {
            now.year()
        };
        if year < accepted {
            cx.fail_page(format!(
                "The copyright notice ends in {year}; it is now {}.",
                now.year()
            ))
            .with_data(serde_json::json!({"year": year, "current_year": now.year()}));
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    fn dated(html: &str, date: &str) -> crate::Page {
        RuleTester::page(html).with_header("Date", date)
    }

    #[test]
    fn examples() {
        let nov = "Sat, 21 Nov 2026 10:05:22 GMT";
        RuleTester::new(&OutdatedCopyright)
            .pass_page("(page)", dated("<footer>© 2012–2026 Example</footer>", nov))
            .pass_page("(page)", dated(
                "<footer>Copyright 2025 Example</footer>",
                "Mon, 12 Jan 2026 08:00:00 GMT",
            ))
            .inapplicable_page(dated("<footer>Founded 1998</footer>", nov))
            .fail_page("(page)", dated("<footer>© 2019 Example Pottery</footer>", nov))
            .fail_page("(page)", dated("<footer>(c) 2015 - 2024 Example</footer>", nov))
            .fail_page("(page)", dated("<footer>Copyright &copy; 2025 Example</footer>", nov))
            .run();
    }

    #[test]
    fn years() {
        assert_eq!(latest_year("© 2012–2026 A, © 2020 B"), Some(2026));
        assert_eq!(latest_year("No notice 2020"), None);
    }
}
