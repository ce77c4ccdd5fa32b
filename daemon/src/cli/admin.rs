//! `sitescan admin`: the operator's tool, directly on the store — create
//! accounts, create / list / revoke API keys, register sites, and create the
//! dashboard's users (`user create` prints a one-time password-setting link:
//! no mail server needed).
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

use super::service_args::DEFAULT_DATA_DIR;
use super::{CliError, CliResult, EXIT_OK};
use crate::error::Error;
use crate::ops::keys::{create_key, KeyLifetime, DEFAULT_KEY_LIFETIME};
use crate::ops::sites::register_site;
use crate::ops::users::{create_user, find_user, issue_password_link, PASSWORD_LINK_HOURS};
use crate::store::embedded::Embedded;
use crate::store::{new_id, Account, Plan, Store};

/// An operation's refusal (a bad value, a missing record, a conflict) is the
/// caller's mistake: a usage error (exit 2) saying why. Anything else is a
/// failure to run.
fn refused(e: Error) -> CliError {
    match e {
        Error::NotFound {
            kind: "account",
            id,
        } => CliError::usage(anyhow::anyhow!(
            "no account `{id}`; create one with `sitescan admin account create --plan professional`"
        )),
        e
        @ (Error::Invalid(_) | Error::NotFound { .. } | Error::Config(_) | Error::Conflict(_)) => {
            CliError::usage(e)
        }
        other => CliError::run(other),
    }
}

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
    /// Dashboard users.
    #[command(subcommand)]
    User(UserCommand),
}

/// The dashboard's address, for the password links.
const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8080";

#[derive(Debug, Subcommand)]
enum UserCommand {
    /// Creates a dashboard user of an account; prints `{"id": ..., "password_link": ...}`:
    /// open the link (valid 24 hours, once) to set the password.
    Create {
        /// Account id.
        #[arg(long)]
        account: String,
        /// The user's e-mail (the sign-in name).
        #[arg(long)]
        email: String,
        /// Where the dashboard is reached (the link starts with it).
        #[arg(long, env = "SITESCAN_PUBLIC_URL", default_value = DEFAULT_BASE_URL)]
        base_url: url::Url,
    },
    /// Lists users (never their password hashes) as a JSON array.
    List {
        /// Only this account's users.
        #[arg(long)]
        account: Option<String>,
    },
    /// Prints a new one-time password-setting link for a user (by e-mail or id).
    ResetPassword {
        /// The user's e-mail or id (`usr_...`).
        user: String,
        /// Where the dashboard is reached (the link starts with it).
        #[arg(long, env = "SITESCAN_PUBLIC_URL", default_value = DEFAULT_BASE_URL)]
        base_url: url::Url,
    },
}

/// A user as the admin CLI prints it: no password hash.
fn user_json(user: &crate::store::User) -> serde_json::Value {
    json!({
        "id": user.id,
        "account_id": user.account_id,
        "email": user.email,
        "created_at": user.created_at,
        "password_set": user.password_hash.is_some(),
        "password_set_at": user.password_set_at,
    })
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
        /// Lifetime: `90d`, `12h`, `30m`, `45s` (a bare number is days), or `never`.
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

/// The longest key lifetime `--expires-in` accepts: ten years. Longer is
/// refused (with `never` suggested) instead of overflowing the expiry date.
pub(crate) const MAX_LIFETIME_DAYS: i64 = 3650;

/// Parses `90d`, `12h`, `30m`, `45s`, a bare number of days, or `never`; a
/// lifetime is 1 second to [`MAX_LIFETIME_DAYS`] days.
pub(crate) fn parse_lifetime(s: &str) -> Result<KeyLifetime, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("never") {
        return Ok(KeyLifetime::Never);
    }
    let (num, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c),
        _ => (s, 'd'),
    };
    let not_a_lifetime =
        || format!("`{s}` is not a lifetime: use e.g. 90d, 12h, 30m, 45s or never");
    let n: i64 = num
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(not_a_lifetime)?;
    let seconds_per_unit: i64 = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return Err(not_a_lifetime()),
    };
    let max_seconds = MAX_LIFETIME_DAYS * 86_400;
    match n.checked_mul(seconds_per_unit) {
        Some(secs) if secs <= max_seconds => chrono::Duration::try_seconds(secs)
            .map(KeyLifetime::For)
            .ok_or_else(not_a_lifetime),
        _ => Err(format!(
            "`{s}` is longer than the longest key lifetime, {MAX_LIFETIME_DAYS}d (ten years): \
             give a shorter one, or `never` for a key that does not expire"
        )),
    }
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
            let (key, secret) = create_key(
                &*store,
                &account,
                &name,
                description.as_deref(),
                lifetime,
                now,
            )
            .await
            .map_err(refused)?;
            match key.expires_at {
                Some(at) => eprintln!(
                    "created key {} (expires {}); store the key now: it is not shown again",
                    key.id,
                    at.to_rfc3339()
                ),
                None => eprintln!(
                    "created key {} (never expires); store the key now: it is not shown again",
                    key.id
                ),
            }
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
            // The administrator may revoke any account's key: the store's
            // revocation, not the account-bound operation.
            let key = store.revoke_key(&id, now).await.map_err(refused)?;
            eprintln!("revoked key {}", key.id);
            serde_json::to_value(&key).map_err(CliError::run)?
        }
        AdminCommand::Site(SiteCommand::Add { account, name, url }) => {
            // Private addresses are the administrator's to allow.
            let site = register_site(&*store, true, &account, &url, name)
                .await
                .map_err(refused)?;
            eprintln!("registered site {} ({})", site.id, site.url);
            serde_json::to_value(&site).map_err(CliError::run)?
        }
        AdminCommand::User(UserCommand::Create {
            account,
            email,
            base_url,
        }) => {
            let user = create_user(&*store, &account, &email, now)
                .await
                .map_err(refused)?;
            let link = issue_password_link(&*store, &user.id, &base_url, now)
                .await
                .map_err(CliError::run)?;
            eprintln!(
                "created user {} ({}); open this link within {PASSWORD_LINK_HOURS} hours to set the password (it works once):",
                user.id, user.email
            );
            eprintln!("{link}");
            let mut out = user_json(&user);
            out["password_link"] = json!(link);
            out
        }
        AdminCommand::User(UserCommand::List { account }) => {
            let users = store
                .list_users(account.as_deref())
                .await
                .map_err(CliError::run)?;
            json!(users.iter().map(user_json).collect::<Vec<_>>())
        }
        AdminCommand::User(UserCommand::ResetPassword { user, base_url }) => {
            let found = find_user(&*store, &user)
                .await
                .map_err(CliError::run)?
                .ok_or_else(|| {
                    CliError::usage(anyhow::anyhow!(
                        "no user `{user}`; `sitescan admin user list` lists them"
                    ))
                })?;
            let link = issue_password_link(&*store, &found.id, &base_url, now)
                .await
                .map_err(CliError::run)?;
            eprintln!(
                "password link for {} (valid {PASSWORD_LINK_HOURS} hours, once; the current password works until a new one is set):",
                found.email
            );
            eprintln!("{link}");
            json!({ "id": found.id, "email": found.email, "password_link": link })
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
        let f = KeyLifetime::For;
        assert_eq!(
            parse_lifetime("90d").unwrap(),
            f(chrono::Duration::days(90))
        );
        assert_eq!(
            parse_lifetime(DEFAULT_KEY_LIFETIME).unwrap(),
            f(chrono::Duration::days(
                crate::ops::keys::DEFAULT_KEY_DAYS.into()
            ))
        );
        assert_eq!(
            parse_lifetime("12h").unwrap(),
            f(chrono::Duration::hours(12))
        );
        assert_eq!(
            parse_lifetime("2s").unwrap(),
            f(chrono::Duration::seconds(2))
        );
        assert_eq!(parse_lifetime("7").unwrap(), f(chrono::Duration::days(7)));
        assert_eq!(parse_lifetime("never").unwrap(), KeyLifetime::Never);
        assert!(parse_lifetime("0d").is_err());
        assert!(parse_lifetime("soon").is_err());
        assert!(parse_lifetime("5w").is_err());
        assert_eq!(
            parse_lifetime("3650d").unwrap(),
            f(chrono::Duration::days(3650))
        );
        for too_long in [
            "3651d",
            "315360000d",
            "87601h",
            "9223372036854775807s",
            "99999999999999999999d",
        ] {
            let e = parse_lifetime(too_long).unwrap_err();
            assert!(
                e.contains("not a lifetime") || e.contains("longest key lifetime"),
                "{too_long}: {e}"
            );
        }
        assert!(parse_lifetime("315360000d")
            .unwrap_err()
            .contains("3650d (ten years)"));
    }
}
