//! `near-duplicate-content`: no two pages are almost the same.

use std::collections::HashMap;

use super::{duplicate_candidates, SiteCheck, SiteInput, SiteRule};
use crate::support::text::{resemblance, MinHashValue, MINHASH_SIZE};
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
with SplitMix64) the smallest shingle hash is kept (its high 32 bits). The share of
equal positions of two signatures estimates the Jaccard resemblance of the two
shingle sets (standard
error at most 0.0625, about 0.04 near the threshold). Two pages resembling each other
by **0.8 or more** are near duplicates, unless their text is exactly equal (that is
`duplicate-content`'s). Each page of a near-duplicate pair fails, listing the others
with the resemblance. Candidate pairs are found by banding the signatures (16 bands
of 4 values; locality-sensitive hashing), which finds every pair at 0.8 or more
without comparing all pairs, so large sites stay fast.

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
        // Pages with equal text have equal signatures and are `duplicate-content`'s:
        // compare each distinct text once, then expand back to its pages.
        let mut group_of_text: HashMap<&[u8; 32], usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut signatures: Vec<&[MinHashValue]> = Vec::new();
        let page_group: Vec<usize> = pages
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let g = *group_of_text.entry(&p.text_hash).or_insert_with(|| {
                    groups.push(Vec::new());
                    signatures.push(&p.minhash);
                    groups.len() - 1
                });
                groups[g].push(i);
                g
            })
            .collect();
        let near_groups = near_pairs(&signatures);
        for (i, p) in pages.iter().enumerate() {
            let mut near: Vec<(usize, f64)> = near_groups[page_group[i]]
                .iter()
                .flat_map(|&(g, r)| groups[g].iter().map(move |&j| (j, r)))
                .collect();
            near.sort_by_key(|&(j, _)| j);
            let near: Vec<(&str, f64)> = near
                .into_iter()
                .map(|(j, r)| (&*pages[j].final_url, r))
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

/// Bands of the locality-sensitive hashing that picks candidate pairs.
///
/// Comparing every pair of signatures is quadratic (at 10,000 pages, 5·10⁷ pairs and
/// minutes of work), so signatures are cut into `BANDS` bands of
/// [`ROWS`] consecutive values (16 × 4 = 64) and only signatures equal in at least
/// one whole band are compared. Two signatures that resemble each other by
/// [`MIN_RESEMBLANCE`] (0.8: at least 52 of 64 positions equal) differ in at most
/// 12 positions, which can spoil at most 12 of the 16 bands: such a pair always
/// shares a band, so the banding never misses a near duplicate and results equal
/// the pairwise comparison's. What it saves: a pair of resemblance *s* becomes a
/// candidate with probability 1 − (1 − s⁴)¹⁶, about 64 % at s = 0.5, 12 % at
/// s = 0.3 and 0.02 % at s = 0.1, and unrelated pages (s near 0) almost never
/// meet. (Fewer, longer bands would prune more but could then miss pairs just
/// above the threshold.)
pub const BANDS: usize = 16;

/// Signature values per band (see [`BANDS`]).
pub const ROWS: usize = MINHASH_SIZE / BANDS;

/// For each signature, the others that resemble it by [`MIN_RESEMBLANCE`] or more,
/// with the resemblance, found through [`BANDS`] × [`ROWS`] banding.
///
/// Memory stays small at any site size (issue 9: a map of every band of every
/// signature plus a set of compared pairs took 25 MB at 10,000 pages): bands are
/// bucketed one at a time by sorting `(hash of the band, signature)` entries, so
/// equal bands are neighbours; a pair is compared only when the band is really
/// equal (not just its hash) and no earlier band was, which compares each
/// candidate pair exactly once without remembering it.
fn near_pairs(signatures: &[&[MinHashValue]]) -> Vec<Vec<(usize, f64)>> {
    use std::hash::{Hash, Hasher};
    fn band_of(sig: &[MinHashValue], band: usize) -> Option<&[MinHashValue]> {
        sig.chunks(ROWS).nth(band)
    }
    let mut near: Vec<Vec<(usize, f64)>> = vec![Vec::new(); signatures.len()];
    let mut entries: Vec<(u64, usize)> = Vec::with_capacity(signatures.len());
    for band in 0..BANDS {
        entries.clear();
        for (i, sig) in signatures.iter().enumerate() {
            if let Some(rows) = band_of(sig, band) {
                let mut h = std::hash::DefaultHasher::new();
                rows.hash(&mut h);
                entries.push((h.finish(), i));
            }
        }
        entries.sort_unstable();
        for run in entries.chunk_by(|x, y| x.0 == y.0) {
            for (k, &(_, a)) in run.iter().enumerate() {
                for &(_, b) in &run[k + 1..] {
                    let (sa, sb) = (signatures[a], signatures[b]);
                    let same_band = band_of(sa, band) == band_of(sb, band);
                    let met_before = sa
                        .chunks(ROWS)
                        .zip(sb.chunks(ROWS))
                        .take(band)
                        .any(|(x, y)| x == y);
                    if !same_band || met_before {
                        continue;
                    }
                    let r = resemblance(sa, sb);
                    if r >= MIN_RESEMBLANCE {
                        near[a].push((b, r));
                        near[b].push((a, r));
                    }
                }
            }
        }
    }
    near
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

    #[test]
    fn banding_cannot_miss_a_pair_at_the_threshold() {
        let max_differing = MINHASH_SIZE - (MIN_RESEMBLANCE * MINHASH_SIZE as f64).ceil() as usize;
        assert_eq!(BANDS * ROWS, MINHASH_SIZE);
        assert!(
            BANDS > max_differing,
            "{BANDS} bands, {max_differing} differing values"
        );
    }

    #[test]
    fn banding_finds_exactly_the_pairwise_pairs() {
        // SplitMix64 stream: deterministic pseudo-random signatures.
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut sigs: Vec<Vec<MinHashValue>> = Vec::new();
        for _ in 0..6 {
            let base: Vec<MinHashValue> =
                (0..MINHASH_SIZE).map(|_| next() as MinHashValue).collect();
            // Variants differing in 0..=24 positions, spread at pseudo-random places:
            // resemblance from 1.0 down to 0.625, across the threshold.
            for changed in 0..=24usize {
                let mut v = base.clone();
                for _ in 0..changed {
                    let pos = (next() % MINHASH_SIZE as u64) as usize;
                    v[pos] = next() as MinHashValue;
                }
                sigs.push(v);
            }
        }
        for _ in 0..40 {
            sigs.push((0..MINHASH_SIZE).map(|_| next() as MinHashValue).collect());
        }
        let refs: Vec<&[MinHashValue]> = sigs.iter().map(|s| s.as_slice()).collect();
        let mut got = near_pairs(&refs);
        for list in &mut got {
            list.sort_by_key(|&(j, _)| j);
        }
        let want: Vec<Vec<(usize, f64)>> = (0..refs.len())
            .map(|i| {
                (0..refs.len())
                    .filter(|&j| j != i)
                    .map(|j| (j, resemblance(refs[i], refs[j])))
                    .filter(|&(_, r)| r >= MIN_RESEMBLANCE)
                    .collect()
            })
            .collect();
        assert_eq!(got, want);
        let pairs: usize = want.iter().map(Vec::len).sum();
        assert!(pairs > 100, "the fixture has near pairs to find: {pairs}");
        assert!(
            want.iter().flatten().any(|&(_, r)| r < 0.85),
            "pairs just above the threshold are covered"
        );
    }
}
