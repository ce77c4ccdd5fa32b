//! `video-caption`: `<video>` elements have captions (WCAG 1.2.2, ACT f51b46 and
//! eac66b); always a review item, since the markup never shows whether a video has
//! sound, burnt-in captions or a text alternative.

use scraper::ElementRef;

use crate::structure::{is_html, is_html_tag};
use crate::{Category, Check, Impact, Level, Rule, RuleMeta, Visits};

/// Checks that videos carry a `<track kind="captions">`.
pub struct VideoCaption;

static META: RuleMeta = RuleMeta {
    id: "video-caption",
    category: Category::Accessibility,
    title: "Videos have captions",
    help: "Add a <track kind=\"captions\"> with captions for all speech and meaningful sounds.",
    help_url: "https://www.w3.org/WAI/WCAG21/Understanding/captions-prerecorded.html",
    wcag: &["1.2.2"],
    level: Some(Level::A),
    impact: Impact::Critical,
    act: &["f51b46", "eac66b"],
    docs: r#"## What it checks
Every visible `<video>` is reported for review (*cannot tell*), never
failed: whether it passes depends on what it plays, which the markup does not
show. With a `<track kind="captions">` a person checks that the captions are
complete and correct. Without one the video still passes when its captions are
burnt into the picture (open captions), when it has no sound at all, or when it
is itself the media alternative of text on the page; the finding says which of
these to check.

## Why it matters
Deaf and hard-of-hearing people get the spoken content of a video only through
captions.

## Failing
```html
<video src="intro.mp4" controls></video>
```
(reported for review: the video may have sound and no captions)

## Passing
```html
<video src="intro.mp4" controls><track kind="captions" src="intro.en.vtt" srclang="en"></video>
```
(still reported for review: a person checks that the captions cover all of the audio)
"#,
    ..RuleMeta::BASE
};

impl Rule for VideoCaption {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn visits(&self) -> Visits {
        Visits::Tags(&["video"])
    }

    fn check_element(&self, el: ElementRef<'_>, cx: &mut Check<'_, '_>) {
        if !is_html(el) || !cx.page().is_visible(el) {
            return;
        }
        let captions = el.children().filter_map(ElementRef::wrap).any(|t| {
            is_html_tag(t, "track")
                && t.value()
                    .attr("kind")
                    .is_some_and(|k| k.trim().eq_ignore_ascii_case("captions"))
        });
        // Never a failure: a video without a track passes when it is silent, has
        // open captions or is the media alternative of text next to it, and none
        // of that is in the markup.
        if captions {
            cx.cant_tell(
                el,
                "The video has a captions track; check that it captions all of the audio.",
            );
        } else {
            cx.cant_tell(
                el,
                "The video has no captions track; check that it has no sound, shows captions in the picture, or is a media alternative for text on the page.",
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
        RuleTester::new(&VideoCaption)
            .inapplicable(&["<p>no video</p>", "<video hidden src=a.mp4></video>"])
            .cant_tell(&[
                ("video", "<video src=a.mp4><track kind=Captions src=a.vtt></video>"),
                // No track: silent, open captions or a media alternative are all
                // possible, so never a failure.
                ("video", "<video src=a.mp4 controls></video>"),
                ("video", "<video><track kind=subtitles src=a.vtt></video>"),
            ])
            .run();
    }
}
