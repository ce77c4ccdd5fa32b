//! Text statistics: words, sentences, syllables, Flesch scores, and the MinHash
//! signature used for near-duplicate pages.

/// Words of a text: runs of letters, digits, apostrophes and hyphens that hold at
/// least one letter.
pub fn words(text: &str) -> Vec<&str> {
    word_iter(text).collect()
}

/// How many [`words`] a text has, without collecting them.
pub fn word_count(text: &str) -> usize {
    word_iter(text).count()
}

/// The words of [`words`], lazily.
pub(crate) fn word_iter(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .map(|w| w.trim_matches(|c: char| c == '\'' || c == '’' || c == '-'))
        .filter(|w| w.chars().any(char::is_alphabetic))
}

/// Sentences of a text: split after `.`, `!` or `?` followed by white space or the
/// end. Abbreviations split too; readability formulas accept that noise.
pub fn sentences(text: &str) -> Vec<&str> {
    // A piece has a word exactly when it has a letter: letters are never split
    // or trimmed off. Checking that directly spares a word list per sentence,
    // which `readability` and `long-sentences` built on every page.
    let has_word = |s: &str| s.chars().any(char::is_alphabetic);
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((pos, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') {
            let next = chars.peek().map(|&(_, n)| n);
            if next.is_none_or(char::is_whitespace) {
                let end = pos + c.len_utf8();
                let s = text[start..end].trim();
                if has_word(s) {
                    out.push(s);
                }
                start = end;
            }
        }
    }
    let rest = text[start..].trim();
    if has_word(rest) {
        out.push(rest);
    }
    out
}

/// English syllables of a word by vowel groups, a silent final `e` dropped
/// (the usual heuristic behind automated Flesch scores); at least one.
pub fn syllables(word: &str) -> u32 {
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
    // The word's lowercase ASCII letters, streamed (no string per word): the
    // vowel groups and the last three letters are all the rule needs.
    let mut count = 0u32;
    let mut prev = false;
    let mut n = 0usize;
    let mut last = ['\0'; 3];
    let mut letter = |c: char| {
        let v = vowel(c);
        if v && !prev {
            count += 1;
        }
        prev = v;
        n += 1;
        last = [last[1], last[2], c];
    };
    for c in word.chars() {
        if c.is_ascii() {
            // Without `char::to_lowercase`'s table search, which cost more
            // than the rest of the function.
            if c.is_ascii_alphabetic() {
                letter(c.to_ascii_lowercase());
            }
        } else {
            // A few non-ASCII letters lowercase to ASCII ones (the Kelvin sign to `k`).
            c.to_lowercase()
                .filter(char::is_ascii_alphabetic)
                .for_each(&mut letter);
        }
    }
    if n == 0 {
        return 1;
    }
    let [third, second, first] = last;
    // A final "e" after a consonant is silent, except in "-le" after a consonant
    // ("table").
    if n > 2 && first == 'e' && !vowel(second) && (second != 'l' || vowel(third)) {
        count = count.saturating_sub(1);
    }
    count.max(1)
}

/// Flesch reading ease and Flesch-Kincaid grade of an English text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Readability {
    /// Words counted.
    pub words: usize,
    /// Sentences counted.
    pub sentences: usize,
    /// 206.835 − 1.015 × words/sentence − 84.6 × syllables/word.
    pub reading_ease: f64,
    /// 0.39 × words/sentence + 11.8 × syllables/word − 15.59.
    pub grade: f64,
}

/// Readability of a text; `None` without words.
pub fn readability(text: &str) -> Option<Readability> {
    let (mut count, mut syl) = (0usize, 0u32);
    for w in word_iter(text) {
        count += 1;
        syl += syllables(w);
    }
    if count == 0 {
        return None;
    }
    let sentences = sentences(text).len().max(1);
    let wps = count as f64 / sentences as f64;
    let spw = f64::from(syl) / count as f64;
    Some(Readability {
        words: count,
        sentences,
        reading_ease: 206.835 - 1.015 * wps - 84.6 * spw,
        grade: 0.39 * wps + 11.8 * spw - 15.59,
    })
}

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 3;

/// Hash functions (and values) of a MinHash signature.
pub const MINHASH_SIZE: usize = 64;

/// One value of a MinHash signature: the high 32 bits of a 64-bit shingle hash.
/// Signatures stay in memory for every page of a scan until the site rules run,
/// and 32 bits are plenty for them: two different shingle minima collide with
/// probability 2⁻³², far below the estimate's own error (about 0.04 near the
/// 0.8 threshold), at half the memory of 64-bit values (256 rather than 512
/// bytes a page).
pub type MinHashValue = u32;

/// SplitMix64's finaliser: spreads a hash's entropy over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a of a word's lowercase form, without building the lowercase string. A
/// stable hash (unlike `std`'s randomised one), so the signatures of two scans
/// compare.
fn word_hash(word: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    if word.is_ascii() {
        word.bytes().for_each(|b| eat(b.to_ascii_lowercase()));
    } else {
        let mut buf = [0; 4];
        for c in word.chars().flat_map(char::to_lowercase) {
            c.encode_utf8(&mut buf).bytes().for_each(&mut eat);
        }
    }
    h
}

/// The hash functions of a signature: `h ↦ a·h + b (mod 2⁶⁴)` with odd `a`,
/// applied to an already mixed shingle hash. Two instructions per function where
/// a finaliser per function cost about ten; this loop is most of the signature's
/// cost, run once per shingle of every page.
const HASH_FAMILY: [(u64, u64); MINHASH_SIZE] = {
    /// SplitMix64's generator step, for the constants.
    const fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let mut out = [(0, 0); MINHASH_SIZE];
    let mut state: u64 = 0x5173_5ca2_0000_0001;
    let mut i = 0;
    while i < MINHASH_SIZE {
        let a = next(&mut state) | 1;
        out[i] = (a, next(&mut state));
        i += 1;
    }
    out
};

/// MinHash signature of the set of lowercased word 3-shingles of a text: for each
/// of [`MINHASH_SIZE`] hash functions, the smallest hash over the shingles.
/// Empty for a text shorter than one shingle.
///
/// Each word is hashed once and a shingle's hash combines its words' hashes (no
/// joined, lowercased strings per shingle).
pub fn minhash(text: &str) -> Vec<MinHashValue> {
    let hashes: Vec<u64> = word_iter(text).map(word_hash).collect();
    if hashes.len() < SHINGLE_WORDS {
        return Vec::new();
    }
    let mut sig = [u64::MAX; MINHASH_SIZE];
    for w in hashes.windows(SHINGLE_WORDS) {
        let h = mix(w[0] ^ w[1].rotate_left(21) ^ w[2].rotate_left(42));
        for (slot, (a, b)) in sig.iter_mut().zip(HASH_FAMILY) {
            *slot = (*slot).min(h.wrapping_mul(a).wrapping_add(b));
        }
    }
    // The minimum is taken over the whole 64-bit values, then narrowed: the high
    // bits of a multiply-add are its best mixed (the low bits of `a·h + b` depend
    // on the low bits of `h` only).
    sig.iter().map(|&v| (v >> 32) as MinHashValue).collect()
}

/// Estimated Jaccard resemblance of the shingle sets behind two signatures: the
/// share of positions where they agree (0 when either is empty).
pub fn resemblance(a: &[MinHashValue], b: &[MinHashValue]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(
            words("It's a well-known fact, 42 times."),
            vec!["It's", "a", "well-known", "fact", "times"]
        );
        assert_eq!(sentences("One. Two! Three? v1.2 is out").len(), 4);
        assert_eq!(syllables("cat"), 1);
        assert_eq!(syllables("table"), 2);
        assert_eq!(syllables("make"), 1);
        assert_eq!(syllables("readability"), 5);
        assert_eq!(syllables("Able"), 2);
        assert_eq!(syllables("Bale"), 1);
        assert_eq!(syllables("idle"), 2);
        assert_eq!(syllables("be"), 1);
        assert_eq!(syllables("42"), 1);
        assert_eq!(syllables("Café"), 1);
        assert_eq!(syllables("\u{212A}ite"), 1);
        assert_eq!(word_count("It's a well-known fact, 42 times."), 5);
        assert_eq!(
            sentences("Wait... what? -- . Yes!"),
            vec!["Wait...", "what?", "Yes!"]
        );
    }

    #[test]
    fn flesch_of_simple_text_is_easy() {
        let r = readability("The cat sat on the mat. The dog ran to the cat.").unwrap();
        assert_eq!((r.words, r.sentences), (12, 2));
        assert!(r.reading_ease > 90.0, "{r:?}");
        assert!(r.grade < 3.0, "{r:?}");
    }

    #[test]
    fn minhash_estimates_resemblance() {
        let base = "Our shop sells hand made ceramic mugs bowls and plates fired in a wood kiln in the hills above the town, and ships them to customers all over the country every week of the year.";
        let near = base.replace("every week", "each week");
        let other = "The quarterly report shows revenue growth across all regions, driven by strong demand for cloud services and a recovery in hardware sales during the final month.";
        assert_eq!(resemblance(&minhash(base), &minhash(base)), 1.0);
        assert!(resemblance(&minhash(base), &minhash(&near)) > 0.6);
        assert!(resemblance(&minhash(base), &minhash(other)) < 0.1);
        assert!(minhash("too short").is_empty());
        // Case does not matter, in ASCII or not.
        assert_eq!(
            minhash("Über die BRÜCKE gehen"),
            minhash("über die brücke GEHEN")
        );
    }

    /// The signature is an unbiased estimate: over many pairs of texts with known
    /// shingle overlap, the estimates average out at the exact Jaccard resemblance.
    #[test]
    fn minhash_is_unbiased_against_exact_jaccard() {
        use std::collections::HashSet;
        let shingles = |t: &str| -> HashSet<String> {
            let ws: Vec<String> = words(t).iter().map(|w| w.to_lowercase()).collect();
            ws.windows(SHINGLE_WORDS).map(|w| w.join(" ")).collect()
        };
        let (mut exact_sum, mut estimate_sum, mut worst) = (0.0, 0.0, 0.0f64);
        for pair in 0..40u32 {
            // Two 300-word texts sharing a prefix whose length varies by pair.
            let shared = 30 + pair as usize * 6;
            let text = |variant: u32| {
                (0..300)
                    .map(|i| {
                        if i < shared {
                            format!("w{pair}x{i}")
                        } else {
                            format!("w{pair}v{variant}x{i}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let (a, b) = (text(0), text(1));
            let (sa, sb) = (shingles(&a), shingles(&b));
            let exact = sa.intersection(&sb).count() as f64 / sa.union(&sb).count() as f64;
            let estimate = resemblance(&minhash(&a), &minhash(&b));
            exact_sum += exact;
            estimate_sum += estimate;
            worst = worst.max((exact - estimate).abs());
        }
        let bias = (estimate_sum - exact_sum) / 40.0;
        assert!(bias.abs() < 0.03, "mean bias {bias}");
        // 64 functions: the standard error is at most 1/16; allow four of them.
        assert!(worst < 0.25, "worst error {worst}");
    }
}
