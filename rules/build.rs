//! Writes `lingua_trigrams.bin` into `OUT_DIR`: for every trigram of ASCII letters
//! (`aaa` to `zzz`) and every language lingua is built with, the log-probability
//! lingua's detector adds for that trigram on long text — the trigram's own
//! entry in the language's n-gram model, else its two-letter prefix's, else its
//! first letter's, else nothing (0). `langtag::lingua_values` sums these for
//! lowercase ASCII text, where lingua's own path looks each one up in the model's
//! FST per call; see the comment there for why that matters.
//!
//! Layout: `26^3` rows in trigram order (`aaa`, `aab`, …), each with one
//! little-endian `f64` per language, in the order of `MODELS` (the same order
//! as `langtag::TABLE_LANGUAGES`).

use std::path::PathBuf;

/// The model FST (`ngrams.fst`) of each language, in table order.
fn models() -> [(&'static str, &'static [u8]); 17] {
    macro_rules! model {
        ($name:literal, $krate:ident, $dir:ident) => {
            (
                $name,
                $krate::$dir
                    .get_file("ngrams.fst")
                    .map(|f| f.contents())
                    // A model crate without its FST would silently zero a
                    // language's column: fail the build instead.
                    .expect(concat!("lingua's ", $name, " model crate has ngrams.fst")),
            )
        };
    }
    [
        model!(
            "english",
            lingua_english_language_model,
            ENGLISH_MODELS_DIRECTORY
        ),
        model!(
            "spanish",
            lingua_spanish_language_model,
            SPANISH_MODELS_DIRECTORY
        ),
        model!(
            "german",
            lingua_german_language_model,
            GERMAN_MODELS_DIRECTORY
        ),
        model!(
            "french",
            lingua_french_language_model,
            FRENCH_MODELS_DIRECTORY
        ),
        model!(
            "portuguese",
            lingua_portuguese_language_model,
            PORTUGUESE_MODELS_DIRECTORY
        ),
        model!(
            "italian",
            lingua_italian_language_model,
            ITALIAN_MODELS_DIRECTORY
        ),
        model!("dutch", lingua_dutch_language_model, DUTCH_MODELS_DIRECTORY),
        model!(
            "polish",
            lingua_polish_language_model,
            POLISH_MODELS_DIRECTORY
        ),
        model!(
            "turkish",
            lingua_turkish_language_model,
            TURKISH_MODELS_DIRECTORY
        ),
        model!(
            "vietnamese",
            lingua_vietnamese_language_model,
            VIETNAMESE_MODELS_DIRECTORY
        ),
        model!(
            "indonesian",
            lingua_indonesian_language_model,
            INDONESIAN_MODELS_DIRECTORY
        ),
        model!("czech", lingua_czech_language_model, CZECH_MODELS_DIRECTORY),
        model!(
            "swedish",
            lingua_swedish_language_model,
            SWEDISH_MODELS_DIRECTORY
        ),
        model!(
            "romanian",
            lingua_romanian_language_model,
            ROMANIAN_MODELS_DIRECTORY
        ),
        model!(
            "danish",
            lingua_danish_language_model,
            DANISH_MODELS_DIRECTORY
        ),
        model!(
            "finnish",
            lingua_finnish_language_model,
            FINNISH_MODELS_DIRECTORY
        ),
        model!(
            "bokmal",
            lingua_bokmal_language_model,
            BOKMAL_MODELS_DIRECTORY
        ),
    ]
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let maps: Vec<fst::Map<&[u8]>> = models()
        .into_iter()
        .map(|(name, bytes)| {
            fst::Map::new(bytes)
                .unwrap_or_else(|e| panic!("lingua's {name} model does not read as an FST: {e}"))
        })
        .collect();
    let letters = b'a'..=b'z';
    let mut out = Vec::with_capacity(26 * 26 * 26 * maps.len() * 8);
    for a in letters.clone() {
        for b in letters.clone() {
            for c in letters.clone() {
                let trigram = [a, b, c];
                for map in &maps {
                    // lingua's back-off: the longest prefix the model knows.
                    let value = [&trigram[..], &trigram[..2], &trigram[..1]]
                        .iter()
                        .find_map(|key| map.get(key))
                        .map_or(0.0, f64::from_bits);
                    out.extend_from_slice(&value.to_le_bytes());
                }
            }
        }
    }
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dir.join("lingua_trigrams.bin"), out)
        .unwrap_or_else(|e| panic!("cannot write the trigram table: {e}"));
}
