//! `sitescan admin`: stands in for the dashboard of SPEC.md — create accounts,
//! create / list / revoke API keys, register sites — directly on the store.
//! Each `create`/`add` prints one JSON object on stdout (a key's secret only
//! there, once); messages go to stderr.
//!
//! The embedded store is one redb file that one process opens at a time: run
//! these commands while `sitescan serve` is stopped on that data directory.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args as ClapArgs, Subcommand};
use serde_json::json;

use super::{CliError, CliResult, EXIT_OK};
use crate::api::auth::{new_key, DEFAULT_KEY_LIFETIME};
use crate::api::sites::validate_site_url;
use crate::store::embedded::Embedded;
use crate::store::{new_id, Account, Plan, Site, Store};

/// Default data directory of the embedded store.
pub(crate) const DEFAULT_DATA_DIR: &str = "sitescan-data";

/// Arguments of `sitescan admin`.
#[derive(Debug, ClapArgs)]
pub(crate) struct Args {
    /// Directory of the embedded store (the same as `serve --data-dir`).
    #[arg(long, env = "SITESCAN_DATA_DIR", default_value = DEFAULT_DATA_DIR, global = true)]
    data_dir: PathBuf,
    /// Use the fleet's Redis instead of the embedded store.
    #[arg(long, env = "SITESCAN_REDIS_URL", global = true)]
    redis: Option<String>,
    #[command(flatten)]
    redis_args: super::worker::RedisArgs,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Debug, Subcommand)]
enum AdminCommand {
    /// Accounts.
    #[command(subcommand)]
    Account(AccountCommand),
    /// API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Sites.
    #[command(subcommand)]
    Site(SiteCommand),
}

#[derive(Debug, Subcommand)]
enum AccountCommand {
    /// Creates an account; prints `{"id": ...}`.
    Create {
        /// starter (no API access), professional or enterprise.
        #[arg(long)]
        plan: String,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum KeyCommand {
    /// Creates a key; prints `{"id": ..., "key": "key_..."}` — the only time the key is shown.
    Create {
        /// Account id.
        #[arg(long)]
        account: String,
        /// Name of the key.
        #[arg(long)]
        name: String,
        /// What the key is for.
        #[arg(long)]
        description: Option<String>,
        /// Lifetime: `90d`, `12h`, `30m`, `45s` (a bare number is days).
        #[arg(long, default_value = DEFAULT_KEY_LIFETIME)]
        expires_in: String,
    },
    /// Lists keys (never their secrets) as a JSON array.
    List {
        /// Only this account's keys.
        #[arg(long)]
        account: Option<String>,
    },
    /// Revokes a key by id (`kid_...`); prints its record.
    Revoke {
        /// Key id.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum SiteCommand {
    /// Registers a site; prints `{"id": ...}`.
    Add {
        /// Account id.
        #[arg(long)]
        account: String,
        /// Display name (defaults to the host).
        #[arg(long)]
        name: Option<String>,
        /// Start URL.
        url: String,
    },
}

/// Parses `90d`, `12h`, `30m`, `45s` or a bare number of days.
pub(crate) fn parse_lifetime(s: &str) -> Result<chrono::Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c),
        _ => (s, 'd'),
    };
    let n: i64 = num
        .parse()
        .ok()
        .filter(|n| *n > 0 && *n <= 3650 * 86_400)
        .ok_or_else(|| format!("`{s}` is not a lifetime: use e.g. 90d, 12h, 30m or 45s"))?;
    let d = match unit {
        'd' => chrono::Duration::try_days(n),
        'h' => chrono::Duration::try_hours(n),
        'm' => chrono::Duration::try_minutes(n),
        's' => chrono::Duration::try_seconds(n),
        _ => None,
    };
    d.ok_or_else(|| format!("`{s}` is not a lifetime: use e.g. 90d, 12h, 30m or 45s"))
}

/// Runs `sitescan admin`.
pub(crate) fn run(args: Args) -> CliResult {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::run)?;
    rt.block_on(run_async(args))
}

async fn run_async(args: Args) -> CliResult {
    let store: Arc<dyn Store> = match &args.redis {
        Some(url) => Arc::new(args.redis_args.connect(url).await?),
        None => Arc::new(Embedded::open(&args.data_dir).map_err(CliError::run)?),
    };
    let now = chrono::Utc::now();
    let out = match args.command {
        AdminCommand::Account(AccountCommand::Create { plan, name }) => {
            let plan: Plan = plan
                .parse()
                .map_err(|e: String| CliError::usage(anyhow::anyhow!(e)))?;
            let account = Account {
                id: new_id("acc").map_err(CliError::run)?,
                name,
                plan,
                created_at: now,
            };
            let account = store.create_account(account).await.map_err(CliError::run)?;
            eprintln!("created {} account {}", plan.as_str(), account.id);
            serde_json::to_value(&account).map_err(CliError::run)?
        }
        AdminCommand::Key(KeyCommand::Create {
            account,
            name,
            description,
            expires_in,
        }) => {
            let lifetime =
                parse_lifetime(&expires_in).map_err(|e| CliError::usage(anyhow::anyhow!(e)))?;
            if store
                .account(&account)
                .await
                .map_err(CliError::run)?
                .is_none()
            {
                return Err(CliError::usage(anyhow::anyhow!(
                    "no account `{account}`; create one with `sitescan admin account create --plan professional`"
                )));
            }
            let (key, secret, hash) =
                new_key(&account, &name, description, lifetime, now).map_err(CliError::run)?;
            let key = store.create_key(key, &hash).await.map_err(CliError::run)?;
            eprintln!(
                "created key {} (expires {}); store the key now: it is not shown again",
                key.id,
                key.expires_at.to_rfc3339()
            );
            json!({
                "id": key.id,
                "key": secret,
                "account_id": key.account_id,
                "name": key.name,
                "expires_at": key.expires_at,
            })
        }
        AdminCommand::Key(KeyCommand::List { account }) => {
            let keys = store
                .list_keys(account.as_deref())
                .await
                .map_err(CliError::run)?;
            serde_json::to_value(&keys).map_err(CliError::run)?
        }
        AdminCommand::Key(KeyCommand::Revoke { id }) => {
            let key = store.revoke_key(&id, now).await.map_err(|e| match e {
                crate::Error::NotFound { .. } => CliError::usage(e),
                other => CliError::run(other),
            })?;
            eprintln!("revoked key {}", key.id);
            serde_json::to_value(&key).map_err(CliError::run)?
        }
        AdminCommand::Site(SiteCommand::Add { account, name, url }) => {
            let url = validate_site_url(&url, true)
                .map_err(|e| CliError::usage(anyhow::anyhow!("{}", e.message)))?;
            let site = Site {
                id: new_id("site").map_err(CliError::run)?,
                account_id: account.clone(),
                name: name.unwrap_or_else(|| url.host_str().unwrap_or_default().to_string()),
                url: url.to_string(),
                created_at: now,
            };
            let site = store.create_site(site).await.map_err(|e| match e {
                crate::Error::NotFound { .. } => CliError::usage(e),
                other => CliError::run(other),
            })?;
            eprintln!("registered site {} ({})", site.id, site.url);
            serde_json::to_value(&site).map_err(CliError::run)?
        }
    };
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{out}").map_err(CliError::run)?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_parse() {
        assert_eq!(parse_lifetime("90d").unwrap(), chrono::Duration::days(90));
        assert_eq!(
            parse_lifetime(DEFAULT_KEY_LIFETIME).unwrap(),
            chrono::Duration::days(crate::api::auth::DEFAULT_KEY_DAYS.into())
        );
        assert_eq!(parse_lifetime("12h").unwrap(), chrono::Duration::hours(12));
        assert_eq!(parse_lifetime("2s").unwrap(), chrono::Duration::seconds(2));
        assert_eq!(parse_lifetime("7").unwrap(), chrono::Duration::days(7));
        assert!(parse_lifetime("0d").is_err());
        assert!(parse_lifetime("soon").is_err());
        assert!(parse_lifetime("5w").is_err());
    }
}
