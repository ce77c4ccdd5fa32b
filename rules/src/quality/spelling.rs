//! `spelling`: English prose has no words missing from the Hunspell dictionary.
//!
//! The dictionary is not bundled: the engine reads Debian's `hunspell-en-us`
//! (`/usr/share/hunspell/en_US.aff` and `.dic`) and hands the text to
//! [`install_dictionary`]. Until then the rule is inapplicable everywhere and
//! [`dictionary_installed`] is false, so the engine can say so in the report.

use std::sync::OnceLock;

use spellbook::Dictionary;

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::support::blocks::innermost;
use crate::support::selector;
use crate::support::text::word_iter;
use crate::{Category, Check, Impact, Need, Rule, RuleMeta};

/// Checks the words of English prose against the installed Hunspell dictionary.
pub struct Spelling;

/// Most misspellings listed in one finding.
pub const MAX_LISTED: usize = 10;

static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();

/// Installs the English dictionary (Hunspell `.aff` and `.dic` text) for this
/// process. The first successful call wins; later calls are ignored.
///
/// # Errors
/// The dictionary does not parse.
pub fn install_dictionary(aff: &str, dic: &str) -> Result<(), String> {
    if DICTIONARY.get().is_some() {
        return Ok(());
    }
    let _ = DICTIONARY.set(parse_dictionary(aff, dic)?);
    Ok(())
}

/// Parses a Hunspell dictionary without installing it.
///
/// # Errors
/// The dictionary does not parse.
pub fn parse_dictionary(aff: &str, dic: &str) -> Result<Dictionary, String> {
    Dictionary::new(aff, dic).map_err(|e| e.to_string())
}

/// Whether a dictionary is installed (the rule runs only then).
pub fn dictionary_installed() -> bool {
    DICTIONARY.get().is_some()
}

static META: RuleMeta = RuleMeta {
    id: "spelling",
    category: Category::Quality,
    title: "No spelling mistakes in English text",
    help: "Correct the listed words; add product names and jargon to your own word list if they are intended.",
    help_url: "https://www.plainlanguage.gov/guidelines/words/",
    impact: Impact::Minor,
    needs: &[Need::Dictionary],
    docs: r#"## What it checks
On pages in English (`<html lang>` of `en` or `en-US`; other regions such as
`en-GB` are skipped, since the dictionary is American), the words of each text block
(`<p>`, `<li>`, `<dd>`, `<blockquote>`, `<td>`, `<figcaption>`, headings `<h1>`–`<h6>`;
innermost blocks only) are checked against the Hunspell `en_US` dictionary from
Debian's `hunspell-en-us` package, using the `spellbook` crate. To keep false alarms
low, only lowercase words of letters (apostrophes allowed) of at least three letters
are checked: capitalised words (names, sentence starts), acronyms, words with digits,
and the text of links and `<code>` are skipped. One finding per block lists up to ten
unknown words.

When no dictionary is installed the rule does not run at all, and the report says so
in its notes — it never silently passes.

## Why it matters
Typos make a site look careless and cost trust, especially on product and checkout
pages; they also hurt search for the misspelled terms.

## Failing
```html
<p>Our mugs are recieved in perfect condtion.</p>
```

## Passing
```html
<p>Our mugs are received in perfect condition.</p>
```
"#,
    ..RuleMeta::BASE
};

/// Whether a word is one the rule checks (see the docs).
fn checkable(w: &str) -> bool {
    w.chars().count() >= 3
        && w.chars().all(|c| c.is_lowercase() || c == '\'' || c == '’')
        && w.chars().any(char::is_alphabetic)
}

/// The block's text without links and code.
fn prose_text(el: scraper::ElementRef<'_>) -> String {
    let mut out = String::new();
    let skipped = ["a", "code", "pre", "kbd", "samp", "script", "style"];
    for (_, t) in crate::dom::text_nodes_outside(el, &skipped) {
        out.push_str(t);
        out.push(' ');
    }
    out
}

/// Whether the page is in English without a region other than the US (`en`,
/// `en-US`): the installed dictionary is American.
fn is_american_english(cx: &crate::PageContext<'_>) -> bool {
    let root = cx.root().value();
    root.attr("lang")
        .or_else(|| root.attr("xml:lang"))
        .map(|l| l.trim().to_ascii_lowercase())
        .is_some_and(|l| l == "en" || l == "en-us" || l.starts_with("en-us-"))
}

impl Rule for Spelling {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let Some(dict) = DICTIONARY.get() else {
            return;
        };
        let pcx = cx.page();
        if !pcx.page().is_html() || !is_american_english(pcx) {
            return;
        }
        let blocks = selector!("p, li, dd, blockquote, td, figcaption, h1, h2, h3, h4, h5, h6");
        // A page repeats most of its words: each is looked up once.
        let mut known: FxHashMap<String, bool> = FxHashMap::default();
        for block in innermost(pcx, blocks) {
            let text = prose_text(block);
            let mut wrong: Vec<String> = Vec::new();
            let mut checked = 0;
            for w in word_iter(&text) {
                if !checkable(w) {
                    continue;
                }
                checked += 1;
                let w: Cow<'_, str> = if w.contains('’') {
                    w.replace('’', "'").into()
                } else {
                    w.into()
                };
                let correct = match known.get(&*w) {
                    Some(c) => *c,
                    None => {
                        let c = dict.check(&w);
                        known.insert(w.to_string(), c);
                        c
                    }
                };
                if !correct && !wrong.iter().any(|x| *x == *w) {
                    wrong.push(w.into_owned());
                }
            }
            if checked == 0 {
                continue;
            }
            if wrong.is_empty() {
                cx.pass();
            } else {
                let listed: Vec<&str> = wrong.iter().take(MAX_LISTED).map(String::as_str).collect();
                cx.fail(
                    block,
                    format!("Possible spelling mistakes: {}.", listed.join(", ")),
                )
                .with_data(serde_json::json!({"words": wrong}));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    /// A tiny Hunspell dictionary: an affix file with a plural suffix, and a word
    /// list. Enough to exercise the rule without the system dictionary.
    const AFF: &str = "SET UTF-8\nTRY esianrtolcdugmphbyfvkwzESIANRTOLCDUGMPHBYFVKWZ'\n\nSFX S Y 1\nSFX S 0 s .\n";
    const DIC: &str =
        "14\nsee\nand\nour\nmug/S\nare\nreceived\nin\nperfect\ncondition\nthe\nshop\nsells\nhand\nmade\n";

    #[test]
    fn examples() {
        install_dictionary(AFF, DIC).unwrap();
        assert!(dictionary_installed());
        RuleTester::new(&Spelling)
            .pass(&[
                ("(page)", "<p>Our mugs are received in perfect condition.</p>"),
                ("(page)", "<p>Our Zorblax mugs are received in perfect condition, see <a href=\"/x\">thsi</a> and <code>fn mian</code>.</p>"),
            ])
            .inapplicable(&[
                "<html lang=\"de\"><body><p>Unsere Tassen sind handgemacht.</p></body></html>",
                "<html lang=\"en-GB\"><body><p>The colour of our mugs.</p></body></html>",
            ])
            .fail(&[
                ("p", "<p>Our mugs are recieved in perfect condtion.</p>"),
                ("li", "<ul><li>the shop sells hand made mugz</li></ul>"),
            ])
            .run();
    }
}
