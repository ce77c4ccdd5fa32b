//! `hreflang-return-links`: hreflang annotations are confirmed by their targets.

use super::{same_url, SiteCheck, SiteIndex, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails hreflang alternates whose crawled target does not link back, or that
/// point to redirects, errors, noindex or non-canonical pages.
pub struct HreflangReturnLinks;

static META: RuleMeta = RuleMeta {
    id: "hreflang-return-links",
    category: Category::Seo,
    title: "Hreflang alternates link back and are indexable",
    help: "Make every page of an hreflang set list all the others (and itself), and point hreflang only at final, indexable, canonical URLs.",
    help_url: "https://developers.google.com/search/docs/specialty/international/localized-versions#common-mistakes",
    impact: Impact::Moderate,
    docs: r#"## What it checks
For each hreflang alternate (other than the page itself) whose target URL was
crawled:

- the target's own hreflang set must include the page (a return link; seonaut's
  `ERROR_HREFLANG_RETURN`);
- the target must not redirect (`ERROR_HREFLANG_REDIRECT`), answer 4xx/5xx
  (`ERROR_HREFLANG_ERROR`), be noindex (`ERROR_HREFLANG_NO_INDEXABLE`) or
  canonicalise to another URL (`ERROR_HREFLANG_TO_NON_CANONICAL`).

Targets outside the crawl are not judged. One finding per broken alternate, on the
page that declares it.

## Why it matters
Search engines ignore hreflang pairs that are not confirmed from both sides, and
annotations pointing at redirects or error pages send searchers to the wrong place.

## Failing
```html
<!-- /en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- /de/ -->
<h1>Handgemachte Keramik</h1>  <!-- no hreflang back to /en/ -->
```

## Passing
```html
<!-- /en/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
<!-- /de/ -->
<link rel="alternate" hreflang="en" href="https://example.com/en/">
<link rel="alternate" hreflang="de" href="https://example.com/de/">
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for HreflangReturnLinks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let index = SiteIndex::new(site);
        for p in &site.pages {
            if !p.indexable() {
                continue;
            }
            for alt in &p.hreflang {
                if same_url(&alt.url, &p.final_url) {
                    continue;
                }
                let Some(t) = index.get(&alt.url) else {
                    continue;
                };
                let problem = if !same_url(&t.final_url, &alt.url) {
                    Some(format!("redirects to {}", t.final_url))
                } else if t.status >= 400 {
                    Some(format!("answers {}", t.status))
                } else if t.noindex {
                    Some("is noindex".to_string())
                } else if !t.self_canonical() {
                    Some(format!(
                        "is canonicalised to {}",
                        t.canonical.as_deref().unwrap_or("")
                    ))
                } else if !t.hreflang.iter().any(|b| same_url(&b.url, &p.final_url)) {
                    Some("does not link back with hreflang".to_string())
                } else {
                    None
                };
                match problem {
                    None => out.pass(),
                    Some(why) => {
                        out.fail(
                            &p.final_url,
                            format!("Hreflang alternate {} ({}) {why}.", alt.url, alt.lang),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    fn alts(links: &[(&str, &str)]) -> String {
        links
            .iter()
            .map(|(l, h)| format!(r#"<link rel="alternate" hreflang="{l}" href="{h}">"#))
            .collect()
    }

    #[test]
    fn missing_return_links_and_bad_targets() {
        let en = doc("EN", "").replace(
            "</title>",
            &format!(
                "</title>{}",
                alts(&[
                    ("en", "https://example.com/en/"),
                    ("de", "https://example.com/de/"),
                    ("fr", "https://example.com/fr/"),
                    ("es", "https://example.com/es/"),
                ])
            ),
        );
        let de = doc("DE", "").replace(
            "</title>",
            &format!(
                "</title>{}",
                alts(&[
                    ("de", "https://example.com/de/"),
                    ("en", "https://example.com/en/")
                ])
            ),
        );
        let fr = doc("FR", "");
        let es = doc("ES", "").replace(
            "</title>",
            r#"</title><meta name="robots" content="noindex">"#,
        );
        let input = site(vec![
            summary("https://example.com/en/", &en),
            summary("https://example.com/de/", &de),
            summary("https://example.com/fr/", &fr),
            summary("https://example.com/es/", &es),
        ]);
        assert_eq!(
            run(&HreflangReturnLinks, &input),
            vec![
                ("https://example.com/en/".to_string(), "Hreflang alternate https://example.com/fr/ (fr) does not link back with hreflang.".to_string()),
                ("https://example.com/en/".to_string(), "Hreflang alternate https://example.com/es/ (es) is noindex.".to_string()),
            ]
        );
    }

    #[test]
    fn redirected_error_and_non_canonical_targets() {
        let set = alts(&[
            ("en", "https://example.com/en/"),
            ("it", "https://example.com/it"),
            ("nl", "https://example.com/nl/"),
            ("pt", "https://example.com/pt/"),
        ]);
        let with = |extra: &str| doc("X", "").replace("</title>", &format!("</title>{set}{extra}"));
        let mut it = summary("https://example.com/it", &with(""));
        it.final_url = "https://example.com/it/".into();
        let mut nl = summary("https://example.com/nl/", &with(""));
        nl.status = 500;
        let pt = summary(
            "https://example.com/pt/",
            &with(r#"<link rel="canonical" href="https://example.com/pt/home">"#),
        );
        let input = site(vec![
            summary("https://example.com/en/", &with("")),
            it,
            nl,
            pt,
        ]);
        let en_findings: Vec<(String, String)> = run(&HreflangReturnLinks, &input)
            .into_iter()
            .filter(|(page, _)| page == "https://example.com/en/")
            .collect();
        assert_eq!(
            en_findings,
            vec![
                ("https://example.com/en/".to_string(), "Hreflang alternate https://example.com/it (it) redirects to https://example.com/it/.".to_string()),
                ("https://example.com/en/".to_string(), "Hreflang alternate https://example.com/nl/ (nl) answers 500.".to_string()),
                ("https://example.com/en/".to_string(), "Hreflang alternate https://example.com/pt/ (pt) is canonicalised to https://example.com/pt/home.".to_string()),
            ]
        );
    }
}
