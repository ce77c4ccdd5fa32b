//! `mixed-content-active`: HTTPS pages load no scripts, styles or frames over HTTP.

use scraper::ElementRef;

use crate::support::{has_rel, is_https};
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails active subresources loaded over plain HTTP from an HTTPS page.
pub struct MixedContentActive;

static META: RuleMeta = RuleMeta {
    id: "mixed-content-active",
    category: Category::Security,
    title: "No scripts, stylesheets or frames over HTTP on HTTPS pages",
    help: "Load every script, stylesheet, frame, object and embed over HTTPS.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content",
    impact: Impact::Critical,
    docs: r#"## What it checks
On pages served over HTTPS, the `src` of `<script>`, `<iframe>`, `<frame>` and
`<embed>`, the `data` of `<object>` and the `href` of `<link rel="stylesheet">`,
`<link rel="preload">` and `<link rel="modulepreload">` must not be `http:` URLs.
These are "active" (blockable) mixed content: browsers refuse to load them, so the
page also breaks.

## Why it matters
A script or stylesheet fetched over HTTP can be replaced by anyone on the network
path and then controls the whole HTTPS page.

## Failing
```html
<script src="http://cdn.example.com/app.js"></script>
```

## Passing
```html
<script src="https://cdn.example.com/app.js"></script>
```
"#,
    ..RuleMeta::BASE
};

/// The URL attribute that loads an active resource, if the element is one.
fn active_url(el: ElementRef<'_>) -> Option<&str> {
    let v = el.value();
    match v.name() {
        "script" | "iframe" | "frame" | "embed" => v.attr("src"),
        "object" => v.attr("data"),
        "link"
            if has_rel(el, "stylesheet")
                || has_rel(el, "preload")
                || has_rel(el, "modulepreload") =>
        {
            v.attr("href")
        }
        _ => None,
    }
}

/// Whether a raw attribute value is an absolute `http:` URL.
pub fn is_http_url(raw: &str) -> bool {
    raw.trim()
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("http:"))
}

impl Rule for MixedContentActive {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["script", "iframe", "frame", "embed", "object", "link"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_https(cx.page().page()) {
            return;
        }
        let Some(url) = active_url(el) else {
            return;
        };
        if is_http_url(url) {
            cx.fail(
                el,
                format!(
                    "<{}> loads {} over plain HTTP on an HTTPS page; browsers block it.",
                    el.value().name(),
                    url.trim()
                ),
            )
            .on_resource(url.trim());
        } else {
            cx.pass();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;
    use crate::Page;

    #[test]
    fn examples() {
        RuleTester::new(&MixedContentActive)
            .pass(&[
                ("script", r#"<script src="https://cdn.example.com/a.js"></script>"#),
                ("script", r#"<script src="/a.js"></script><link rel="stylesheet" href="//cdn.example.com/a.css">"#),
            ])
            .inapplicable(&[
                r#"<a href="http://other.example/">plain links are not subresources</a>"#,
            ])
            .fail(&[
                ("script", r#"<script src="http://cdn.example.com/a.js"></script>"#),
                ("link", r#"<link rel="stylesheet" href="HTTP://cdn.example.com/a.css">"#),
                ("iframe", r#"<iframe src="http://video.example/embed"></iframe>"#),
                ("object", r#"<object data="http://x.example/movie.swf"></object>"#),
            ])
            .inapplicable_page(Page::from_html("http://example.com/", r#"<script src="http://cdn.example.com/a.js"></script>"#))
            .run();
    }
}
