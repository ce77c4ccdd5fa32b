//! Sitemaps: `<urlset>` and `<sitemapindex>` XML (quick-xml), plain or gzip
//! (flate2, detected by its magic bytes, so a `.gz` served as `text/xml` works).

use std::io::Read;

use quick_xml::events::Event;
use quick_xml::Reader;

/// Largest decompressed sitemap read (the sitemaps.org limit is 50 MB).
pub const MAX_SITEMAP_BYTES: u64 = 50 * 1024 * 1024;
/// Most `<loc>` entries kept from one sitemap (the sitemaps.org limit).
pub const MAX_SITEMAP_URLS: usize = 50_000;

/// The `<loc>` entries of one sitemap file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// Page URLs (`<urlset><url><loc>`).
    pub urls: Vec<String>,
    /// Child sitemaps (`<sitemapindex><sitemap><loc>`).
    pub sitemaps: Vec<String>,
}

/// A sitemap that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapError(pub String);

impl std::fmt::Display for SitemapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unreadable sitemap: {}", self.0)
    }
}

/// Parses a sitemap body (gzip or plain XML).
pub fn parse(body: &[u8]) -> Result<Sitemap, SitemapError> {
    let xml: Vec<u8>;
    let body = if body.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(body)
            .take(MAX_SITEMAP_BYTES)
            .read_to_end(&mut out)
            .map_err(|e| SitemapError(format!("gzip: {e}")))?;
        xml = out;
        xml.as_slice()
    } else {
        body
    };
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut out = Sitemap::default();
    let mut parent: Option<Vec<u8>> = None;
    let mut in_loc = false;
    let mut text = String::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                match name.as_slice() {
                    b"url" | b"sitemap" => parent = Some(name),
                    b"loc" => {
                        in_loc = true;
                        text.clear();
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_loc => {
                let s = t
                    .unescape()
                    .map_err(|e| SitemapError(format!("xml: {e}")))?;
                text.push_str(&s);
            }
            Ok(Event::CData(t)) if in_loc => {
                text.push_str(&String::from_utf8_lossy(&t));
            }
            Ok(Event::End(e)) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                if name == b"loc" && in_loc {
                    in_loc = false;
                    let loc = text.trim().to_string();
                    let list = match parent.as_deref() {
                        Some(b"sitemap") => &mut out.sitemaps,
                        _ => &mut out.urls,
                    };
                    if !loc.is_empty() && list.len() < MAX_SITEMAP_URLS {
                        list.push(loc);
                    }
                } else if matches!(name.as_slice(), b"url" | b"sitemap") {
                    parent = None;
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => {
                return Err(SitemapError(format!(
                    "xml at byte {}: {e}",
                    reader.buffer_position()
                )))
            }
        }
        buf.clear();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn urlset_index_and_gzip() {
        let set = br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc> https://e.com/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>"#;
        let got = parse(set).unwrap();
        assert_eq!(got.urls, vec!["https://e.com/a?x=1&y=2", "https://e.com/b"]);
        let index = br#"<sitemapindex><sitemap><loc>https://e.com/s1.xml.gz</loc></sitemap></sitemapindex>"#;
        assert_eq!(
            parse(index).unwrap().sitemaps,
            vec!["https://e.com/s1.xml.gz"]
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(set).unwrap();
        assert_eq!(parse(&gz.finish().unwrap()).unwrap().urls.len(), 2);
        // Malformed XML is an error or a partial result, never a panic.
        let _ = parse(b"<urlset><url><loc>x</url>");
        assert!(parse(&[0x1f, 0x8b, 0, 1]).is_err());
    }
}
