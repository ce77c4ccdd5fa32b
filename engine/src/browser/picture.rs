//! Taking and reading the browser's pictures: `Page.captureScreenshot` of a
//! clip, and decoding its PNG with a cap on the decoded size. Shared by the
//! findings' pictures ([`super::screenshot`]) and the measured text backdrops
//! ([`super::backdrop`]); it names neither, so neither depends on the other.

use std::io::Cursor;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Value};

use super::cdp::Connection;
use super::BrowserError;

/// How long a picture may go unanswered before its tab is brought to the
/// front. With several tabs, `Page.captureScreenshot` in one of them now and
/// then waits for a frame that never comes (until the call's timeout, 15 s
/// and more: seen in about half of the scans of 31 pages with four tabs);
/// bringing its tab to the front makes the frame come. A picture answers
/// in 30 to 300 ms otherwise, so one second only nudges those that hang.
const NUDGE_AFTER: Duration = Duration::from_secs(1);

/// Most times one picture's tab is brought to the front.
const MAX_NUDGES: u32 = 3;

/// Where a picture is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shot {
    /// Anywhere in the document (`captureBeyondViewport`): Chromium paints
    /// the whole document beyond the viewport (the layout, the viewport's
    /// size and the fixed boxes stay as they are), some 0.1 s for a
    /// 20,000-pixel page and over a second for the longest.
    Document,
    /// A clip lying inside the viewport as it is, painted as shown: no
    /// layout of its own.
    Viewport,
}

/// The encoding of a picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// PNG, lossless.
    Png,
    /// JPEG at this quality (0 to 100).
    Jpeg(u8),
}

/// `Page.captureScreenshot` of `clip` (document coordinates, CSS pixels).
pub(crate) async fn capture(
    conn: &Connection,
    session: &str,
    clip: [f64; 4],
    format: Format,
    scale: f64,
    shot: Shot,
    timeout: Duration,
) -> Result<Vec<u8>, BrowserError> {
    let (format, quality) = match format {
        Format::Png => ("png", None),
        Format::Jpeg(q) => ("jpeg", Some(q)),
    };
    let mut params = json!({
        "format": format,
        "clip": {"x": clip[0], "y": clip[1], "width": clip[2], "height": clip[3], "scale": scale},
        "captureBeyondViewport": shot == Shot::Document,
        "fromSurface": true,
    });
    if let Some(q) = quality {
        params["quality"] = json!(q);
    }
    let call = conn.call(Some(session), "Page.captureScreenshot", params, timeout);
    tokio::pin!(call);
    let mut nudges = 0;
    let shot = loop {
        tokio::select! {
            shot = &mut call => break shot?,
            () = tokio::time::sleep(NUDGE_AFTER), if nudges < MAX_NUDGES => {
                // The picture waits for a frame that does not come.
                nudges += 1;
                tracing::debug!(nudges, "screenshot unanswered: tab brought to the front");
                conn.call(Some(session), "Page.bringToFront", json!({}), timeout)
                    .await?;
            }
        }
    };
    let data = shot
        .get("data")
        .and_then(Value::as_str)
        .ok_or_else(|| BrowserError::Protocol("no screenshot data".into()))?;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| BrowserError::Protocol(format!("screenshot data: {e}")))
}

/// Decodes one of the browser's PNG pictures to 8-bit samples, at most
/// `max_bytes` of them; `None` when it cannot be read.
pub(crate) fn decode(png: &[u8], max_bytes: usize) -> Option<(Vec<u8>, png::OutputInfo)> {
    let mut decoder =
        png::Decoder::new_with_limits(Cursor::new(png), png::Limits { bytes: max_bytes });
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut pixels).ok()?;
    pixels.truncate(info.buffer_size());
    Some((pixels, info))
}
