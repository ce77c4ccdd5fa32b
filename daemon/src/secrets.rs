//! Secrets and their digests, in one place: the random tokens the service
//! hands out (API keys, webhook signing secrets, session ids, CSRF tokens,
//! password links) and the SHA-256 the store keeps instead of them (a leaked
//! database does not sign anyone in). Idempotency keys and the dashboard's
//! asset URLs use the same digest.

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// SHA-256 of `data` as lowercase hex: how every secret is stored and looked
/// up (`Store::key_by_hash`, sessions, password links).
pub fn hash_secret(data: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(data.as_ref()))
}

/// SHA-256 of the concatenation of `parts`, as lowercase hex (a request's
/// fingerprint: method, target and body).
pub fn hash_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(hasher.finalize())
}

/// `n` random bytes from the operating system, hex-encoded (`2 * n`
/// characters).
pub fn random_hex(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::Storage(format!("no randomness: {e}")))?;
    Ok(hex::encode(bytes))
}

/// A new secret `prefix` + `n` random bytes in hex (`key_…`, `whsec_…`).
pub fn new_token(prefix: &str, n: usize) -> Result<String> {
    Ok(format!("{prefix}{}", random_hex(n)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_sha256_hex() {
        assert_eq!(
            hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(hash_secret(b"abc"), hash_secret("abc"));
    }

    #[test]
    fn tokens_are_fresh_and_sized() {
        let a = new_token("key_", 24).expect("randomness");
        let b = new_token("key_", 24).expect("randomness");
        assert_ne!(a, b);
        assert_eq!(a.len(), 4 + 48);
        assert!(a.starts_with("key_"));
    }
}
