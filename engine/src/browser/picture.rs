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

/// `Page.captureScreenshot` of `clip` (document coordinates, CSS pixels).
pub(crate) async fn capture(
    conn: &Connection,
    session: &str,
    clip: [f64; 4],
    format: &str,
    quality: Option<u8>,
    scale: f64,
    timeout: Duration,
) -> Result<Vec<u8>, BrowserError> {
    let mut params = json!({
        "format": format,
        "clip": {"x": clip[0], "y": clip[1], "width": clip[2], "height": clip[3], "scale": scale},
        "captureBeyondViewport": true,
        "fromSurface": true,
    });
    if let Some(q) = quality {
        params["quality"] = json!(q);
    }
    let shot = conn
        .call(Some(session), "Page.captureScreenshot", params, timeout)
        .await?;
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
