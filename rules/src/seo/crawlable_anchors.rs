//! `crawlable-anchors`: links have an `href` that crawlers can follow.

use scraper::ElementRef;

use crate::{Category, Check, Impact, Rule, RuleMeta, Visits};

/// Fails `<a>` elements that act as links without a followable `href`.
pub struct CrawlableAnchors;

static META: RuleMeta = RuleMeta {
    id: "crawlable-anchors",
    category: Category::Seo,
    title: "Links are crawlable",
    help: "Give every link a real URL in href (`<a href=\"/mugs\">`), not `javascript:` or a click handler alone.",
    help_url: "https://developer.chrome.com/docs/lighthouse/seo/crawlable-anchors",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Each `<a>` that is meant as a link must have an `href` search engines can follow:

- an `href` of `javascript:…` fails;
- an empty `href` (or only white space) fails;
- an `<a>` without `href` but with an `onclick` handler fails (navigation only in
  script);
- `<a>` without `href` and without a handler (a placeholder or named anchor) and
  fragment links (`#top`) are not checked; neither are `mailto:`, `tel:` and other
  schemes.

As in Lighthouse's `crawlable-anchors` audit.

## Why it matters
Crawlers follow URLs in `href`; they do not click. Pages reachable only through
script links are not discovered and get no link equity.

## Failing
```html
<a href="javascript:void(0)" onclick="go('/mugs')">Mugs</a>
```

## Passing
```html
<a href="/mugs">Mugs</a>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for CrawlableAnchors {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["a"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        let v = el.value();
        match v.attr("href") {
            None => {
                if v.attr("onclick").is_some() {
                    cx.fail(
                        el,
                        "The link navigates only through an onclick handler; give it an href.",
                    );
                }
            }
            Some(h) => {
                let h = h.trim();
                if h.is_empty() {
                    cx.fail(el, "The link's href is empty.");
                } else if h
                    .get(..11)
                    .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"))
                {
                    cx.fail(
                        el,
                        format!("The link's href is `{h}`, which crawlers cannot follow."),
                    );
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

    #[test]
    fn examples() {
        RuleTester::new(&CrawlableAnchors)
            .pass(&[
                ("a", r#"<a href="/mugs">Mugs</a>"#),
                ("a", r##"<a href="#top">Top</a>"##),
                ("html > body > a:nth-child(2)", r#"<a name="old-anchor"></a><a href="mailto:a@example.com">Mail</a>"#),
            ])
            .fail(&[
                ("a", r#"<a href="javascript:void(0)">Mugs</a>"#),
                ("a", r#"<a onclick="go('/mugs')">Mugs</a>"#),
                ("a", r#"<a href=" ">Mugs</a>"#),
            ])
            .run();
    }
}
