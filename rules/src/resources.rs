//! Network facts about a page's subresources — scripts, stylesheets, images,
//! fonts and media — as the engine recorded them, and the helpers the rules that
//! judge them share.
//!
//! ## How page rules see network facts
//!
//! The rules that judge subresources (`text-compression`, `total-byte-weight`,
//! `long-cache-ttl`, `oversized-images`) are page rules, not site rules: they point
//! at the element that loads the resource (selector and snippet), compare an
//! image's intrinsic size with the `width`/`height` of *that* `<img>`, and
//! `text-compression` judges the document and its subresources as one rule. So the
//! facts must exist before the page's rules run, and the engine gathers them the
//! way it already gathers linked stylesheets: a cheap pre-pass over the raw HTML
//! ([`crate::links::subresource_refs`]) lists what the page loads; the engine's
//! link checker fetches each URL **once per scan** (cached and shared by every page
//! that references it, under the crawl's per-host politeness, robots.txt and
//! private-address guard, within the scan's link-check budget); and each page gets
//! the facts of its own subresources in [`crate::Page::subresources`]. Rules that
//! read them declare it with [`crate::RuleMeta::subresources`], so a scan that
//! selects none of them fetches nothing extra. Site rules (`broken-resources`) see
//! the same fetches as statuses in `SiteInput::link_status`.
//!
//! A subresource the engine did not fetch (robots.txt, a private address, the
//! budget spent) is absent from the list: rules judge only what is known.

use serde::{Deserialize, Serialize};

pub use crate::links::ResourceKind;

/// Encodings that count as compression (`Content-Encoding` tokens).
pub const ENCODINGS: &[&str] = &["gzip", "br", "zstd", "deflate", "x-gzip", "compress"];

/// Intrinsic pixel size of an image, read from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageDims {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// What fetching one subresource URL found (once per scan).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceFacts {
    /// URL of the final response (after redirects).
    pub final_url: String,
    /// Final HTTP status; 0 when no response came.
    pub status: u16,
    /// Why no response came (DNS, connection, timeout, redirect problem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `Content-Type` media type, lowercased, without parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Bytes on the wire for the body (compressed size when compressed): the
    /// `Content-Length`, else the bytes read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer_bytes: Option<u64>,
    /// No `Content-Length` and the body was longer than the engine reads: the
    /// real size is larger than `transfer_bytes`.
    #[serde(default)]
    pub transfer_capped: bool,
    /// `Content-Encoding` as sent, lowercased; `None` when absent or `identity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_encoding: Option<String>,
    /// For a text resource sent without compression and read whole: its size
    /// once gzip-compressed (default level), to estimate the savings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gzip_bytes: Option<u64>,
    /// `Cache-Control` (several headers joined with `, `).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<String>,
    /// `Expires`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// `Pragma`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pragma: Option<String>,
    /// `Date` of the response (the clock `Expires` is measured against), or the
    /// time of the fetch when the server sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// `ETag`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// `Last-Modified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Intrinsic size of an image, when its first bytes were readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageDims>,
}

/// One subresource of a page with what fetching it found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subresource {
    /// Absolute URL as the page references it (fragment removed).
    pub url: String,
    /// How the page loads it.
    pub kind: ResourceKind,
    /// The network facts (shared by every page that loads this URL).
    pub facts: ResourceFacts,
}

/// How long a response may be reused from the browser cache, per its headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheLifetime {
    /// Caching is turned off on purpose: `no-cache`, `no-store`,
    /// `must-revalidate` or `private`, or `Pragma: no-cache` without
    /// `Cache-Control`.
    Disabled,
    /// `max-age` (or `Expires` minus `Date`), in seconds; may be 0 or negative.
    Seconds(i64),
    /// No `max-age` and no `Expires`: no cache policy.
    Unspecified,
}

impl ResourceFacts {
    /// Whether the final status is 2xx.
    pub fn is_ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Whether the body was sent compressed.
    pub fn is_compressed(&self) -> bool {
        self.content_encoding.as_deref().is_some_and(|e| {
            e.split(',')
                .any(|t| ENCODINGS.contains(&t.trim().to_ascii_lowercase().as_str()))
        })
    }

    /// Whether the media type is text that compresses well: scripts, CSS, SVG,
    /// JSON, XML, `text/*`, web app manifests. Fonts are excluded (WOFF and WOFF2
    /// are compressed formats), as are images other than SVG.
    pub fn is_text(&self) -> bool {
        self.content_type.as_deref().is_some_and(is_text_type)
    }

    /// The cache lifetime the headers give (Lighthouse's reading: `max-age`
    /// first, else `Expires`; an `Expires` that does not parse counts as
    /// already expired). `Expires` is measured from the response's `Date`, the
    /// server's own clock, so the verdict does not depend on when rules run (the
    /// engine records the time of the fetch as `date` when the server sent
    /// none); without any `date` an `Expires` cannot be measured and counts as
    /// no policy.
    pub fn cache_lifetime(&self) -> CacheLifetime {
        let cc = self
            .cache_control
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();
        let directives: Vec<(&str, Option<&str>)> = cc
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| match d.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim().trim_matches('"'))),
                None => (d, None),
            })
            .collect();
        let has = |name: &str| directives.iter().any(|(k, _)| *k == name);
        if self.cache_control.is_none()
            && self
                .pragma
                .as_deref()
                .is_some_and(|p| p.to_ascii_lowercase().contains("no-cache"))
        {
            return CacheLifetime::Disabled;
        }
        if has("no-cache") || has("no-store") || has("must-revalidate") || has("private") {
            return CacheLifetime::Disabled;
        }
        if let Some((_, v)) = directives.iter().find(|(k, _)| *k == "max-age") {
            return CacheLifetime::Seconds(v.and_then(|v| v.parse::<i64>().ok()).unwrap_or(0));
        }
        if let Some(expires) = &self.expires {
            let parse = |s: &str| crate::support::http_date(s);
            return match (parse(expires), self.date.as_deref().and_then(parse)) {
                (Some(e), Some(d)) => CacheLifetime::Seconds((e - d).num_seconds()),
                (Some(_), None) => CacheLifetime::Unspecified,
                (None, _) => CacheLifetime::Seconds(0),
            };
        }
        CacheLifetime::Unspecified
    }
}

/// Whether a media type is compressible text (see [`ResourceFacts::is_text`]).
pub fn is_text_type(media_type: &str) -> bool {
    let t = media_type.trim().to_ascii_lowercase();
    if t.starts_with("font/") || t.contains("font") {
        return false;
    }
    t.starts_with("text/")
        || t.ends_with("+json")
        || t.ends_with("+xml")
        || matches!(
            t.as_str(),
            "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/json"
                | "application/xml"
                | "application/wasm"
        )
}

/// Formats a byte count for messages: `1,234,567 bytes`.
pub fn bytes(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The element of the page that loads `url` (`src` or `href` resolving to it),
/// for a finding's selector and snippet; `None` for resources the markup does
/// not name (fonts from stylesheets).
pub fn element_for<'a>(
    cx: &'a crate::PageContext<'_>,
    url: &str,
) -> Option<scraper::ElementRef<'a>> {
    let base = crate::support::base_url(cx);
    cx.root()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
        .find(|el| {
            let v = el.value();
            let attr = match v.name() {
                "link" => v.attr("href"),
                "img" | "script" | "video" | "audio" | "source" | "track" => v.attr("src"),
                _ => None,
            };
            attr.and_then(|h| crate::links::resolve(&base, h))
                .is_some_and(|u| u.as_str() == url)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(cc: Option<&str>, expires: Option<&str>, date: Option<&str>) -> ResourceFacts {
        ResourceFacts {
            status: 200,
            cache_control: cc.map(str::to_string),
            expires: expires.map(str::to_string),
            date: date.map(str::to_string),
            ..ResourceFacts::default()
        }
    }

    #[test]
    fn cache_lifetimes() {
        assert_eq!(
            facts(Some("public, max-age=31536000, immutable"), None, None).cache_lifetime(),
            CacheLifetime::Seconds(31_536_000)
        );
        assert_eq!(
            facts(Some("no-cache"), None, None).cache_lifetime(),
            CacheLifetime::Disabled
        );
        assert_eq!(
            facts(Some("max-age=600, must-revalidate"), None, None).cache_lifetime(),
            CacheLifetime::Disabled
        );
        assert_eq!(
            facts(None, None, None).cache_lifetime(),
            CacheLifetime::Unspecified
        );
        assert_eq!(
            facts(
                None,
                Some("Thu, 01 Jan 2026 01:00:00 GMT"),
                Some("Thu, 01 Jan 2026 00:00:00 GMT")
            )
            .cache_lifetime(),
            CacheLifetime::Seconds(3600)
        );
        assert_eq!(
            facts(None, Some("0"), Some("Thu, 01 Jan 2026 00:00:00 GMT")).cache_lifetime(),
            CacheLifetime::Seconds(0)
        );
        let pragma = ResourceFacts {
            pragma: Some("no-cache".into()),
            ..facts(None, None, None)
        };
        assert_eq!(pragma.cache_lifetime(), CacheLifetime::Disabled);
    }

    #[test]
    fn text_types_and_byte_formatting() {
        for t in [
            "text/css",
            "text/javascript",
            "application/javascript",
            "image/svg+xml",
            "application/json",
            "application/manifest+json",
        ] {
            assert!(is_text_type(t), "{t}");
        }
        for t in [
            "font/woff2",
            "image/png",
            "application/font-woff",
            "video/mp4",
        ] {
            assert!(!is_text_type(t), "{t}");
        }
        assert_eq!(bytes(0), "0");
        assert_eq!(bytes(999), "999");
        assert_eq!(bytes(1_400), "1,400");
        assert_eq!(bytes(2_731_008), "2,731,008");
    }
}
