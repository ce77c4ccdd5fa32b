//! The layout boxes of a rendered page, indexed by height, to ask which
//! elements' boxes overlap a given box: render mode's `color-contrast` asks
//! what could lie under a text's box besides its own ancestors.
//!
//! Built once per page from the browser's facts ([`crate::rendered`]); every
//! box a snapshot reports is input from the scanned site, so the index is
//! bounded: boxes far down share the last band, and the looks over all of a
//! page's questions are capped ([`MAX_LOOKS`]), past which it answers "not
//! known".

use std::sync::atomic::{AtomicU64, Ordering};

use ego_tree::NodeId;

use crate::rendered::Rect;

/// Height of one band of the index, CSS pixels.
const BAND: f32 = 512.0;
/// Bands kept apart: boxes further down than `MAX_BANDS * BAND` pixels share
/// the last one (a page that tall answers more slowly, never with more
/// memory).
const MAX_BANDS: usize = 4096;
/// Boxes spanning more bands than this are kept in one list that every
/// question reads instead (page-tall wrappers: few, and mostly the asking
/// text's ancestors).
const MAX_SPAN: usize = 32;
/// Most boxes looked at over all of a page's questions; past it every
/// answer is "not known".
pub(crate) const MAX_LOOKS: u64 = 20_000_000;

/// Where an element may paint, for [`BoxIndex`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Within its box.
    Box,
    /// Within its columns, at any height: the page's scrolling moves it
    /// against the rest (`fixed`, `sticky`).
    Columns,
    /// Anywhere (what it paints beyond its box is not known).
    Anywhere,
}

/// A page's element boxes, by the bands of height they cross.
#[derive(Debug, Default)]
pub(crate) struct BoxIndex {
    boxes: Vec<(NodeId, Rect)>,
    bands: Vec<Vec<u32>>,
    tall: Vec<u32>,
    /// Boxes that reach beyond themselves, with how far.
    beyond: Vec<(u32, Reach)>,
    /// The right edge of the rightmost box.
    right: f32,
    /// Whether a visitor can scroll the page sideways (the builder's to
    /// say: it depends on the page's overflow).
    pub(crate) scrolls_sideways: bool,
    looks: AtomicU64,
}

/// The bands `r` crosses, first and last (clamped to the index).
fn band_range(r: &Rect) -> (usize, usize) {
    let band = |y: f32| ((y.max(0.0) / BAND) as usize).min(MAX_BANDS - 1);
    (band(r.y), band(r.y + r.height))
}

/// Whether `a` and `b` share an area (boxes that only touch do not).
pub(crate) fn overlap(a: &Rect, b: &Rect) -> bool {
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

impl BoxIndex {
    /// Indexes `boxes`, each with where it may paint; those without an
    /// area are left out (they cover nothing).
    pub(crate) fn new(boxes: impl IntoIterator<Item = (NodeId, Rect, Reach)>) -> Self {
        let mut index = BoxIndex::default();
        for (node, r, reach) in boxes {
            if !(r.width > 0.0 && r.height > 0.0) {
                continue;
            }
            let Ok(i) = u32::try_from(index.boxes.len()) else {
                break;
            };
            index.boxes.push((node, r));
            index.right = index.right.max(r.x + r.width);
            if reach != Reach::Box {
                index.beyond.push((i, reach));
                continue;
            }
            let (first, last) = band_range(&r);
            if last - first >= MAX_SPAN {
                index.tall.push(i);
                continue;
            }
            if index.bands.len() <= last {
                index.bands.resize_with(last + 1, Vec::new);
            }
            for band in &mut index.bands[first..=last] {
                band.push(i);
            }
        }
        index
    }

    /// Whether `is_other` holds for an element whose box (one that paints
    /// within it) overlaps `area`; a box crossing several bands may be
    /// asked about more than once. `None` once the page's looks are spent.
    pub(crate) fn any_overlapping(
        &self,
        area: &Rect,
        mut is_other: impl FnMut(NodeId) -> bool,
    ) -> Option<bool> {
        let (first, last) = band_range(area);
        let banded = self
            .bands
            .get(first..=last.min(self.bands.len().saturating_sub(1)))
            .unwrap_or(&[]);
        for &i in self.tall.iter().chain(banded.iter().flatten()) {
            if self.looks.fetch_add(1, Ordering::Relaxed) >= MAX_LOOKS {
                return None;
            }
            let Some((node, r)) = self.boxes.get(i as usize) else {
                continue;
            };
            if overlap(r, area) && is_other(*node) {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Whether `is_other` holds for a box that reaches beyond itself to
    /// `area`: anywhere, or, for the boxes the page's scrolling moves, as
    /// `columns` says (by their box, for text that moves with them; across
    /// their columns at any height; anywhere, for a page that scrolls
    /// sideways too). `None` once the page's looks are spent.
    pub(crate) fn any_reaching(
        &self,
        area: &Rect,
        columns: Reach,
        mut is_other: impl FnMut(NodeId) -> bool,
    ) -> Option<bool> {
        for &(i, reach) in &self.beyond {
            if self.looks.fetch_add(1, Ordering::Relaxed) >= MAX_LOOKS {
                return None;
            }
            let Some((node, r)) = self.boxes.get(i as usize) else {
                continue;
            };
            let reach = if reach == Reach::Columns {
                columns
            } else {
                reach
            };
            let reaches = match reach {
                Reach::Box => overlap(r, area),
                Reach::Columns => r.x < area.x + area.width && area.x < r.x + r.width,
                Reach::Anywhere => true,
            };
            if reaches && is_other(*node) {
                return Some(true);
            }
        }
        Some(false)
    }

    /// The right edge of the rightmost box (0 for none).
    pub(crate) fn right(&self) -> f32 {
        self.right
    }

    /// Counts `n` looks against the page's budget (work a question does
    /// besides reading boxes); whether they fit in it.
    pub(crate) fn spend(&self, n: u64) -> bool {
        self.looks.fetch_add(n, Ordering::Relaxed).saturating_add(n) <= MAX_LOOKS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<NodeId> {
        let mut tree = ego_tree::Tree::new(0);
        let mut root = tree.root_mut();
        for i in 1..n {
            root.append(i);
        }
        tree.nodes().map(|n| n.id()).collect()
    }

    #[test]
    fn finds_overlapping_boxes_only_and_stays_bounded() {
        let id = ids(7);
        let r = |x: f32, y: f32, width: f32, height: f32| Rect {
            x,
            y,
            width,
            height,
        };
        let index = BoxIndex::new([
            (id[0], r(0.0, 0.0, 1280.0, 90_000.0), Reach::Box), // tall: a page wrapper
            (id[1], r(0.0, 600.0, 100.0, 20.0), Reach::Box),    // in the second band
            (id[2], r(0.0, 620.0, 100.0, 20.0), Reach::Box),    // touches id[1]'s bottom
            (id[3], r(0.0, 1e7, 10.0, 10.0), Reach::Box),       // far down: the last band
            (id[4], r(5.0, 5.0, 0.0, 10.0), Reach::Anywhere),   // no area: left out
            (id[5], r(2000.0, 0.0, 10.0, 10.0), Reach::Columns), // a fixed box
            (id[6], r(3000.0, 0.0, 10.0, 10.0), Reach::Anywhere), // a shadow
        ]);
        let query = |area: Rect| {
            let mut seen = Vec::new();
            index.any_overlapping(&area, |n| {
                seen.push(id.iter().position(|i| *i == n).unwrap());
                false
            });
            seen.sort_unstable();
            seen.dedup();
            seen
        };
        assert_eq!(query(r(10.0, 600.0, 50.0, 20.0)), vec![0, 1]);
        assert_eq!(query(r(10.0, 630.0, 50.0, 5.0)), vec![0, 2]);
        assert_eq!(query(r(2.0, 2.0, 8.0, 8.0)), vec![0]);
        assert_eq!(query(r(0.0, 1e7, 10.0, 10.0)), vec![3]);
        assert!(index.bands.len() <= MAX_BANDS);
        // The callback decides what counts.
        assert_eq!(
            index.any_overlapping(&r(10.0, 600.0, 50.0, 20.0), |n| n == id[1]),
            Some(true)
        );
        // Boxes reaching beyond themselves: the fixed one by its box, across
        // its columns or anywhere, as asked; the shadow anywhere.
        let reaching = |area: Rect, columns: Reach| {
            let mut seen = Vec::new();
            index.any_reaching(&area, columns, |n| {
                seen.push(id.iter().position(|i| *i == n).unwrap());
                false
            });
            seen
        };
        assert_eq!(
            reaching(r(2005.0, 900.0, 10.0, 1.0), Reach::Columns),
            vec![5, 6]
        );
        assert_eq!(reaching(r(20.0, 0.0, 10.0, 1.0), Reach::Columns), vec![6]);
        assert_eq!(
            reaching(r(20.0, 0.0, 10.0, 1.0), Reach::Anywhere),
            vec![5, 6]
        );
        assert_eq!(reaching(r(2005.0, 900.0, 10.0, 1.0), Reach::Box), vec![6]);
        assert_eq!(reaching(r(2005.0, 5.0, 10.0, 1.0), Reach::Box), vec![5, 6]);
        assert_eq!(index.right(), 3010.0);
        // Past the page's looks, nothing is known.
        assert!(!index.spend(MAX_LOOKS));
        assert_eq!(
            index.any_overlapping(&r(10.0, 600.0, 50.0, 20.0), |_| false),
            None
        );
    }
}
