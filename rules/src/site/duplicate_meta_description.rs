//! `duplicate-meta-description`: each page has its own meta description.

use super::{report_duplicates, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails pages sharing their meta description with another page.
pub struct DuplicateMetaDescription;

static META: RuleMeta = RuleMeta {
    id: "duplicate-meta-description",
    category: Category::Seo,
    title: "Meta descriptions are unique across the site",
    help: "Write a description for each page about that page; drop site-wide boilerplate descriptions.",
    help_url: "https://developers.google.com/search/docs/appearance/snippet#meta-descriptions",
    impact: Impact::Minor,
    docs: r#"## What it checks
Across the crawl, among indexable HTML pages that are their own canonical, no two
pages have the same non-empty `<meta name="description">` (white space folded,
case-insensitive). Each page of a duplicate group fails, listing the others
(seonaut's `ERROR_DUPLICATED_DESCRIPTION`).

## Why it matters
A description copied across pages describes none of them; search engines then
replace it with text they pick themselves.

## Failing
```html
<!-- /mugs -->
<meta name="description" content="Example Pottery – hand-made ceramics since 1998.">
<!-- /bowls -->
<meta name="description" content="Example Pottery – hand-made ceramics since 1998.">
```

## Passing
```html
<!-- /mugs -->
<meta name="description" content="Hand-made mugs in six glazes, fired in a wood kiln …">
<!-- /bowls -->
<meta name="description" content="Serving and cereal bowls, hand-thrown …">
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for DuplicateMetaDescription {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_duplicates(site, out, "meta description", |p| p.meta_description_key);
    }
}

/// The description as this rule compares it: white space folded,
/// case-insensitive; `None` when empty. The summary keeps only its
/// [`super::TextKey`].
pub(crate) fn fold(description: &str) -> Option<String> {
    let folded = description
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    (!folded.is_empty()).then_some(folded)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn duplicates_are_reported() {
        let d = |c: &str| {
            doc("T", "").replace(
                "</title>",
                &format!("</title><meta name=description content=\"{c}\">"),
            )
        };
        let input = site(vec![
            summary("https://example.com/a", &d("Hand made  mugs")),
            summary("https://example.com/b", &d("hand made mugs")),
            summary("https://example.com/c", &d("Bowls")),
            summary("https://example.com/d", &doc("T", "")),
        ]);
        let got = run(&DuplicateMetaDescription, &input);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "https://example.com/a");
        assert_eq!(got[1].0, "https://example.com/b");
    }
}
