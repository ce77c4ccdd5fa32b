//! `font-display`: web fonts do not hide text while they load.

use crate::support::{select, selector};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails `@font-face` rules without `font-display: swap | fallback | optional`.
pub struct FontDisplay;

static META: RuleMeta = RuleMeta {
    id: "font-display",
    category: Category::Performance,
    title: "Text stays visible while web fonts load",
    help: "Add `font-display: swap` (or `fallback` / `optional`) to every @font-face rule.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/font-display",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Every `@font-face` rule in the page's inline `<style>` elements and in the linked
stylesheets the crawler fetched declares `font-display` with `swap`, `fallback` or
`optional`. Missing, `auto` or `block` fails (Lighthouse's `font-display-insight`).
One finding per rule, naming the font family.

## Why it matters
With the default behaviour browsers hide text for up to three seconds while a web
font downloads ("flash of invisible text"): on slow connections visitors stare at an
empty page.

## Failing
```html
<style>@font-face { font-family: Brand; src: url(/brand.woff2) format("woff2"); }</style>
```

## Passing
```html
<style>@font-face { font-family: Brand; src: url(/brand.woff2) format("woff2"); font-display: swap; }</style>
```
"#,
    ..RuleMeta::BASE
};

/// Removes `/* … */` comments from CSS.
pub fn strip_css_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The declaration blocks of every `@font-face` rule of a stylesheet.
pub fn font_face_blocks(css: &str) -> Vec<String> {
    let css = strip_css_comments(css);
    let lower = css.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("@font-face") {
        let start = from + at;
        let Some(open) = lower[start..].find('{') else {
            break;
        };
        let open = start + open;
        let Some(close) = lower[open..].find('}') else {
            break;
        };
        out.push(css[open + 1..open + close].to_string());
        from = open + close + 1;
    }
    out
}

fn declaration<'a>(block: &'a str, name: &str) -> Option<&'a str> {
    block.split(';').find_map(|d| {
        let (k, v) = d.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

impl Rule for FontDisplay {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        let mut sheets: Vec<(String, String)> = select(pcx, selector!("style"))
            .map(|s| ("inline <style>".to_string(), s.text().collect()))
            .collect();
        sheets.extend(
            pcx.page()
                .stylesheets
                .iter()
                .map(|s| (s.url.clone(), s.text.to_string())),
        );
        let inline_sheets = sheets.len() - pcx.page().stylesheets.len();
        for (n, (source, css)) in sheets.into_iter().enumerate() {
            // A linked stylesheet is one file whatever page links it: its
            // findings are reported once per scan.
            let linked = n >= inline_sheets;
            for block in font_face_blocks(&css) {
                let family = declaration(&block, "font-family")
                    .unwrap_or("(unnamed)")
                    .trim_matches(['"', '\''])
                    .to_string();
                let display = declaration(&block, "font-display").map(|d| d.to_ascii_lowercase());
                match display.as_deref() {
                    Some("swap") | Some("fallback") | Some("optional") => cx.pass(),
                    other => {
                        let f = cx.fail_page(format!(
                            "@font-face for {family} in {source} has {}; text is invisible while it loads.",
                            other.map_or("no font-display".to_string(), |d| format!("font-display: {d}"))
                        ))
                        .with_snippet(crate::dom::truncate_chars(&format!("@font-face {{{}}}", block.trim()), crate::dom::SNIPPET_MAX_CHARS));
                        if linked {
                            f.on_resource(source.as_str());
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Stylesheet;

    #[test]
    fn examples() {
        let mut linked = RuleTester::page("<p>x</p>");
        linked.stylesheets.push(Stylesheet {
            url: "https://example.com/fonts.css".into(),
            text: "@font-face{font-family:A;src:url(a.woff2)}".into(),
            media: None,
            ..Default::default()
        });
        RuleTester::new(&FontDisplay)
            .pass(&[
                ("(page)", "<style>@font-face { font-family: Brand; src: url(/b.woff2); font-display: swap; }</style>"),
            ])
            .inapplicable(&[
                "<style>/* @font-face { } */ body { color: red }</style>",
            ])
            .fail(&[
                ("(page)", "<style>@font-face { font-family: Brand; src: url(/b.woff2); }</style>"),
                ("(page)", "<style>@FONT-FACE { font-family: 'Brand'; font-display: block }</style>"),
            ])
            .fail_page("(page)", linked)
            .run();
    }
}
