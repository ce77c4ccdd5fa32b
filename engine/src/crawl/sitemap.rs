//! Sitemaps: `<urlset>` and `<sitemapindex>` XML (quick-xml), plain or gzip
//! (flate2, detected by its magic bytes, so a `.gz` served as `text/xml` works).
//!
//! Parsing streams: a gzip file is inflated as the XML reader asks for bytes
//! (never more than [`MAX_SITEMAP_BYTES`] + 1, however small the file), and
//! entries are handed one by one to the caller ([`parse_each`]), who keeps what
//! it can use and counts the rest. Nothing here grows with the number of
//! entries. A plain file is read in place: its events borrow the body, so a
//! body that is one 50 MB text node is held once, not copied into the reader's
//! buffer (and a `<loc>` text is only unescaped when it could fit).

use std::io::{BufRead, BufReader, Read};

use quick_xml::events::Event;
use quick_xml::Reader;

/// Largest decompressed sitemap read (the sitemaps.org limit is 50 MB); reading
/// stops one byte past it, so a file over the limit is known to be.
pub const MAX_SITEMAP_BYTES: u64 = sitescan_rules::site::facts::SITEMAP_MAX_BYTES;
/// Most `<loc>` entries [`parse`] keeps from one sitemap (the sitemaps.org
/// limit); more are counted, not kept.
pub const MAX_SITEMAP_URLS: usize = sitescan_rules::site::facts::SITEMAP_MAX_URLS as usize;
/// Longest `<loc>` handed out, bytes (sitemaps.org: under 2,048 characters);
/// a longer one is counted, not kept, so one entry cannot hold the file.
pub const MAX_LOC_BYTES: usize = 8 * 1024;
/// Longest raw `<loc>` text unescaped: entities shrink text, so a raw text a
/// little over [`MAX_LOC_BYTES`] may still fit, but not one this long (only
/// padded numeric references, `&#0000…65;`, could), and unescaping a huge one
/// would copy it.
const MAX_RAW_LOC_BYTES: usize = 64 * MAX_LOC_BYTES;

/// What one sitemap file holds, and what is wrong with it. Parsing never fails:
/// a broken file is a fact the `sitemap-valid` rule reports, with the entries read
/// before the error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sitemap {
    /// Page URLs (`<urlset><url><loc>`, or the lines of a text sitemap); only
    /// [`parse`] fills it.
    pub urls: Vec<String>,
    /// Child sitemaps (`<sitemapindex><sitemap><loc>`); only [`parse`] fills it.
    pub sitemaps: Vec<String>,
    /// `urlset`, `sitemapindex` or `text`, when recognised.
    pub kind: Option<&'static str>,
    /// Every `<loc>` (or line) seen, also those not kept.
    pub loc_count: u64,
    /// Size after decompression, bytes (at most [`MAX_SITEMAP_BYTES`] + 1).
    pub bytes: u64,
    /// Why the file is not a valid sitemap, when it is not.
    pub error: Option<String>,
}

/// One entry of a sitemap, as the parser meets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    /// A page URL (`<url><loc>`, or a line of a text sitemap), trimmed.
    Page(&'a str),
    /// A child sitemap of an index (`<sitemap><loc>`), trimmed.
    Child(&'a str),
}

impl Entry<'_> {
    /// The entry's URL, copied.
    pub fn to_owned_loc(&self) -> String {
        match self {
            Entry::Page(u) | Entry::Child(u) => (*u).to_string(),
        }
    }
}

/// Parses a sitemap body and keeps up to [`MAX_SITEMAP_URLS`] page URLs and as
/// many child sitemaps (the rest are counted in `loc_count`).
pub fn parse(body: &[u8]) -> Sitemap {
    let (mut urls, mut sitemaps) = (Vec::new(), Vec::new());
    let mut out = parse_each(body, &mut |entry| match entry {
        Entry::Page(u) if urls.len() < MAX_SITEMAP_URLS => urls.push(u.to_string()),
        Entry::Child(u) if sitemaps.len() < MAX_SITEMAP_URLS => sitemaps.push(u.to_string()),
        _ => {}
    });
    out.urls = urls;
    out.sitemaps = sitemaps;
    out
}

/// A reader that counts the bytes it gives and remembers the error it met
/// (a broken gzip stream shows up as a read error inside the XML reader).
struct Counted<R> {
    inner: R,
    count: u64,
    broken: Option<String>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.count += n as u64;
                Ok(n)
            }
            Err(e) => {
                self.broken = Some(e.to_string());
                Err(e)
            }
        }
    }
}

type Source<'a> = BufReader<Counted<Box<dyn Read + 'a>>>;

/// Parses a sitemap body — gzip or plain; XML `<urlset>` / `<sitemapindex>`, or
/// a text file of absolute URLs, one per line — handing each entry to
/// `on_entry` as it is read. The returned [`Sitemap`] has empty `urls` and
/// `sitemaps`: the caller keeps what it wants.
pub fn parse_each(body: &[u8], on_entry: &mut dyn FnMut(Entry<'_>)) -> Sitemap {
    let mut out = Sitemap::default();
    let gzip = body.starts_with(&[0x1f, 0x8b]);
    if !gzip {
        // XML in plain bytes is parsed where it lies (see the module doc); the
        // offsets in XML errors count from the first `<`, as when streamed.
        let start = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
        let start = start.trim_ascii_start();
        if start.first() == Some(&b'<') {
            let mut reader = Reader::from_reader(start);
            parse_xml(&mut reader, &mut out, on_entry);
            out.bytes = body.len() as u64;
            return out;
        }
    }
    let inner: Box<dyn Read + '_> = if gzip {
        Box::new(flate2::read::GzDecoder::new(body).take(MAX_SITEMAP_BYTES + 1))
    } else {
        Box::new(body)
    };
    let mut source: Source<'_> = BufReader::with_capacity(
        64 * 1024,
        Counted {
            inner,
            count: 0,
            broken: None,
        },
    );
    let first = match skip_blank(&mut source) {
        Ok(b) => b,
        Err(e) => {
            out.error = Some(broken(&source, &e.to_string()));
            return out;
        }
    };
    match first {
        None => out.error = Some("the file is empty".into()),
        Some(b'<') => {
            let mut reader = Reader::from_reader(source);
            parse_xml(&mut reader, &mut out, on_entry);
            let source = reader.into_inner();
            out.bytes = finish(source, &mut out);
        }
        Some(_) => {
            parse_text(&mut source, &mut out, on_entry);
            out.bytes = finish(source, &mut out);
        }
    }
    out
}

/// The message for a read error: the gzip stream's own when it broke.
fn broken(source: &Source<'_>, other: &str) -> String {
    match &source.get_ref().broken {
        Some(e) => format!("the gzip stream is broken ({e})"),
        None => other.to_string(),
    }
}

/// Reads what is left (bounded by the cap) to learn the file's size.
fn finish(mut source: Source<'_>, out: &mut Sitemap) -> u64 {
    if let Err(e) = std::io::copy(&mut source, &mut std::io::sink()) {
        if out.error.is_none() {
            out.error = Some(broken(&source, &e.to_string()));
        }
    }
    source.get_ref().count
}

/// Skips a BOM and whitespace; returns the first other byte, unread.
fn skip_blank(source: &mut Source<'_>) -> std::io::Result<Option<u8>> {
    let mut at_start = true;
    loop {
        let buf = source.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if at_start && buf.starts_with(b"\xef\xbb\xbf") {
            source.consume(3);
            at_start = false;
            continue;
        }
        at_start = false;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                source.consume(i);
                return Ok(Some(b));
            }
            None => {
                let n = buf.len();
                source.consume(n);
            }
        }
    }
}

/// Where [`parse_xml`] reads its events from: a plain body in place, or the
/// (inflated) stream through a buffer.
trait XmlEvents {
    /// The next event; it may borrow `buf` or the body.
    fn next_event<'b>(&'b mut self, buf: &'b mut Vec<u8>) -> quick_xml::Result<Event<'b>>;
    /// The `error` of a file that broke at the current position.
    fn error_here(&self, e: &str) -> String;
}

impl XmlEvents for Reader<&[u8]> {
    fn next_event<'b>(&'b mut self, _buf: &'b mut Vec<u8>) -> quick_xml::Result<Event<'b>> {
        self.read_event()
    }

    fn error_here(&self, e: &str) -> String {
        format!("XML error at byte {}: {e}", self.buffer_position())
    }
}

impl XmlEvents for Reader<Source<'_>> {
    fn next_event<'b>(&'b mut self, buf: &'b mut Vec<u8>) -> quick_xml::Result<Event<'b>> {
        self.read_event_into(buf)
    }

    fn error_here(&self, e: &str) -> String {
        match &self.get_ref().get_ref().broken {
            Some(g) => format!("the gzip stream is broken ({g})"),
            None => format!("XML error at byte {}: {e}", self.buffer_position()),
        }
    }
}

fn parse_xml<R>(reader: &mut Reader<R>, out: &mut Sitemap, on_entry: &mut dyn FnMut(Entry<'_>))
where
    Reader<R>: XmlEvents,
{
    reader.config_mut().trim_text(true);
    let mut buf = Vec::new();
    let mut child = false;
    let mut in_loc = false;
    let mut text = String::new();
    let mut overlong = false;
    let mut depth = 0usize;
    loop {
        // An error is noted inside the match (the event borrows the reader)
        // and turned into the file's `error` after it.
        let mut failed: Option<String> = None;
        match reader.next_event(&mut buf) {
            Ok(Event::Start(e)) => {
                // Compared without lowercasing a copy: three tags per entry,
                // millions of entries.
                let local = e.local_name();
                let name = local.as_ref();
                let is = |tag: &[u8]| name.eq_ignore_ascii_case(tag);
                if depth == 0 {
                    if is(b"urlset") {
                        out.kind = Some("urlset");
                    } else if is(b"sitemapindex") {
                        out.kind = Some("sitemapindex");
                    } else {
                        out.error = Some(format!(
                            "the root element is <{}>, not <urlset> or <sitemapindex>",
                            String::from_utf8_lossy(&name.to_ascii_lowercase())
                        ));
                        return;
                    }
                }
                depth += 1;
                if is(b"url") {
                    child = false;
                } else if is(b"sitemap") {
                    child = true;
                } else if is(b"loc") {
                    in_loc = true;
                    overlong = false;
                    text.clear();
                }
            }
            Ok(Event::Empty(e)) if depth == 0 => {
                out.error = Some(format!(
                    "the root element is <{}/>, not <urlset> or <sitemapindex>",
                    String::from_utf8_lossy(e.local_name().as_ref())
                ));
                return;
            }
            Ok(Event::Text(t)) if in_loc => {
                if t.len() > MAX_RAW_LOC_BYTES || overlong {
                    overlong = true;
                } else {
                    match t.unescape() {
                        Ok(s) => push_capped(&mut text, &s, &mut overlong),
                        Err(e) => failed = Some(e.to_string()),
                    }
                }
            }
            Ok(Event::CData(t)) if in_loc => {
                if t.len() > MAX_LOC_BYTES || overlong {
                    overlong = true;
                } else {
                    push_capped(&mut text, &String::from_utf8_lossy(&t), &mut overlong);
                }
            }
            Ok(Event::End(e)) => {
                depth = depth.saturating_sub(1);
                let local = e.local_name();
                let name = local.as_ref();
                if name.eq_ignore_ascii_case(b"loc") && in_loc {
                    in_loc = false;
                    let loc = text.trim();
                    if !loc.is_empty() || overlong {
                        out.loc_count += 1;
                    }
                    if !loc.is_empty() && !overlong {
                        on_entry(if child {
                            Entry::Child(loc)
                        } else {
                            Entry::Page(loc)
                        });
                    }
                } else if name.eq_ignore_ascii_case(b"url") || name.eq_ignore_ascii_case(b"sitemap")
                {
                    child = false;
                }
            }
            Ok(Event::Eof) => {
                if depth > 0 {
                    out.error = Some("the XML ends before its elements are closed".into());
                } else if out.kind.is_none() {
                    out.error = Some("no <urlset> or <sitemapindex> element".into());
                }
                return;
            }
            Ok(_) => {}
            Err(e) => failed = Some(e.to_string()),
        }
        if let Some(e) = failed {
            out.error = Some(reader.error_here(&e));
            return;
        }
        buf.clear();
    }
}

/// Appends to a `<loc>` text unless it would pass [`MAX_LOC_BYTES`].
fn push_capped(text: &mut String, more: &str, overlong: &mut bool) {
    if text.len() + more.len() > MAX_LOC_BYTES {
        *overlong = true;
    } else if !*overlong {
        text.push_str(more);
    }
}

/// Reads one line into `raw` (cleared first), keeping at most
/// [`MAX_LOC_BYTES`] of it and skipping the rest; `None` at the end of the
/// file, else whether the line was longer than kept.
fn read_line_capped(source: &mut Source<'_>, raw: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    raw.clear();
    let (mut any, mut overlong) = (false, false);
    loop {
        let buf = source.fill_buf()?;
        if buf.is_empty() {
            return Ok(any.then_some(overlong));
        }
        any = true;
        let newline = buf.iter().position(|b| *b == b'\n');
        let line_part = newline.unwrap_or(buf.len());
        let room = MAX_LOC_BYTES - raw.len();
        if line_part > room {
            overlong = true;
        }
        raw.extend_from_slice(&buf[..line_part.min(room)]);
        let used = newline.map_or(line_part, |i| i + 1);
        source.consume(used);
        if newline.is_some() {
            return Ok(Some(overlong));
        }
    }
}

/// A text sitemap: one absolute http(s) URL per line; any other line makes the
/// file invalid (reported with its line number).
fn parse_text(source: &mut Source<'_>, out: &mut Sitemap, on_entry: &mut dyn FnMut(Entry<'_>)) {
    let mut raw = Vec::new();
    let mut number = 0usize;
    loop {
        let overlong = match read_line_capped(source, &mut raw) {
            Ok(Some(overlong)) => overlong,
            Ok(None) => break,
            Err(e) => {
                out.error = Some(broken(source, &e.to_string()));
                return;
            }
        };
        number += 1;
        let text = String::from_utf8_lossy(&raw);
        let line = text.trim().trim_start_matches('\u{feff}');
        if line.is_empty() && !overlong {
            continue;
        }
        // An overlong line is judged by its first MAX_LOC_BYTES: a URL there
        // is counted (not kept), anything else makes the file invalid.
        match url::Url::parse(line) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {
                out.loc_count += 1;
                if !overlong {
                    on_entry(Entry::Page(line));
                }
            }
            _ => {
                out.error = Some(format!(
                    "line {number} is neither XML nor an absolute URL (a text sitemap lists one URL per line)"
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
    fn huge_text_is_skipped_and_a_huge_loc_counted_plain_or_gzip() {
        // Plain bytes are parsed in place, gzip through the reader's buffer:
        // both read the same file the same way.
        let mut xml =
            b"\xef\xbb\xbf \n<urlset><url><loc>https://e.com/a?x=1&amp;y=2</loc></url>".to_vec();
        xml.extend(std::iter::repeat_n(b'x', 4 << 20));
        xml.extend_from_slice(b"<url><loc>https://e.com/");
        xml.extend(std::iter::repeat_n(b'y', MAX_RAW_LOC_BYTES));
        xml.extend_from_slice(b"&amp;</loc></url><url><loc>https://e.com/b</loc></url></urlset>");
        let plain = parse(&xml);
        assert_eq!(
            plain.urls,
            vec!["https://e.com/a?x=1&y=2", "https://e.com/b"]
        );
        assert_eq!(
            (
                plain.kind,
                plain.loc_count,
                plain.bytes,
                plain.error.clone()
            ),
            (Some("urlset"), 3, xml.len() as u64, None)
        );
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&xml).unwrap();
        assert_eq!(parse(&gz.finish().unwrap()), plain);
        // Errors name the same byte either way (counted from the first `<`).
        let bad = b"  <urlset><url><loc>a &bogus; b</loc></url></urlset>";
        let plain = parse(bad);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(bad).unwrap();
        assert_eq!(parse(&gz.finish().unwrap()).error, plain.error);
        assert!(
            plain
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("XML error at byte ")),
            "{:?}",
            plain.error
        );
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

    #[test]
    fn gzip_sitemaps_inflate_as_parsed_and_stop_at_the_cap() {
        // 1 GiB of zeros in a few MB: read up to the cap and no further.
        let bomb = crate::crawl::fetch::gzip_bomb(1 << 30);
        let got = parse_each(&bomb, &mut |_| panic!("no entries in zeros"));
        assert_eq!(got.bytes, MAX_SITEMAP_BYTES + 1);
        assert_eq!(
            got.error.as_deref(),
            Some(
                "line 1 is neither XML nor an absolute URL (a text sitemap lists one URL per line)"
            )
        );
    }

    #[test]
    fn entries_stream_to_the_caller_who_keeps_what_it_wants() {
        let mut big = String::from("<sitemapindex>");
        for i in 0..3 {
            big.push_str(&format!(
                "<sitemap><loc>https://e.com/s{i}.xml</loc></sitemap>"
            ));
        }
        big.push_str("</sitemapindex>");
        let mut children = Vec::new();
        let got = parse_each(big.as_bytes(), &mut |e| {
            if let Entry::Child(u) = e {
                children.push(u.to_string())
            }
        });
        assert_eq!(children.len(), 3);
        assert_eq!(
            (got.loc_count, got.urls.len(), got.kind),
            (3, 0, Some("sitemapindex"))
        );

        let mut set = String::from("<urlset>");
        for i in 0..10_000 {
            set.push_str(&format!("<url><loc>https://e.com/{i}</loc></url>"));
        }
        set.push_str(&format!(
            "<url><loc>https://e.com/{}</loc></url></urlset>",
            "x".repeat(MAX_LOC_BYTES)
        ));
        let mut kept = Vec::new();
        let mut seen = 0u64;
        let got = parse_each(set.as_bytes(), &mut |e| {
            seen += 1;
            if kept.len() < 5 {
                kept.push(e.to_owned_loc());
            }
        });
        assert_eq!((seen, got.loc_count, kept.len()), (10_000, 10_001, 5));
        assert_eq!(got.bytes, set.len() as u64);
        let text = format!(
            "https://e.com/a\nhttps://e.com/{}\n",
            "y".repeat(2 * MAX_LOC_BYTES)
        );
        let got = parse(text.as_bytes());
        assert_eq!((got.urls.len(), got.loc_count, got.error), (1, 2, None));
    }
}
