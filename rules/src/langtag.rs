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

/// The `lingua` detector over the languages compiled in (see `Cargo.toml`),
/// built once. Its n-gram models load lazily, per language, on first use.
fn lingua() -> &'static lingua::LanguageDetector {
    static DETECTOR: std::sync::OnceLock<lingua::LanguageDetector> = std::sync::OnceLock::new();
    DETECTOR.get_or_init(|| lingua::LanguageDetectorBuilder::from_all_languages().build())
}

/// IANA primary subtag of a `lingua` language.
fn lingua_subtag(lang: lingua::Language) -> String {
    lang.iso_code_639_1().to_string().to_ascii_lowercase()
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
    let by_lingua = lingua::Language::all()
        .iter()
        .any(|l| agrees(&primary, &lingua_subtag(*l)));
    if !by_lingua && !detectable(declared) {
        return Assessment::Unknown;
    }
    if detectable(declared) {
        match guess(text) {
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
    let sample: String = text.chars().take(LINGUA_MAX_CHARS).collect();
    let values = lingua().compute_language_confidence_values(sample);
    let Some((best, best_conf)) = values.first().map(|(l, c)| (lingua_subtag(*l), *c)) else {
        return Assessment::Unsure;
    };
    let declared_conf: f64 = values
        .iter()
        .filter(|(l, _)| agrees(&primary, &lingua_subtag(*l)))
        .map(|(_, c)| c)
        .sum();
    if best_conf <= 0.0 {
        Assessment::Unsure
    } else if declared_conf >= best_conf * 0.5 {
        Assessment::Matches
    } else if best_conf >= 0.3 && declared_conf <= best_conf * 0.25 {
        Assessment::Differs {
            detected: best,
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
