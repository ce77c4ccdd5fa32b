//! `avoid-inline-spacing`: text spacing set with `!important` in `style`
//! attributes is wide enough to leave room for user overrides (WCAG 1.4.12, ACT
//! 24afc2, 78fd32 and 9e45ec).

use scraper::{ElementRef, Node};

use crate::css::parse_declarations;
use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks important inline `letter-spacing`, `word-spacing` and `line-height`.
pub struct AvoidInlineSpacing;

static META: RuleMeta = RuleMeta {
    id: "avoid-inline-spacing",
    category: Category::Accessibility,
    title: "Important inline text spacing is wide enough",
    help: "Drop !important from inline letter-spacing, word-spacing and line-height, or make them at least 0.12em, 0.16em and 1.5 respectively.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/text-spacing.html",
    wcag: &["1.4.12"],
    level: Some(Level::AA),
    impact: Impact::Serious,
    act: &["24afc2", "78fd32", "9e45ec"],
    docs: r#"## What it checks
For each HTML element with visible text of its own whose `style` attribute sets
`letter-spacing`, `word-spacing` or `line-height` with `!important` (the last
important declaration wins; `inherit` and `unset` take the parent's value and
are skipped): letter spacing is at least 0.12 times the font size, word spacing
at least 0.16 times, and line height at least 1.5 times (`normal` counts as 0
for spacing and 1.2 for line height). Line height only matters for text that
wraps onto several lines; when the element's width makes the text fit on one
line the check does not apply.

## Why it matters
People with dyslexia or low vision widen text spacing with a user stylesheet or
bookmarklet. An `!important` inline value beats their stylesheet, so the text
stays cramped.

## Failing
```html
<p style="letter-spacing: 0.1em !important">Cramped text</p>
```

## Passing
```html
<p style="letter-spacing: 0.15em !important">Airy text</p>
```
"#,
    ..RuleMeta::BASE
};

/// The properties checked, with the minimum as a multiple of the font size.
const PROPERTIES: &[(&str, f32)] = &[
    ("letter-spacing", 0.12),
    ("word-spacing", 0.16),
    ("line-height", 1.5),
];

/// Average glyph width as a fraction of the font size, to estimate whether text
/// wraps (a common typographic average for Latin text).
const AVG_CHAR_EM: f32 = 0.5;
/// The viewport width rules assume, CSS pixels.
const VIEWPORT_WIDTH: f32 = 1280.0;

/// Resolves a length to CSS pixels; `None` when it cannot be resolved statically.
fn length_px(value: &str, font_size: f32) -> Option<f32> {
    let v = value.trim();
    if v == "0" {
        return Some(0.0);
    }
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: f32 = num.parse().ok()?;
    let px = match unit.trim() {
        "px" => n,
        "em" => n * font_size,
        "rem" => n * 16.0,
        "ex" | "ch" => n * font_size * 0.5,
        "pt" => n * 4.0 / 3.0,
        "pc" => n * 16.0,
        "in" => n * 96.0,
        "cm" => n * 96.0 / 2.54,
        "mm" => n * 96.0 / 25.4,
        "%" => n * font_size / 100.0,
        "" => n * font_size,
        _ => return None,
    };
    Some(px)
}

/// The used value in pixels of one property from its inline value.
fn used_px(property: &str, value: &str, font_size: f32) -> Option<f32> {
    match (property, value) {
        (_, "normal" | "initial") if property == "line-height" => Some(1.2 * font_size),
        (_, "normal" | "initial") => Some(0.0),
        ("line-height", v) => length_px(v, font_size),
        (_, v) if v.trim().parse::<f32>().is_ok() && v.trim() != "0" => None,
        (_, v) => length_px(v, font_size),
    }
}

/// Whether the element's own text probably wraps onto several lines, from its
/// declared `width` / `max-width` (or the viewport) and an average glyph width.
fn text_wraps(
    el: ElementRef<'_>,
    inline: &[crate::css::Declaration],
    width: Option<&str>,
    font_size: f32,
) -> bool {
    let text: usize = el
        .children()
        .filter_map(|c| match c.value() {
            Node::Text(t) => Some(
                t.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .chars()
                    .count(),
            ),
            _ => None,
        })
        .sum();
    let mut available = VIEWPORT_WIDTH;
    let declared = inline
        .iter()
        .filter(|d| d.name == "max-width")
        .filter_map(|d| length_px(&d.value, font_size))
        .chain(width.and_then(|w| length_px(w, font_size)));
    for w in declared {
        available = available.min(w);
    }
    text as f32 * AVG_CHAR_EM * font_size > available
}

fn has_visible_text(el: ElementRef<'_>) -> bool {
    el.children()
        .any(|c| matches!(c.value(), Node::Text(t) if !t.trim().is_empty()))
}

impl Rule for AvoidInlineSpacing {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::AllElements
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let Some(style) = crate::dom::plain_attr(el, "style") else {
            return;
        };
        if !is_html(el) || !has_visible_text(el) || !cx.page().is_visible(el) {
            return;
        }
        let inline = parse_declarations(style);
        let computed = cx.page().style(el);
        let font_size = computed.font_size;
        let width = computed.get("width").map(str::to_string);
        for (property, minimum) in PROPERTIES {
            let Some(decl) = inline
                .iter()
                .rev()
                .find(|d| d.name == *property && d.important)
            else {
                continue;
            };
            let value = decl.value.trim().to_ascii_lowercase();
            if matches!(
                value.as_str(),
                "inherit" | "unset" | "revert" | "revert-layer"
            ) {
                continue;
            }
            if *property == "line-height" && !text_wraps(el, &inline, width.as_deref(), font_size) {
                continue;
            }
            let Some(px) = used_px(property, &value, font_size) else {
                cx.cant_tell(
                    el,
                    format!("{property}: {value} !important cannot be resolved; check it is at least {minimum} times the font size."),
                );
                continue;
            };
            let ratio = if font_size > 0.0 { px / font_size } else { 0.0 };
            if ratio + 1e-3 >= *minimum {
                cx.pass();
            } else {
                cx.fail(
                    el,
                    format!("{property}: {value} !important is {ratio:.2} times the font size; at least {minimum} is needed so users can widen it."),
                )
                .with_data(serde_json::json!({"property": property, "ratio": ratio, "expected": minimum}));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    const TEXT: &str = "The toy brought back fond memories of being lost in the rain forest.";

    fn p(style: &str) -> String {
        format!("<p style=\"{style}\">{TEXT}</p>")
    }

    #[test]
    fn examples() {
        let pass = [
            p("letter-spacing: 0.15em !important"),
            format!("<style>p {{ font-size: 25px }}</style>{}", p("letter-spacing: 3px !important")),
            p("letter-spacing: 0.1em !important; letter-spacing: 0.15em !important"),
            p("letter-spacing: 0.15em !important; letter-spacing: 0.1em"),
            p("word-spacing: 0.2em !important"),
            p("line-height: 1.6 !important; max-width: 200px"),
            p("line-height: 160% !important; max-width: 200px"),
        ];
        let pass_inapplicable = [
            p("letter-spacing: 0.1em"),
            p("display: none; letter-spacing: 0.1em !important"),
            format!("<p style='letter-spacing: 0.1em'><span style='letter-spacing: inherit !important'>{TEXT}</span></p>"),
            format!("<div style='overflow-x: scroll'>{}</div>", p("line-height: 1em !important; width: 1000px")),
            "<div style='letter-spacing: 0.1em !important'></div>".to_string(),
        ];
        let fail = [
            p("letter-spacing: 0.1em !important"),
            p("letter-spacing: normal !important"),
            p("letter-spacing: initial !important"),
            p("word-spacing: 0.1em !important"),
            p("word-spacing: normal !important"),
            p("line-height: 1em !important; max-width: 200px"),
            p("line-height: 1.2 !important; max-width: 200px"),
            p("line-height: normal !important; max-width: 200px"),
        ];
        RuleTester::new(&AvoidInlineSpacing)
            .pass(&pass.iter().map(|h| ("p", h.as_str())).collect::<Vec<_>>())
        .inapplicable(&pass_inapplicable.iter().map(String::as_str).collect::<Vec<_>>())
            .fail(&fail.iter().map(|h| ("p", h.as_str())).collect::<Vec<_>>())
            .run();
    }

    #[test]
    fn lengths_resolve() {
        assert_eq!(length_px("2px", 16.0), Some(2.0));
        assert_eq!(length_px("0.5em", 20.0), Some(10.0));
        assert_eq!(length_px("150%", 10.0), Some(15.0));
        assert_eq!(length_px("calc(1px + 1em)", 10.0), None);
    }
}
