//! Sitemaps: `<urlset>` and `<sitemapindex>` XML (quick-xml), plain or gzip
//! (flate2, detected by its magic bytes, so a `.gz` served as `text/xml` works).

use std::io::Read;

use quick_xml::events::Event;
use quick_xml::Reader;

/// Largest decompressed sitemap read (the sitemaps.org limit is 50 MB); reading
/// stops one byte past it, so a file over the limit is known to be.
pub const MAX_SITEMAP_BYTES: u64 = sitescan_rules::site::facts::SITEMAP_MAX_BYTES;
/// Most `<loc>` entries kept from one sitemap (the sitemaps.org limit); more are
/// counted, not kept.
pub const MAX_SITEMAP_URLS: usize = sitescan_rules::site::facts::SITEMAP_MAX_URLS as usize;

/// What one sitemap file holds, and what is wrong with it. Parsing never fails:
/// a broken file is a fact the `sitemap-valid` rule reports, with the entries read
/// before the error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// Page URLs (`<urlset><url><loc>`, or the lines of a text sitemap).
    pub urls: Vec<String>,
    /// Child sitemaps (`<sitemapindex><sitemap><loc>`).
    pub sitemaps: Vec<String>,
    /// `urlset`, `sitemapindex` or `text`, when recognised.
    pub kind: Option<&'static str>,
    /// Every `<loc>` (or line) seen, also past [`MAX_SITEMAP_URLS`].
    pub loc_count: u64,
    /// Size after decompression, bytes (at most [`MAX_SITEMAP_BYTES`] + 1).
    pub bytes: u64,
    /// Why the file is not a valid sitemap, when it is not.
    pub error: Option<String>,
}

/// Parses a sitemap body: gzip or plain; XML `<urlset>` / `<sitemapindex>`, or a
/// text file of absolute URLs, one per line.
pub fn parse(body: &[u8]) -> Sitemap {
    let mut out = Sitemap::default();
    let unpacked: Vec<u8>;
    let body = if body.starts_with(&[0x1f, 0x8b]) {
        let mut buf = Vec::new();
        if let Err(e) = flate2::read::GzDecoder::new(body)
            .take(MAX_SITEMAP_BYTES + 1)
            .read_to_end(&mut buf)
        {
            out.error = Some(format!("the gzip stream is broken ({e})"));
            return out;
        }
        unpacked = buf;
        unpacked.as_slice()
    } else {
        body
    };
    out.bytes = body.len() as u64;
    let body = body
        .strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(body);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        None => {
            out.error = Some("the file is empty".into());
            return out;
        }
        Some(b'<') => {}
        Some(_) => {
            parse_text(body, &mut out);
            return out;
        }
    }
    let mut reader = Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut parent: Option<Vec<u8>> = None;
    let mut in_loc = false;
    let mut text = String::new();
    let mut depth = 0usize;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                if depth == 0 {
                    match name.as_slice() {
                        b"urlset" => out.kind = Some("urlset"),
                        b"sitemapindex" => out.kind = Some("sitemapindex"),
                        other => {
                            out.error = Some(format!(
                                "the root element is <{}>, not <urlset> or <sitemapindex>",
                                String::from_utf8_lossy(other)
                            ));
                            return out;
                        }
                    }
                }
                depth += 1;
                match name.as_slice() {
                    b"url" | b"sitemap" => parent = Some(name),
                    b"loc" => {
                        in_loc = true;
                        text.clear();
                    }
                    _ => {}
                }
            }
            Ok(Event::Empty(e)) if depth == 0 => {
                out.error = Some(format!(
                    "the root element is <{}/>, not <urlset> or <sitemapindex>",
                    String::from_utf8_lossy(e.local_name().as_ref())
                ));
                return out;
            }
            Ok(Event::Text(t)) if in_loc => match t.unescape() {
                Ok(s) => text.push_str(&s),
                Err(e) => {
                    out.error = Some(format!(
                        "XML error at byte {}: {e}",
                        reader.buffer_position()
                    ));
                    return out;
                }
            },
            Ok(Event::CData(t)) if in_loc => {
                text.push_str(&String::from_utf8_lossy(&t));
            }
            Ok(Event::End(e)) => {
                depth = depth.saturating_sub(1);
                let name = e.local_name().as_ref().to_ascii_lowercase();
                if name == b"loc" && in_loc {
                    in_loc = false;
                    let loc = text.trim().to_string();
                    if !loc.is_empty() {
                        out.loc_count += 1;
                        let list = match parent.as_deref() {
                            Some(b"sitemap") => &mut out.sitemaps,
                            _ => &mut out.urls,
                        };
                        if list.len() < MAX_SITEMAP_URLS {
                            list.push(loc);
                        }
                    }
                } else if matches!(name.as_slice(), b"url" | b"sitemap") {
                    parent = None;
                }
            }
            Ok(Event::Eof) => {
                if depth > 0 {
                    out.error = Some("the XML ends before its elements are closed".into());
                } else if out.kind.is_none() {
                    out.error = Some("no <urlset> or <sitemapindex> element".into());
                }
                break;
            }
            Ok(_) => {}
            Err(e) => {
                out.error = Some(format!(
                    "XML error at byte {}: {e}",
                    reader.buffer_position()
                ));
                break;
            }
        }
        buf.clear();
    }
    out
}

/// A text sitemap: one absolute http(s) URL per line; any other line makes the
/// file invalid (reported with its line number).
fn parse_text(body: &[u8], out: &mut Sitemap) {
    let text = String::from_utf8_lossy(body);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() {
            continue;
        }
        match url::Url::parse(line) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {
                out.loc_count += 1;
                if out.urls.len() < MAX_SITEMAP_URLS {
                    out.urls.push(line.to_string());
                }
            }
            _ => {
                out.error = Some(format!(
                    "line {} is neither XML nor an absolute URL (a text sitemap lists one URL per line)",
                    i + 1
                ));
                return;
            }
        }
    }
    out.kind = Some("text");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn urlset_index_and_gzip() {
        let set = br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc> https://e.com/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>"#;
        let got = parse(set);
        assert_eq!(got.urls, vec!["https://e.com/a?x=1&y=2", "https://e.com/b"]);
        assert_eq!(
            (got.kind, got.loc_count, got.error),
            (Some("urlset"), 2, None)
        );
        let index = br#"<sitemapindex><sitemap><loc>https://e.com/s1.xml.gz</loc></sitemap></sitemapindex>"#;
        let got = parse(index);
        assert_eq!(got.sitemaps, vec!["https://e.com/s1.xml.gz"]);
        assert_eq!(got.kind, Some("sitemapindex"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(set).unwrap();
        let got = parse(&gz.finish().unwrap());
        assert_eq!((got.urls.len(), got.bytes), (2, set.len() as u64));
    }

    #[test]
    fn broken_files_are_facts() {
        let unclosed = parse(b"<urlset><url><loc>https://e.com/x</loc></url>");
        assert_eq!(unclosed.urls, vec!["https://e.com/x"]);
        assert_eq!(
            unclosed.error.as_deref(),
            Some("the XML ends before its elements are closed")
        );
        let mismatched = parse(b"<urlset><url><loc>x</url></urlset>");
        assert!(mismatched.error.unwrap().starts_with("XML error at byte"));
        assert_eq!(
            parse(b"<!DOCTYPE html><html><body>Not found</body></html>")
                .error
                .as_deref(),
            Some("the root element is <html>, not <urlset> or <sitemapindex>")
        );
        assert_eq!(
            parse(&[0x1f, 0x8b, 0, 1])
                .error
                .as_deref()
                .map(|e| e.starts_with("the gzip stream is broken")),
            Some(true)
        );
        assert_eq!(parse(b"  \n").error.as_deref(), Some("the file is empty"));
    }

    #[test]
    fn text_sitemaps_and_counts() {
        let got = parse(b"https://e.com/a\n\nhttps://e.com/b\n");
        assert_eq!(
            (got.kind, got.urls.len(), got.error),
            (Some("text"), 2, None)
        );
        let bad = parse(b"https://e.com/a\nhello\n");
        assert_eq!(
            bad.error.as_deref(),
            Some(
                "line 2 is neither XML nor an absolute URL (a text sitemap lists one URL per line)"
            )
        );
        let mut big = String::from("<urlset>");
        for i in 0..(MAX_SITEMAP_URLS + 2) {
            big.push_str(&format!("<url><loc>https://e.com/{i}</loc></url>"));
        }
        big.push_str("</urlset>");
        let got = parse(big.as_bytes());
        assert_eq!(
            (got.urls.len(), got.loc_count),
            (MAX_SITEMAP_URLS, MAX_SITEMAP_URLS as u64 + 2)
        );
    }
}
