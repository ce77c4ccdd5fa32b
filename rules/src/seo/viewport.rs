//! `viewport`: the page has a mobile viewport.

use crate::support::meta_contents;
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Checks for `<meta name="viewport" content="width=device-width…">`.
pub struct Viewport;

static META: RuleMeta = RuleMeta {
    id: "viewport",
    category: Category::Seo,
    title: "Page has a mobile viewport",
    help: "Add <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"> to <head>.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/viewport",
    impact: Impact::Serious,
    docs: r#"## What it checks
HTML pages (2xx) have a `<meta name="viewport">` whose `content` sets `width` (to
`device-width` or a number). Missing, or without `width`, fails (Lighthouse's
`viewport` audit; seonaut's `ERROR_MISSING_VIEWPORT`). Whether the viewport blocks
zooming is the accessibility rules' business.

## Why it matters
Without a viewport mobile browsers render the page at desktop width and shrink it.
Search engines index the mobile version first and rank pages that are not
mobile-friendly lower.

## Failing
```html
<head><title>Mugs</title></head>
```

## Passing
```html
<head><title>Mugs</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for Viewport {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        if !pcx.page().is_html() || !(200..300).contains(&pcx.page().status) {
            return;
        }
        let metas = meta_contents(pcx, "viewport");
        let Some(m) = metas.first().copied() else {
            cx.fail_page("The page has no <meta name=\"viewport\">.");
            return;
        };
        let content = m.value().attr("content").unwrap_or("").to_ascii_lowercase();
        let has_width = content
            .split([',', ';'])
            .filter_map(|p| p.split_once('='))
            .any(|(k, v)| k.trim() == "width" && !v.trim().is_empty());
        if has_width {
            cx.pass_on(m);
        } else {
            cx.fail(
                m,
                "The viewport does not set width (use width=device-width).",
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
        RuleTester::new(&Viewport)
            .pass(&[("meta", r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)])
            .fail(&[
                ("(page)", "<p>none</p>"),
                ("meta", r#"<meta name="viewport" content="initial-scale=1">"#),
            ])
            .run();
    }
}
