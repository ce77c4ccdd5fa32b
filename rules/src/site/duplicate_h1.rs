//! `duplicate-h1`: each page has its own main heading.

use super::{report_duplicates, SiteCheck, SiteInput, SiteRule};
use crate::{Category, Impact, RuleMeta};

/// Fails pages whose first `<h1>` repeats another page's.
pub struct DuplicateH1;

static META: RuleMeta = RuleMeta {
    id: "duplicate-h1",
    category: Category::Seo,
    title: "Main headings are unique across the site",
    help: "Give each page a main heading that names its own topic, not the site's.",
    help_url: "https://developers.google.com/search/docs/appearance/title-link#page-titles",
    impact: Impact::Minor,
    docs: r#"## What it checks
Across the crawl, among indexable HTML pages that are their own canonical, no two
pages have the same first `<h1>` text (white space folded, case-insensitive). Each
page of a duplicate group fails, listing the others.

## Why it matters
Identical main headings usually mean the site name or a template heading sits in
`<h1>`, so the pages' actual topics are not stated where search engines and readers
look first.

## Failing
```html
<!-- /mugs -->
<h1>Example Pottery</h1>
<!-- /bowls -->
<h1>Example Pottery</h1>
```

## Passing
```html
<!-- /mugs -->
<h1>Hand-made mugs</h1>
<!-- /bowls -->
<h1>Hand-made bowls</h1>
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for DuplicateH1 {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        report_duplicates(site, out, "main heading (<h1>)", |p| p.h1_key);
    }
}

/// The first `<h1>`'s text as this rule compares it (its white space already
/// folded by the summary): case-insensitive; `None` when empty. The summary
/// keeps only its [`super::TextKey`].
pub(crate) fn fold(heading: &str) -> Option<String> {
    (!heading.is_empty()).then(|| heading.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    #[test]
    fn duplicates_are_reported() {
        let input = site(vec![
            summary("https://example.com/a", &doc("A", "<h1>Pottery</h1>")),
            summary("https://example.com/b", &doc("B", "<h1>pottery</h1>")),
            summary("https://example.com/c", &doc("C", "<h1>Mugs</h1>")),
        ]);
        let got = run(&DuplicateH1, &input);
        assert_eq!(
            got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
            vec!["https://example.com/a", "https://example.com/b"]
        );
    }
}
