//! API keys: their secrets, lifetimes and records. Keys are created and
//! revoked in the dashboard (Settings, then API Keys) and by `sitescan admin
//! key`; both call [`create_key`] and [`revoke_key`] here. Only a key's
//! SHA-256 is stored ([`crate::secrets::hash_secret`]).

use chrono::{DateTime, Utc};

use crate::error::{Error, Problems, Result};
use crate::secrets::hash_secret;
use crate::store::{new_id, ApiKey, Store};

/// Prefix of every key.
pub const KEY_PREFIX: &str = "key_";
/// Random bytes in a key (hex-encoded: 48 characters after the prefix).
pub const KEY_RANDOM_BYTES: usize = 24;
/// Default key lifetime.
pub const DEFAULT_KEY_DAYS: u32 = 90;
/// [`DEFAULT_KEY_DAYS`] as `sitescan admin key create --expires-in` writes it.
pub const DEFAULT_KEY_LIFETIME: &str = "90d";

/// A new key: (the secret to show once, its SHA-256 hex to store).
pub fn generate_secret() -> Result<(String, String)> {
    let secret = crate::secrets::new_token(KEY_PREFIX, KEY_RANDOM_BYTES)?;
    let hash = hash_secret(&secret);
    Ok((secret, hash))
}

/// How long a new key works: for a duration, or (`expires_at: null`) never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLifetime {
    /// Expires this long after creation.
    For(chrono::Duration),
    /// Never expires (revoke it to stop it).
    Never,
}

impl From<chrono::Duration> for KeyLifetime {
    fn from(d: chrono::Duration) -> Self {
        KeyLifetime::For(d)
    }
}

impl KeyLifetime {
    /// The expiry of a key created at `now` (`None`: never).
    pub fn expires_at(self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            KeyLifetime::For(d) => Some(now + d),
            KeyLifetime::Never => None,
        }
    }
}

/// A new key record for `account_id` and its secret (shown once).
pub fn new_key(
    account_id: &str,
    name: &str,
    description: Option<String>,
    lifetime: impl Into<KeyLifetime>,
    now: DateTime<Utc>,
) -> Result<(ApiKey, String, String)> {
    let (secret, hash) = generate_secret()?;
    let key = ApiKey {
        id: new_id("kid")?,
        account_id: account_id.to_string(),
        name: name.to_string(),
        description,
        prefix: secret.chars().take(KEY_PREFIX.len() + 4).collect(),
        created_at: now,
        expires_at: lifetime.into().expires_at(now),
        revoked_at: None,
        last_used_at: None,
        usage: Default::default(),
    };
    Ok((key, secret, hash))
}

/// Longest key name, in characters.
pub const MAX_KEY_NAME: usize = 100;
/// Longest key description, in characters.
pub const MAX_KEY_DESCRIPTION: usize = 500;

/// Creates a key of `account_id`: name 1 to [`MAX_KEY_NAME`] characters, an
/// optional description up to [`MAX_KEY_DESCRIPTION`] (blank: none), the
/// lifetime (default [`DEFAULT_KEY_DAYS`] days, or never). Returns the record
/// and the secret, to show once.
pub async fn create_key(
    store: &dyn Store,
    account_id: &str,
    name: &str,
    description: Option<&str>,
    lifetime: KeyLifetime,
    now: DateTime<Utc>,
) -> Result<(ApiKey, String)> {
    let name = name.trim();
    let mut problems = Problems::default();
    if name.is_empty() || name.chars().count() > MAX_KEY_NAME {
        problems.add("name", format!("give 1 to {MAX_KEY_NAME} characters"));
    }
    let description = description.map(str::trim).filter(|d| !d.is_empty());
    if description.is_some_and(|d| d.chars().count() > MAX_KEY_DESCRIPTION) {
        problems.add(
            "description",
            format!("at most {MAX_KEY_DESCRIPTION} characters"),
        );
    }
    if let KeyLifetime::For(d) = lifetime {
        if d <= chrono::Duration::zero() {
            problems.add("expires_in", "give a positive lifetime or never");
        }
    }
    problems.finish()?;
    if store.account(account_id).await?.is_none() {
        return Err(Error::not_found("account", account_id));
    }
    let (key, secret, hash) = new_key(
        account_id,
        name,
        description.map(str::to_string),
        lifetime,
        now,
    )?;
    let key = store.create_key(key, &hash).await?;
    Ok((key, secret))
}

/// Revokes a key of `account_id` (another account's key is not found, as a
/// missing one); revoking twice keeps the first time.
pub async fn revoke_key(
    store: &dyn Store,
    account_id: &str,
    key_id: &str,
    now: DateTime<Utc>,
) -> Result<ApiKey> {
    match store.key(key_id).await? {
        Some(key) if key.account_id == account_id => store.revoke_key(key_id, now).await,
        _ => Err(Error::not_found("key", key_id)),
    }
}

/// The calling key as stored now (its use of this request recorded) and how
/// many scans its account started today.
pub async fn current_key(
    store: &dyn Store,
    key: ApiKey,
    now: DateTime<Utc>,
) -> Result<(ApiKey, u32)> {
    let key = store.key(&key.id).await?.unwrap_or(key);
    let scans_today = store
        .scans_created_on(&key.account_id, now.date_naive())
        .await?;
    Ok((key, scans_today))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embedded::Embedded;
    use crate::store::{fixture, Plan};

    #[tokio::test]
    async fn a_key_request_is_refused_naming_every_bad_field_and_nothing_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Embedded::open(dir.path()).unwrap();
        let (account, _) = fixture::tenant(&store, Plan::Enterprise, "https://example.com/")
            .await
            .unwrap();
        let long = "x".repeat(MAX_KEY_DESCRIPTION + 1);
        let lifetime = KeyLifetime::For(chrono::Duration::days(-1));
        let err = create_key(&store, &account.id, " ", Some(&long), lifetime, Utc::now())
            .await
            .unwrap_err();
        let Error::Invalid(problems) = err else {
            panic!("not a validation error: {err}");
        };
        let fields: Vec<&str> = problems.list().iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["name", "description", "expires_in"]);
        assert!(store.list_keys(Some(&account.id)).await.unwrap().is_empty());

        let missing = create_key(
            &store,
            "acc_missing",
            "ci",
            None,
            KeyLifetime::Never,
            Utc::now(),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(missing, Error::NotFound { kind: "account", ref id } if id == "acc_missing"),
            "{missing}"
        );

        // Another account's key is not found, as a missing one.
        let (key, _) = create_key(
            &store,
            &account.id,
            "ci",
            None,
            KeyLifetime::Never,
            Utc::now(),
        )
        .await
        .unwrap();
        let other = revoke_key(&store, "acc_other", &key.id, Utc::now())
            .await
            .unwrap_err();
        assert!(
            matches!(other, Error::NotFound { kind: "key", .. }),
            "{other}"
        );
        let revoked = revoke_key(&store, &account.id, &key.id, Utc::now())
            .await
            .unwrap();
        assert!(revoked.revoked_at.is_some());
    }
}
