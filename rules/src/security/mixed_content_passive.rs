//! `mixed-content-passive`: HTTPS pages load no images or media over HTTP.

use scraper::ElementRef;

use super::mixed_content_active::is_http_url;
use crate::support::is_https;
use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails images, audio and video loaded over plain HTTP from an HTTPS page.
pub struct MixedContentPassive;

static META: RuleMeta = RuleMeta {
    id: "mixed-content-passive",
    category: Category::Security,
    title: "No images or media over HTTP on HTTPS pages",
    help: "Load images, audio and video over HTTPS.",
    help_url: "https://developer.mozilla.org/en-US/docs/Web/Security/Mixed_content",
    impact: Impact::Moderate,
    docs: r#"## What it checks
On pages served over HTTPS, the `src` of `<img>`, `<audio>`, `<video>`, `<source>`
and `<track>`, each URL of an `srcset`, and the `poster` of `<video>` must not be
`http:` URLs. This is "passive" (upgradable) mixed content: browsers try it over
HTTPS and show a broken image when that fails.

## Why it matters
An image fetched over HTTP can be swapped or observed on the network path: wrong
prices or messages, tracking of what the user views, and a page no longer shown as
fully secure.

## Failing
```html
<img src="http://images.example.com/logo.png" alt="Example">
```

## Passing
```html
<img src="https://images.example.com/logo.png" alt="Example">
```
"#,
    ..RuleMeta::BASE
};

impl Rule for MixedContentPassive {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["img", "audio", "video", "source", "track"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_https(cx.page().page()) {
            return;
        }
        let v = el.value();
        let mut urls: Vec<&str> = Vec::new();
        urls.extend(v.attr("src"));
        urls.extend(v.attr("poster"));
        if let Some(srcset) = v.attr("srcset") {
            urls.extend(
                srcset
                    .split(',')
                    .filter_map(|c| c.split_ascii_whitespace().next()),
            );
        }
        if urls.is_empty() {
            return;
        }
        match urls.iter().find(|u| is_http_url(u)) {
            Some(u) => {
                cx.fail(
                    el,
                    format!(
                        "<{}> loads {} over plain HTTP on an HTTPS page.",
                        v.name(),
                        u.trim()
                    ),
                )
                .on_resource(u.trim());
            }
            None => cx.pass(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&MixedContentPassive)
            .pass(&[
                ("img", r#"<img src="https://i.example.com/a.png" alt="">"#),
                ("img", r#"<img src="/a.png" srcset="/a-2x.png 2x" alt="">"#),
            ])
            .fail(&[
                ("img", r#"<img src="http://i.example.com/a.png" alt="">"#),
                ("img", r#"<img src="/a.png" srcset="/a.png 1x, http://i.example.com/a-2x.png 2x" alt="">"#),
                ("video", r#"<video poster="http://i.example.com/p.jpg"></video>"#),
            ])
            .run();
    }
}
