//! `meta-viewport`: a viewport `<meta>` does not disable zoom (WCAG 1.4.4, ACT b4f0c3).

use scraper::ElementRef;

use crate::structure::page_is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks `user-scalable` and `maximum-scale` of `<meta name="viewport">`.
pub struct MetaViewport;

static META: RuleMeta = RuleMeta {
    id: "meta-viewport",
    category: Category::Accessibility,
    title: "Viewport meta element allows zoom",
    help: "Remove user-scalable=no and any maximum-scale below 2 from the viewport meta element.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/resize-text.html",
    wcag: &["1.4.4"],
    level: Some(Level::AA),
    impact: Impact::Critical,
    act: &["b4f0c3"],
    docs: r#"## What it checks
Every `<meta name="viewport">` whose `content` sets `user-scalable` or
`maximum-scale`: `user-scalable` must not resolve to a value between -1 and 1
exclusive (`no`, `0`, `0.5` and unknown keywords all disable zoom), and a
`maximum-scale` must not resolve below 2 (`yes` and unknown keywords count as 1
and 0). Values are read as browsers read them (CSS Device Adaptation):
`device-width` and `device-height` are 10, negative numbers are ignored.

## Why it matters
People with low vision zoom pages on phones to read them. A viewport that caps
zoom below 200% leaves them unable to read the text.

## Failing
```html
<meta name="viewport" content="width=device-width, user-scalable=no">
```

## Passing
```html
<meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=5">
```
"#,
    ..RuleMeta::BASE
};

/// Parses viewport `content` into (key, value) pairs, lowercased. Separators are
/// commas, semicolons and white space; white space may surround `=`.
fn properties(content: &str) -> Vec<(String, String)> {
    let normalized = content.to_ascii_lowercase();
    // Join "key = value" so splitting on white space keeps pairs together.
    let mut joined = String::new();
    let mut chars = normalized.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            let mut rest = chars.clone();
            while rest.peek().is_some_and(|c| c.is_whitespace()) {
                rest.next();
            }
            if rest.peek() == Some(&'=') || joined.ends_with('=') {
                chars = rest;
                continue;
            }
            joined.push(' ');
        } else {
            joined.push(c);
        }
    }
    joined
        .split([',', ';', ' '])
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

/// The number a viewport property value resolves to (CSS Device Adaptation's
/// "translate ... to numbers"): `yes` 1, `no` 0, device sizes 10, numbers as
/// themselves (leading number prefix), anything else 0.
fn number(value: &str) -> f64 {
    match value {
        "yes" => 1.0,
        "no" => 0.0,
        "device-width" | "device-height" => 10.0,
        v => {
            let end = v
                .char_indices()
                .find(|(i, c)| {
                    !(c.is_ascii_digit() || *c == '.' || (*i == 0 && (*c == '-' || *c == '+')))
                })
                .map(|(i, _)| i)
                .unwrap_or(v.len());
            v[..end].parse::<f64>().unwrap_or(0.0)
        }
    }
}

impl MetaViewport {
    fn check_meta(el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let is_viewport = el
            .value()
            .attr("name")
            .is_some_and(|n| n.trim().eq_ignore_ascii_case("viewport"));
        let Some(content) = el.value().attr("content") else {
            return;
        };
        if !is_viewport {
            return;
        }
        let props = properties(content);
        let mut applicable = false;
        let mut problems = Vec::new();
        for (key, value) in &props {
            match key.as_str() {
                "user-scalable" => {
                    applicable = true;
                    let n = number(value);
                    if n > -1.0 && n < 1.0 {
                        problems.push(format!("user-scalable={value} disables zoom"));
                    }
                }
                "maximum-scale" => {
                    applicable = true;
                    let n = number(value);
                    if (0.0..2.0).contains(&n) {
                        problems.push(format!("maximum-scale={value} caps zoom below 200%"));
                    }
                }
                _ => {}
            }
        }
        if !applicable {
            return;
        }
        if problems.is_empty() {
            cx.pass();
        } else {
            cx.fail(
                el,
                format!("The viewport meta element {}.", problems.join(" and ")),
            );
        }
    }
}

impl Rule for MetaViewport {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["meta"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if page_is_html(cx) {
            Self::check_meta(el, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    fn page(content: &str) -> String {
        format!("<html lang=en><head><meta name=viewport content=\"{content}\"></head><body>x</body></html>")
    }

    #[test]
    fn examples() {
        let pass = [
            "user-scalable=yes",
            "user-scalable=5",
            "maximum-scale=2.0",
            "maximum-scale=-1",
            "maximum-scale=device-width",
            "width = device-width , maximum-scale = 3",
        ].map(page);
        let pass_inapplicable = [
            "width=device-width",
            "",
        ].map(page);
        let fail = [
            "user-scalable=no",
            "user-scalable=0.5",
            "user-scalable=invalid",
            "user-scalable=yes, initial-scale=0.8, maximum-scale=1.5",
            "maximum-scale=yes",
            "maximum-scale=invalid",
            "width=device-width; user-scalable = no",
        ]
        .map(page);
        RuleTester::new(&MetaViewport)
            .pass(&pass.iter().map(|h| ("meta", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&fail.iter().map(|h| ("meta", h.as_str())).collect::<Vec<_>>())
            .run();
    }

    #[test]
    fn numbers_resolve_like_browsers() {
        assert_eq!(number("2.5x"), 2.5);
        assert_eq!(number("junk"), 0.0);
        assert_eq!(number("device-height"), 10.0);
        assert_eq!(number("-1"), -1.0);
    }
}
