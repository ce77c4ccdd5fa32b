//! `long-cache-ttl`: static assets are cached for a long time.

use crate::resources::{self, CacheLifetime};
use crate::{Category, Check, Impact, Rule, Need, RuleMeta};

/// Fails static subresources (scripts, stylesheets, images, fonts, media) served
/// without a cache lifetime, or with one shorter than [`MIN_TTL_SECONDS`].
pub struct LongCacheTtl;

/// Shortest cache lifetime that passes: 30 days (Lighthouse's cache insight
/// ignores lifetimes of 30 days and more).
pub const MIN_TTL_SECONDS: i64 = 30 * 24 * 3600;

/// Statuses whose responses browsers cache (Lighthouse: 200, 203, 206).
pub const CACHEABLE_STATUSES: &[u16] = &[200, 203, 206];

static META: RuleMeta = RuleMeta {
    id: "long-cache-ttl",
    category: Category::Performance,
    title: "Static assets have a long cache lifetime",
    help: "Serve versioned static files (scripts, styles, images, fonts) with Cache-Control: max-age=31536000, immutable, and change their URL when they change.",
    help_url: "https://developer.chrome.com/docs/performance/insights/cache",
    impact: Impact::Moderate,
    needs: &[Need::Subresources],
    docs: r#"## What it checks
Every static subresource a page loads — script, stylesheet, image, font, audio or
video, fetched once per scan — that answers 200, 203 or 206 has a cache lifetime of
at least 30 days, read as Lighthouse's cache insight reads it: `Cache-Control:
max-age`, else `Expires` (measured from the response's `Date`). A resource with
neither has **no cache policy** and fails, whatever its `ETag` or `Last-Modified`
(those only allow revalidation, still a round trip). Resources that turn caching
off on purpose are left alone: `no-cache`, `no-store`, `must-revalidate` or
`private` in `Cache-Control`, `Pragma: no-cache` without `Cache-Control`, or a
lifetime of zero or less. One finding per resource and scan, on the element that
loads it on the first page; the other pages that load it are listed as its
occurrences.

## Why it matters
A long cache lifetime lets repeat visits and other pages of the site reuse files
instead of downloading them again.

## Failing
```html
<!-- /logo.png is served without Cache-Control or Expires -->
<img src="/logo.png" alt="Acme" width="120" height="40">
```

## Passing
```html
<!-- /logo.3f9a.png: Cache-Control: public, max-age=31536000, immutable -->
<img src="/logo.3f9a.png" alt="Acme" width="120" height="40">
```
"#,
    ..RuleMeta::BASE
};

/// A lifetime in words: `10 minutes`, `2 hours`, `3 days`.
fn duration(seconds: i64) -> String {
    let (n, unit) = if seconds >= 86_400 {
        (seconds / 86_400, "day")
    } else if seconds >= 3_600 {
        (seconds / 3_600, "hour")
    } else if seconds >= 60 {
        (seconds / 60, "minute")
    } else {
        (seconds, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

impl Rule for LongCacheTtl {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        for sub in &pcx.page().subresources {
            let f = &sub.facts;
            if !sub.kind.is_static() || !CACHEABLE_STATUSES.contains(&f.status) {
                continue;
            }
            let problem = match f.cache_lifetime() {
                CacheLifetime::Disabled => continue,
                CacheLifetime::Seconds(s) if s <= 0 => continue,
                CacheLifetime::Seconds(s) if s >= MIN_TTL_SECONDS => {
                    cx.pass();
                    continue;
                }
                CacheLifetime::Seconds(s) => {
                    (Some(s), format!("is cached for only {}", duration(s)))
                }
                CacheLifetime::Unspecified => (
                    None,
                    "has no cache policy (no Cache-Control max-age, no Expires)".to_string(),
                ),
            };
            let (ttl, what) = problem;
            let message = format!(
                "The {} {} {what}; static assets should be cached for at least 30 days.",
                sub.kind.as_str(),
                sub.url
            );
            let data = serde_json::json!({
                "url": sub.url,
                "kind": sub.kind,
                "ttl_seconds": ttl,
                "cache_control": f.cache_control,
                "expires": f.expires,
                "etag": f.etag,
                "last_modified": f.last_modified,
            });
            match resources::element_for(pcx, &sub.url) {
                Some(el) => cx.fail(el, message),
                None => cx.fail_page(message),
            }
            .with_data(data)
            .on_resource(sub.url.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{ResourceFacts, ResourceKind};
    use crate::testing::RuleTester;

    fn logo(kind: ResourceKind, cc: Option<&str>) -> crate::Page {
        RuleTester::page(r#"<img src="/logo.png" alt="Acme">"#).with_subresource(
            "https://example.com/logo.png",
            kind,
            ResourceFacts {
                status: 200,
                content_type: Some("image/png".into()),
                cache_control: cc.map(str::to_string),
                etag: Some("\"abc\"".into()),
                ..ResourceFacts::default()
            },
        )
    }

    #[test]
    fn examples() {
        RuleTester::new(&LongCacheTtl)
            .pass_page("(page)", logo(
                ResourceKind::Image,
                Some("public, max-age=31536000, immutable"),
            ))
            .pass_page("(page)", logo(ResourceKind::Image, Some("max-age=2592000")))
            .inapplicable_page(logo(ResourceKind::Image, Some("no-store")))
            .inapplicable_page(logo(ResourceKind::Image, Some("max-age=0")))
            .inapplicable_page(logo(ResourceKind::Other, None))
            .fail_page("img", logo(ResourceKind::Image, None))
            .fail_page("img", logo(ResourceKind::Image, Some("public, max-age=600")))
            .fail_page("img", logo(ResourceKind::Font, Some("max-age=2591999")))
            .run();
    }

    #[test]
    fn messages() {
        let run = |p: crate::Page| {
            crate::analyze(&p, &[&LongCacheTtl])
                .findings
                .into_iter()
                .map(|f| (f.message, f.snippet))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            run(logo(ResourceKind::Image, None)),
            vec![(
                "The image https://example.com/logo.png has no cache policy (no Cache-Control max-age, no Expires); static assets should be cached for at least 30 days.".to_string(),
                r#"<img alt="Acme" src="/logo.png">"#.to_string()
            )]
        );
        assert_eq!(
            run(logo(ResourceKind::Image, Some("max-age=600")))[0].0,
            "The image https://example.com/logo.png is cached for only 10 minutes; static assets should be cached for at least 30 days."
        );
        assert_eq!(duration(86_400 * 3), "3 days");
        assert_eq!(duration(1), "1 second");
    }
}
