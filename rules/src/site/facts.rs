//! Facts about the site as a whole that the engine gathers once per scan beside
//! the pages: robots.txt, the sitemap files, the TLS handshake of the site's
//! https origin, and the answer to one request sent with a foreign `Origin`.
//!
//! They are plain data (serde), so the rules that judge them (`robots-txt`,
//! `sitemap-valid`, `sitemap-non-indexable`, `tls-certificate`, `tls-version`,
//! `cors-reflected-origin`) are tested on hand-written facts, and the engine only
//! records what it saw.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::support::robots::{ParsedRobots, RuleSet};

/// The product tokens whose robots.txt groups decide what search engines may
/// crawl: Google's and Bing's (each falls back to the `*` group when the file has
/// no group of its own for it).
pub const SEARCH_AGENTS: &[&str] = &["googlebot", "bingbot"];

/// Most URLs one sitemap file may list (sitemaps.org).
pub const SITEMAP_MAX_URLS: u64 = 50_000;
/// Largest uncompressed sitemap file allowed, bytes (sitemaps.org: 50 MB).
pub const SITEMAP_MAX_BYTES: u64 = 50 * 1024 * 1024;

/// robots.txt of the site's origin, as fetched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsFacts {
    /// `scheme://host[:port]/robots.txt`.
    pub url: String,
    /// HTTP status of the final response; 0 when none came.
    pub status: u16,
    /// Why the fetch failed (DNS, connection, timeout, redirect loop), if it did.
    #[serde(default)]
    pub error: Option<String>,
    /// The body as text (lossy UTF-8), at most the 500 KiB search engines read.
    #[serde(default)]
    pub body: String,
}

impl RobotsFacts {
    /// Whether robots.txt was fetched with a 2xx answer.
    pub fn found(&self) -> bool {
        self.error.is_none() && (200..300).contains(&self.status)
    }

    /// Whether robots.txt keeps `agent` (a product token such as `googlebot`) off
    /// `url`, as crawlers read it (RFC 9309): a 4xx file allows everything, a 5xx
    /// or unreachable one disallows everything, a 2xx file's rules decide.
    ///
    /// Reads the file for this one question; a rule asking about many URLs
    /// reads it once with [`RobotsFacts::search_access`].
    pub fn disallows(&self, agent: &str, url: &str) -> bool {
        match self.access() {
            Access::All => false,
            Access::Nothing => true,
            Access::Rules => !ParsedRobots::parse(agent, self.body.as_bytes())
                .rules
                .allowed_str(url),
        }
    }

    /// The first search engine agent of [`SEARCH_AGENTS`] that robots.txt keeps
    /// off `url`, if any.
    pub fn blocks_search(&self, url: &str) -> Option<&'static str> {
        self.search_access().blocks(url)
    }

    /// robots.txt read once for every agent of [`SEARCH_AGENTS`], to ask about
    /// many URLs (a sitemap's) without reading the file per URL.
    pub fn search_access(&self) -> SearchAccess {
        let (all_blocked, rules) = match self.access() {
            Access::All => (false, Vec::new()),
            Access::Nothing => (true, Vec::new()),
            Access::Rules => (
                false,
                SEARCH_AGENTS
                    .iter()
                    .map(|agent| {
                        (
                            *agent,
                            ParsedRobots::parse(agent, self.body.as_bytes()).rules,
                        )
                    })
                    .collect(),
            ),
        };
        SearchAccess { all_blocked, rules }
    }

    /// What the fetch's outcome alone says (RFC 9309 2.3.1).
    fn access(&self) -> Access {
        if self.error.is_some() || self.status == 0 || self.status >= 500 {
            Access::Nothing
        } else if (200..300).contains(&self.status) {
            Access::Rules
        } else {
            Access::All
        }
    }
}

/// What a robots.txt fetch's outcome says before its rules are read.
enum Access {
    /// 4xx (and 1xx/3xx left over): everything is allowed.
    All,
    /// 5xx or no answer: nothing is.
    Nothing,
    /// 2xx: the file's rules decide.
    Rules,
}

/// robots.txt as each search engine of [`SEARCH_AGENTS`] reads it, parsed once
/// (see [`RobotsFacts::search_access`]).
#[derive(Debug)]
pub struct SearchAccess {
    /// 5xx or unreachable robots.txt: every URL is blocked for every agent.
    all_blocked: bool,
    /// The rules each agent follows (empty unless robots.txt answered 2xx).
    rules: Vec<(&'static str, RuleSet)>,
}

impl SearchAccess {
    /// The first search engine agent robots.txt keeps off `url`, if any.
    pub fn blocks(&self, url: &str) -> Option<&'static str> {
        if self.all_blocked {
            return SEARCH_AGENTS.first().copied();
        }
        self.rules
            .iter()
            .find(|(_, rules)| !rules.allowed_str(url))
            .map(|(agent, _)| *agent)
    }
}

/// How a sitemap file was found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SitemapSource {
    /// A `Sitemap:` line of robots.txt.
    Robots,
    /// The conventional `/sitemap.xml` of the site root.
    #[default]
    Conventional,
    /// A `<sitemap><loc>` of a sitemap index.
    Index,
}

/// One sitemap file the scan fetched (or tried to).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SitemapFile {
    /// The file's URL.
    pub url: String,
    /// How it was found.
    pub source: SitemapSource,
    /// The sitemap index that listed it (for [`SitemapSource::Index`]).
    #[serde(default)]
    pub parent: Option<String>,
    /// HTTP status of the final response; 0 when none came.
    pub status: u16,
    /// The URL it redirected to, when it did.
    #[serde(default)]
    pub redirected_to: Option<String>,
    /// Why it could not be fetched or read (network, gzip or XML error, a root
    /// element other than `<urlset>` / `<sitemapindex>`).
    #[serde(default)]
    pub error: Option<String>,
    /// `urlset`, `sitemapindex` or `text` (one URL per line), when recognised.
    #[serde(default)]
    pub kind: Option<String>,
    /// `<loc>` entries (or lines) in the file, all of them, even past the
    /// 50,000 the scan keeps.
    #[serde(default)]
    pub loc_count: u64,
    /// Size of the file after decompression, bytes (up to a little over the
    /// 50 MB limit, where reading stops).
    #[serde(default)]
    pub bytes: u64,
    /// Entries that are not allowed in this file (another scheme, host or port,
    /// or a path outside the file's folder), the first few.
    #[serde(default)]
    pub outside: Vec<String>,
    /// How many entries are outside, in all.
    #[serde(default)]
    pub outside_count: u64,
    /// Why the scan did not fetch the file (another host, disallowed by
    /// robots.txt); nothing else is known of it then.
    #[serde(default)]
    pub skipped: Option<String>,
}

impl SitemapFile {
    /// Whether the file was fetched (2xx after redirects) and read without error.
    pub fn ok(&self) -> bool {
        self.error.is_none() && (200..300).contains(&self.status)
    }
}

/// Whether `loc` may be listed in the sitemap at `sitemap_url` (sitemaps.org,
/// "Sitemap file location"): same scheme, host and port, and a path in the
/// sitemap's folder or below. Unparseable URLs are outside.
pub fn inside_sitemap_scope(sitemap_url: &str, loc: &str) -> bool {
    let (Ok(map), Ok(entry)) = (url::Url::parse(sitemap_url), url::Url::parse(loc)) else {
        return false;
    };
    if map.scheme() != entry.scheme()
        || map.host_str().map(str::to_ascii_lowercase)
            != entry.host_str().map(str::to_ascii_lowercase)
        || map.port_or_known_default() != entry.port_or_known_default()
    {
        return false;
    }
    let folder = match map.path().rfind('/') {
        Some(i) => &map.path()[..=i],
        None => "/",
    };
    entry.path().starts_with(folder)
}

/// The verdict of validating the certificate chain against the trusted roots
/// (webpki's roots plus any the scan was told to trust), at a moment when the
/// leaf is valid, so an expired certificate is not also reported as untrusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChainTrust {
    /// The chain leads to a trusted root.
    #[default]
    Trusted,
    /// The leaf is its own issuer and no trusted root vouches for it.
    SelfSigned,
    /// The chain does not lead to a trusted root (missing intermediate, private CA).
    UnknownIssuer,
    /// Validation failed for another reason.
    Invalid {
        /// What the validator said.
        reason: String,
    },
}

/// What the scan read from one certificate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CertInfo {
    /// Subject distinguished name.
    pub subject: String,
    /// Issuer distinguished name.
    pub issuer: String,
    /// Start of validity.
    pub not_before: DateTime<Utc>,
    /// End of validity.
    pub not_after: DateTime<Utc>,
    /// `dNSName` entries of the subjectAltName extension.
    #[serde(default)]
    pub dns_names: Vec<String>,
    /// `iPAddress` entries of the subjectAltName extension.
    #[serde(default)]
    pub ip_addresses: Vec<String>,
    /// Public key algorithm: `RSA`, `EC`, `Ed25519`, `Ed448` or the OID.
    pub key_algorithm: String,
    /// Public key size in bits (RSA modulus, EC field size); 0 when unknown.
    pub key_bits: u32,
    /// Signature algorithm, e.g. `sha256WithRSAEncryption`, `ecdsa-with-SHA256`.
    pub signature_algorithm: String,
}

/// The TLS handshake with the site's https origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsFacts {
    /// The host name checked (sent as SNI).
    pub host: String,
    /// The port.
    pub port: u16,
    /// When the handshake happened: validity dates are judged against it.
    pub checked_at: DateTime<Utc>,
    /// Negotiated protocol with a client offering TLS 1.2 and 1.3: `TLSv1.3` or
    /// `TLSv1.2`; `None` when the handshake failed.
    #[serde(default)]
    pub protocol: Option<String>,
    /// Negotiated cipher suite.
    #[serde(default)]
    pub cipher_suite: Option<String>,
    /// Why the handshake failed, when it did.
    #[serde(default)]
    pub handshake_error: Option<String>,
    /// The server refused TLS 1.2 and 1.3 (a protocol version alert).
    #[serde(default)]
    pub modern_unsupported: bool,
    /// The version the server chose when offered at most TLS 1.1 (`TLSv1.1`,
    /// `TLSv1.0`); `None` when it refused, as it should.
    #[serde(default)]
    pub legacy_accepted: Option<String>,
    /// The certificates the server sent, leaf first.
    #[serde(default)]
    pub chain: Vec<CertInfo>,
    /// The chain's validation verdict (meaningless when `chain` is empty).
    #[serde(default)]
    pub trust: ChainTrust,
}

impl TlsFacts {
    /// The leaf certificate.
    pub fn leaf(&self) -> Option<&CertInfo> {
        self.chain.first()
    }

    /// `https://host[:port]/`, where findings about the handshake are reported.
    pub fn origin_url(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == 443 {
            format!("https://{host}/")
        } else {
            format!("https://{host}:{}/", self.port)
        }
    }
}

/// The answer to one GET of the start page sent with a foreign `Origin` header.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorsProbe {
    /// The URL requested (the start page's final URL).
    pub url: String,
    /// The `Origin` sent.
    pub origin: String,
    /// HTTP status; 0 when no answer came.
    pub status: u16,
    /// `Access-Control-Allow-Origin` of the answer.
    #[serde(default)]
    pub allow_origin: Option<String>,
    /// `Access-Control-Allow-Credentials` of the answer.
    #[serde(default)]
    pub allow_credentials: Option<String>,
    /// Why the request failed, when it did.
    #[serde(default)]
    pub error: Option<String>,
}

impl CorsProbe {
    /// Whether the answer granted access to exactly the foreign origin sent.
    pub fn reflected(&self) -> bool {
        self.allow_origin.as_deref().is_some_and(|a| {
            a.trim()
                .trim_end_matches('/')
                .eq_ignore_ascii_case(&self.origin)
        })
    }

    /// Whether the answer allows credentials.
    pub fn credentials(&self) -> bool {
        self.allow_credentials
            .as_deref()
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }
}

/// The first answer to a GET of the plain-`http:` twin of an HTTPS start page (no
/// redirect followed), for `redirects-http` and the grade's redirection test.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpProbe {
    /// The `http:` URL requested.
    pub url: String,
    /// HTTP status; 0 when no answer came.
    pub status: u16,
    /// The `Location` of a redirect, resolved against `url`.
    #[serde(default)]
    pub location: Option<String>,
    /// Why the request failed, when it did (no HTTP listener, timeout).
    #[serde(default)]
    pub error: Option<String>,
}

impl HttpProbe {
    /// The `http:` URL to probe for an HTTPS page on the default port: the same
    /// host and path on port 80. `None` for other schemes or a non-default port,
    /// where no conventional plain-HTTP port exists.
    pub fn twin(https: &url::Url) -> Option<url::Url> {
        if https.scheme() != "https" || https.port().is_some() {
            return None;
        }
        let mut u = https.clone();
        u.set_scheme("http").ok()?;
        u.set_fragment(None);
        Some(u)
    }

    /// Whether the answer is a redirect whose `Location` is an `https:` URL.
    pub fn redirects_to_https(&self) -> bool {
        (300..400).contains(&self.status)
            && self
                .location
                .as_deref()
                .is_some_and(|l| l.starts_with("https:"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_twin_of_default_port_pages_only() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert_eq!(
            HttpProbe::twin(&u("https://shop.example/start?x=1#top")),
            Some(u("http://shop.example/start?x=1"))
        );
        assert_eq!(HttpProbe::twin(&u("https://shop.example:8443/")), None);
        assert_eq!(HttpProbe::twin(&u("http://shop.example/")), None);
    }

    #[test]
    fn sitemap_scope_follows_sitemaps_org() {
        let map = "https://example.com/catalog/sitemap.xml";
        assert!(inside_sitemap_scope(map, "https://example.com/catalog/a"));
        assert!(inside_sitemap_scope(
            map,
            "https://EXAMPLE.com:443/catalog/"
        ));
        assert!(!inside_sitemap_scope(map, "https://example.com/other"));
        assert!(!inside_sitemap_scope(map, "http://example.com/catalog/a"));
        assert!(!inside_sitemap_scope(
            map,
            "https://www.example.com/catalog/a"
        ));
        assert!(!inside_sitemap_scope(
            map,
            "https://example.com:8443/catalog/a"
        ));
        assert!(!inside_sitemap_scope(map, "not a url"));
        assert!(inside_sitemap_scope(
            "https://example.com/sitemap.xml",
            "https://example.com/x/y"
        ));
    }

    #[test]
    fn robots_disallows_as_crawlers_read_it() {
        let robots = |status: u16, body: &str| RobotsFacts {
            url: "https://example.com/robots.txt".into(),
            status,
            error: None,
            body: body.into(),
        };
        let r = robots(
            200,
            "User-agent: *\nDisallow: /private/\n\nUser-agent: bingbot\nDisallow: /\n",
        );
        assert_eq!(r.blocks_search("https://example.com/"), Some("bingbot"));
        assert!(!r.disallows("googlebot", "https://example.com/"));
        assert!(r.disallows("googlebot", "https://example.com/private/x"));
        assert_eq!(robots(404, "").blocks_search("https://example.com/"), None);
        assert_eq!(
            robots(503, "").blocks_search("https://example.com/"),
            Some("googlebot")
        );
    }

    #[test]
    fn cors_probe_reflection() {
        let probe = CorsProbe {
            origin: "https://sitescan-origin-probe.invalid".into(),
            allow_origin: Some("https://sitescan-origin-probe.invalid".into()),
            allow_credentials: Some("true".into()),
            ..CorsProbe::default()
        };
        assert!(probe.reflected() && probe.credentials());
        let star = CorsProbe {
            allow_origin: Some("*".into()),
            ..probe.clone()
        };
        assert!(!star.reflected());
    }
}
