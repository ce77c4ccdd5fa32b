//! Where each page's links are (selector, snippet, link text), kept until the
//! link checks say which targets are broken.
//!
//! The places are taken while a page's DOM is alive, but only the few links
//! whose targets turn out broken need them, and that is known only after the
//! crawl. Kept in memory for every link of every page they would make a large
//! scan's memory grow with the site (about 300 bytes a link), so a
//! [`PlaceLog`] keeps them where the scan keeps its findings: in memory for the
//! library's whole-report scan, else in an anonymous temporary file beside the
//! spooled findings, one chunk per page, read back only for the pages that link
//! to a broken target. No target gets more than [`MAX_OCCURRENCES`] places
//! logged (a navigation link on every page is logged on the first pages only).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sitescan_rules::site::PageSummary;
use sitescan_rules::{Occurrence, MAX_OCCURRENCES};

use crate::error::{Error, Result};

/// One page's places, aligned with its summary's `links` (`None`: not logged).
type PagePlaces = Vec<Option<Occurrence>>;

enum Backend {
    Memory(Vec<PagePlaces>),
    File {
        writer: BufWriter<File>,
        written: u64,
        dir: PathBuf,
    },
}

/// The places of every page's links, by page (see the module doc).
pub(crate) struct PlaceLog {
    backend: Backend,
    /// Per page (in the order pages were logged): byte range in the file, or
    /// index in memory.
    chunks: Vec<(u64, u64)>,
    /// Places logged per target so far.
    logged: HashMap<Arc<str>, u32>,
}

fn log_error(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool {
        dir: dir.display().to_string(),
        reason: format!("link places: {e}"),
    }
}

impl PlaceLog {
    /// A log in memory.
    pub(crate) fn memory() -> Self {
        PlaceLog {
            backend: Backend::Memory(Vec::new()),
            chunks: Vec::new(),
            logged: HashMap::new(),
        }
    }

    /// A log in an anonymous temporary file in `dir`.
    pub(crate) fn file_in(dir: &Path) -> Result<Self> {
        let file = tempfile::tempfile_in(dir).map_err(|e| log_error(dir, e))?;
        Ok(PlaceLog {
            backend: Backend::File {
                writer: BufWriter::new(file),
                written: 0,
                dir: dir.to_path_buf(),
            },
            chunks: Vec::new(),
            logged: HashMap::new(),
        })
    }

    /// Logs the places of the next page's `links` (its summary's, interned);
    /// `places` come from `sitescan_rules::site::link_places`, in the same
    /// order. Pages are numbered by the order they are logged in, which must
    /// be the order of the summaries given to [`Self::places_of`].
    pub(crate) fn push(&mut self, links: &[Arc<str>], places: Vec<Occurrence>) -> Result<()> {
        let mut kept: PagePlaces = Vec::with_capacity(links.len());
        let mut any = false;
        for (link, place) in links
            .iter()
            .zip(places.into_iter().map(Some).chain(std::iter::repeat(None)))
        {
            let count = self.logged.entry(Arc::clone(link)).or_insert(0);
            if place.is_some() && (*count as usize) < MAX_OCCURRENCES {
                *count += 1;
                any = true;
                kept.push(place);
            } else {
                kept.push(None);
            }
        }
        if !any {
            kept.clear();
        }
        let chunk = match &mut self.backend {
            Backend::Memory(pages) => {
                pages.push(kept);
                ((pages.len() - 1) as u64, 0)
            }
            Backend::File {
                writer,
                written,
                dir,
            } if any => {
                let bytes = serde_json::to_vec(&kept).map_err(|e| log_error(dir, e))?;
                writer.write_all(&bytes).map_err(|e| log_error(dir, e))?;
                let start = *written;
                *written += bytes.len() as u64;
                (start, bytes.len() as u64)
            }
            Backend::File { .. } => (0, 0),
        };
        self.chunks.push(chunk);
        Ok(())
    }

    /// The places of the links to `targets`, per target in page order (the
    /// order of `summaries`, each final URL once, as the rules read them), at
    /// most [`MAX_OCCURRENCES`] each. Reads back only the pages that link to
    /// one of them.
    pub(crate) fn places_of(
        mut self,
        summaries: &[PageSummary],
        targets: &HashSet<&str>,
    ) -> Result<BTreeMap<String, Vec<Occurrence>>> {
        let mut out: BTreeMap<String, Vec<Occurrence>> = BTreeMap::new();
        if targets.is_empty() {
            return Ok(out);
        }
        self.logged = HashMap::new();
        let mut reader = match &mut self.backend {
            Backend::File { writer, dir, .. } => {
                writer.flush().map_err(|e| log_error(dir, e))?;
                Some((
                    writer
                        .get_ref()
                        .try_clone()
                        .map_err(|e| log_error(dir, e))?,
                    dir.clone(),
                ))
            }
            Backend::Memory(_) => None,
        };
        let mut seen_pages = HashSet::new();
        let mut buf = Vec::new();
        for (i, page) in summaries.iter().enumerate() {
            if !seen_pages.insert(&*page.final_url) {
                continue;
            }
            if !page.links.iter().any(|l| targets.contains(&**l)) {
                continue;
            }
            let Some(&(start, len)) = self.chunks.get(i) else {
                continue;
            };
            let mut places: PagePlaces = match (&mut self.backend, &mut reader) {
                (Backend::Memory(pages), _) => pages
                    .get_mut(start as usize)
                    .map(std::mem::take)
                    .unwrap_or_default(),
                (Backend::File { .. }, Some((file, dir))) => {
                    if len == 0 {
                        continue;
                    }
                    buf.resize(len as usize, 0);
                    file.seek(SeekFrom::Start(start))
                        .map_err(|e| log_error(dir, e))?;
                    file.read_exact(&mut buf).map_err(|e| log_error(dir, e))?;
                    serde_json::from_slice(&buf).map_err(|e| log_error(dir, e))?
                }
                (Backend::File { .. }, None) => continue,
            };
            for (link, place) in page.links.iter().zip(places.iter_mut()) {
                if !targets.contains(&**link) {
                    continue;
                }
                let list = out.entry(link.to_string()).or_default();
                if let Some(place) = place.take().filter(|_| list.len() < MAX_OCCURRENCES) {
                    list.push(place);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(page: &str, selector: &str) -> Occurrence {
        Occurrence {
            page_url: page.to_string(),
            selector: selector.to_string(),
            snippet: format!("<a>{selector}</a>"),
            text: Some(selector.to_string()),
        }
    }

    fn summary(url: &str, links: &[&str]) -> PageSummary {
        PageSummary {
            url: url.into(),
            final_url: url.into(),
            links: links.iter().map(|l| Arc::from(*l)).collect(),
            ..PageSummary::default()
        }
    }

    fn roundtrip(mut log: PlaceLog) {
        let pages = vec![
            summary(
                "https://s/a",
                &["https://s/x", "https://s/gone", "https://s/gone"],
            ),
            summary("https://s/b", &["https://s/x"]),
            summary("https://s/c", &["https://s/gone"]),
        ];
        for p in &pages {
            let places = (0..p.links.len())
                .map(|i| place(&p.final_url, &format!("a:nth-child({})", i + 1)))
                .collect();
            log.push(&p.links, places).unwrap();
        }
        let targets: HashSet<&str> = ["https://s/gone"].into_iter().collect();
        let got = log.places_of(&pages, &targets).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            got["https://s/gone"],
            vec![
                place("https://s/a", "a:nth-child(2)"),
                place("https://s/a", "a:nth-child(3)"),
                place("https://s/c", "a:nth-child(1)"),
            ]
        );
    }

    #[test]
    fn places_come_back_for_broken_targets_only_in_page_order() {
        roundtrip(PlaceLog::memory());
        roundtrip(PlaceLog::file_in(&std::env::temp_dir()).unwrap());
    }

    #[test]
    fn a_target_gets_at_most_the_cap_of_places() {
        let mut log = PlaceLog::memory();
        let pages: Vec<PageSummary> = (0..MAX_OCCURRENCES + 5)
            .map(|i| summary(&format!("https://s/{i}"), &["https://s/gone"]))
            .collect();
        for p in &pages {
            log.push(&p.links, vec![place(&p.final_url, "a")]).unwrap();
        }
        let targets: HashSet<&str> = ["https://s/gone"].into_iter().collect();
        let got = log.places_of(&pages, &targets).unwrap();
        assert_eq!(got["https://s/gone"].len(), MAX_OCCURRENCES);
        assert_eq!(got["https://s/gone"][0].page_url, "https://s/0");
    }
}
