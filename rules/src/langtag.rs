//! Language tags as the ACT rules judge them: a tag is *valid* when its primary
//! language subtag is registered in the IANA Language Subtag Registry.
//!
//! ACT's definition ("valid language tag") looks at the primary subtag only: `en-US-GB`
//! is valid although it is not well-formed, while `eng` (ISO 639-2, not registered)
//! and the grandfathered `i-lux` are not. The registry data comes from the
//! `language-tags` crate, which compiles in a snapshot of the IANA registry.

use language_tags::LanguageTag;

/// The primary language subtag of `tag` (before the first `-`), trimmed and
/// lowercased; `None` when the tag is empty or only white space.
pub fn primary_subtag(tag: &str) -> Option<String> {
    let tag = tag.trim();
    if tag.is_empty() {
        return None;
    }
    let primary = tag.split('-').next().unwrap_or(tag);
    Some(primary.to_ascii_lowercase())
}

/// Whether the primary subtag of `tag` is a registered language subtag.
pub fn is_valid(tag: &str) -> bool {
    let Some(primary) = primary_subtag(tag) else {
        return false;
    };
    // Primary language subtags are 2-3 letters (4-8 are reserved or registered
    // whole languages the registry has none of today).
    if !(2..=8).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    LanguageTag::parse(&primary)
        .map(|t| t.validate().is_ok() && t.primary_language().eq_ignore_ascii_case(&primary))
        .unwrap_or(false)
}

/// Whether two tags name the same primary language (case-insensitive).
pub fn same_primary(a: &str, b: &str) -> bool {
    match (primary_subtag(a), primary_subtag(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_follows_the_primary_subtag() {
        for ok in ["en", "FR", "en-US-GB", "fr-CH", "zh-Hant", "ast", "EN"] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in [
            "", "  ", "eng", "em-US", "#1", "i-lux", "dutch", "english", "x-foo", "e",
        ] {
            assert!(!is_valid(bad), "{bad}");
        }
        assert!(same_primary("en-US", "EN-gb"));
        assert!(!same_primary("en", "fr"));
    }
}

/// A language guessed from text by the `whatlang` crate (trigram statistics).
#[derive(Debug, Clone, PartialEq)]
pub struct Guess {
    /// The IANA primary language subtag of the guess (`en`, `nl`, …).
    pub primary: &'static str,
    /// whatlang's confidence, 0 to 1.
    pub confidence: f64,
    /// Whether whatlang deems the guess reliable.
    pub reliable: bool,
}

/// IANA primary subtags of the languages whatlang detects (its ISO 639-3 codes
/// mapped to the registry's shortest subtag).
const WHATLANG_TO_IANA: &[(&str, &str)] = &[
    ("epo", "eo"),
    ("eng", "en"),
    ("rus", "ru"),
    ("cmn", "zh"),
    ("spa", "es"),
    ("por", "pt"),
    ("ita", "it"),
    ("ben", "bn"),
    ("fra", "fr"),
    ("deu", "de"),
    ("ukr", "uk"),
    ("kat", "ka"),
    ("ara", "ar"),
    ("hin", "hi"),
    ("jpn", "ja"),
    ("heb", "he"),
    ("yid", "yi"),
    ("pol", "pl"),
    ("amh", "am"),
    ("jav", "jv"),
    ("kor", "ko"),
    ("nob", "nb"),
    ("dan", "da"),
    ("swe", "sv"),
    ("fin", "fi"),
    ("tur", "tr"),
    ("nld", "nl"),
    ("hun", "hu"),
    ("ces", "cs"),
    ("ell", "el"),
    ("bul", "bg"),
    ("bel", "be"),
    ("mar", "mr"),
    ("kan", "kn"),
    ("ron", "ro"),
    ("slv", "sl"),
    ("hrv", "hr"),
    ("srp", "sr"),
    ("mkd", "mk"),
    ("lit", "lt"),
    ("lav", "lv"),
    ("est", "et"),
    ("tam", "ta"),
    ("vie", "vi"),
    ("urd", "ur"),
    ("tha", "th"),
    ("guj", "gu"),
    ("uzb", "uz"),
    ("pan", "pa"),
    ("aze", "az"),
    ("ind", "id"),
    ("tel", "te"),
    ("pes", "fa"),
    ("mal", "ml"),
    ("ori", "or"),
    ("mya", "my"),
    ("nep", "ne"),
    ("sin", "si"),
    ("khm", "km"),
    ("tuk", "tk"),
    ("aka", "ak"),
    ("zul", "zu"),
    ("sna", "sn"),
    ("afr", "af"),
    ("lat", "la"),
    ("slk", "sk"),
    ("cat", "ca"),
    ("tgl", "tl"),
    ("hye", "hy"),
];

/// Languages a trigram detector cannot tell apart reliably, or that are one
/// language under several subtags: a guess within a group never contradicts a
/// declaration within it.
const CLOSE: &[&[&str]] = &[
    &["hr", "sr", "bs", "sh", "cnr"],
    &["no", "nb", "nn", "da"],
    &["id", "ms"],
    &["cs", "sk"],
    &["tl", "fil"],
    &["fa", "prs"],
    &["he", "iw"],
    &["yi", "ji"],
    &["id", "in"],
];

/// Most bytes of text whatlang judges first. Its trigram counts settle long
/// before this on prose (its reliability flag is set from a few hundred
/// characters), while its cost grows with the text, about 300 instructions a
/// byte: the whole text of a long documentation page cost more than parsing the
/// page, and 4 KB still cost a small page's parse ten times over. Longer text
/// is sampled by [`whatlang_sample`].
const WHATLANG_MAX_BYTES: usize = 2048;

/// Most bytes judged again before a sample's verdict against the declared
/// language stands. A sample can mislead where the whole text does not (lists of
/// nouns shared by English and French, say); a finding is worth the second look,
/// which pages in their declared language, nearly all of them, never pay for.
const WHATLANG_CONFIRM_BYTES: usize = 16 * 1024;

/// Pieces a long text's sample is made of, spread evenly over the text so that
/// a page whose opening is in one language and whose bulk is in another is
/// judged by its bulk.
const WHATLANG_PIECES: usize = 4;

/// `text` itself when at most twice `max` bytes long, else [`WHATLANG_PIECES`]
/// stretches of it, evenly spread, each cut at white space, joined with spaces:
/// about `max` bytes in all. Text a little over `max` is judged whole: a sample
/// of it saves little, and when a sample is not conclusive, [`assess`] would
/// judge the text again in full.
fn whatlang_sample(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= 2 * max {
        return text.into();
    }
    let piece = max / WHATLANG_PIECES;
    let stride = text.len() / WHATLANG_PIECES;
    let boundary = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    let mut out = String::with_capacity(max + WHATLANG_PIECES);
    for k in 0..WHATLANG_PIECES {
        let start = boundary(k * stride);
        let end = boundary((start + piece).min(text.len()));
        let mut chunk = &text[start..end];
        // Whole words only: drop the partial words at both cut ends.
        if start > 0 {
            chunk = chunk
                .split_once(char::is_whitespace)
                .map_or("", |(_, rest)| rest);
        }
        if end < text.len() {
            chunk = chunk
                .rsplit_once(char::is_whitespace)
                .map_or("", |(head, _)| head);
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(chunk);
    }
    out.into()
}

/// `text` without the tokens that are not words of any language: e-mail and web
/// addresses, identifiers and numbers (anything with a digit, `@`, `_` or `://`).
/// A random id in a short page's text ("ann_0660cfa3d69…@example.com") tipped
/// whatlang towards Portuguese about one time in ten.
fn language_words(text: &str) -> std::borrow::Cow<'_, str> {
    let noise = |t: &str| {
        t.bytes()
            .any(|b| b.is_ascii_digit() || b == b'@' || b == b'_')
            || t.contains("://")
    };
    if !text.split_whitespace().any(noise) {
        return text.into();
    }
    text.split_whitespace()
        .filter(|t| !noise(t))
        .collect::<Vec<_>>()
        .join(" ")
        .into()
}

/// Guesses the language of `text` (a sample of it when long); `None` when the
/// text is too short to guess.
pub fn guess(text: &str) -> Option<Guess> {
    guess_within(text, WHATLANG_MAX_BYTES)
}

/// [`guess`] on at most about `max` bytes of the text.
fn guess_within(text: &str, max: usize) -> Option<Guess> {
    let info = whatlang::detect(&whatlang_sample(text, max))?;
    let code = info.lang().code();
    let primary = WHATLANG_TO_IANA
        .iter()
        .find(|(w, _)| *w == code)
        .map(|(_, iana)| *iana)?;
    Some(Guess {
        primary,
        confidence: info.confidence(),
        reliable: info.is_reliable(),
    })
}

/// What the detectors make of text declared to be in a language.
#[derive(Debug, Clone, PartialEq)]
pub enum Assessment {
    /// The declared language is one the text plausibly reads as.
    Matches,
    /// The text confidently reads as another language.
    Differs {
        /// IANA primary subtag of the language it reads as.
        detected: String,
        /// Confidence of that reading, 0 to 1.
        confidence: f64,
    },
    /// Too little or too ambiguous text to tell.
    Unsure,
    /// Neither detector knows the declared language.
    Unknown,
}

/// Most characters of text handed to the short-text detector. It is asked only
/// when whatlang is unsure, which is mostly short text; on a longer passage a
/// few sentences settle its verdict, and its cost grows with length (about 30
/// times a small page's parse at 2,000 characters, about 8 times at 160,
/// measured with callgrind).
const LINGUA_MAX_CHARS: usize = 160;

/// How far the sample may run past [`LINGUA_MAX_CHARS`] to hold
/// [`LINGUA_TRIGRAMS_ONLY_FROM`] letters. Text thick with punctuation, digits
/// and symbols (an index page: `» 3.11.2 Documentation » Index – A A (in module
/// re) A-LAW , [1] …`) has fewer than 120 letters in its first 160 characters;
/// lingua then scores all one- to five-letter n-grams of every language, which
/// walks (and keeps resident) nearly all 75 MB of its models within a few such
/// pages. Reading on until 120 letters gives it a sample of the same letter
/// length as plain prose, judged by trigrams (and by [`table_values`]).
const LINGUA_MAX_CHARS_FOR_LETTERS: usize = 480;

/// The start of `text` lingua judges: [`LINGUA_MAX_CHARS`] characters, or more
/// (up to [`LINGUA_MAX_CHARS_FOR_LETTERS`]) until it holds
/// [`LINGUA_TRIGRAMS_ONLY_FROM`] letters.
fn lingua_sample(text: &str) -> &str {
    let mut letters = 0;
    for (n, (i, c)) in text.char_indices().enumerate() {
        if n >= LINGUA_MAX_CHARS_FOR_LETTERS
            || (n >= LINGUA_MAX_CHARS && letters >= LINGUA_TRIGRAMS_ONLY_FROM)
        {
            return &text[..i];
        }
        if c.is_alphabetic() {
            letters += 1;
        }
    }
    text
}

/// The `lingua` detector over the languages compiled in (see `Cargo.toml`),
/// built once.
///
/// What its models cost: lingua 1.8 compiles each language's n-gram model into
/// the binary as an FST (about 4.4 MB each, 75 MB for the 17) and "loads" one by
/// wrapping those static bytes, so nothing is copied to the heap and preloading
/// or low-accuracy mode change little. The resident memory comes from the FST
/// walks: every call scores every candidate language, and each walk pages in
/// the parts of the model it reads (with the kernel's read-around), so a scan
/// that calls lingua on many different texts ends up with most of the 75 MB
/// resident (about 95 MB of file-backed RSS on a 1,000-page synthetic scan).
/// Hence the trigram table ([`table_values`]) for the text it covers, which
/// never touches the FSTs; what is left here is short text (under 120 letters,
/// where lingua's one- to five-letter n-grams are what keeps the ACT language
/// rules consistent, so restricting candidates or low-accuracy mode would cost
/// verdicts) and text with non-ASCII letters.
fn lingua() -> &'static lingua::LanguageDetector {
    static DETECTOR: std::sync::OnceLock<lingua::LanguageDetector> = std::sync::OnceLock::new();
    DETECTOR.get_or_init(|| lingua::LanguageDetectorBuilder::from_all_languages().build())
}

/// IANA primary subtag of a `lingua` language (its ISO 639-1 code), from
/// [`TABLE_LANGUAGES`], which lists every language lingua is built with.
fn lingua_subtag(lang: lingua::Language) -> &'static str {
    TABLE_LANGUAGES
        .iter()
        .find(|(l, _)| *l == lang)
        .map_or("", |(_, tag)| tag)
}

/// The languages lingua is built with and their IANA primary subtags, in the
/// order of the columns of [`TRIGRAMS`] (`rules/build.rs` lists the same models
/// in the same order; a test checks the set against `lingua::Language::all()`).
const TABLE_LANGUAGES: [(lingua::Language, &str); 17] = {
    use lingua::Language as L;
    [
        (L::English, "en"),
        (L::Spanish, "es"),
        (L::German, "de"),
        (L::French, "fr"),
        (L::Portuguese, "pt"),
        (L::Italian, "it"),
        (L::Dutch, "nl"),
        (L::Polish, "pl"),
        (L::Turkish, "tr"),
        (L::Vietnamese, "vi"),
        (L::Indonesian, "id"),
        (L::Czech, "cs"),
        (L::Swedish, "sv"),
        (L::Romanian, "ro"),
        (L::Danish, "da"),
        (L::Finnish, "fi"),
        (L::Bokmal, "nb"),
    ]
};

/// lingua's letter-trigram log-probabilities for ASCII text, precomputed from
/// its models at build time (`rules/build.rs`): `26^3` rows, one `f64` (little
/// endian) per [`TABLE_LANGUAGES`] column.
static TRIGRAMS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lingua_trigrams.bin"));

/// The fewest letters for which lingua scores text by trigrams alone (its
/// high-accuracy mode uses one- to five-letter n-grams below this).
const LINGUA_TRIGRAMS_ONLY_FROM: usize = 120;

/// lingua's confidence values for `sample`, computed from [`TRIGRAMS`] when
/// lingua would score it by trigrams alone: text whose letters are all ASCII
/// (so none of lingua's rules on accented letters or other alphabets applies,
/// and every candidate stays in), at least [`LINGUA_TRIGRAMS_ONLY_FROM`] of them. `None` for any
/// other text, which lingua itself judges.
///
/// Why: lingua looks every distinct trigram up in every language's model FST
/// on each call (two concurrent-map look-ups and an FST walk each, about 1,700
/// per 160 characters), which was most of the rule phase on pages of plain
/// English whatlang is unsure of; the table makes that about 1,700 array reads.
/// It also spares memory: the models are compiled into the binary and each
/// FST walk pages in parts of about 75 MB of model data, which stay resident.
/// The result is lingua's own: the same sums over distinct trigrams (with its
/// back-off to the two- and one-letter prefix), the same softmax, the same
/// fallback when every exponent underflows, the same ordering (confidence,
/// then language); only the order of the floating-point additions differs.
fn table_values(sample: &str) -> Option<Vec<(lingua::Language, f64)>> {
    // Only letters count for lingua (its words are runs of `\p{L}`, and its rules
    // look at their letters), so other characters (`¶`, `’`, `—`, no-break
    // spaces) may be anything; every `\p{L}` character is alphabetic.
    if !sample.chars().all(|c| c.is_ascii() || !c.is_alphabetic()) {
        return None;
    }
    let letters = sample.bytes().filter(u8::is_ascii_alphabetic).count();
    if letters < LINGUA_TRIGRAMS_ONLY_FROM {
        return None;
    }
    let mut rows: Vec<usize> = Vec::with_capacity(letters);
    for word in sample.split(|c: char| !c.is_ascii_alphabetic()) {
        let word = word.as_bytes();
        for w in word.windows(3) {
            let [a, b, c] = [w[0], w[1], w[2]].map(|x| usize::from(x.to_ascii_lowercase() - b'a'));
            rows.push((a * 26 + b) * 26 + c);
        }
    }
    // lingua counts each distinct trigram once.
    rows.sort_unstable();
    rows.dedup();
    let n = TABLE_LANGUAGES.len();
    let mut sums = [0.0f64; 17];
    for row in rows {
        let start = row * n * 8;
        let cells = TRIGRAMS.get(start..start + n * 8)?;
        for (sum, cell) in sums.iter_mut().zip(cells.chunks_exact(8)) {
            let bytes: [u8; 8] = cell.try_into().ok()?;
            *sum += f64::from_le_bytes(bytes);
        }
    }
    let mut values: Vec<(lingua::Language, f64)> =
        TABLE_LANGUAGES.iter().map(|(l, _)| (*l, 0.0)).collect();
    // Languages none of whose trigrams (or prefixes) are known drop out, as in lingua.
    let scored: Vec<usize> = (0..n).filter(|&i| sums[i] < 0.0).collect();
    let denominator: f64 = scored.iter().map(|&i| sums[i].exp()).sum();
    if denominator == 0.0 {
        // Every exponent underflowed: lingua gives the likeliest language 1.0.
        if let Some(&best) = scored.iter().max_by(|&&a, &&b| sums[a].total_cmp(&sums[b])) {
            values[best].1 = 1.0;
        }
    } else {
        for &i in &scored {
            values[i].1 = sums[i].exp() / denominator;
        }
    }
    values.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Some(values)
}

/// Judges whether `text` is in the language `declared` names.
///
/// whatlang's letter trigrams decide when it deems its guess reliable (longer
/// text), since they weigh the whole passage evenly. Otherwise, for languages
/// `lingua` knows (the common Latin-script languages of the web), `lingua`
/// decides: its n-gram models up to five letters stay accurate down to a few
/// words. Its confidence values are relative (they sum to 1 over the known
/// languages), so the verdict compares the declared language (with its close
/// languages) against the best reading:
/// - at least half as likely as the best reading: the text plausibly reads as the
///   declared language (text valid in two languages passes, as ACT wants);
/// - the best reading is another language with at least 0.3 and the declared one
///   at most a quarter of it: the text is in another language;
/// - anything between: unsure.
pub fn assess(declared: &str, text: &str) -> Assessment {
    let Some(primary) = primary_subtag(declared) else {
        return Assessment::Unknown;
    };
    let text = &*language_words(text);
    let by_lingua = TABLE_LANGUAGES
        .iter()
        .any(|(_, tag)| agrees_primary(&primary, tag));
    if !by_lingua && !detectable(declared) {
        return Assessment::Unknown;
    }
    if detectable(declared) {
        let mut guessed = guess(text);
        let agreed = guessed
            .as_ref()
            .is_some_and(|g| g.reliable && agrees(declared, g.primary));
        if !agreed && text.len() > 2 * WHATLANG_MAX_BYTES {
            guessed = guess_within(text, WHATLANG_CONFIRM_BYTES);
        }
        match guessed {
            Some(g) if g.reliable && agrees(declared, g.primary) => return Assessment::Matches,
            Some(g) if g.reliable => {
                return Assessment::Differs {
                    detected: g.primary.to_string(),
                    confidence: g.confidence,
                }
            }
            Some(g) if !by_lingua && agrees(declared, g.primary) => return Assessment::Matches,
            _ => {}
        }
    }
    if !by_lingua {
        return Assessment::Unsure;
    }
    let sample = lingua_sample(text);
    let values =
        table_values(sample).unwrap_or_else(|| lingua().compute_language_confidence_values(sample));
    let Some((best, best_conf)) = values.first().map(|(l, c)| (lingua_subtag(*l), *c)) else {
        return Assessment::Unsure;
    };
    let declared_conf: f64 = values
        .iter()
        .filter(|(l, _)| agrees_primary(&primary, lingua_subtag(*l)))
        .map(|(_, c)| c)
        .sum();
    if best_conf <= 0.0 {
        Assessment::Unsure
    } else if declared_conf >= best_conf * 0.5 {
        Assessment::Matches
    } else if best_conf >= 0.3 && declared_conf <= best_conf * 0.25 {
        Assessment::Differs {
            detected: best.to_string(),
            confidence: best_conf,
        }
    } else {
        Assessment::Unsure
    }
}

/// Whether the detector knows the language of a declared tag at all.
pub fn detectable(tag: &str) -> bool {
    primary_subtag(tag).is_some_and(|p| {
        WHATLANG_TO_IANA.iter().any(|(_, iana)| *iana == p)
            || CLOSE.iter().any(|g| g.contains(&p.as_str()))
    })
}

/// Whether a guessed language agrees with a declared tag (same primary subtag,
/// or both in one group of close languages).
pub fn agrees(declared: &str, guessed: &str) -> bool {
    primary_subtag(declared).is_some_and(|p| agrees_primary(&p, guessed))
}

/// [`agrees`] for a primary subtag already lowercased.
fn agrees_primary(declared: &str, guessed: &str) -> bool {
    declared == guessed
        || CLOSE
            .iter()
            .any(|g| g.contains(&declared) && g.contains(&guessed))
}

#[cfg(test)]
mod guess_tests {
    use super::*;

    #[test]
    fn long_text_is_sampled_evenly_in_whole_words() {
        let short = "Ein kurzer Satz.";
        assert_eq!(whatlang_sample(short, WHATLANG_MAX_BYTES), short);
        // An English opening, then a long German body: the sample is mostly German.
        let text = format!(
            "Skip to content. Home. About us. {}",
            "Die Katze schläft auf dem warmen Fensterbrett, während draußen der Regen fällt. "
                .repeat(200)
        );
        let sample = whatlang_sample(&text, WHATLANG_MAX_BYTES);
        assert!(
            sample.len() <= WHATLANG_MAX_BYTES + WHATLANG_PIECES,
            "{}",
            sample.len()
        );
        assert!(sample.len() > WHATLANG_MAX_BYTES - 200, "{}", sample.len());
        let words: std::collections::HashSet<&str> = text.split_whitespace().collect();
        for word in sample.split_whitespace() {
            assert!(words.contains(word), "cut word {word:?}");
        }
        assert_eq!(guess(&text).map(|g| g.primary), Some("de"));
    }

    #[test]
    fn addresses_ids_and_numbers_are_not_judged() {
        assert_eq!(
            language_words(
                "Signed in as ann_0660cfa3@example.com on http://127.0.0.1:3000/ since 2024."
            ),
            "Signed in as on since"
        );
        assert_eq!(language_words("Plain words only."), "Plain words only.");
        // A short English page with a random id: an id that once read as Portuguese.
        let page = "Skip to main content sitescan Sites API keys Webhooks \
            ann_c9bbde468de8e8d9d9f9bfd5d6f55e@example.com · Professional plan Sign out \
            Remove site Remove “127.0.0.1:30031” (http://127.0.0.1:30031/)? Its past scans \
            stay readable by their links; no new scans can be started. Remove site Cancel";
        assert_eq!(assess("en", page), Assessment::Matches);
    }

    #[test]
    fn guesses_common_languages() {
        let en = guess("The Accessibility Conformance Testing Rules Format defines a format for writing accessibility test rules.").unwrap();
        assert_eq!(en.primary, "en");
        assert!(en.reliable);
        let nl = guess("Hij ging met de kippen op stok, want hij was erg moe van de lange dag.")
            .unwrap();
        assert_eq!(nl.primary, "nl");
        assert!(agrees("nb-NO", "da"));
        assert!(!agrees("en", "nl"));
        assert!(detectable("EN-us"));
        assert!(!detectable("lb"));
    }

    #[test]
    fn the_trigram_table_covers_every_language_lingua_is_built_with() {
        let table: std::collections::HashSet<_> = TABLE_LANGUAGES.iter().map(|(l, _)| *l).collect();
        assert_eq!(table, lingua::Language::all());
        for (l, tag) in TABLE_LANGUAGES {
            assert_eq!(tag, l.iso_code_639_1().to_string().to_ascii_lowercase());
        }
        assert_eq!(TRIGRAMS.len(), 26 * 26 * 26 * TABLE_LANGUAGES.len() * 8);
    }

    /// The table path gives lingua's own confidence values (up to the order of
    /// floating-point additions) wherever it applies, and steps aside elsewhere.
    #[test]
    fn trigram_table_agrees_with_lingua() {
        let salad = "Customer quality river (10) Section 2 Section 3. Accessible content service \
            design team support quality release update account privacy policy report guide people.";
        let texts = [
            "The Accessibility Conformance Testing Rules Format defines a format for writing accessibility test rules. These rules can be used for developing automated testing tools.",
            "Hij ging met de kippen op stok, want hij was erg moe van de lange dag en wilde vroeg slapen gaan.",
            "Saya suka makan nasi goreng di pagi hari bersama keluarga saya di rumah yang besar dan nyaman sekali.",
            "Jeg har boet i Kobenhavn i mange aar, og jeg elsker byen og dens mennesker meget, for de er venlige.",
            "Il ragazzo mangia una pizza con gli amici nella piazza grande della citta vecchia ogni sabato sera tardi.",
            "Paul put dire comment on tape, mais le chat est sur la table et le chien dort dans le jardin avec nous.",
            "qzx vvq jjj xxq zzz qqq kkk wxy zyx qwv bvx pqz xjq zqj vqx jxz wqz xqv zvq jqx qzj xvz zjv vjq qvj",
            salad,
            "Built-in Functions \u{b6} The Python interpreter has a number of functions and types built into it that are always available \u{2014} they\u{2019}re listed here\u{a0}in alphabetical order.",
        ];
        let mut long = String::new();
        while long.len() < 3000 {
            long.push_str(texts[0]);
            long.push(' ');
        }
        let mut compared = 0;
        let doubled: Vec<String> = texts.iter().map(|t| format!("{t} {t}")).collect();
        for text in texts
            .iter()
            .copied()
            .chain(doubled.iter().map(String::as_str))
            .chain([long.as_str()])
        {
            let letters = text.bytes().filter(u8::is_ascii_alphabetic).count();
            let Some(ours) = table_values(text) else {
                assert!(letters < LINGUA_TRIGRAMS_ONLY_FROM, "{text:?}");
                continue;
            };
            let theirs = lingua().compute_language_confidence_values(text);
            assert_eq!(ours.len(), theirs.len());
            for (l, c) in &theirs {
                let mine = ours.iter().find(|(m, _)| m == l).map(|(_, c)| *c);
                assert!(
                    mine.is_some_and(|m| (m - c).abs() < 1e-9),
                    "{l:?}: lingua {c}, table {mine:?} on {text:?}"
                );
            }
            assert_eq!(ours[0].0, theirs[0].0, "{text:?}");
            compared += 1;
        }
        assert!(compared >= 10, "only {compared} texts took the table path");
        // Short text, or text with letters beyond ASCII, is lingua's own to judge.
        assert!(table_values("Bonne année ! Bonne année ! Bonne année ! Bonne année ! Bonne année ! Bonne année ! Bonne année ! Bonne année !").is_none());
        assert!(table_values("Fireworks over Paris").is_none());
    }

    #[test]
    fn assesses_short_text() {
        assert_eq!(assess("fr", "Bonne année !"), Assessment::Matches);
        assert_eq!(assess("en-GB", "Fireworks over Paris"), Assessment::Matches);
        assert!(matches!(
            assess("nl", "Bonne année !"),
            Assessment::Differs { ref detected, .. } if detected == "fr"
        ));
        assert!(matches!(
            assess("en", "Hij ging met de kippen op stok"),
            Assessment::Differs { ref detected, .. } if detected == "nl"
        ));
        // Valid French and valid English: the declaration stands.
        assert_eq!(
            assess("en", "Paul put dire comment on tape"),
            Assessment::Matches
        );
        // Norwegian declared, Danish read: close languages agree.
        assert_eq!(
            assess(
                "no",
                "Jeg har boet i København i mange år, og jeg elsker byen og dens mennesker."
            ),
            Assessment::Matches
        );
        // whatlang for languages lingua is not built with; unknown to both.
        assert_eq!(
            assess("lb", "Lëtzebuerg ass e Land an Europa."),
            Assessment::Unknown
        );
        assert!(matches!(
            assess("ru", "The Accessibility Conformance Testing Rules Format defines a format for writing accessibility test rules."),
            Assessment::Differs { ref detected, .. } if detected == "en"
        ));
    }
}
