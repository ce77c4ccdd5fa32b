//! `broken-resources`: images, scripts and stylesheets load.

use super::{report_link_statuses, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, Need, RuleMeta};

/// Fails subresources whose URL answers 4xx/5xx or cannot be reached.
pub struct BrokenResources;

static META: RuleMeta = RuleMeta {
    id: "broken-resources",
    category: Category::Quality,
    title: "Images, scripts and stylesheets load",
    help: "Fix the URLs of missing images, scripts and stylesheets, or remove the references.",
    help_url: "https://developer.chrome.com/docs/lighthouse/best-practices/errors-in-console",
    impact: Impact::Serious,
    needs: &[Need::Subresources, Need::ResourceStatus],
    docs: r#"## What it checks
Every subresource a crawled page references — `<img src>`, `<script src>`,
stylesheet / icon / preload `<link href>`, `<iframe src>`, `<video>`, `<audio>`,
`<source>` and `<track>` `src` — with an `http(s)` URL is checked once per scan
(cached per URL; resources on the scanned site only when its robots.txt allows
them), with the crawl's politeness and private-address guard. Scripts,
stylesheets, images, fonts and media get the one `GET` that also records their
size, compression and cache headers for the performance rules (fetched while the
crawl runs, before the page's rules); iframes, which are documents, get `HEAD`,
then `GET` when `HEAD` is refused or fails. Redirects are followed. A final status
outside the accepted ones (default 100–399; `--accept`, `config.accept`), or no
answer, fails; a persistent `429` needs review ("rate limited"). One finding per
page and resource.

## Why it matters
A missing stylesheet or script breaks the page's layout or behaviour; a missing image
leaves a hole. Each failed request also costs a round trip.

## Failing
```html
<!-- / -->
<img src="/images/hero.webp" alt="Our workshop" width="800" height="400">
<!-- /images/hero.webp
HTTP/1.1 404 Not Found -->
```

## Passing
```html
<!-- / -->
<img src="/images/workshop.webp" alt="Our workshop" width="800" height="400">
<!-- /images/workshop.webp
HTTP/1.1 200 OK -->
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for BrokenResources {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_link_statuses(site, out, "resource", |p| &p.resources);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::super::LinkStatus;
    use super::*;

    #[test]
    fn missing_images_fail() {
        let mut input = site(vec![summary(
            "https://example.com/",
            &doc(
                "Home",
                r#"<img src="/a.webp" alt=""><img src="/b.webp#x" alt=""><script src="/app.js"></script><link rel="preconnect" href="https://cdn.example/">"#,
            ),
        )]);
        assert_eq!(
            input.pages[0]
                .resources
                .iter()
                .map(|r| &**r)
                .collect::<Vec<_>>(),
            vec![
                "https://example.com/a.webp",
                "https://example.com/b.webp",
                "https://example.com/app.js"
            ]
        );
        input.link_status.insert(
            "https://example.com/a.webp".into(),
            LinkStatus::Ok { status: 200 },
        );
        input.link_status.insert(
            "https://example.com/b.webp".into(),
            LinkStatus::Broken { status: 410 },
        );
        assert_eq!(
            run(&BrokenResources, &input),
            vec![(
                "https://example.com/".to_string(),
                "The resource https://example.com/b.webp is broken: it answers 410.".to_string()
            )]
        );
    }
}
