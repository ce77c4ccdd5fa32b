//! `near-duplicate-content`: no two pages are almost the same.

use super::{duplicate_candidates, SiteCheck, SiteInput, SiteRule};
use crate::support::text::resemblance;
use crate::{Category, Impact, RuleMeta};

/// Fails pages whose text resembles another page's by [`MIN_RESEMBLANCE`] or more.
pub struct NearDuplicateContent;

/// Smallest estimated Jaccard resemblance of two pages' 3-word shingle sets that
/// counts as a near duplicate.
pub const MIN_RESEMBLANCE: f64 = 0.8;

/// Fewest words for a page to take part (short texts have too few shingles for a
/// stable estimate).
pub const MIN_WORDS: u32 = 100;

static META: RuleMeta = RuleMeta {
    id: "near-duplicate-content",
    category: Category::Seo,
    title: "No near-duplicate pages",
    help: "Merge near-identical pages, make each one substantially different, or canonicalise the variants to one URL.",
    help_url: "https://developers.google.com/search/docs/crawling-indexing/consolidate-duplicate-urls",
    impact: Impact::Moderate,
    docs: r#"## What it checks
Each indexable HTML page that is its own canonical and has at least 100 words gets
a MinHash signature (Broder) of its visible text: the text is lowercased and cut into
overlapping 3-word shingles, and for each of 64 seeded hash functions (FNV-1a mixed
with SplitMix64) the smallest shingle hash is kept. The share of equal positions of
two signatures estimates the Jaccard resemblance of the two shingle sets (standard
error at most 0.0625, about 0.04 near the threshold). Two pages resembling each other
by **0.8 or more** are near duplicates, unless their text is exactly equal (that is
`duplicate-content`'s). Each page of a near-duplicate pair fails, listing the others
with the resemblance.

Why MinHash and 0.8 rather than a 64-bit simhash: on pages of a few hundred words
simhash distances are noisy (a 140-word page with one city name changed three times
measured 12 bits apart, two different articles sharing a navigation block 18 bits),
so no bit threshold separates the cases; resemblance is directly interpretable —
0.8 means four in five of the text's phrases are shared.

## Why it matters
Pages that differ only in a product name or a city ("doorway" pages, filter and
sort variants) compete with each other in search and look like spam.

## Failing
```html
<!-- /plumber-leeds and /plumber-york: the same 400 words, only the city differs -->
```

## Passing
```html
<!-- each city page describes the local team, area and prices -->
```
"#,
    ..RuleMeta::BASE
};

impl SiteRule for NearDuplicateContent {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_site(&self, site: &SiteInput, out: &mut SiteCheck) {
        let pages: Vec<_> = duplicate_candidates(site)
            .filter(|p| p.word_count >= MIN_WORDS && !p.minhash.is_empty())
            .collect();
        // Pairwise comparison of 64-value signatures: about 3·10⁹ word compares for
        // ten thousand pages, a second or two; fine at the plans' page limits.
        for (i, p) in pages.iter().enumerate() {
            let near: Vec<(&str, f64)> = pages
                .iter()
                .enumerate()
                .filter(|(j, o)| *j != i && o.text_hash != p.text_hash)
                .map(|(_, o)| (o.final_url.as_str(), resemblance(&p.minhash, &o.minhash)))
                .filter(|(_, r)| *r >= MIN_RESEMBLANCE)
                .collect();
            if near.is_empty() {
                out.pass();
            } else {
                let list: Vec<String> = near
                    .iter()
                    .map(|(u, r)| format!("{u} ({:.0} % similar)", r * 100.0))
                    .collect();
                out.fail_with(
                    &p.final_url,
                    format!("The text is nearly the same as on: {}.", list.join(", ")),
                    serde_json::json!({
                        "near_duplicates": near.iter().map(|(u, r)| serde_json::json!({"url": u, "resemblance": r})).collect::<Vec<_>>(),
                        "min_resemblance": MIN_RESEMBLANCE,
                    }),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{doc, run, site, summary};
    use super::*;

    const TEXT: &str = "Our plumbers in CITY fix leaking taps, blocked drains and broken boilers the same day. \
        We have worked in CITY and the villages around it for more than twenty years, and every job comes with a \
        written quote before we start and a two year guarantee when we finish. Call us any time of day or night: \
        a real person answers the phone, and in most parts of CITY an engineer is at your door within the hour. \
        We carry common spare parts in every van, so most repairs are done on the first visit without a second \
        call out charge. Our prices are fixed by the job, not by the hour, so you know the cost before we pick up \
        a tool. Ask us about annual boiler servicing, landlord gas safety certificates and bathroom fitting too.";

    #[test]
    fn city_pages_are_near_duplicates() {
        let page = |city: &str| doc(city, &format!("<p>{}</p>", TEXT.replace("CITY", city)));
        let other = doc("Bakery", &format!("<p>{}</p>", "Fresh bread and cakes baked every morning in our small family bakery near the market square, with sourdough loaves, rye, spelt and seeded breads, croissants and seasonal fruit tarts. ".repeat(5)));
        let input = site(vec![
            summary("https://example.com/leeds", &page("Leeds")),
            summary("https://example.com/york", &page("York")),
            summary("https://example.com/bakery", &other),
        ]);
        let got = run(&NearDuplicateContent, &input);
        assert_eq!(
            got.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(),
            vec!["https://example.com/leeds", "https://example.com/york"],
            "{got:?}"
        );
    }
}
