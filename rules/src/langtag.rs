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

/// Guesses the language of `text`; `None` when the text is too short to guess.
pub fn guess(text: &str) -> Option<Guess> {
    let info = whatlang::detect(text)?;
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
    let Some(declared) = primary_subtag(declared) else {
        return false;
    };
    declared == guessed
        || CLOSE
            .iter()
            .any(|g| g.contains(&declared.as_str()) && g.contains(&guessed))
}

#[cfg(test)]
mod guess_tests {
    use super::*;

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
}
