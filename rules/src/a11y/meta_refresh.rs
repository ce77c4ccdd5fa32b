//! `meta-refresh`: no timed refresh or redirect through `<meta http-equiv=refresh>`
//! (WCAG 2.2.1, ACT bc659a).

use scraper::ElementRef;

use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks the delay of the first valid meta refresh of the page.
pub struct MetaRefresh;

static META: RuleMeta = RuleMeta {
    id: "meta-refresh",
    category: Category::Accessibility,
    title: "Page does not refresh or redirect after a delay",
    help: "Remove the timed <meta http-equiv=\"refresh\">; redirect on the server or immediately (delay 0), or let people refresh themselves.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/timing-adjustable.html",
    wcag: &["2.2.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["bc659a"],
    docs: r#"## What it checks
The first `<meta http-equiv="refresh">` whose `content` is valid (as HTML's
declarative refresh parses it: a leading non-negative number, then the end, or a
`;`, `,` or white space) does not refresh or redirect after a delay greater than
0 and at most 20 hours (72000 seconds). Later refresh elements are ignored, as
browsers ignore them.

## Why it matters
A page that reloads or moves on by itself can take content away before people
who read slowly, use a screen reader or magnification have finished, and puts
screen-reader focus back to the top.

## Failing
```html
<meta http-equiv="refresh" content="30; URL='https://example.com/next'">
```

## Passing
```html
<meta http-equiv="refresh" content="0; URL='https://example.com/next'">
```
"#,
    ..RuleMeta::BASE
};

/// The delay in seconds of a refresh `content` value, or `None` when browsers
/// would ignore it (HTML "shared declarative refresh steps").
pub fn refresh_delay(content: &str) -> Option<f64> {
    let s = content.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let digits = &s[..digits_end];
    let rest = &s[digits_end..];
    let time = if digits.is_empty() {
        if !rest.starts_with('.') {
            return None;
        }
        0.0
    } else {
        digits.parse::<f64>().ok()?
    };
    // Digits and dots after the integer part are skipped.
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    match rest.chars().next() {
        None => Some(time),
        Some(c) if c == ';' || c == ',' || c.is_ascii_whitespace() => Some(time),
        Some(_) => None,
    }
}

impl Rule for MetaRefresh {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Document
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        if !page_is_html(cx) {
            return;
        }
        let first = cx
            .page()
            .root()
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|e| e.value().name() == "meta")
            .filter(|e| {
                e.value()
                    .attr("http-equiv")
                    .is_some_and(|h| h.trim().eq_ignore_ascii_case("refresh"))
            })
            .find_map(|e| Some((e, refresh_delay(e.value().attr("content")?)?)));
        let Some((el, delay)) = first else {
            return;
        };
        if delay > 0.0 && delay <= 72000.0 {
            cx.fail(
                el,
                format!("The page refreshes or redirects after {delay} seconds."),
            );
        } else {
            cx.pass_on(el);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&MetaRefresh)
            .pass(&[
                ("meta", r#"<html lang=en><head><meta http-equiv="refresh" content="0; URL='https://x.test'"></head></html>"#),
                ("meta", r#"<html lang=en><head><meta http-equiv="refresh" content="0; https://x.test"><meta http-equiv="refresh" content="5"></head></html>"#),
                ("meta", r#"<html lang=en><head><meta http-equiv="refresh" content="72001; https://x.test"></head></html>"#),
            ])
            .inapplicable(&[
                r#"<html lang=en><head><meta http-equiv="refresh" content="0: https://x.test"></head></html>"#,
                r#"<html lang=en><head><meta http-equiv="refresh" content="+5"></head></html>"#,
                r#"<html lang=en><head><meta content="30"></head></html>"#,
            ])
            .fail(&[
                ("meta", r#"<html lang=en><head><meta http-equiv="refresh" content="30"></head></html>"#),
                ("meta", r#"<html lang=en><head><meta http-equiv="Refresh" content="30; URL='https://x.test'"></head></html>"#),
                ("html > head > meta:nth-child(2)", r#"<html lang=en><head><meta http-equiv="refresh" content="0: x"><meta http-equiv="refresh" content="5; x"></head></html>"#),
                ("meta", r#"<html lang=en><head><meta http-equiv="refresh" content="72000; x"></head></html>"#),
            ])
            .run();
    }

    #[test]
    fn delays_parse_like_browsers() {
        assert_eq!(refresh_delay("30"), Some(30.0));
        assert_eq!(refresh_delay(" 5.5; url=x"), Some(5.0));
        assert_eq!(refresh_delay(".5"), Some(0.0));
        assert_eq!(refresh_delay("-00.12 foo"), None);
        assert_eq!(refresh_delay("; 30"), None);
        assert_eq!(refresh_delay(""), None);
        assert_eq!(refresh_delay("foo; URL=x"), None);
    }
}
