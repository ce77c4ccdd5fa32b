//! [`ReportFile`]: a completed scan's JSON report on its way into a store.
//!
//! The worker renders the report from the scan's spool straight into a
//! nameless temporary file, and the store copies it in chunks of at most
//! [`REPORT_CHUNK`] bytes (the embedded store inside its write transaction,
//! Redis with one append per chunk): neither side ever holds the whole report
//! in memory, however many pages the scan had.

use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex};

use crate::error::Result;

/// Reports are stored, and read back, in chunks of at most this many bytes,
/// so a report of thousands of pages is never one giant value in memory, in
/// redb or in Redis.
pub const REPORT_CHUNK: usize = 256 * 1024;

/// A rendered JSON report in a nameless temporary file (gone when the last
/// clone is dropped). Clones share the file: a store write that is retried
/// reads it again.
#[derive(Debug, Clone)]
pub struct ReportFile {
    file: Arc<Mutex<std::fs::File>>,
    len: u64,
}

impl ReportFile {
    /// A new, empty report file in the system's temporary directory; write
    /// the report through [`ReportFile::writer`].
    pub fn new() -> Result<Self> {
        Ok(ReportFile {
            file: Arc::new(Mutex::new(tempfile::tempfile()?)),
            len: 0,
        })
    }

    /// A report file holding `bytes` (tests, small reports).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut report = Self::new()?;
        report.writer().write_all(bytes)?;
        Ok(report)
    }

    /// Appends to the report (buffer it: the writer is the file itself).
    pub fn writer(&mut self) -> impl Write + '_ {
        Appender(self)
    }

    /// The report's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the report is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads chunk number `index` (of [`REPORT_CHUNK`] bytes; the last one
    /// shorter; an empty report is one empty chunk); `None` past the end.
    /// Blocking file I/O: call it from a blocking context.
    pub fn chunk(&self, index: u64) -> Result<Option<Vec<u8>>> {
        let start = index.saturating_mul(REPORT_CHUNK as u64);
        if start >= self.len && index > 0 {
            return Ok(None);
        }
        // At most REPORT_CHUNK, which fits in usize.
        let size = (self.len - start).min(REPORT_CHUNK as u64) as usize;
        let mut chunk = vec![0; size];
        let mut file = self.lock();
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        Ok(Some(chunk))
    }

    /// The number of chunks the report takes (1 for an empty one).
    pub fn chunk_count(&self) -> u64 {
        self.len.div_ceil(REPORT_CHUNK as u64).max(1)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::fs::File> {
        // A panic while the lock was held leaves the file as it was (every
        // read seeks first): go on with it.
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Appends at the file's end and counts the bytes.
struct Appender<'a>(&'a mut ReportFile);

impl Write for Appender<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let start = self.0.len;
        let n = {
            let mut file = self.0.lock();
            file.seek(SeekFrom::Start(start))?;
            file.write(buf)?
        };
        self.0.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_report_exactly() {
        let bytes: Vec<u8> = (0..REPORT_CHUNK * 2 + 5).map(|i| (i % 251) as u8).collect();
        let file = ReportFile::from_bytes(&bytes).unwrap();
        assert_eq!(file.len(), bytes.len() as u64);
        assert_eq!(file.chunk_count(), 3);
        let mut back = Vec::new();
        let mut sizes = Vec::new();
        let mut i = 0;
        while let Some(c) = file.chunk(i).unwrap() {
            sizes.push(c.len());
            back.extend(c);
            i += 1;
        }
        assert_eq!(sizes, [REPORT_CHUNK, REPORT_CHUNK, 5]);
        assert_eq!(back, bytes);
        let empty = ReportFile::from_bytes(b"").unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.chunk_count(), 1);
        assert_eq!(empty.chunk(0).unwrap(), Some(Vec::new()));
        assert_eq!(empty.chunk(1).unwrap(), None);
    }
}
