//! What the browser measured on a rendered page (render mode only).
//!
//! In render mode the engine takes, besides the serialized DOM, one
//! `DOMSnapshot.captureSnapshot` of the page: each element's computed style
//! (the properties in [`ElementFacts`]), its layout box, the background colour
//! the browser blends behind its text and its text's opacity. The static scan
//! leaves [`crate::Page::rendered`] `None` and rules use the cascade's
//! estimates ([`crate::css`]).
//!
//! **Mapping facts to the parsed DOM.** Before the snapshot the engine stamps
//! every element of the page, in document order, with the attribute
//! [`STAMP_ATTR`] holding its index; the snapshot reads the stamp from each
//! node's attributes and the serialized DOM carries it too. When the rules
//! parse a rendered page the stamp is removed from every element (no rule,
//! snippet or selector sees it) and remembered as the element's index into
//! [`RenderedFacts::elements`]. So the mapping holds whatever the page's
//! scripts do: an element a script adds after the stamping has no stamp and no
//! facts (rules fall back to the static estimate for it), a stamp a script
//! copies or forges only mislabels that page's own elements.
//!
//! **Bounds.** The engine takes no facts from a page with more than
//! [`MAX_FACT_ELEMENTS`] elements, from a snapshot larger than the protocol's
//! message cap, or when the snapshot does not come back in time: the page is
//! then analyzed with the static estimates and [`RenderedFacts::note`] says
//! why.

use serde::{Deserialize, Serialize};

use crate::css::color::Rgba;

/// The attribute the engine stamps on every element before the snapshot; its
/// value is the element's index into [`RenderedFacts::elements`].
pub const STAMP_ATTR: &str = "data-sitescan-node";

/// Most elements a page may have for its facts to be taken.
pub const MAX_FACT_ELEMENTS: usize = 50_000;

/// Longest computed `background-image` kept in [`ElementFacts`]: gradients
/// fit; a longer value (a `data:` image, a stack of layers) is an image to
/// the rules either way.
pub const MAX_BACKGROUND_IMAGE: usize = 2048;

/// A rectangle in CSS pixels, page coordinates (the document's origin).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: f32,
    /// Top edge.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
}

/// What the browser computed for one element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementFacts {
    /// Computed `display` (`none` when the element is not rendered).
    pub display: String,
    /// Computed `visibility`.
    pub visibility: String,
    /// Computed `opacity` of the element itself (not its ancestors').
    pub opacity: f32,
    /// Computed `color`.
    pub color: Option<Rgba>,
    /// Computed `font-size`, CSS pixels.
    pub font_size: f32,
    /// Computed `font-weight` (100 to 900).
    pub font_weight: f32,
    /// Computed `overflow-x`.
    pub overflow_x: String,
    /// Computed `overflow-y`.
    pub overflow_y: String,
    /// The border box; `None` when the element has no layout box.
    pub bounds: Option<Rect>,
    /// The scroll position and the scrollable content's size
    /// (`scrollLeft`, `scrollTop`, `scrollWidth`, `scrollHeight`); `None`
    /// without a layout box, and for a box whose computed overflow scrolls
    /// in neither axis (`auto` or `scroll`): render mode reads it only for
    /// boxes that scroll.
    pub scroll: Option<Rect>,
    /// The padding box's size (`clientWidth` and `clientHeight`; the border
    /// widths as `x` and `y`); `None` where [`ElementFacts::scroll`] is.
    pub client: Option<Rect>,
    /// The background colour the browser blends behind the element's text
    /// (every ancestor's background composited); `None` when it could not
    /// tell (an image or a gradient behind).
    pub background: Option<Rgba>,
    /// The opacity the element's text is painted with (its own and its
    /// ancestors' opacities multiplied).
    pub text_opacity: Option<f32>,
    /// The backdrop of the element's own text as the browser painted it,
    /// measured pixel by pixel in a screenshot with the text hidden (render
    /// mode, when [`background`](Self::background) is not one opaque
    /// colour: an image, a gradient, content behind); `None` when not
    /// measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backdrop: Option<MeasuredBackdrop>,
    /// Computed `background-color` of the element's own box; `None` when
    /// not read (no layout box) or in a colour syntax not parsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_color: Option<Rgba>,
    /// Computed `background-image` (`none` without one), at most
    /// [`MAX_BACKGROUND_IMAGE`] bytes: a longer value is kept as `url()`,
    /// an image whatever it held. `None` when not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_image: Option<String>,
    /// For a link, its look at rest, hovered and focused, as the browser
    /// computed it with those states forced ([`crate::Need::LinkStates`]);
    /// `None` for other elements and where not taken. Boxed: few elements
    /// carry it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<Box<LinkStates>>,
    /// Where the element paints, by its computed outline, box shadows and
    /// filter ([`ink_overflow`]); `None` when not read (the rules then go
    /// by the declared styles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ink: Option<Ink>,
}

/// Where an element paints, beyond its border box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ink {
    /// Within its border box grown by this many CSS pixels.
    Within(f32),
    /// Anywhere: how far is not known (a filter by URL, a value not
    /// understood).
    Anywhere,
}

/// How far beyond its border box an element paints, CSS pixels, from its
/// computed `outline-style`, `outline-width`, `outline-offset`,
/// `box-shadow` and `filter` (as the browser serializes them: lengths in
/// `px`, colours as functions); [`Ink::Anywhere`] when a value is not
/// understood or paints where no length says (a filter by URL).
///
/// - An outline reaches its width plus its offset (a negative offset pulls
///   it inside); Chromium's `auto` focus ring a pixel more.
/// - A shadow reaches its larger offset, its blur radius and its spread;
///   an inset shadow stays inside.
/// - A filter adds to what it filters: `blur(r)` three standard deviations,
///   `drop-shadow()` its offset and three times its blur; the colour
///   filters nothing.
pub fn ink_overflow(
    outline_style: &str,
    outline_width: &str,
    outline_offset: &str,
    box_shadow: &str,
    filter: &str,
) -> Ink {
    reach(
        outline_style,
        outline_width,
        outline_offset,
        box_shadow,
        filter,
    )
    .map_or(Ink::Anywhere, Ink::Within)
}

/// [`ink_overflow`]'s reach, `None` where not known.
fn reach(
    outline_style: &str,
    outline_width: &str,
    outline_offset: &str,
    box_shadow: &str,
    filter: &str,
) -> Option<f32> {
    let outline = match outline_style.trim() {
        "" | "none" | "hidden" => 0.0,
        style => {
            let width = px(outline_width)?;
            let offset = px(outline_offset).unwrap_or(0.0);
            let ring = if style == "auto" { 1.0 } else { 0.0 };
            (width + offset + ring).max(0.0)
        }
    };
    let mut shadow: f32 = 0.0;
    let box_shadow = box_shadow.trim();
    if !box_shadow.is_empty() && box_shadow != "none" {
        for one in split_top(box_shadow, ',') {
            let words = split_top(one, ' ');
            if words.contains(&"inset") {
                continue;
            }
            shadow = shadow.max(shadow_reach(&words, true)?);
        }
    }
    let mut filtered: f32 = 0.0;
    let filter = filter.trim();
    if !filter.is_empty() && filter != "none" {
        for function in split_top(filter, ' ') {
            let (name, args) = function.strip_suffix(')')?.split_once('(')?;
            filtered += match name.trim() {
                "brightness" | "contrast" | "grayscale" | "hue-rotate" | "invert" | "opacity"
                | "saturate" | "sepia" => 0.0,
                "blur" => 3.0 * px(args).unwrap_or(0.0),
                "drop-shadow" => shadow_reach(&split_top(args, ' '), false)?,
                _ => return None,
            };
        }
    }
    let reach = outline.max(shadow) + filtered;
    reach.is_finite().then_some(reach)
}

/// The reach of one shadow's words (its colour, a function, among them):
/// two offsets, then a blur and (for a box shadow) a spread.
fn shadow_reach(words: &[&str], box_shadow: bool) -> Option<f32> {
    let lengths: Vec<f32> = words
        .iter()
        .filter(|w| {
            !w.contains('(')
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '.')
        })
        .map(|w| px(w))
        .collect::<Option<_>>()?;
    let most = if box_shadow { 4 } else { 3 };
    if lengths.len() < 2 || lengths.len() > most {
        return None;
    }
    let blur = lengths.get(2).copied().unwrap_or(0.0).max(0.0);
    let spread = lengths.get(3).copied().unwrap_or(0.0).max(0.0);
    let blur = if box_shadow { blur } else { 3.0 * blur };
    Some(lengths[0].abs().max(lengths[1].abs()) + blur + spread)
}

/// A computed length in CSS pixels (`12px`, `0`).
fn px(v: &str) -> Option<f32> {
    let v = v.trim();
    let n = v.strip_suffix("px").unwrap_or(v).trim();
    n.parse::<f32>().ok().filter(|f| f.is_finite())
}

/// `v` split at `sep` outside parentheses, empty parts dropped.
fn split_top(v: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in v.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => {
                parts.push(&v[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&v[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Most links of a page whose [`LinkStates`] are taken, in document order:
/// each costs protocol calls to force its states.
pub const MAX_STATE_LINKS: usize = 1000;

/// A link's look in the states a user puts it in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LinkStates {
    /// As the page shows it untouched.
    pub rest: StateStyle,
    /// Under the pointer (`:hover` forced on the link and its ancestors).
    pub hover: StateStyle,
    /// Focused from the keyboard (`:focus` and `:focus-visible` forced on
    /// the link, `:focus-within` on its ancestors).
    pub focus: StateStyle,
}

/// What sets a link apart from its text other than its colour, as computed
/// in one state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateStyle {
    /// Its text is underlined: `text-decoration-line` holds `underline` on
    /// the link, an element inside it, or an inline ancestor whose
    /// decoration reaches it.
    pub underline: bool,
    /// A visible bottom border (a style other than `none` or `hidden`, a
    /// width above 0).
    pub border_bottom: bool,
    /// A visible outline (a style other than `none`, a width above 0).
    pub outline: bool,
    /// Computed `box-shadow`, at most 256 bytes (`none` without one).
    pub box_shadow: String,
    /// Computed `background-color`; `None` in a colour syntax not parsed.
    pub background_color: Option<Rgba>,
    /// Computed `background-image`, at most 256 bytes (`none` without one).
    pub background_image: String,
    /// Computed `font-weight`.
    pub font_weight: f32,
    /// Computed `font-style`.
    pub font_style: String,
    /// Computed `font-family`, at most 256 bytes.
    pub font_family: String,
    /// What the link's `::before` and `::after` boxes draw, when they have
    /// content (their content, size, background, bottom border, opacity,
    /// transform and visibility), at most 256 bytes; empty without them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub drawn: String,
}

impl StateStyle {
    /// The first cue other than colour this state shows that `rest` does
    /// not: a line (underline, border, outline), a shadow, a background, a
    /// change of font. `None` when it looks like `rest` but for colour.
    pub fn cue_over(&self, rest: &StateStyle) -> Option<&'static str> {
        if self.underline && !rest.underline {
            Some("underline")
        } else if self.border_bottom && !rest.border_bottom {
            Some("border")
        } else if self.outline && !rest.outline {
            Some("outline")
        } else if self.box_shadow != rest.box_shadow {
            Some("box-shadow")
        } else if self.background_color != rest.background_color
            || self.background_image != rest.background_image
        {
            Some("background")
        } else if self.font_weight != rest.font_weight
            || self.font_style != rest.font_style
            || self.font_family != rest.font_family
        {
            Some("font")
        } else if self.drawn != rest.drawn {
            Some("pseudo-element")
        } else {
            None
        }
    }
}

/// One end of a [`MeasuredBackdrop`]'s range: a contrast ratio and the
/// colours giving it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioAt {
    /// The contrast ratio, 1 to 21.
    pub ratio: f32,
    /// The text colour as painted over that pixel (its opacity applied).
    pub fg: Rgba,
    /// The backdrop pixel.
    pub bg: Rgba,
}

/// The contrast of a text colour against every pixel of its measured
/// backdrop: the lowest and the highest ratio.
///
/// Contrast is not monotonic in the backdrop's lightness (it is lowest where
/// the backdrop is as light as the text), so the range is taken over every
/// pixel, not from the darkest and the lightest alone.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeasuredBackdrop {
    /// How many backdrop pixels were measured.
    pub pixels: u32,
    /// The lowest ratio over the pixels.
    pub min: RatioAt,
    /// The highest ratio over the pixels.
    pub max: RatioAt,
}

impl MeasuredBackdrop {
    /// The contrast of text colour `fg`, painted with `opacity`, against each
    /// opaque backdrop pixel (`[r, g, b]`); `None` without pixels. The text's
    /// colour is composited over each pixel, as the browser paints it.
    pub fn measure(
        fg: Rgba,
        opacity: f32,
        pixels: impl IntoIterator<Item = [u8; 3]>,
    ) -> Option<MeasuredBackdrop> {
        let fg = fg.fade(opacity);
        let mut count: u32 = 0;
        let mut range: Option<(RatioAt, RatioAt)> = None;
        // Backdrops repeat colours (flat areas, dark photos): each distinct
        // colour after the previous one is judged once.
        let mut last: Option<[u8; 3]> = None;
        for px in pixels {
            count = count.saturating_add(1);
            if last == Some(px) {
                continue;
            }
            last = Some(px);
            let bg = Rgba {
                r: f32::from(px[0]),
                g: f32::from(px[1]),
                b: f32::from(px[2]),
                a: 1.0,
            };
            let text = fg.over(bg);
            let at = RatioAt {
                ratio: crate::css::color::contrast_ratio(text, bg),
                fg: text,
                bg,
            };
            range = Some(match range {
                None => (at, at),
                Some((lo, hi)) => (
                    if at.ratio < lo.ratio { at } else { lo },
                    if at.ratio > hi.ratio { at } else { hi },
                ),
            });
        }
        let (min, max) = range?;
        Some(MeasuredBackdrop {
            pixels: count,
            min,
            max,
        })
    }

    /// Whether the text has `expected` contrast with every pixel
    /// (`Some(true)`), with none (`Some(false)`), or with some and not
    /// others (`None`: a mixed backdrop).
    pub fn judge(&self, expected: f32) -> Option<bool> {
        if self.min.ratio >= expected {
            Some(true)
        } else if self.max.ratio < expected {
            Some(false)
        } else {
            None
        }
    }
}

impl ElementFacts {
    /// Whether the element is rendered and not hidden by its own style or
    /// an ancestor's (`display: none` anywhere above leaves no box,
    /// `visibility` is inherited, opacity 0 hides its content).
    pub fn is_visible(&self) -> bool {
        self.bounds.is_some()
            && self.display != "none"
            && self.visibility != "hidden"
            && self.visibility != "collapse"
            && self.text_opacity.is_none_or(|o| o > 0.0)
    }

    /// Whether the element's box is outside the page's scrollable area
    /// (to its left or above it), where no visitor can scroll.
    pub fn is_off_page(&self) -> bool {
        self.bounds
            .is_some_and(|b| b.x + b.width <= 0.0 || b.y + b.height <= 0.0)
    }
}

/// What the browser measured on one page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RenderedFacts {
    /// The viewport the facts were taken in, CSS pixels (width and height).
    pub viewport: Rect,
    /// Per stamp ([`STAMP_ATTR`]), the element's facts; `None` for an element
    /// the snapshot did not find (removed by a script after the stamping).
    pub elements: Vec<Option<ElementFacts>>,
    /// The stamp of the open modal dialog (`:modal`), if one is open:
    /// everything outside it is inert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modal: Option<u32>,
    /// The page laid out again in narrow viewports, when a selected rule
    /// needs it ([`crate::Need::NarrowViewport`]); boxed, as most pages'
    /// facts go without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrow: Option<Box<crate::narrow::NarrowFacts>>,
    /// Why facts are missing, when they are: `elements` is then empty and
    /// rules use the static estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl RenderedFacts {
    /// Facts that could not be taken, and why.
    pub fn absent(note: impl Into<String>) -> RenderedFacts {
        RenderedFacts {
            note: Some(note.into()),
            ..RenderedFacts::default()
        }
    }

    /// The facts of the element stamped `stamp`.
    pub fn element(&self, stamp: u32) -> Option<&ElementFacts> {
        self.elements
            .get(usize::try_from(stamp).ok()?)
            .and_then(Option::as_ref)
    }

    /// Whether facts were taken.
    pub fn is_present(&self) -> bool {
        self.note.is_none() && !self.elements.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ink_reaches_as_far_as_outline_shadows_and_filter_paint() {
        let ink = |o: &str, w: &str, off: &str, sh: &str, f: &str| ink_overflow(o, w, off, sh, f);
        // Nothing beyond the box.
        assert_eq!(ink("none", "0px", "0px", "none", "none"), Ink::Within(0.0));
        // Node.js docs' theme button: `outline: var(--brand3) dotted 2px`.
        assert_eq!(
            ink("dotted", "2px", "0px", "none", "none"),
            Ink::Within(2.0)
        );
        assert_eq!(ink("solid", "3px", "4px", "none", "none"), Ink::Within(7.0));
        assert_eq!(
            ink("solid", "2px", "-5px", "none", "none"),
            Ink::Within(0.0)
        );
        assert_eq!(ink("auto", "1px", "0px", "none", "none"), Ink::Within(2.0));
        // Shadows: the larger offset, the blur, the spread; the largest of
        // several; an inset one stays inside.
        assert_eq!(
            ink(
                "none",
                "0px",
                "0px",
                "rgba(0, 0, 0, 0.2) 0px 1px 1px 0px",
                "none"
            ),
            Ink::Within(2.0)
        );
        assert_eq!(
            ink(
                "none",
                "0px",
                "0px",
                "rgb(255, 0, 0) -6px 2px 10px 3px, rgb(0, 0, 0) 0px 0px 4px 0px inset",
                "none"
            ),
            Ink::Within(19.0)
        );
        assert_eq!(
            ink(
                "none",
                "0px",
                "0px",
                "rgb(0, 0, 0) 40px 40px 0px 0px inset",
                "none"
            ),
            Ink::Within(0.0)
        );
        // A filter adds to what it filters.
        assert_eq!(
            ink("solid", "2px", "0px", "none", "invert(1) blur(2px)"),
            Ink::Within(8.0)
        );
        assert_eq!(
            ink(
                "none",
                "0px",
                "0px",
                "none",
                "drop-shadow(rgb(0, 0, 0) 3px -4px 2px)"
            ),
            Ink::Within(10.0)
        );
        // Not known: a filter by URL, a value not understood.
        assert_eq!(
            ink("none", "0px", "0px", "none", "url(\"#f\")"),
            Ink::Anywhere
        );
        assert_eq!(
            ink("none", "0px", "0px", "rgb(0, 0, 0) 1px", "none"),
            Ink::Anywhere
        );
        assert_eq!(ink("solid", "thick", "0px", "none", "none"), Ink::Anywhere);
        assert_eq!(ink("none", "0px", "0px", "none", "blur(2px"), Ink::Anywhere);
    }

    #[test]
    fn a_state_shows_a_cue_only_in_what_it_adds_to_the_rest() {
        let rest = StateStyle {
            box_shadow: "none".into(),
            background_color: Rgba::parse("transparent"),
            background_image: "none".into(),
            font_weight: 400.0,
            font_style: "normal".into(),
            font_family: "serif".into(),
            ..StateStyle::default()
        };
        assert_eq!(rest.cue_over(&rest), None);
        let with = |f: &dyn Fn(&mut StateStyle)| {
            let mut s = rest.clone();
            f(&mut s);
            s.cue_over(&rest)
        };
        assert_eq!(with(&|s| s.underline = true), Some("underline"));
        assert_eq!(with(&|s| s.border_bottom = true), Some("border"));
        assert_eq!(with(&|s| s.outline = true), Some("outline"));
        assert_eq!(
            with(&|s| s.box_shadow = "red 0px 0px 0px 2px".into()),
            Some("box-shadow")
        );
        assert_eq!(
            with(&|s| s.background_color = Rgba::parse("#eee")),
            Some("background")
        );
        assert_eq!(
            with(&|s| s.background_image = "url(x.png)".into()),
            Some("background")
        );
        assert_eq!(with(&|s| s.font_weight = 700.0), Some("font"));
        assert_eq!(with(&|s| s.font_style = "italic".into()), Some("font"));
        assert_eq!(with(&|s| s.font_family = "monospace".into()), Some("font"));
        assert_eq!(
            with(&|s| s.drawn = "::after|\"\"|80px|2px".into()),
            Some("pseudo-element")
        );
        // A line the link already has at rest is no cue of the state's.
        let underlined = StateStyle {
            underline: true,
            ..rest.clone()
        };
        assert_eq!(underlined.cue_over(&underlined), None);
    }

    #[test]
    fn the_backdrop_is_judged_pixel_by_pixel() {
        let grey = Rgba::parse("#555").unwrap();
        // Over black only: 2.82:1 everywhere, failed at 4.5.
        let black = MeasuredBackdrop::measure(grey, 1.0, vec![[0, 0, 0]; 100]).unwrap();
        assert_eq!(black.pixels, 100);
        assert!((black.min.ratio - 2.82).abs() < 0.01, "{}", black.min.ratio);
        assert_eq!(black.min.ratio, black.max.ratio);
        assert_eq!(black.judge(4.5), Some(false));
        // Over white only: 7.46:1, passed.
        let white = MeasuredBackdrop::measure(grey, 1.0, vec![[255, 255, 255]; 10]).unwrap();
        assert_eq!(white.judge(4.5), Some(true));
        // Half and half: mixed, with the range and the pixels giving it.
        let half = MeasuredBackdrop::measure(
            grey,
            1.0,
            [[0, 0, 0], [255, 255, 255], [0, 0, 0], [255, 255, 255]],
        )
        .unwrap();
        assert_eq!(half.judge(4.5), None);
        assert_eq!(half.min.bg.to_hex(), "#000000");
        assert_eq!(half.max.bg.to_hex(), "#ffffff");
        // Both sides of the threshold, but 3:1 (large text) is missed by
        // black only.
        assert_eq!(half.judge(3.0), None);
        assert_eq!(half.judge(2.5), Some(true));
        // The lowest ratio is where the backdrop is as light as the text,
        // between the darkest and the lightest pixels.
        let mid = Rgba::parse("#767676").unwrap();
        let spread =
            MeasuredBackdrop::measure(mid, 1.0, [[0, 0, 0], [118, 118, 118], [255, 255, 255]])
                .unwrap();
        assert!(spread.min.ratio < 1.01, "{}", spread.min.ratio);
        assert_eq!(spread.judge(4.5), None);
        // Translucent text is composited over each pixel: black at half
        // opacity over white is #808080 (3.95:1).
        let faded = MeasuredBackdrop::measure(Rgba::BLACK, 0.5, [[255, 255, 255]]).unwrap();
        assert_eq!(faded.min.fg.to_hex(), "#808080");
        assert_eq!(faded.judge(4.5), Some(false));
        // No pixels, no measurement.
        assert!(MeasuredBackdrop::measure(grey, 1.0, []).is_none());
    }

    #[test]
    fn facts_round_trip_through_json() {
        let facts = RenderedFacts {
            viewport: Rect {
                x: 0.0,
                y: 0.0,
                width: 1280.0,
                height: 800.0,
            },
            elements: vec![
                Some(ElementFacts {
                    display: "block".into(),
                    visibility: "visible".into(),
                    opacity: 1.0,
                    color: Rgba::parse("rgb(10, 20, 30)"),
                    bounds: Some(Rect::default()),
                    text_opacity: Some(0.5),
                    ..ElementFacts::default()
                }),
                None,
            ],
            modal: None,
            narrow: None,
            note: None,
        };
        let json = serde_json::to_string(&facts).unwrap();
        let back: RenderedFacts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, facts);
        assert!(back.element(0).unwrap().is_visible());
        assert!(back.element(1).is_none());
        assert!(back.element(7).is_none());
        assert!(!RenderedFacts::absent("over the cap").is_present());
    }
}
