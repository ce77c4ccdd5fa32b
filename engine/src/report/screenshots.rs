//! Pictures of a render-mode scan: a clipped screenshot of each failing
//! element (its finding names it in `screenshot`) and a thumbnail of each page
//! (its page entry names it in `thumbnail`). They travel beside the report,
//! never inside its JSON: [`crate::Report::screenshots`] holds the bytes, the
//! JSON only the ids. The browser side is [`crate::browser::screenshot`].

use std::fmt;

use bytes::Bytes;

/// Longest screenshot id, in bytes.
pub const MAX_ID_LEN: usize = 32;

/// Whether `id` has the shape of a screenshot id (`shot-12`, `thumb-3`):
/// ASCII letters, digits and `-`, at most [`MAX_ID_LEN`] bytes. Checked
/// before an id from outside (a URL) is used as a key.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// One picture.
#[derive(Clone, PartialEq, Eq)]
pub struct Screenshot {
    /// Its id in the report ([`valid_id`]).
    pub id: String,
    /// `image/png` (element shots) or `image/jpeg` (thumbnails).
    pub content_type: &'static str,
    /// The encoded image.
    pub bytes: Bytes,
}

impl fmt::Debug for Screenshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Screenshot")
            .field("id", &self.id)
            .field("content_type", &self.content_type)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

impl Screenshot {
    /// The content type of a stored picture's bytes (PNG or JPEG by their
    /// signature), for a store that keeps only the bytes.
    pub fn sniff(bytes: &[u8]) -> &'static str {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            "image/png"
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            "image/jpeg"
        } else {
            "application/octet-stream"
        }
    }

    /// The picture as a `data:` URL, for a self-contained HTML report.
    pub fn data_url(&self) -> String {
        use base64::Engine as _;
        format!(
            "data:{};base64,{}",
            self.content_type,
            base64::engine::general_purpose::STANDARD.encode(&self.bytes)
        )
    }
}

/// A scan's pictures, in the order they were taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Screenshots {
    /// The pictures.
    pub shots: Vec<Screenshot>,
}

impl Screenshots {
    /// The picture with this id.
    pub fn get(&self, id: &str) -> Option<&Screenshot> {
        self.shots.iter().find(|s| s.id == id)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.shots.is_empty()
    }

    /// Bytes of all pictures.
    pub fn bytes(&self) -> u64 {
        self.shots.iter().map(|s| s.bytes.len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_outside_are_checked() {
        assert!(valid_id("shot-12"));
        assert!(valid_id("thumb-3"));
        for bad in ["", "../x", "a b", "x/y", &"a".repeat(MAX_ID_LEN + 1)] {
            assert!(!valid_id(bad), "{bad}");
        }
        assert_eq!(Screenshot::sniff(b"\x89PNG\r\n\x1a\n...."), "image/png");
        assert_eq!(Screenshot::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), "image/jpeg");
        assert_eq!(Screenshot::sniff(b"<html>"), "application/octet-stream");
    }
}
