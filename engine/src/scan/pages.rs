//! The report's page entries while a scan runs.
//!
//! Each fetched URL gives the report one [`PageReport`] (its URLs, timings,
//! content type, redirects). Kept in a growing `Vec` until the end, they were
//! one of the largest things of a large scan at its peak, which comes after
//! the crawl (link checks and site rules, with every page's summary in
//! memory): about 400 bytes a page, and the vector's doubling left up to as
//! much again unused. When the scan spools its findings, a [`PageList`]
//! appends each entry to a nameless temporary file in the spool directory as
//! the page is taken, and reads them all back, into a vector of the exact
//! size, once the site rules are done. The few facts the crawl asks of its
//! pages on the way (how many, the start page, how many were analyzed in part)
//! are kept aside.

use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::report::PageReport;

#[derive(Debug)]
enum Backend {
    Memory(Vec<PageReport>),
    File {
        writer: BufWriter<File>,
        dir: PathBuf,
        /// Reused serialization buffer.
        buf: Vec<u8>,
    },
}

/// The page entries of a running scan (see the module doc).
#[derive(Debug)]
pub(crate) struct PageList {
    backend: Backend,
    len: usize,
    /// The first page taken (the start page), as it was taken.
    first: Option<PageReport>,
    /// Pages analyzed in part (`incomplete` set).
    incomplete: usize,
}

fn spool_error(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool {
        dir: dir.display().to_string(),
        reason: e.to_string(),
    }
}

impl PageList {
    /// Entries kept in memory.
    pub(crate) fn memory() -> Self {
        Self::with(Backend::Memory(Vec::new()))
    }

    /// Entries kept in a nameless temporary file in `dir`.
    pub(crate) fn file_in(dir: &Path) -> Result<Self> {
        let file = tempfile::tempfile_in(dir).map_err(|e| spool_error(dir, e))?;
        Ok(Self::with(Backend::File {
            writer: BufWriter::new(file),
            dir: dir.to_path_buf(),
            buf: Vec::new(),
        }))
    }

    fn with(backend: Backend) -> Self {
        PageList {
            backend,
            len: 0,
            first: None,
            incomplete: 0,
        }
    }

    /// Adds the entry of a page taken.
    pub(crate) fn push(&mut self, page: PageReport) -> Result<()> {
        self.len += 1;
        if page.incomplete.is_some() {
            self.incomplete += 1;
        }
        if self.first.is_none() {
            self.first = Some(page.clone());
        }
        match &mut self.backend {
            Backend::Memory(all) => all.push(page),
            Backend::File { writer, dir, buf } => {
                buf.clear();
                serde_json::to_writer(&mut *buf, &page).map_err(|e| spool_error(dir, e))?;
                buf.push(b'\n');
                writer.write_all(buf).map_err(|e| spool_error(dir, e))?;
            }
        }
        Ok(())
    }

    /// How many pages were taken.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The first page taken: the start page.
    pub(crate) fn first(&self) -> Option<&PageReport> {
        self.first.as_ref()
    }

    /// How many pages were analyzed in part.
    pub(crate) fn incomplete(&self) -> usize {
        self.incomplete
    }

    /// Every entry, in the order taken.
    pub(crate) fn into_vec(self) -> Result<Vec<PageReport>> {
        match self.backend {
            Backend::Memory(all) => Ok(all),
            Backend::File { writer, dir, .. } => {
                let mut file = writer
                    .into_inner()
                    .map_err(|e| spool_error(&dir, e.error()))?;
                file.seek(SeekFrom::Start(0))
                    .map_err(|e| spool_error(&dir, e))?;
                let mut out = Vec::with_capacity(self.len);
                for page in serde_json::Deserializer::from_reader(BufReader::new(file))
                    .into_iter::<PageReport>()
                {
                    out.push(page.map_err(|e| spool_error(&dir, e))?);
                }
                if out.len() != self.len {
                    return Err(spool_error(
                        &dir,
                        format!("{} page entries read back of {}", out.len(), self.len),
                    ));
                }
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitescan_rules::{Hop, RuleError};

    fn page(i: u32) -> PageReport {
        PageReport {
            url: format!("https://a.test/p{i}"),
            final_url: format!("https://a.test/q{i}"),
            status: 200 + i as u16,
            depth: i,
            ttfb_ms: 3,
            total_ms: 9,
            bytes: 1234,
            content_type: Some("text/html; charset=utf-8".into()),
            redirects: vec![Hop {
                url: format!("https://a.test/p{i}"),
                status: 301,
                location: format!("https://a.test/q{i}"),
            }],
            error: (i == 1).then(|| "timeout".into()),
            findings: 7,
            rule_errors: vec![RuleError {
                rule_id: "x".into(),
                message: "boom".into(),
            }],
            incomplete: (i == 2).then(|| "time".into()),
            meta_robots: Some("noindex".into()),
            nofollow_links: 2,
            thumbnail: (i == 3).then(|| "thumb-3".into()),
            vitals: None,
        }
    }

    #[test]
    fn entries_come_back_as_taken_from_memory_and_from_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let pages: Vec<PageReport> = (0..5).map(page).collect();
        for mut list in [PageList::memory(), PageList::file_in(tmp.path()).unwrap()] {
            for p in &pages {
                list.push(p.clone()).unwrap();
            }
            assert_eq!(list.len(), 5);
            assert_eq!(list.incomplete(), 1);
            assert_eq!(list.first(), Some(&pages[0]));
            assert_eq!(list.into_vec().unwrap(), pages);
        }
        // The file has no name.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }
}
