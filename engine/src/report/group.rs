//! One finding per problem: findings about a whole host or about one
//! subresource are merged across pages while a scan runs.
//!
//! A missing security header is one fact of the server, not one problem per
//! page; an uncached script is one file, however many pages load it. Rules say
//! what a finding is about ([`Scope`]): `page` findings pass through untouched;
//! `host` findings with the same rule, origin, outcome and message become one
//! finding; `resource` findings with the same rule, resource URL, outcome and
//! message become one finding. The merged finding is the one at the first place
//! in report order (pages by depth then URL, then selector), so its `page_url`,
//! `selector`, `snippet`, `message` and `data` are those of its first
//! occurrence; `occurrences` lists the first [`MAX_OCCURRENCES`] places in that
//! order and `occurrences_total` counts them all when there are more.
//!
//! Memory: the [`Grouper`] holds one entry per distinct problem with at most
//! 2 × [`MAX_OCCURRENCES`] places (trimmed to the first [`MAX_OCCURRENCES`]
//! whenever it fills), never the findings of every page. An entry is kept
//! small, as most problems show on one page only (the generated benchmark site
//! gives every page an image of its own, so nearly every page adds a resource
//! problem): the problem's identity is a 128-bit fingerprint of its key rather
//! than the key's strings, its places are listed only once a second page names
//! it, the page URL of its first place is the crawl's shared copy, and when the
//! scan spools its findings ([`Grouper::file_in`]) the first finding itself
//! waits in a nameless temporary file beside the spool until the crawl ends,
//! leaving its selector and where it is in the file in memory.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use sitescan_rules::{Finding, Occurrence, Scope, MAX_OCCURRENCES};
use url::Url;

use crate::error::{Error, Result};

/// Where a place sits in report order: the page's depth and requested URL (as
/// the report sorts pages), then the element's selector.
type Place = (u32, Arc<str>, Box<str>);

/// What makes two findings the same problem: a fingerprint of the rule, scope,
/// subject (the origin for host scope, the resource URL for resource scope),
/// outcome and message. 128 bits of SHA-256, as the site rules' text keys: two
/// different problems sharing one is not a practical concern.
type Key = [u8; 16];

/// The finding at a group's first place: in memory, or in the grouper's file.
#[derive(Debug)]
enum Stowed {
    Here(Box<Finding>),
    Spilled { start: u64, len: u64 },
}

/// One problem seen so far.
#[derive(Debug)]
struct Group {
    /// The finding at the first place seen so far in report order.
    first: Stowed,
    first_place: Place,
    /// Every place, not yet sorted, once the problem shows in a second place
    /// (empty while it has one, which `first` and `first_place` say); trimmed
    /// to the first [`MAX_OCCURRENCES`] when it reaches twice that.
    places: Vec<(Place, Occurrence)>,
    total: u64,
}

/// The temporary file first findings wait in (see the module doc).
#[derive(Debug)]
struct Spill {
    writer: BufWriter<File>,
    written: u64,
    dir: PathBuf,
    /// Reused serialization buffer.
    buf: Vec<u8>,
}

fn spill_error(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Spool {
        dir: dir.display().to_string(),
        reason: e.to_string(),
    }
}

impl Spill {
    fn write(&mut self, f: &Finding) -> Result<Stowed> {
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, f).map_err(|e| spill_error(&self.dir, e))?;
        self.writer
            .write_all(&self.buf)
            .map_err(|e| spill_error(&self.dir, e))?;
        let start = self.written;
        self.written += self.buf.len() as u64;
        Ok(Stowed::Spilled {
            start,
            len: self.buf.len() as u64,
        })
    }

    /// Reads a finding back; the writer goes on at the end of the file.
    fn read(&mut self, start: u64, len: u64) -> Result<Finding> {
        let dir = &self.dir;
        let len = usize::try_from(len).map_err(|e| spill_error(dir, e))?;
        self.buf.resize(len, 0);
        self.writer.flush().map_err(|e| spill_error(dir, e))?;
        let file = self.writer.get_mut();
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_exact(&mut self.buf))
            .and_then(|_| file.seek(SeekFrom::End(0)))
            .map_err(|e| spill_error(dir, e))?;
        serde_json::from_slice(&self.buf).map_err(|e| spill_error(dir, e))
    }
}

/// Merges host and resource findings of a scan (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Grouper {
    groups: HashMap<Key, Group>,
    /// `None`: first findings stay in memory.
    spill: Option<Spill>,
}

/// The subject of a finding that is to be merged, or `None` for a finding
/// about one page (or one whose subject cannot be told: it stays as it is).
fn subject_of(f: &Finding) -> Option<String> {
    match f.scope {
        Scope::Page => None,
        Scope::Host => Url::parse(&f.page_url)
            .ok()
            .map(|u| u.origin().ascii_serialization()),
        Scope::Resource => f.resource.clone(),
    }
}

fn key_of(f: &Finding, subject: &str) -> Key {
    let mut h = Sha256::new();
    // Each part length-prefixed, so no two keys run together alike.
    let scope = format!("{:?}", f.scope);
    let outcome = format!("{:?}", f.outcome);
    for part in [
        f.rule_id.as_str(),
        scope.as_str(),
        subject,
        outcome.as_str(),
        f.message.as_str(),
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    let mut key = [0u8; 16];
    key.copy_from_slice(&h.finalize()[..16]);
    key
}

fn occurrence_of(f: &Finding) -> Occurrence {
    Occurrence {
        page_url: f.page_url.clone(),
        selector: f.selector.clone(),
        snippet: f.snippet.clone(),
        text: None,
    }
}

fn trim(places: &mut Vec<(Place, Occurrence)>) {
    places.sort_by(|a, b| a.0.cmp(&b.0));
    places.truncate(MAX_OCCURRENCES);
}

/// How many merged findings [`Grouper::finish`] hands on at a time.
const FINISH_BATCH: usize = 256;

impl Grouper {
    /// A grouper that keeps first findings in a nameless temporary file in
    /// `dir` (the scan's spool directory) until the crawl ends.
    pub(crate) fn file_in(dir: &Path) -> Result<Self> {
        let file = tempfile::tempfile_in(dir).map_err(|e| spill_error(dir, e))?;
        Ok(Grouper {
            groups: HashMap::new(),
            spill: Some(Spill {
                writer: BufWriter::new(file),
                written: 0,
                dir: dir.to_path_buf(),
                buf: Vec::new(),
            }),
        })
    }

    fn stow(&mut self, f: Finding) -> Result<Stowed> {
        match &mut self.spill {
            Some(spill) => spill.write(&f),
            None => Ok(Stowed::Here(Box::new(f))),
        }
    }

    fn unstow(spill: &mut Option<Spill>, stowed: Stowed) -> Result<Finding> {
        match (stowed, spill) {
            (Stowed::Here(f), _) => Ok(*f),
            (Stowed::Spilled { start, len }, Some(spill)) => spill.read(start, len),
            (Stowed::Spilled { .. }, None) => Err(Error::Spool {
                dir: String::new(),
                reason: "a grouped finding was spilled without a file".into(),
            }),
        }
    }

    fn first_occurrence(spill: &mut Option<Spill>, stowed: &Stowed) -> Result<Occurrence> {
        match (stowed, spill) {
            (Stowed::Here(f), _) => Ok(occurrence_of(f)),
            (&Stowed::Spilled { start, len }, Some(spill)) => {
                Ok(occurrence_of(&spill.read(start, len)?))
            }
            (Stowed::Spilled { .. }, None) => Err(Error::Spool {
                dir: String::new(),
                reason: "a grouped finding was spilled without a file".into(),
            }),
        }
    }

    /// Takes the findings of one page (at `depth`, requested as `url`): keeps
    /// the host and resource findings and returns the others, in their order.
    /// Fails only when the grouper's file cannot be written or read.
    pub(crate) fn take(
        &mut self,
        depth: u32,
        url: &Arc<str>,
        findings: Vec<Finding>,
    ) -> Result<Vec<Finding>> {
        let mut own = Vec::with_capacity(findings.len());
        for f in findings {
            let Some(subject) = subject_of(&f) else {
                own.push(f);
                continue;
            };
            let key = key_of(&f, &subject);
            drop(subject);
            let place: Place = (depth, Arc::clone(url), f.selector.as_str().into());
            match self.groups.get_mut(&key) {
                Some(group) => {
                    if group.places.is_empty() {
                        // A second place: list the first one too from now on.
                        let first = Self::first_occurrence(&mut self.spill, &group.first)?;
                        group.places.push((group.first_place.clone(), first));
                    }
                    group.total += 1;
                    group.places.push((place.clone(), occurrence_of(&f)));
                    if group.places.len() >= 2 * MAX_OCCURRENCES {
                        trim(&mut group.places);
                    }
                    if place < group.first_place {
                        group.first = match &mut self.spill {
                            Some(spill) => spill.write(&f)?,
                            None => Stowed::Here(Box::new(f)),
                        };
                        group.first_place = place;
                    }
                }
                None => {
                    let first = self.stow(f)?;
                    self.groups.insert(
                        key,
                        Group {
                            first,
                            first_place: place,
                            places: Vec::new(),
                            total: 1,
                        },
                    );
                }
            }
        }
        Ok(own)
    }

    /// Hands the merged findings to `emit` a batch at a time, in report order
    /// of their first place (then rule, subject and message, so the order never
    /// depends on which page finished first). Only the findings of one first
    /// place are read back at a time.
    pub(crate) fn finish(self, emit: &mut dyn FnMut(Vec<Finding>) -> Result<()>) -> Result<()> {
        let Grouper { groups, mut spill } = self;
        let mut groups: Vec<Group> = groups.into_values().collect();
        groups.sort_by(|a, b| a.first_place.cmp(&b.first_place));
        let mut batch = Vec::new();
        let mut groups = groups.into_iter().peekable();
        while let Some(group) = groups.next() {
            // The groups sharing this first place, ordered by what they say.
            let mut run = vec![group];
            while let Some(next) = groups.next_if(|g| g.first_place == run[0].first_place) {
                run.push(next);
            }
            let mut merged = Vec::with_capacity(run.len());
            for mut group in run {
                let mut f = Self::unstow(&mut spill, group.first)?;
                if group.total > 1 {
                    trim(&mut group.places);
                    let listed = group.places.len() as u64;
                    f.occurrences = group.places.into_iter().map(|(_, o)| o).collect();
                    f.occurrences_total = (group.total > listed).then_some(group.total);
                }
                let subject = subject_of(&f).unwrap_or_default();
                merged.push((subject, f));
            }
            merged.sort_by(|(sa, a), (sb, b)| {
                (&a.rule_id, sa, &a.message).cmp(&(&b.rule_id, sb, &b.message))
            });
            batch.extend(merged.into_iter().map(|(_, f)| f));
            if batch.len() >= FINISH_BATCH {
                emit(std::mem::take(&mut batch))?;
            }
        }
        if !batch.is_empty() {
            emit(batch)?;
        }
        Ok(())
    }

    /// The merged findings, all at once (tests).
    #[cfg(test)]
    fn finish_all(self) -> Vec<Finding> {
        let mut out = Vec::new();
        self.finish(&mut |batch| {
            out.extend(batch);
            Ok(())
        })
        .unwrap();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::sample;
    use sitescan_rules::{Category, Impact, Outcome};

    fn finding(rule: &str, scope: Scope, page: &str, selector: &str, message: &str) -> Finding {
        let mut f = sample::finding(
            rule,
            Category::Security,
            Outcome::Failed,
            Impact::Serious,
            page,
            selector,
            "",
            message,
            &[],
        );
        f.page_url = page.to_string();
        f.scope = scope;
        f
    }

    /// Both ways of keeping first findings: in memory, and in a file (its
    /// directory kept alive by the returned guard).
    fn groupers() -> Vec<(Grouper, Option<tempfile::TempDir>)> {
        let tmp = tempfile::tempdir().unwrap();
        let file = Grouper::file_in(tmp.path()).unwrap();
        vec![(Grouper::default(), None), (file, Some(tmp))]
    }

    #[test]
    fn host_findings_merge_per_origin_and_message_with_pages_in_report_order() {
        for (g, _dir) in groupers() {
            host_findings_merge(g);
        }
    }

    fn host_findings_merge(mut g: Grouper) {
        let hsts = |page: &str| finding("hsts", Scope::Host, page, "", "No HSTS.");
        // Pages arrive out of report order; a page-scope finding passes through.
        let own = g
            .take(
                1,
                &"https://a.test/z".into(),
                vec![
                    hsts("https://a.test/z"),
                    finding("image-alt", Scope::Page, "https://a.test/z", "img", "m"),
                ],
            )
            .unwrap();
        assert_eq!(own.len(), 1);
        assert_eq!(own[0].rule_id, "image-alt");
        g.take(0, &"https://a.test/".into(), vec![hsts("https://a.test/")])
            .unwrap();
        g.take(
            1,
            &"https://a.test/b".into(),
            vec![hsts("https://a.test/b")],
        )
        .unwrap();
        // Another host, and another message on the same host: other problems.
        g.take(1, &"https://b.test/".into(), vec![hsts("https://b.test/")])
            .unwrap();
        g.take(
            2,
            &"https://a.test/c".into(),
            vec![finding(
                "hsts",
                Scope::Host,
                "https://a.test/c",
                "",
                "Short.",
            )],
        )
        .unwrap();
        let out = g.finish_all();
        let got: Vec<(String, Vec<String>, Option<u64>)> = out
            .iter()
            .map(|f| {
                (
                    f.page_url.clone(),
                    f.occurrences.iter().map(|o| o.page_url.clone()).collect(),
                    f.occurrences_total,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "https://a.test/".to_string(),
                    vec![
                        "https://a.test/".to_string(),
                        "https://a.test/b".to_string(),
                        "https://a.test/z".to_string()
                    ],
                    None
                ),
                ("https://b.test/".to_string(), vec![], None),
                ("https://a.test/c".to_string(), vec![], None),
            ]
        );
    }

    #[test]
    fn occurrences_are_capped_at_the_first_places_with_a_total() {
        for (g, _dir) in groupers() {
            occurrences_are_capped(g);
        }
    }

    fn occurrences_are_capped(mut g: Grouper) {
        // 250 pages in reverse order: the cap keeps the first 100 in report order.
        for i in (0..250).rev() {
            let page = format!("https://a.test/p{i:03}");
            let mut f = finding("long-cache-ttl", Scope::Resource, &page, "img", "m");
            f.resource = Some("https://a.test/logo.png".into());
            g.take(1, &page.as_str().into(), vec![f]).unwrap();
        }
        let out = g.finish_all();
        assert_eq!(out.len(), 1);
        let f = &out[0];
        assert_eq!(f.page_url, "https://a.test/p000");
        assert_eq!(f.occurrences.len(), MAX_OCCURRENCES);
        assert_eq!(f.occurrences[99].page_url, "https://a.test/p099");
        assert_eq!(f.occurrences_total, Some(250));
        assert_eq!(f.occurrence_count(), 250);
    }
}

/// Whole scans of the `grouping` fixture site: three pages on one host sharing
/// one stylesheet and one script, none of them sending security headers.
#[cfg(test)]
mod scans {
    use sitescan_fixtures::{site_dir, FixtureServer};
    use sitescan_rules::{Category, Finding};

    use crate::report::Report;
    use crate::Scanner;

    async fn scan(rules: &[&str]) -> (Report, String) {
        let server = FixtureServer::start(site_dir("grouping")).await.unwrap();
        let report = Scanner::builder()
            .allow_private(true)
            .rate_per_host(1000.0)
            .rules(rules)
            .build()
            .unwrap()
            .scan(&server.url())
            .await
            .unwrap();
        (report, server.url().trim_end_matches('/').to_string())
    }

    /// `rule path [occurrence paths]` of every finding, paths relative to the site.
    fn lines(report: &Report, origin: &str) -> Vec<String> {
        let path = |u: &str| u.strip_prefix(origin).unwrap_or(u).to_string();
        report
            .findings
            .iter()
            .map(|f: &Finding| {
                let mut line = format!("{} {}", f.rule_id, path(&f.page_url));
                if !f.scope.is_page() {
                    line.push_str(&format!(" {:?}", f.scope).to_lowercase());
                }
                if let Some(r) = &f.resource {
                    line.push_str(&format!(" {}", path(r)));
                }
                if !f.occurrences.is_empty() {
                    let pages: Vec<String> =
                        f.occurrences.iter().map(|o| path(&o.page_url)).collect();
                    line.push_str(&format!(" [{}]", pages.join(" ")));
                }
                line
            })
            .collect()
    }

    /// Every rule of the fixture's problems but the timing ones (a loaded
    /// machine must not change the outcome).
    const RULES: &[&str] = &[
        "clickjacking-protection",
        "content-security-policy",
        "cross-origin-isolation",
        "is-on-https",
        "modern-http",
        "permissions-policy",
        "text-compression",
        "x-content-type-options",
        "long-cache-ttl",
        "render-blocking-resources",
        "link-name",
        "empty-link",
        "placeholder-text",
    ];

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_host_fact_and_a_shared_resource_are_one_finding_each_with_the_pages_as_occurrences()
    {
        let (report, origin) = scan(RULES).await;
        let all = "[/ /a /b]";
        let host = |rule: &str| format!("{rule} / host {all}");
        let resource = |rule: &str, file: &str| format!("{rule} / resource {file} {all}");
        let mut expected = vec![
            // The page's own findings first, then the merged ones whose first
            // place is this page, by selector then rule.
            "link-name /".to_string(),
            "link-name /".to_string(),
            host("clickjacking-protection"),
            host("content-security-policy"),
            host("cross-origin-isolation"),
            host("is-on-https"),
            host("modern-http"),
            host("permissions-policy"),
            host("text-compression"),
            host("x-content-type-options"),
            resource("long-cache-ttl", "/site.css"),
            resource("render-blocking-resources", "/site.css"),
            resource("text-compression", "/site.css"),
            resource("long-cache-ttl", "/app.js"),
            resource("render-blocking-resources", "/app.js"),
            resource("text-compression", "/app.js"),
        ];
        // The empty links are link-name's (empty-link defers to it); XXX and
        // TODO in <pre>, <code>, <kbd>, <samp> and <var> on / are no filler.
        expected.extend(["link-name /a", "link-name /a", "placeholder-text /b"].map(String::from));
        assert_eq!(lines(&report, &origin), expected);

        let https = report
            .findings
            .iter()
            .find(|f| f.rule_id == "is-on-https")
            .unwrap();
        assert_eq!(
            https.message,
            format!("The site is served over plain HTTP ({origin}).")
        );
        assert_eq!(https.occurrences_total, None);
        let css = report
            .findings
            .iter()
            .find(|f| f.rule_id == "long-cache-ttl")
            .unwrap();
        assert_eq!(css.selector, "html > head > link");
        assert_eq!(
            css.occurrences
                .iter()
                .map(|o| o.selector.as_str())
                .collect::<Vec<_>>(),
            ["html > head > link"; 3]
        );

        // Counts are problems: 8 host facts + 6 resource problems, not 42.
        let security = &report.summary[&Category::Security];
        assert_eq!(
            (
                security.critical,
                security.serious,
                security.moderate,
                security.minor
            ),
            (1, 2, 1, 2)
        );
        let performance = &report.summary[&Category::Performance];
        assert_eq!(
            (performance.serious, performance.moderate, performance.minor),
            (3, 4, 1)
        );
        // Four serious failures (link-name, 2 of 3 pages): not 100, but
        // ⌊100 × (1 − 0.3 × √⅔)⌋ = 75.
        let a11y = &report.summary[&Category::Accessibility];
        assert_eq!((a11y.serious, a11y.score), (4, Some(75)));
        // Every security rule fails on every page: ⌊100 × 0.5 × 0.7² × 0.85 × 0.95²⌋.
        assert_eq!(security.score, Some(18));
        // empty-link applied on every page but its failures are link-name's:
        // the quality score counts only placeholder-text on 1 of 3 pages.
        let empty_link = report
            .rules
            .iter()
            .find(|r| r.rule_id == "empty-link")
            .unwrap();
        assert_eq!(
            (empty_link.pages_applicable, empty_link.pages_failed),
            (3, 0)
        );
        assert_eq!(report.summary[&Category::Quality].score, Some(82));
        // The per-page counts still say what each page shows.
        let per_page: Vec<u64> = report.pages.iter().map(|p| p.findings).collect();
        assert_eq!(per_page, [16, 16, 15]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_spooled_scan_merges_the_same_findings_in_the_same_order() {
        let server = FixtureServer::start(site_dir("grouping")).await.unwrap();
        let scanner = Scanner::builder()
            .allow_private(true)
            .rate_per_host(1000.0)
            .rules(RULES)
            .build()
            .unwrap();
        let memory = scanner.scan(&server.url()).await.unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let spooled = scanner
            .scan_spooled(&server.url(), tmp.path(), &|_| {})
            .await
            .unwrap()
            .into_report()
            .unwrap();
        assert_eq!(spooled.findings, memory.findings);
        assert_eq!(spooled.summary, memory.summary);
        assert_eq!(memory.findings.len(), 19);
    }
}
