//! `audio-caption`: audio people can play has a text alternative; always a
//! review item (WCAG 1.2.1, ACT e7aa44 and 2eb176).

use scraper::ElementRef;

use crate::structure::is_html;
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Asks a person to check that playable audio has a transcript.
pub struct AudioCaption;

static META: RuleMeta = RuleMeta {
    id: "audio-caption",
    category: Category::Accessibility,
    title: "Audio has a text alternative",
    help: "Provide a transcript of the audio on the page or linked next to the player.",
    help_url:
        "https://www.w3.org/WAI/WCAG21/Understanding/audio-only-and-video-only-prerecorded.html",
    wcag: &["1.2.1"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["e7aa44", "2eb176"],
    docs: r#"## What it checks
Every `<audio>` element people can play (it has visible `controls`, or
`autoplay`). A transcript may be anywhere on the page
or behind a link, and whether it matches the audio is a matter of listening, so
the outcome is always *cannot tell*: a person should check that a correct
transcript exists. A `<track kind="captions">` does not count as a transcript:
browsers do not show tracks for audio.

## Why it matters
Deaf and hard-of-hearing people get the content of a podcast or audio clip only
through a transcript.

## Failing
```html
<audio src="episode-12.mp3" controls></audio>
```
(reported for review: no transcript can be found next to it)

## Passing
```html
<p>A page without playable audio.</p>
```
"#,
    ..RuleMeta::BASE
};

impl Rule for AudioCaption {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["audio"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) {
            return;
        }
        let playable = (el.value().attr("controls").is_some() && cx.page().is_visible(el))
            || el.value().attr("autoplay").is_some();
        if playable {
            cx.cant_tell(
                el,
                "Check that this audio has a correct transcript on or linked from the page.",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RuleTester;

    #[test]
    fn examples() {
        RuleTester::new(&AudioCaption)
            .inapplicable(&[
                "<audio src=a.mp3></audio>",
                "<audio hidden controls src=a.mp3></audio>",
            ])
            .cant_tell(&[
                ("audio", "<audio src=a.mp3 controls></audio>"),
                ("audio", "<audio src=a.mp3 autoplay></audio>"),
            ])
            .run();
    }
}
