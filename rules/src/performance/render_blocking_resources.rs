//! `render-blocking-resources`: `<head>` does not block rendering on scripts and styles.

use scraper::ElementRef;

use crate::support::{has_rel, in_head};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails synchronous scripts and all-media stylesheets in `<head>`.
pub struct RenderBlockingResources;

static META: RuleMeta = RuleMeta {
    id: "render-blocking-resources",
    category: Category::Performance,
    title: "No render-blocking scripts or stylesheets in <head>",
    help: "Add `defer` or `async` (or `type=\"module\"`) to scripts in <head>; inline critical CSS and load the rest without blocking, or give non-critical stylesheets a `media` query.",
    help_url: "https://developer.chrome.com/docs/lighthouse/performance/render-blocking-resources",
    impact: Impact::Moderate,
    docs: r#"## What it checks
In `<head>`:

- each `<script src>` without `async`, `defer` or `type="module"` (a classic,
  parser-blocking script) fails;
- each `<link rel="stylesheet">` that applies to every medium — no `media`, or
  `media` of `all` / `screen` — and is not `disabled` fails (stylesheets for `print`
  or a media query do not block the first render).

One finding per resource and scan (the pages whose `<head>` loads it so are listed
as its occurrences). Scripts of a non-JavaScript `type` (JSON, templates) are
ignored. This follows Lighthouse's `render-blocking-resources` without timing data:
every such resource counts, however small.

## Why it matters
The browser stops parsing to download and run each blocking script, and paints
nothing until every blocking stylesheet has arrived: on a slow network that is
seconds of blank screen.

## Failing
```html
<head><script src="/app.js"></script><link rel="stylesheet" href="/all.css"></head>
```

## Passing
```html
<head><script src="/app.js" defer></script><link rel="stylesheet" href="/print.css" media="print"></head>
```
"#,
    ..RuleMeta::BASE
};

fn is_js_type(t: Option<&str>) -> bool {
    match t.map(|t| t.trim().to_ascii_lowercase()) {
        None => true,
        Some(t) => {
            t.is_empty() || t == "text/javascript" || t == "application/javascript" || t == "module"
        }
    }
}

impl Rule for RenderBlockingResources {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["script", "link"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !in_head(el) {
            return;
        }
        let v = el.value();
        match v.name() {
            "script" => {
                if v.attr("src").is_none() || !is_js_type(v.attr("type")) {
                    return;
                }
                let module = v
                    .attr("type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("module"));
                if v.attr("async").is_some() || v.attr("defer").is_some() || module {
                    cx.pass();
                } else {
                    let url = v
                        .attr("src")
                        .and_then(|src| crate::support::resource_url(cx.page(), src));
                    let f = cx.fail(
                        el,
                        "This script in <head> blocks parsing and rendering; add defer or async.",
                    );
                    if let Some(url) = url {
                        f.on_resource(url);
                    }
                }
            }
            _ => {
                if !has_rel(el, "stylesheet") || v.attr("disabled").is_some() {
                    return;
                }
                let media = v.attr("media").map(|m| m.trim().to_ascii_lowercase());
                let blocks = match media.as_deref() {
                    None | Some("") | Some("all") | Some("screen") => true,
                    Some(_) => false,
                };
                if blocks {
                    let url = v
                        .attr("href")
                        .and_then(|href| crate::support::resource_url(cx.page(), href));
                    let f = cx.fail(el, "This stylesheet blocks the first render; inline critical CSS and load the rest later.");
                    if let Some(url) = url {
                        f.on_resource(url);
                    }
                } else {
                    cx.pass();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    fn head(x: &str) -> String {
        format!("<html><head><title>T</title>{x}</head><body></body></html>")
    }

    #[test]
    fn examples() {
        RuleTester::new(&RenderBlockingResources)
            .pass(&[
                ("script", &head(r#"<script src="/a.js" defer></script><script src="/b.js" async></script><script type="module" src="/m.js"></script>"#)),
                ("link", &head(r#"<link rel="stylesheet" href="/p.css" media="print"><script type="application/ld+json" src="/x.json"></script>"#)),
            ])
            .inapplicable(&[
                &head("<script>inline()</script>"),
                r#"<html><head><title>T</title></head><body><script src="/a.js"></script></body></html>"#,
            ])
            .fail(&[
                ("script", &head(r#"<script src="/a.js"></script>"#)),
                ("link", &head(r#"<link rel="stylesheet" href="/a.css">"#)),
                ("link", &head(r#"<link rel="stylesheet" href="/a.css" media="screen">"#)),
            ])
            .run();
    }
}
