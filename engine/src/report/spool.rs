//! Findings kept out of memory while a scan runs, and the one reader every
//! renderer uses.
//!
//! A large site gives hundreds of thousands of findings (about 15 per page on the
//! benchmark's generated site); kept as `Finding` values until the end they made
//! the scan's memory grow with the site (issue 9). A [`FindingStore`] takes each
//! page's findings as the page finishes and either keeps them (the library's
//! [`crate::Scanner::scan`], whose caller wants a whole [`Report`]) or appends
//! them to an anonymous temporary file (the CLI's scan, through
//! [`crate::Scanner::scan_spooled`]). Only small aggregates stay in memory: the
//! counts behind the summary and one index entry per page (its URL, where its
//! findings start in the file, how many bytes).
//!
//! The report lists findings by page (pages by depth then URL) whatever order the
//! pages finished in; the index is sorted that way at the end, and readers visit
//! the findings page by page, reading each page's slice of the file back.
//!
//! The temporary file has no name (`tempfile::tempfile_in`: unlinked at once on
//! Unix, delete-on-close on Windows), so nothing is left behind when the scan
//! ends, fails or the process is killed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use sitescan_rules::{Category, Finding, Impact, Outcome};

use super::model::Report;
use crate::error::{Error, Result};

/// Failed findings per impact (most severe first, as [`Impact::ALL`]) and
/// cant-tell findings of one category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CategoryCounts {
    /// Failed findings per impact, in the order of [`Impact::ALL`].
    pub failed: [u64; 4],
    /// Findings that need review.
    pub cant_tell: u64,
}

/// Counts of findings per category: what the summary needs of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingCounts {
    /// Per category.
    pub by_category: BTreeMap<Category, CategoryCounts>,
    /// Marked findings per category (see [`crate::marks`]): counted here and
    /// in none of `by_category`'s counts.
    pub marked: BTreeMap<Category, u64>,
}

impl FindingCounts {
    /// Counts one finding.
    pub fn add(&mut self, f: &Finding) {
        if f.mark.is_some() {
            *self.marked.entry(f.category).or_default() += 1;
            return;
        }
        let c = self.by_category.entry(f.category).or_default();
        match f.outcome {
            Outcome::Failed => c.failed[impact_index(f.impact)] += 1,
            Outcome::CantTell => c.cant_tell += 1,
            Outcome::Passed => {}
        }
    }

    /// The counts of a list of findings.
    pub fn of<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> Self {
        let mut counts = Self::default();
        for f in findings {
            counts.add(f);
        }
        counts
    }
}

fn impact_index(impact: Impact) -> usize {
    Impact::ALL.iter().position(|i| *i == impact).unwrap_or(0)
}

/// A report to render or gate: everything but the findings at hand, the findings
/// visited one by one in report order. A [`Report`] is one (its findings in
/// memory), a [`SpooledReport`] is another (its findings read back from disk).
pub trait ReportSource {
    /// The report; read its findings through [`ReportSource::for_each_finding`]
    /// only (a [`SpooledReport`]'s `findings` field is empty).
    fn head(&self) -> &Report;
    /// How many findings the report has.
    fn finding_count(&self) -> u64;
    /// Calls `visit` with every finding, in report order; stops at the first error.
    fn for_each_finding(&self, visit: &mut dyn FnMut(&Finding) -> Result<()>) -> Result<()>;
    /// The whole report in memory, for what needs every finding at once
    /// (grouping views, a baseline comparison).
    fn to_report(&self) -> Result<Cow<'_, Report>>;
}

impl ReportSource for Report {
    fn head(&self) -> &Report {
        self
    }
    fn finding_count(&self) -> u64 {
        self.findings.len() as u64
    }
    fn for_each_finding(&self, visit: &mut dyn FnMut(&Finding) -> Result<()>) -> Result<()> {
        self.findings.iter().try_for_each(visit)
    }
    fn to_report(&self) -> Result<Cow<'_, Report>> {
        Ok(Cow::Borrowed(self))
    }
}

/// The findings of one page (or one run of a site rule's findings on one page):
/// where they are and which page they belong to.
#[derive(Debug)]
struct Chunk {
    /// Their `page_url`, which places them in the report.
    page_url: Box<str>,
    /// Index of the first finding (memory) or byte offset (file).
    start: u64,
    /// Findings (memory) or bytes (file).
    len: u64,
}

#[derive(Debug)]
enum Backend {
    Memory(Vec<Finding>),
    File {
        writer: BufWriter<File>,
        written: u64,
        dir: PathBuf,
    },
}

/// Where a running scan puts its findings (see the module doc).
#[derive(Debug)]
pub(crate) struct FindingStore {
    backend: Backend,
    chunks: Vec<Chunk>,
    counts: FindingCounts,
    total: u64,
    /// Reused serialization buffer of the file backend.
    buf: Vec<u8>,
}

fn spool_error(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool {
        dir: dir.display().to_string(),
        reason: e.to_string(),
    }
}

impl FindingStore {
    /// A store that keeps findings in memory.
    pub(crate) fn memory() -> Self {
        Self::with(Backend::Memory(Vec::new()))
    }

    /// A store that writes findings to an anonymous temporary file in `dir`;
    /// fails at once when `dir` is missing or not writable.
    pub(crate) fn file_in(dir: &Path) -> Result<Self> {
        let file = tempfile::tempfile_in(dir).map_err(|e| spool_error(dir, e))?;
        Ok(Self::with(Backend::File {
            writer: BufWriter::new(file),
            written: 0,
            dir: dir.to_path_buf(),
        }))
    }

    fn with(backend: Backend) -> Self {
        Self {
            backend,
            chunks: Vec::new(),
            counts: FindingCounts::default(),
            total: 0,
            buf: Vec::new(),
        }
    }

    /// The directory of the file backend (other scan state that may grow with
    /// the site spools there too); `None` when findings stay in memory.
    pub(crate) fn spool_dir(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Memory(_) => None,
            Backend::File { dir, .. } => Some(dir),
        }
    }

    /// Findings stored so far.
    pub(crate) fn len(&self) -> u64 {
        self.total
    }

    /// Counts per category of the findings stored so far.
    pub(crate) fn counts(&self) -> &FindingCounts {
        &self.counts
    }

    /// Stores findings, keeping their order; each run of findings on one page
    /// becomes one chunk.
    pub(crate) fn push(&mut self, findings: Vec<Finding>) -> Result<()> {
        let mut rest = findings.as_slice();
        while let Some(first) = rest.first() {
            let run = rest
                .iter()
                .position(|f| f.page_url != first.page_url)
                .unwrap_or(rest.len());
            let (head, tail) = rest.split_at(run);
            self.push_run(head)?;
            rest = tail;
        }
        Ok(())
    }

    fn push_run(&mut self, run: &[Finding]) -> Result<()> {
        let Some(first) = run.first() else {
            return Ok(());
        };
        for f in run {
            self.counts.add(f);
        }
        self.total += run.len() as u64;
        let (start, len) = match &mut self.backend {
            Backend::Memory(all) => {
                let start = all.len() as u64;
                all.extend_from_slice(run);
                (start, run.len() as u64)
            }
            Backend::File {
                writer,
                written,
                dir,
            } => {
                self.buf.clear();
                serde_json::to_writer(&mut self.buf, run).map_err(|e| spool_error(dir, e))?;
                writer
                    .write_all(&self.buf)
                    .map_err(|e| spool_error(dir, e))?;
                let start = *written;
                *written += self.buf.len() as u64;
                (start, self.buf.len() as u64)
            }
        };
        self.chunks.push(Chunk {
            page_url: first.page_url.as_str().into(),
            start,
            len,
        });
        Ok(())
    }

    /// Ends the writing: orders the chunks by `position` of their page URL
    /// (stable, so each page keeps its own order and chunks of equal position
    /// keep the order they came in).
    pub(crate) fn finish(self, position: impl Fn(&str) -> usize) -> Result<SpooledFindings> {
        let FindingStore {
            backend,
            mut chunks,
            total,
            ..
        } = self;
        chunks.sort_by_cached_key(|c| position(&c.page_url));
        let stored = match backend {
            Backend::Memory(all) => Stored::Memory(all),
            Backend::File { writer, dir, .. } => {
                let file = writer
                    .into_inner()
                    .map_err(|e| spool_error(&dir, e.error()))?;
                Stored::File {
                    file: Mutex::new(file),
                    dir,
                }
            }
        };
        Ok(SpooledFindings {
            stored,
            chunks,
            total,
        })
    }
}

#[derive(Debug)]
enum Stored {
    Memory(Vec<Finding>),
    File { file: Mutex<File>, dir: PathBuf },
}

/// The findings of a finished scan, in report order, in memory or in a
/// temporary file (removed when this is dropped).
#[derive(Debug)]
pub(crate) struct SpooledFindings {
    stored: Stored,
    chunks: Vec<Chunk>,
    total: u64,
}

impl SpooledFindings {
    fn for_each(&self, visit: &mut dyn FnMut(&Finding) -> Result<()>) -> Result<()> {
        let mut buf = Vec::new();
        for chunk in &self.chunks {
            match &self.stored {
                Stored::Memory(all) => {
                    let range = to_usize(chunk.start)?..to_usize(chunk.start + chunk.len)?;
                    let run = all.get(range).ok_or_else(|| Error::Spool {
                        dir: String::new(),
                        reason: "a chunk of findings is out of range".into(),
                    })?;
                    run.iter().try_for_each(&mut *visit)?;
                }
                Stored::File { file, dir } => {
                    buf.resize(to_usize(chunk.len)?, 0);
                    {
                        let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
                        file.seek(SeekFrom::Start(chunk.start))
                            .and_then(|_| file.read_exact(&mut buf))
                            .map_err(|e| spool_error(dir, e))?;
                    }
                    let run: Vec<Finding> =
                        serde_json::from_slice(&buf).map_err(|e| spool_error(dir, e))?;
                    run.iter().try_for_each(&mut *visit)?;
                }
            }
        }
        Ok(())
    }

    /// Every finding in report order, in memory.
    fn collect(self) -> Result<Vec<Finding>> {
        match self.stored {
            Stored::Memory(all) => {
                // Move each finding once into its place in report order.
                let mut slots: Vec<Option<Finding>> = all.into_iter().map(Some).collect();
                let mut out = Vec::with_capacity(slots.len());
                for chunk in &self.chunks {
                    for i in chunk.start..chunk.start + chunk.len {
                        if let Some(f) = slots.get_mut(to_usize(i)?).and_then(Option::take) {
                            out.push(f);
                        }
                    }
                }
                Ok(out)
            }
            Stored::File { .. } => {
                let mut out = Vec::with_capacity(to_usize(self.total)?);
                self.for_each(&mut |f| {
                    out.push(f.clone());
                    Ok(())
                })?;
                Ok(out)
            }
        }
    }
}

fn to_usize(n: u64) -> Result<usize> {
    usize::try_from(n).map_err(|_| Error::Spool {
        dir: String::new(),
        reason: format!("{n} does not fit in memory on this platform"),
    })
}

/// A finished scan whose findings wait in a temporary file (see the module doc):
/// render it with [`crate::render::render_to`] as any [`ReportSource`], or load
/// it whole with [`SpooledReport::into_report`]. The file goes away with it.
#[derive(Debug)]
pub struct SpooledReport {
    head: Report,
    findings: SpooledFindings,
}

impl SpooledReport {
    pub(crate) fn new(head: Report, findings: SpooledFindings) -> Self {
        Self { head, findings }
    }

    /// The report's head, to fill in what the scan could not know (the
    /// service's scan id). Its `findings` stay empty: they are in the spool.
    pub fn head_mut(&mut self) -> &mut Report {
        &mut self.head
    }

    /// The whole report, every finding read back into memory.
    pub fn into_report(self) -> Result<Report> {
        let mut report = self.head;
        report.findings = self.findings.collect()?;
        Ok(report)
    }
}

impl ReportSource for SpooledReport {
    fn head(&self) -> &Report {
        &self.head
    }
    fn finding_count(&self) -> u64 {
        self.findings.total
    }
    fn for_each_finding(&self, visit: &mut dyn FnMut(&Finding) -> Result<()>) -> Result<()> {
        self.findings.for_each(visit)
    }
    fn to_report(&self) -> Result<Cow<'_, Report>> {
        let mut report = self.head.clone();
        let mut findings = Vec::new();
        self.findings.for_each(&mut |f| {
            findings.push(f.clone());
            Ok(())
        })?;
        report.findings = findings;
        Ok(Cow::Owned(report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{render, render_to, Format};
    use crate::{Progress, Scanner};
    use sitescan_fixtures::{generate_site, site_dir, FixtureServer};

    fn scanner() -> Scanner {
        Scanner::builder()
            .allow_private(true)
            .rate_per_host(1000.0)
            .max_pages(200)
            .build()
            .unwrap()
    }

    fn entries(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }

    fn no_progress(_: Progress) {}

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_spooled_scan_gives_the_report_of_an_in_memory_scan() {
        let site = tempfile::tempdir().unwrap();
        generate_site(40, 3, site.path()).unwrap();
        let server = FixtureServer::start(site.path().to_path_buf())
            .await
            .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let scanner = scanner();
        let pages_seen = std::sync::atomic::AtomicU64::new(0);
        let progress = |p: Progress| {
            pages_seen.fetch_max(p.pages_done, std::sync::atomic::Ordering::Relaxed);
        };
        let spooled = scanner
            .scan_spooled(&server.url(), tmp.path(), &progress)
            .await
            .unwrap();
        // The file has no name: nothing in the directory, even while it is in use.
        assert!(entries(tmp.path()).is_empty());
        assert!(spooled.head().findings.is_empty());
        assert!(spooled.finding_count() > 100, "{}", spooled.finding_count());
        assert_eq!(pages_seen.into_inner(), spooled.head().pages.len() as u64);

        // Streamed from the file, the JSON is byte for byte that of the loaded report.
        let mut streamed = Vec::new();
        render_to(&spooled, Format::Json, &mut streamed).unwrap();
        let mut csv = Vec::new();
        render_to(&spooled, Format::Csv, &mut csv).unwrap();
        let loaded = spooled.into_report().unwrap();
        assert_eq!(streamed, render(&loaded, Format::Json).unwrap());
        assert_eq!(csv, render(&loaded, Format::Csv).unwrap());

        // And the loaded report is what the in-memory scan of the same site gives.
        let memory = scanner.scan(&server.url()).await.unwrap();
        assert_eq!(loaded.findings, memory.findings);
        assert_eq!(loaded.summary, memory.summary);
        assert_eq!(loaded.rules, memory.rules);
        let urls = |r: &Report| r.pages.iter().map(|p| p.url.clone()).collect::<Vec<_>>();
        assert_eq!(urls(&loaded), urls(&memory));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn findings_come_back_in_page_order_whatever_order_they_were_stored_in() {
        let finding = |page: &str, rule: &str| Finding {
            page_url: page.into(),
            ..crate::render::sample::finding(
                rule,
                Category::Seo,
                Outcome::Failed,
                Impact::Minor,
                "/",
                "",
                "",
                "m",
                &[],
            )
        };
        let tmp = tempfile::tempdir().unwrap();
        for mut store in [
            FindingStore::memory(),
            FindingStore::file_in(tmp.path()).unwrap(),
        ] {
            store
                .push(vec![finding("b", "one"), finding("b", "two")])
                .unwrap();
            store.push(vec![finding("a", "one")]).unwrap();
            // A site rule's findings: several pages, one of them unknown.
            store
                .push(vec![
                    finding("x", "site"),
                    finding("b", "site"),
                    finding("a", "site"),
                ])
                .unwrap();
            assert_eq!(store.len(), 6);
            let order = ["a", "b"];
            let findings = store
                .finish(|u| order.iter().position(|p| *p == u).unwrap_or(usize::MAX))
                .unwrap();
            let got: Vec<String> = findings
                .collect()
                .unwrap()
                .into_iter()
                .map(|f| format!("{} {}", f.page_url, f.rule_id))
                .collect();
            assert_eq!(
                got,
                ["a one", "a site", "b one", "b two", "b site", "x site"]
            );
        }
        assert!(entries(tmp.path()).is_empty());
    }

    #[test]
    fn measured_data_comes_back_from_the_file_bit_for_bit() {
        // A confidence of `html-lang-matches-content` that serde_json's default
        // float parser read back one unit in the last place off.
        let mut f = crate::render::sample::finding(
            "html-lang-matches-content",
            Category::Accessibility,
            Outcome::Failed,
            Impact::Serious,
            "/",
            "html",
            "",
            "m",
            &["3.1.1"],
        );
        let data = serde_json::json!({"confidence": 0.9293816585133023_f64, "tiny": 5e-324_f64, "big": 1.7976931348623157e308_f64});
        f.with_data(data);
        let tmp = tempfile::tempdir().unwrap();
        let mut store = FindingStore::file_in(tmp.path()).unwrap();
        store.push(vec![f.clone()]).unwrap();
        let back = store.finish(|_| 0).unwrap().collect().unwrap();
        assert_eq!(back, vec![f]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_scan_leaves_no_file_behind() {
        let server = FixtureServer::start(site_dir("robots-forbid"))
            .await
            .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let err = scanner()
            .scan_spooled(&server.url(), tmp.path(), &no_progress)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::RobotsDisallowed { .. }), "{err}");
        assert!(entries(tmp.path()).is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_missing_temporary_directory_is_a_clear_error_before_any_request() {
        let server = FixtureServer::start(site_dir("basic")).await.unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("no-such-dir");
        let err = scanner()
            .scan_spooled(&server.url(), &missing, &no_progress)
            .await
            .unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, Error::Spool { .. }), "{message}");
        assert!(
            message.contains(&missing.display().to_string()),
            "{message}"
        );
        assert!(message.contains("set TMPDIR"), "{message}");
        assert!(server.paths().is_empty(), "{:?}", server.paths());
    }
}
