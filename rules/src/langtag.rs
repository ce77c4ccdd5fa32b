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
