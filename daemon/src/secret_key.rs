//! The service's secret key: what seals the credentials sites are scanned
//! with (`ops::credentials`) before they reach the store.
//!
//! The key is 32 bytes, given to `serve` and `worker` by
//! `SITESCAN_SECRET_KEY` (64 hex digits, or base64 of 32 bytes) or by
//! `SITESCAN_SECRET_KEY_FILE` (a file holding the same text, or the 32 raw
//! bytes). Sealing is ChaCha20-Poly1305 with a fresh random nonce per write
//! and the site id as associated data: a sealed value copied to another
//! site's record does not open, and neither does one sealed with another key.

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use crate::error::{Error, Result};

/// The variable holding the key as text.
pub const KEY_ENV: &str = "SITESCAN_SECRET_KEY";
/// The variable naming a file holding the key.
pub const KEY_FILE_ENV: &str = "SITESCAN_SECRET_KEY_FILE";
/// Prefix of a sealed value: names the scheme, so a later one can be told apart.
const SEALED_PREFIX: &str = "v1:";
/// Bytes of a ChaCha20-Poly1305 nonce.
const NONCE_LEN: usize = 12;

/// The 32-byte key. `Debug` never shows it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SecretKey([u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey([redacted])")
    }
}

impl SecretKey {
    /// A key of these bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        SecretKey(bytes)
    }

    /// A fresh random key (tests, `openssl rand -hex 32` does the same).
    pub fn generate() -> Result<Self> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes)
            .map_err(|e| Error::Config(format!("no randomness: {e}")))?;
        Ok(SecretKey(bytes))
    }

    /// Parses the key's text form: 64 hex digits, or standard or URL-safe
    /// base64 (padded or not) of exactly 32 bytes. Surrounding white space is
    /// ignored. The error never repeats the text.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            hex::decode(text).ok()
        } else {
            use base64::engine::general_purpose::{
                STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
            };
            [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
                .iter()
                .find_map(|engine| engine.decode(text).ok())
        };
        match bytes.map(<[u8; 32]>::try_from) {
            Some(Ok(key)) => Ok(SecretKey(key)),
            _ => Err(Error::Config(
                "the secret key must be 32 bytes, written as 64 hex digits or in base64 \
                 (make one with `openssl rand -hex 32`)"
                    .to_string(),
            )),
        }
    }

    /// The key of this process's environment: `SITESCAN_SECRET_KEY`, or the
    /// file `SITESCAN_SECRET_KEY_FILE` names (its text form, or exactly 32 raw
    /// bytes). `None` when neither is set; an error when both are, or when
    /// the key is malformed or the file unreadable.
    pub fn from_env() -> Result<Option<Self>> {
        let text = std::env::var_os(KEY_ENV);
        let file = std::env::var_os(KEY_FILE_ENV);
        match (text, file) {
            (Some(_), Some(_)) => Err(Error::Config(format!(
                "both {KEY_ENV} and {KEY_FILE_ENV} are set; set one"
            ))),
            (Some(text), None) => {
                let text = text
                    .to_str()
                    .ok_or_else(|| Error::Config(format!("{KEY_ENV} is not valid UTF-8")))?;
                Self::parse(text)
                    .map(Some)
                    .map_err(|e| Error::Config(format!("{KEY_ENV}: {}", config_message(e))))
            }
            (None, Some(path)) => {
                let bytes = std::fs::read(&path).map_err(|e| {
                    Error::Config(format!(
                        "{KEY_FILE_ENV}: cannot read {}: {e}",
                        std::path::Path::new(&path).display()
                    ))
                })?;
                if let Ok(raw) = <[u8; 32]>::try_from(bytes.as_slice()) {
                    // 32 bytes that are not all text: the raw key itself.
                    if std::str::from_utf8(&raw).is_err() {
                        return Ok(Some(SecretKey(raw)));
                    }
                }
                let text = String::from_utf8(bytes).map_err(|_| {
                    Error::Config(format!(
                        "{KEY_FILE_ENV}: the file holds neither 32 raw bytes nor a hex or base64 key"
                    ))
                })?;
                Self::parse(&text)
                    .map(Some)
                    .map_err(|e| Error::Config(format!("{KEY_FILE_ENV}: {}", config_message(e))))
            }
            (None, None) => Ok(None),
        }
    }

    /// Seals `plaintext` for the record of `site_id`: `v1:` + base64 of a
    /// random nonce followed by the ciphertext and its tag.
    pub fn seal(&self, site_id: &str, plaintext: &[u8]) -> Result<String> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce)
            .map_err(|e| Error::Storage(format!("no randomness: {e}")))?;
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&self.0));
        let sealed = cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad: site_id.as_bytes(),
                },
            )
            .map_err(|_| Error::Storage("the credentials could not be sealed".to_string()))?;
        let mut out = Vec::with_capacity(NONCE_LEN + sealed.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        Ok(format!(
            "{SEALED_PREFIX}{}",
            base64::engine::general_purpose::STANDARD.encode(out)
        ))
    }

    /// Opens what [`SecretKey::seal`] made for `site_id`. Fails with
    /// [`Error::Unsealable`] when the key is not the one it was sealed with,
    /// the value belongs to another site, or it was tampered with (the three
    /// cannot be told apart, by design).
    pub fn open(&self, site_id: &str, sealed: &str) -> Result<Vec<u8>> {
        let bytes = sealed
            .strip_prefix(SEALED_PREFIX)
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .filter(|b| b.len() > NONCE_LEN)
            .ok_or_else(|| {
                Error::Unsealable(format!(
                    "the stored credentials of site `{site_id}` are not a sealed value"
                ))
            })?;
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let cipher = ChaCha20Poly1305::new(Key::from_slice(&self.0));
        cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: site_id.as_bytes(),
                },
            )
            .map_err(|_| {
                Error::Unsealable(format!(
                    "the stored credentials of site `{site_id}` do not open with this secret key \
                     (the key differs from the one they were saved with, or the record was \
                     copied from another site); set the key they were saved with, or save the \
                     credentials again"
                ))
            })
    }
}

fn config_message(e: Error) -> String {
    match e {
        Error::Config(m) => m,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_from_hex_and_base64_only_at_32_bytes() {
        let hex_key = "00".repeat(31) + "ff";
        let key = SecretKey::parse(&hex_key).unwrap();
        let mut expected = [0u8; 32];
        expected[31] = 0xff;
        assert_eq!(key, SecretKey::from_bytes(expected));
        let b64 = base64::engine::general_purpose::STANDARD.encode(expected);
        assert_eq!(SecretKey::parse(&format!(" {b64}\n")).unwrap(), key);
        let short = base64::engine::general_purpose::STANDARD.encode([1u8; 16]);
        for bad in ["", "not a key", &short, &"0".repeat(63)] {
            let err = SecretKey::parse(bad).unwrap_err().to_string();
            assert!(err.contains("32 bytes"), "{err}");
        }
        assert_eq!(format!("{key:?}"), "SecretKey([redacted])");
    }

    #[test]
    fn sealed_values_open_only_with_their_key_and_site() {
        let key = SecretKey::generate().unwrap();
        let a = key.seal("site_a", b"hunter2").unwrap();
        let b = key.seal("site_a", b"hunter2").unwrap();
        assert_ne!(a, b, "a fresh nonce per write");
        assert!(!a.contains("hunter2"));
        assert_eq!(key.open("site_a", &a).unwrap(), b"hunter2");
        let moved = key.open("site_b", &a).unwrap_err();
        assert!(matches!(moved, Error::Unsealable(_)), "{moved}");
        let other = SecretKey::generate().unwrap();
        let wrong = other.open("site_a", &a).unwrap_err().to_string();
        assert!(
            wrong.contains("do not open with this secret key"),
            "{wrong}"
        );
        assert!(matches!(
            key.open("site_a", "v1:AAAA"),
            Err(Error::Unsealable(_))
        ));
        assert!(matches!(
            key.open("site_a", "garbage"),
            Err(Error::Unsealable(_))
        ));
    }
}
