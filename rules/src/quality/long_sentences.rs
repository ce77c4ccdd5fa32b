//! `long-sentences`: sentences are not overly long.

use crate::support::text::{sentences, word_count};
use crate::{Category, Check, Impact, Rule, RuleMeta};

/// Fails text blocks holding a sentence of more than [`MAX_WORDS`] words.
pub struct LongSentences;

/// Most words in one sentence (plain-language guides put "hard" at 25 and
/// "very hard" above 40).
pub const MAX_WORDS: usize = 40;

static META: RuleMeta = RuleMeta {
    id: "long-sentences",
    category: Category::Quality,
    title: "Sentences are not overly long",
    help: "Split sentences of more than 40 words; one idea per sentence.",
    help_url: "https://www.plainlanguage.gov/guidelines/concise/write-short-sentences/",
    impact: Impact::Minor,
    docs: r#"## What it checks
Each text block (`<p>`, `<li>`, `<dd>`, `<blockquote>`, `<td>`, `<figcaption>`,
innermost only) is split into sentences at `.`, `!` and `?` followed by white
space. A block with a sentence of more than 40 words fails, with the word count and
the start of the sentence in the finding.

## Why it matters
Long sentences force readers to hold many ideas at once; comprehension drops sharply
past 25–30 words, and more so for people reading in a second language.

## Failing
```html
<p>When you order one of our mugs, which are all made by hand in our small workshop in the hills above the town where we have been working since 1998, we wrap it in recycled paper and ship it with a carrier that plants a tree for every parcel it delivers to our customers.</p>
```

## Passing
```html
<p>We make every mug by hand in our workshop. We wrap it in recycled paper. Our carrier plants a tree for every parcel.</p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for LongSentences {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_document(&self, cx: &mut Check<'_, '_>) {
        let pcx = cx.page();
        for block in pcx.text_blocks() {
            if pcx.should_stop() {
                return;
            }
            let Some(el) = pcx.element(block.node) else {
                continue;
            };
            let text = &block.text;
            let longest = sentences(text)
                .into_iter()
                .map(|s| (word_count(s), s))
                .max_by_key(|(n, _)| *n);
            match longest {
                Some((n, s)) if n > MAX_WORDS => {
                    let start: String = s.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
                    cx.fail(
                        el,
                        format!("A sentence has {n} words (more than {MAX_WORDS}): \"{start} …\"."),
                    )
                    .with_data(serde_json::json!({"words": n, "max": MAX_WORDS}));
                }
                _ => cx.pass(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&LongSentences)
            .pass(&[
                ("(page)", &format!("<p>{}</p>", "We make mugs by hand. ".repeat(30))),
                ("(page)", &format!("<p>{}.</p>", "word ".repeat(40))),
            ])
            .fail(&[
                ("p", &format!("<p>{}.</p>", "word ".repeat(41))),
                ("li", &format!("<ul><li>{}</li></ul>", "word ".repeat(60))),
            ])
            .run();
    }
}
