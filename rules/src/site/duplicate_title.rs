//! `duplicate-title`: each page has its own title.

use super::{report_duplicates, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails pages sharing their `<title>` with another page of the site.
pub struct DuplicateTitle;

static META: RuleMeta = RuleMeta {
    id: "duplicate-title",
    category: Category::Seo,
    title: "Titles are unique across the site",
    help: "Give every page its own title that says what sets it apart; or canonicalise true duplicates to one URL.",
    help_url: "https://developers.google.com/search/docs/appearance/title-link#page-titles",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Across the crawl, among indexable HTML pages (2xx, not noindex) that are their own
canonical, no two pages have the same `<title>` text (white space folded, compared
case-insensitively). Each page of a duplicate group fails, listing the others
(seonaut's `ERROR_DUPLICATED_TITLE`). Pages canonicalised to another URL are expected
duplicates and are skipped.

## Why it matters
Search engines use the title to tell pages apart; identical titles make them compete
for the same searches and leave searchers unable to choose.

## Failing
```html
<!-- /mugs -->
<title>Example Pottery</title>
<!-- /bowls -->
<title>Example Pottery</title>
```

## Passing
```html
<!-- /mugs -->
<title>Hand-made mugs – Example Pottery</title>
<!-- /bowls -->
<title>Hand-made bowls – Example Pottery</title>
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for DuplicateTitle {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_duplicates(site, out, "title", |p| p.title_key);
    }
}

/// The title text as this rule compares it (its white space already folded by
/// the summary): case-insensitive; `None` when empty. The summary keeps only
/// its [`super::TextKey`].
pub(crate) fn fold(title: &str) -> Option<String> {
    (!title.is_empty()).then(|| title.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn duplicates_are_reported_on_each_page() {
        let input = site(vec![
            summary("https://example.com/a", &doc("Same", "")),
            summary("https://example.com/b", &doc("same", "")),
            summary("https://example.com/c", &doc("Other", "")),
            summary(
                "https://example.com/d",
                &doc("Same", "").replace(
                    "</title>",
                    "</title><link rel=canonical href=https://example.com/a>",
                ),
            ),
            summary(
                "https://example.com/e",
                &doc("Same", "").replace("</title>", "</title><meta name=robots content=noindex>"),
            ),
        ]);
        assert_eq!(
            run(&DuplicateTitle, &input),
            vec![
                (
                    "https://example.com/a".to_string(),
                    "The title is the same on 1 other page(s): https://example.com/b.".to_string()
                ),
                (
                    "https://example.com/b".to_string(),
                    "The title is the same on 1 other page(s): https://example.com/a.".to_string()
                ),
            ]
        );
    }
}
