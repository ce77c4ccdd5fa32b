//! One copy of each URL string the crawl keeps.
//!
//! Every page's summary keeps the absolute URLs of its links and subresources
//! until the site rules run after the crawl. Most of them repeat what other pages
//! link to (navigation, footers, shared images), so kept as one string per page
//! and link they made the scan's memory grow by about a kilobyte per page. The
//! crawl hands each finished page's URLs to an [`Interner`], which swaps them for
//! the copy it already holds: the summaries then share one allocation per
//! distinct URL. A page's own URL is nearly always the target of a link some
//! earlier page had, so it is interned too, as are its canonical URL (most pages
//! name themselves) and its declared language (one or a few per site).

use std::collections::HashSet;
use std::sync::Arc;

/// Distinct strings, each held once and handed out as shared copies.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    strings: HashSet<Arc<str>>,
}

impl Interner {
    /// The held copy of `s`, held from now on if it was not yet.
    pub(crate) fn intern(&mut self, s: &Arc<str>) -> Arc<str> {
        if let Some(held) = self.strings.get(&**s) {
            return Arc::clone(held);
        }
        self.strings.insert(Arc::clone(s));
        Arc::clone(s)
    }

    /// Swaps each string of `list` for the held copy (the page's own copies are
    /// freed when nothing else holds them).
    pub(crate) fn intern_all(&mut self, list: &mut [Arc<str>]) {
        for s in list {
            *s = self.intern(s);
        }
    }

    /// How many distinct strings are held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.strings.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_share_one_copy() {
        let mut interner = Interner::default();
        let mut page_a: Vec<Arc<str>> =
            vec!["https://a.example/".into(), "https://a.example/x".into()];
        let mut page_b: Vec<Arc<str>> =
            vec!["https://a.example/x".into(), "https://a.example/".into()];
        interner.intern_all(&mut page_a);
        interner.intern_all(&mut page_b);
        assert_eq!(interner.len(), 2);
        // Same values, in the same order, now sharing the first page's copies.
        assert_eq!(&*page_b[0], "https://a.example/x");
        assert_eq!(&*page_b[1], "https://a.example/");
        assert!(Arc::ptr_eq(&page_a[1], &page_b[0]));
        assert!(Arc::ptr_eq(&page_a[0], &page_b[1]));
        // A page's repeated link is one copy too.
        let mut page_c: Vec<Arc<str>> =
            vec!["https://a.example/y".into(), "https://a.example/y".into()];
        interner.intern_all(&mut page_c);
        assert!(Arc::ptr_eq(&page_c[0], &page_c[1]));
        assert_eq!(interner.len(), 3);
        // Held copies are shared: the interner, and each page holding it.
        assert_eq!(Arc::strong_count(&page_a[0]), 3);
    }
}
