//! The table of JavaScript libraries with known vulnerabilities
//! (`rules/data/js-libs.json`, embedded at build time: no network) and the
//! matcher that finds library versions in script URLs and inline banners.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::{cmp_version, parse_version};

/// The data file, as shipped.
pub const DATA: &str = include_str!("../../data/js-libs.json");

#[derive(Debug, Deserialize)]
struct RawTable {
    version: String,
    libraries: Vec<RawLibrary>,
}

#[derive(Debug, Deserialize)]
struct RawLibrary {
    name: String,
    url: Vec<String>,
    banner: Vec<String>,
    vulnerabilities: Vec<Vulnerability>,
}

/// One advisory against a library.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct Vulnerability {
    /// CVE (or advisory) id.
    pub id: String,
    /// One line on what it allows.
    pub summary: String,
    /// Affected ranges: `[from, below)`.
    pub ranges: Vec<(String, String)>,
    /// Public advisory URL.
    pub source: String,
}

impl Vulnerability {
    /// Whether `version` lies in one of the affected ranges.
    pub fn affects(&self, version: &[u64]) -> bool {
        self.ranges.iter().any(
            |(from, below)| match (parse_version(from), parse_version(below)) {
                (Some(f), Some(b)) => {
                    cmp_version(version, &f).is_ge() && cmp_version(version, &b).is_lt()
                }
                _ => false,
            },
        )
    }
}

/// A library with compiled detection patterns.
#[derive(Debug)]
pub struct Library {
    /// Display name.
    pub name: String,
    url: Vec<Regex>,
    banner: Vec<Regex>,
    /// Its known vulnerabilities.
    pub vulnerabilities: Vec<Vulnerability>,
}

/// The compiled table.
#[derive(Debug)]
pub struct Table {
    /// Data version (a date).
    pub version: String,
    /// Libraries in file order.
    pub libraries: Vec<Library>,
}

/// Problems loading the table (a broken data file is a build-time bug, caught by
/// the test below; at run time the rule then reports nothing rather than panic).
fn load(text: &str) -> Result<Table, String> {
    let raw: RawTable = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let compile = |ps: &[String]| -> Result<Vec<Regex>, String> {
        ps.iter()
            .map(|p| Regex::new(p).map_err(|e| format!("{p}: {e}")))
            .collect()
    };
    let mut libraries = Vec::new();
    for l in raw.libraries {
        libraries.push(Library {
            url: compile(&l.url)?,
            banner: compile(&l.banner)?,
            name: l.name,
            vulnerabilities: l.vulnerabilities,
        });
    }
    Ok(Table {
        version: raw.version,
        libraries,
    })
}

/// The shipped table, compiled once; `None` if the data file is broken.
pub fn table() -> Option<&'static Table> {
    static TABLE: OnceLock<Option<Table>> = OnceLock::new();
    TABLE.get_or_init(|| load(DATA).ok()).as_ref()
}

/// A library version found on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection<'t> {
    /// The library.
    pub library: &'t str,
    /// Version as written.
    pub version: String,
    /// Advisories affecting that version.
    pub vulnerabilities: Vec<&'t Vulnerability>,
}

impl Table {
    fn detect<'t>(&'t self, text: &str, banner: bool) -> Option<Detection<'t>> {
        for lib in &self.libraries {
            let patterns = if banner { &lib.banner } else { &lib.url };
            for re in patterns {
                let Some(version) = re.captures(text).and_then(|c| c.get(1)) else {
                    continue;
                };
                let Some(parsed) = parse_version(version.as_str()) else {
                    continue;
                };
                return Some(Detection {
                    library: &lib.name,
                    version: version.as_str().to_string(),
                    vulnerabilities: lib
                        .vulnerabilities
                        .iter()
                        .filter(|v| v.affects(&parsed))
                        .collect(),
                });
            }
        }
        None
    }

    /// The library and version a script URL names, if any.
    pub fn detect_url(&self, url: &str) -> Option<Detection<'_>> {
        self.detect(url, false)
    }

    /// The library and version an inline script's banner comment names, if any.
    pub fn detect_banner(&self, text: &str) -> Option<Detection<'_>> {
        // Banners sit at the top of the file.
        let head: String = text.chars().take(600).collect();
        self.detect(&head, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_file_loads_and_cites_sources() {
        let t = load(DATA).unwrap();
        assert!(!t.libraries.is_empty());
        for l in &t.libraries {
            assert!(!l.url.is_empty(), "{}", l.name);
            for v in &l.vulnerabilities {
                assert!(v.source.starts_with("https://"), "{}", v.id);
                assert!(!v.ranges.is_empty(), "{}", v.id);
            }
        }
    }

    #[test]
    fn detects_versions() {
        let t = table().unwrap();
        let d = t
            .detect_url("https://code.jquery.com/jquery-3.4.1.min.js")
            .unwrap();
        assert_eq!((d.library, d.version.as_str()), ("jQuery", "3.4.1"));
        let ids: Vec<&str> = d.vulnerabilities.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, vec!["CVE-2020-11022", "CVE-2020-11023"]);
        let ok = t
            .detect_url("https://cdnjs.cloudflare.com/ajax/libs/jquery/3.7.1/jquery.min.js")
            .unwrap();
        assert!(ok.vulnerabilities.is_empty());
        let bs = t
            .detect_url("https://cdn.jsdelivr.net/npm/bootstrap@4.3.0/dist/js/bootstrap.min.js")
            .unwrap();
        assert_eq!(bs.vulnerabilities.len(), 1);
        let b = t
            .detect_banner("/*! jQuery v1.8.3 jquery.com | jquery.org/license */")
            .unwrap();
        assert_eq!(b.vulnerabilities.len(), 5);
        assert!(t.detect_url("https://example.com/app.js").is_none());
    }
}
