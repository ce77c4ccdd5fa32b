//! `video-caption`: `<video>` elements have a captions track (WCAG 1.2.2, ACT
//! f51b46 and eac66b).

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
Every visible `<video>` has a `<track>` child
with `kind="captions"`. When it has one, whether the captions are complete and
correct cannot be judged from the markup: the outcome is *cannot tell* and a
person should review it. Without one the video fails; a video that has no audio,
or whose captions are burnt into the picture, is reported too and needs a
person to dismiss it.

## Why it matters
Deaf and hard-of-hearing people get the spoken content of a video only through
captions.

## Failing
```html
<video src="intro.mp4" controls></video>
```

## Passing
```html
<video src="intro.mp4" controls><track kind="captions" src="intro.en.vtt" srclang="en"></video>
```
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
        if captions {
            cx.cant_tell(
                el,
                "The video has a captions track; check that it captions all of the audio.",
            );
        } else {
            cx.fail(el, "The video has no captions track.");
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
            .pass(&["<p>no video</p>", "<video hidden src=a.mp4></video>"])
            .fail(&[
                "<video src=a.mp4 controls></video>",
                "<video><track kind=subtitles src=a.vtt></video>",
            ])
            .cant_tell(&["<video src=a.mp4><track kind=Captions src=a.vtt></video>"])
            .run();
    }
}
