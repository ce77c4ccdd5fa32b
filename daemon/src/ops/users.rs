//! Dashboard users: e-mail addresses, the password policy, argon2id hashes,
//! creating users, password-setting links, setting a password with one, and
//! signing in. Sessions, cookies and CSRF tokens are the dashboard's own
//! (`dashboard::auth`); this is what `sitescan admin user` and the
//! dashboard's sign-in and set-password forms share.
//!
//! Passwords are hashed with argon2id (the `argon2` crate's default
//! parameters, a fresh 16-byte salt each), off the async runtime. A sign-in
//! for an unknown e-mail verifies against a fixed dummy hash, so it takes as
//! long as a wrong password: timing does not tell which e-mails exist.

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use chrono::{DateTime, Utc};

use crate::error::{Error, Result};
use crate::secrets::{hash_secret, random_hex};
use crate::store::{new_id, PasswordToken, Store, User};

/// Lifetime of a password-setting link.
pub const PASSWORD_LINK_HOURS: i64 = 24;
/// Shortest password accepted, in characters.
pub const MIN_PASSWORD: usize = 12;
/// Longest password accepted, in characters (argon2 hashes anything, but a
/// megabyte "password" is an attack, not a password).
pub const MAX_PASSWORD: usize = 1024;
/// The argon2id PHC hash of `password` (blocking: call off the runtime).
pub fn hash_password(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    getrandom::getrandom(&mut salt).map_err(|e| Error::Storage(e.to_string()))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| Error::Storage(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Storage(format!("hashing the password failed: {e}")))
}

/// Whether `password` matches the PHC `hash` (blocking).
pub fn verify_password(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Verified against when the e-mail is unknown or has no password yet.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    hash_password("sitescan dummy password for unknown users").unwrap_or_default()
});

/// Checks a password-policy: [`MIN_PASSWORD`] to [`MAX_PASSWORD`] characters.
pub fn check_password_policy(password: &str) -> std::result::Result<(), String> {
    let n = password.chars().count();
    if n < MIN_PASSWORD {
        return Err(format!(
            "Use at least {MIN_PASSWORD} characters (a few unrelated words work well)."
        ));
    }
    if n > MAX_PASSWORD {
        return Err(format!("Use at most {MAX_PASSWORD} characters."));
    }
    Ok(())
}

/// A plausible e-mail address, lowercased: one `@`, a local part, a domain
/// with a dot, no spaces, at most 254 characters. Hand-written because only
/// the shape matters here (the address is a sign-in name; nothing is mailed).
pub fn normalize_email(raw: &str) -> std::result::Result<String, String> {
    let email = raw.trim().to_lowercase();
    let ok = email.len() <= 254
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && matches!(email.split_once('@'), Some((local, domain))
            if !local.is_empty() && domain.contains('.') && !domain.contains('@')
                && !domain.starts_with('.') && !domain.ends_with('.'));
    if ok {
        Ok(email)
    } else {
        Err(format!("`{}` is not an e-mail address", raw.trim()))
    }
}

/// Creates a user of `account_id` without a password (the admin CLI).
pub async fn create_user(
    store: &dyn Store,
    account_id: &str,
    email: &str,
    now: DateTime<Utc>,
) -> Result<User> {
    let email = normalize_email(email).map_err(|problem| Error::invalid("email", problem))?;
    if store.account(account_id).await?.is_none() {
        return Err(Error::not_found("account", account_id));
    }
    store
        .create_user(User {
            id: new_id("usr")?,
            account_id: account_id.to_string(),
            email,
            password_hash: None,
            created_at: now,
            password_set_at: None,
        })
        .await
}

/// Makes a one-time password-setting link for `user_id` under `base_url`
/// (the dashboard's address, e.g. `http://127.0.0.1:8080`).
pub async fn issue_password_link(
    store: &dyn Store,
    user_id: &str,
    base_url: &url::Url,
    now: DateTime<Utc>,
) -> Result<String> {
    let token = random_hex(32)?;
    store
        .create_password_token(
            &hash_secret(&token),
            PasswordToken {
                user_id: user_id.to_string(),
                created_at: now,
                expires_at: now + chrono::Duration::hours(PASSWORD_LINK_HOURS),
            },
        )
        .await?;
    let mut link = base_url
        .join("/set-password")
        .map_err(|e| Error::Config(format!("invalid base URL: {e}")))?;
    link.set_query(Some(&format!("token={token}")));
    Ok(link.to_string())
}

/// The user `email` names when `password` is theirs; `None` for an unknown
/// e-mail, a user without a password yet, or a wrong password (all three
/// take as long: see the module docs).
pub async fn sign_in(store: &dyn Store, email: &str, password: String) -> Result<Option<User>> {
    let user = store.user_by_email(email).await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    let matches = tokio::task::spawn_blocking(move || {
        let hash = hash.unwrap_or_else(|| DUMMY_HASH.clone());
        verify_password(&hash, &password)
    })
    .await
    .map_err(|e| Error::Storage(format!("password check stopped: {e}")))?;
    Ok(user.filter(|u| matches && u.password_hash.is_some()))
}

/// Sets the password of the user a password link's `token` names, using the
/// link up; `None` when the link is unknown, used or expired. The password
/// must already pass [`check_password_policy`].
pub async fn set_password(
    store: &dyn Store,
    token: &str,
    password: String,
) -> Result<Option<User>> {
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| Error::Storage(format!("password hashing stopped: {e}")))??;
    store
        .set_password_with_token(&hash_secret(token), &hash, Utc::now())
        .await
}

/// A user by id (`usr_…`) or e-mail.
pub async fn find_user(store: &dyn Store, id_or_email: &str) -> Result<Option<User>> {
    if id_or_email.starts_with("usr_") {
        store.user(id_or_email).await
    } else {
        store.user_by_email(id_or_email).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_and_verify() {
        let h = hash_password("correct horse battery staple").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password(&h, "correct horse battery staple"));
        assert!(!verify_password(&h, "wrong"));
        assert!(!verify_password("not a hash", "x"));
    }

    #[test]
    fn emails_are_normalized() {
        assert_eq!(
            normalize_email(" Ann@Example.COM ").unwrap(),
            "ann@example.com"
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "a b@example.com",
            "a@b@c.com",
        ] {
            assert!(normalize_email(bad).is_err(), "{bad}");
        }
    }
}
