//! URL normalization (so no URL is fetched twice) and the scan's scope (which
//! URLs the crawler may follow).

use regex::Regex;
use url::{Host, Url};

use crate::config::ScanConfig;
use crate::error::{Error, Result};

/// Normalizes a URL for fetching and deduplication.
///
/// The `url` crate already lowercases scheme and host, drops default ports,
/// resolves dot segments and percent-encodes what must be; on top of that this
/// drops the fragment, decodes percent-escapes of unreserved characters
/// (`%7E` -> `~`), upper-cases the remaining escapes and gives an empty path `/`.
pub fn normalize(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_fragment(None);
    let path = normalize_escapes(url.path());
    if path != url.path() {
        url.set_path(&path);
    }
    if let Some(q) = url.query() {
        let q2 = normalize_escapes(q);
        if q2 != q {
            url.set_query(Some(&q2));
        }
    }
    url
}

fn normalize_escapes(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = &s[i + 1..i + 3];
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                let c = v as char;
                if (c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
                    && !(c.is_ascii_hexdigit() && ends_in_stray_percent(&out))
                {
                    out.push(c);
                } else {
                    out.push('%');
                    out.push_str(&hex.to_ascii_uppercase());
                }
                i += 3;
                continue;
            }
        }
        // Multi-byte characters are copied whole.
        let ch_len = s[i..].chars().next().map(char::len_utf8).unwrap_or(1);
        out.push_str(&s[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Whether `out` ends with a `%` that starts no escape: `%` or `%` and one hex
/// digit (a kept escape is always pushed whole, `%XX`).
///
/// A hex digit decoded right after it would join it into a new escape
/// (`%4%41` -> `%4A`), which a second normalization would decode again (`J`):
/// the frontier stores normalized URLs and must get the same key back, so such a
/// digit stays escaped.
fn ends_in_stray_percent(out: &str) -> bool {
    let b = out.as_bytes();
    match b {
        [.., b'%'] => true,
        [.., b'%', d] => d.is_ascii_hexdigit(),
        _ => false,
    }
}

/// Parses and checks a start URL: absolute, http(s), with a host.
pub fn parse_start_url(raw: &str) -> Result<Url> {
    let invalid = |reason: &str| Error::InvalidUrl {
        url: raw.to_string(),
        reason: reason.to_string(),
    };
    let trimmed = raw.trim();
    let url = Url::parse(trimmed).map_err(|e| {
        if e == url::ParseError::RelativeUrlWithoutBase && !trimmed.contains(char::is_whitespace) {
            invalid(&format!("no scheme; did you mean https://{trimmed}"))
        } else {
            invalid(&e.to_string())
        }
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(&format!(
            "scheme `{}` is not http or https",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("no host"));
    }
    Ok(normalize(&url))
}

/// Why a URL is out of scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfScope {
    /// Another host (or a subdomain when subdomains are off), or not http(s).
    Host,
    /// Matches no `include` pattern.
    NotIncluded,
    /// Matches an `exclude` pattern.
    Excluded,
}

/// Which URLs a scan may fetch as pages.
#[derive(Debug, Clone)]
pub struct Scope {
    host: String,
    port: Option<u16>,
    subdomains: bool,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
}

/// Compiles include/exclude patterns, naming the bad one.
pub fn compile_patterns(patterns: &[String], what: &str) -> Result<Vec<Regex>> {
    patterns
        .iter()
        .map(|p| {
            Regex::new(p).map_err(|e| {
                Error::Config(format!(
                    "{what} pattern `{p}` is not a valid regular expression: {e}"
                ))
            })
        })
        .collect()
}

impl Scope {
    /// The scope of a scan starting at `start`.
    pub fn new(start: &Url, config: &ScanConfig) -> Result<Scope> {
        Ok(Scope {
            host: host_key(start),
            port: start.port(),
            subdomains: config.subdomains,
            include: compile_patterns(&config.include, "include")?,
            exclude: compile_patterns(&config.exclude, "exclude")?,
        })
    }

    /// Moves the scope to the host a start URL redirected to (`http://site` ->
    /// `https://www.site/`): the site lives there.
    pub fn rebase(&mut self, final_url: &Url) {
        self.host = host_key(final_url);
        self.port = final_url.port();
    }

    /// Also skips URLs matching these patterns (a scan with credentials adds
    /// the sign-out patterns, see [`crate::auth::DEFAULT_SIGN_OUT_EXCLUDE`]).
    pub fn exclude_also(&mut self, patterns: &[Regex]) {
        self.exclude.extend(patterns.iter().cloned());
    }

    /// Whether the host (and port) belongs to the scan.
    pub fn host_in_scope(&self, url: &Url) -> bool {
        if !matches!(url.scheme(), "http" | "https") || url.port() != self.port {
            return false;
        }
        let host = host_key(url);
        if host == self.host {
            return true;
        }
        if !self.subdomains {
            return false;
        }
        let site = self.host.strip_prefix("www.").unwrap_or(&self.host);
        host == site || host.ends_with(&format!(".{site}"))
    }

    /// Checks a URL against host, include and exclude.
    pub fn check(&self, url: &Url) -> std::result::Result<(), OutOfScope> {
        if !self.host_in_scope(url) {
            return Err(OutOfScope::Host);
        }
        let s = url.as_str();
        if !self.include.is_empty() && !self.include.iter().any(|r| r.is_match(s)) {
            return Err(OutOfScope::NotIncluded);
        }
        if self.exclude.iter().any(|r| r.is_match(s)) {
            return Err(OutOfScope::Excluded);
        }
        Ok(())
    }
}

fn host_key(url: &Url) -> String {
    match url.host() {
        Some(Host::Domain(d)) => d.trim_end_matches('.').to_ascii_lowercase(),
        Some(h) => h.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalize(&Url::parse(s).unwrap()).to_string()
    }

    #[test]
    fn normalization_merges_spellings_of_one_url() {
        assert_eq!(
            n("HTTP://Example.COM:80/a/./b/../c#frag"),
            "http://example.com/a/c"
        );
        assert_eq!(n("https://example.com"), "https://example.com/");
        assert_eq!(
            n("https://example.com:443/%7euser/%2f%41?q=%7e%2a"),
            "https://example.com/~user/%2FA?q=~%2A"
        );
        assert_eq!(
            n("https://example.com/caf%C3%A9"),
            "https://example.com/caf%C3%A9"
        );
        assert_eq!(
            n("https://example.com/café"),
            "https://example.com/caf%C3%A9"
        );
        assert_eq!(n("https://example.com/100%"), "https://example.com/100%");
        // Decoding never makes a new escape out of a stray `%`: normalizing
        // twice changes nothing (found by the url_normalize fuzz target).
        for raw in [
            "https://example.com/%4%41",
            "https://example.com/%%41B",
            "https://example.com/%%34%31",
            "https://example.com/a%2%46?x=%%36%36",
        ] {
            let once = n(raw);
            assert_eq!(n(&once), once, "{raw}");
        }
        assert_eq!(n("https://example.com/%4%41"), "https://example.com/%4%41");
    }

    #[test]
    fn start_urls_are_checked() {
        assert!(parse_start_url("https://example.com").is_ok());
        let err = parse_start_url("example.com/a").unwrap_err().to_string();
        assert!(err.contains("did you mean https://example.com/a"), "{err}");
        assert!(matches!(
            parse_start_url("ftp://example.com/"),
            Err(Error::InvalidUrl { .. })
        ));
        assert!(matches!(
            parse_start_url("http://"),
            Err(Error::InvalidUrl { .. })
        ));
    }

    #[test]
    fn scope_by_host_subdomain_and_patterns() {
        let start = Url::parse("https://www.example.com/").unwrap();
        let mut config = ScanConfig::default();
        let u = |s: &str| Url::parse(s).unwrap();
        let scope = Scope::new(&start, &config).unwrap();
        assert_eq!(scope.check(&u("http://WWW.example.com/x")), Ok(()));
        assert_eq!(
            scope.check(&u("https://blog.example.com/")),
            Err(OutOfScope::Host)
        );
        assert_eq!(
            scope.check(&u("https://www.example.com:8443/")),
            Err(OutOfScope::Host)
        );
        config.subdomains = true;
        config.include = vec!["/docs/".into()];
        config.exclude = vec![r"\.pdf$".into()];
        let scope = Scope::new(&start, &config).unwrap();
        assert_eq!(scope.check(&u("https://blog.example.com/docs/a")), Ok(()));
        assert_eq!(scope.check(&u("https://example.com/docs/a")), Ok(()));
        assert_eq!(
            scope.check(&u("https://notexample.com/docs/a")),
            Err(OutOfScope::Host)
        );
        assert_eq!(
            scope.check(&u("https://example.com/blog")),
            Err(OutOfScope::NotIncluded)
        );
        assert_eq!(
            scope.check(&u("https://example.com/docs/a.pdf")),
            Err(OutOfScope::Excluded)
        );
        config.exclude = vec!["(".into()];
        assert!(matches!(Scope::new(&start, &config), Err(Error::Config(_))));
    }
}
