//! What the browser measured with the page laid out in narrow viewports
//! (render mode, when a selected rule needs [`crate::Need::NarrowViewport`]).
//!
//! After the page's facts ([`crate::rendered`]) the engine lays the page's
//! tab out at [`REFLOW_VIEWPORT`] (320×256 CSS pixels: a 1280 pixel wide
//! desktop at 400% zoom, WCAG 1.4.10 reflow) and at [`ZOOM_VIEWPORT`]
//! (640×512: the same desktop at 200%, WCAG 1.4.4 resize text), measures each
//! layout with one script in an isolated world, and restores the viewport.
//! Elements are named by their render stamp ([`crate::rendered::STAMP_ATTR`]),
//! so the rules map the measurements onto the parsed DOM as they map the
//! other facts.
//!
//! **Bounds.** At most [`MAX_OVERFLOWING`] elements sticking out and
//! [`MAX_CLIPPING`] clipping boxes per viewport are kept, each box's text is
//! sampled up to a cap, and the walk stops at
//! [`crate::rendered::MAX_FACT_ELEMENTS`] elements; a layout cut short by a
//! cap says so ([`ViewportLayout::complete`]) and the rules then keep their
//! static estimates for what it does not cover.

use serde::{Deserialize, Serialize};

use crate::css::Viewport;

/// The reflow viewport: 320×256 CSS pixels (WCAG 1.4.10).
pub const REFLOW_VIEWPORT: Viewport = Viewport {
    width: 320.0,
    height: 256.0,
};

/// The viewport of text zoomed to 200%: 640×512 CSS pixels (WCAG 1.4.4),
/// as the static cascade's [`Viewport::ZOOMED`].
pub const ZOOM_VIEWPORT: Viewport = Viewport::ZOOMED;

/// Most elements sticking out of the viewport kept per layout.
pub const MAX_OVERFLOWING: usize = 200;

/// Most clipping boxes kept per layout.
pub const MAX_CLIPPING: usize = 2_000;

/// An element that sticks out of the viewport sideways while the page
/// scrolls sideways: the outermost such box of its branch (its descendants
/// stick out with it and are not listed), or the two-dimensional content
/// (table, image, code block, ...) inside it that makes it that wide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Overflowing {
    /// The element's render stamp.
    pub stamp: u32,
    /// Its border box's width, CSS pixels.
    pub width: f32,
    /// How far its far edge lies past the viewport's, CSS pixels.
    pub past: f32,
}

/// A rendered box that clips its overflow (`overflow: hidden` or `clip` in an
/// axis) and holds visible text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Clipping {
    /// The box's render stamp.
    pub stamp: u32,
    /// Whether some of its text is cut off: a line partly outside its
    /// padding box, a text that runs on past its edge, or the line right
    /// after its edge (text ending in an ellipsis across is marked, not cut).
    pub cut: bool,
}

/// The page laid out in one viewport.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewportLayout {
    /// The layout viewport's width, CSS pixels (the root's client width).
    pub width: f32,
    /// The layout viewport's height, CSS pixels.
    pub height: f32,
    /// The page's scrollable width, CSS pixels.
    pub scroll_width: f32,
    /// The elements sticking out sideways (empty when the page does not
    /// scroll sideways), ordered by stamp. Measured at [`REFLOW_VIEWPORT`]
    /// only (the `reflow` rule's): empty at [`ZOOM_VIEWPORT`].
    pub overflowing: Vec<Overflowing>,
    /// Elements sticking out that carry no stamp (added by a script after
    /// the stamping).
    pub unstamped: u32,
    /// Every clipping box with text, ordered by stamp. Measured at
    /// [`ZOOM_VIEWPORT`] only (the `zoomed-text-clipped` rule's): empty at
    /// [`REFLOW_VIEWPORT`].
    pub clipping: Vec<Clipping>,
    /// Whether every element was measured (no cap was reached).
    pub complete: bool,
}

impl ViewportLayout {
    /// Whether the page needs scrolling sideways in this viewport (one CSS
    /// pixel of slack for rounding).
    pub fn scrolls_sideways(&self) -> bool {
        self.scroll_width > self.width + 1.0
    }

    /// The clipping box stamped `stamp`, if it is one.
    pub fn clipping(&self, stamp: u32) -> Option<&Clipping> {
        self.clipping
            .binary_search_by_key(&stamp, |c| c.stamp)
            .ok()
            .map(|i| &self.clipping[i])
    }

    /// The element stamped `stamp` when it sticks out sideways.
    pub fn overflowing(&self, stamp: u32) -> Option<&Overflowing> {
        self.overflowing
            .binary_search_by_key(&stamp, |o| o.stamp)
            .ok()
            .map(|i| &self.overflowing[i])
    }

    /// Puts the lists in stamp order (for the lookups), one entry per stamp,
    /// within the caps.
    pub fn normalize(&mut self) {
        self.overflowing.sort_by_key(|o| o.stamp);
        self.overflowing.dedup_by_key(|o| o.stamp);
        if self.overflowing.len() > MAX_OVERFLOWING {
            self.overflowing.truncate(MAX_OVERFLOWING);
            self.complete = false;
        }
        self.clipping.sort_by_key(|c| c.stamp);
        self.clipping.dedup_by_key(|c| c.stamp);
        if self.clipping.len() > MAX_CLIPPING {
            self.clipping.truncate(MAX_CLIPPING);
            self.complete = false;
        }
    }
}

/// The page's layouts in the narrow viewports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NarrowFacts {
    /// At [`REFLOW_VIEWPORT`]; `None` when it could not be measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reflow: Option<ViewportLayout>,
    /// At [`ZOOM_VIEWPORT`]; `None` when it could not be measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoomed: Option<ViewportLayout>,
    /// Why a layout is missing, when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_work_in_stamp_order_within_the_caps() {
        let mut l = ViewportLayout {
            width: 320.0,
            height: 256.0,
            scroll_width: 1000.0,
            overflowing: vec![
                Overflowing {
                    stamp: 9,
                    width: 1000.0,
                    past: 680.0,
                },
                Overflowing {
                    stamp: 3,
                    width: 500.0,
                    past: 188.0,
                },
            ],
            clipping: (0..(MAX_CLIPPING as u32 + 5))
                .rev()
                .map(|stamp| Clipping {
                    stamp,
                    cut: stamp == 7,
                })
                .collect(),
            complete: true,
            ..ViewportLayout::default()
        };
        l.normalize();
        assert!(l.scrolls_sideways());
        assert_eq!(l.overflowing(3).map(|o| o.width), Some(500.0));
        assert!(l.overflowing(4).is_none());
        assert_eq!(l.clipping(7).map(|c| c.cut), Some(true));
        assert_eq!(l.clipping(8).map(|c| c.cut), Some(false));
        assert_eq!(l.clipping.len(), MAX_CLIPPING);
        assert!(!l.complete);
        let fits = ViewportLayout {
            width: 320.0,
            scroll_width: 321.0,
            ..ViewportLayout::default()
        };
        assert!(!fits.scrolls_sideways());
    }
}
