//! Dashboard users, password-setting tokens, sessions and their one-time flashes.

use super::*;

/// Removes a session and its index entries (no-op when gone).
pub(super) fn remove_session(txn: &redb::WriteTransaction, hash: &str) -> Result<()> {
    let mut sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
    let session: Option<Session> = get(&sessions, hash)?;
    let Some(session) = session else {
        return Ok(());
    };
    sessions.remove(hash).map_err(Error::storage)?;
    let mut expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
    expiry
        .remove(session_expiry_key(&session, hash).as_str())
        .map_err(Error::storage)?;
    if let Some(user_id) = &session.user_id {
        let mut index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
        index
            .remove(format!("{user_id}/{hash}").as_str())
            .map_err(Error::storage)?;
    }
    let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
    let (start, end) = (format!("{hash}/"), format!("{hash}0")); // '0' sorts right after '/'
    flashes
        .retain_in::<&str, _>(start.as_str()..end.as_str(), |_, _| false)
        .map_err(Error::storage)?;
    Ok(())
}

/// The [`SESSION_EXPIRY`] key of a session: sorts by expiry time.
pub(super) fn session_expiry_key(session: &Session, hash: &str) -> String {
    format!(
        "{:020}/{hash}",
        session.expires_at.timestamp_micros().max(0)
    )
}

pub(super) async fn create_user(this: &Embedded, user: User) -> Result<User> {
    this.write(move |txn| {
        {
            let accounts = txn.open_table(ACCOUNTS).map_err(Error::storage)?;
            if accounts
                .get(user.account_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("account", &user.account_id));
            }
            let mut emails = txn.open_table(USER_EMAILS).map_err(Error::storage)?;
            let email = user.email.to_lowercase();
            if emails
                .get(email.as_str())
                .map_err(Error::storage)?
                .is_some()
            {
                return Err(Error::Conflict(format!(
                    "a user with the e-mail `{email}` already exists"
                )));
            }
            emails
                .insert(email.as_str(), user.id.as_str())
                .map_err(Error::storage)?;
            let mut users = txn.open_table(USERS).map_err(Error::storage)?;
            users
                .insert(user.id.as_str(), encode(&user)?.as_slice())
                .map_err(Error::storage)?;
            let mut index = txn.open_table(ACCOUNT_USERS).map_err(Error::storage)?;
            index
                .insert(format!("{}/{}", user.account_id, user.id).as_str(), ())
                .map_err(Error::storage)?;
        }
        Ok(user)
    })
    .await
}

pub(super) async fn user(this: &Embedded, id: &str) -> Result<Option<User>> {
    let id = id.to_string();
    this.read(move |txn| {
        let t = txn.open_table(USERS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn user_by_email(this: &Embedded, email: &str) -> Result<Option<User>> {
    let email = email.trim().to_lowercase();
    this.read(move |txn| {
        let emails = txn.open_table(USER_EMAILS).map_err(Error::storage)?;
        let Some(id) = emails
            .get(email.as_str())
            .map_err(Error::storage)?
            .map(|v| v.value().to_string())
        else {
            return Ok(None);
        };
        let t = txn.open_table(USERS).map_err(Error::storage)?;
        get(&t, &id)
    })
    .await
}

pub(super) async fn list_users(this: &Embedded, account_id: Option<&str>) -> Result<Vec<User>> {
    let account_id = account_id.map(str::to_string);
    this.read(move |txn| {
        let t = txn.open_table(USERS).map_err(Error::storage)?;
        let mut out: Vec<User> = match &account_id {
            Some(acc) => {
                let index = txn.open_table(ACCOUNT_USERS).map_err(Error::storage)?;
                let mut out = Vec::new();
                for id in children(&index, acc)? {
                    if let Some(u) = get::<User>(&t, &id)? {
                        out.push(u);
                    }
                }
                out
            }
            None => {
                let mut out = Vec::new();
                for entry in t.iter().map_err(Error::storage)? {
                    let (_, v) = entry.map_err(Error::storage)?;
                    out.push(decode::<User>(v.value())?);
                }
                out
            }
        };
        // Ids sort by creation time.
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    })
    .await
}

pub(super) async fn create_password_token(
    this: &Embedded,
    token_hash: &str,
    token: PasswordToken,
) -> Result<()> {
    let token_hash = token_hash.to_string();
    this.write(move |txn| {
        {
            let users = txn.open_table(USERS).map_err(Error::storage)?;
            if users
                .get(token.user_id.as_str())
                .map_err(Error::storage)?
                .is_none()
            {
                return Err(not_found("user", &token.user_id));
            }
            let mut t = txn.open_table(PASSWORD_TOKENS).map_err(Error::storage)?;
            t.insert(token_hash.as_str(), encode(&token)?.as_slice())
                .map_err(Error::storage)?;
        }
        Ok(())
    })
    .await
}

pub(super) async fn set_password_with_token(
    this: &Embedded,
    token_hash: &str,
    password_hash: &str,
    at: DateTime<Utc>,
) -> Result<Option<User>> {
    let (token_hash, password_hash) = (token_hash.to_string(), password_hash.to_string());
    this.write(move |txn| {
        let user = {
            let mut tokens = txn.open_table(PASSWORD_TOKENS).map_err(Error::storage)?;
            let token: Option<PasswordToken> = get(&tokens, &token_hash)?;
            let Some(token) = token else {
                return Ok(None);
            };
            // Used once, valid or not: an expired token is cleaned up too.
            tokens.remove(token_hash.as_str()).map_err(Error::storage)?;
            let mut users = txn.open_table(USERS).map_err(Error::storage)?;
            let user: Option<User> = get(&users, &token.user_id)?;
            match user {
                Some(mut user) if token.expires_at > at => {
                    user.password_hash = Some(password_hash);
                    user.password_set_at = Some(at);
                    users
                        .insert(user.id.as_str(), encode(&user)?.as_slice())
                        .map_err(Error::storage)?;
                    let signed_in = {
                        let index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
                        children(&index, &user.id)?
                    };
                    for hash in signed_in {
                        remove_session(txn, &hash)?;
                    }
                    Some(user)
                }
                _ => None,
            }
        };
        Ok(user)
    })
    .await
}

pub(super) async fn create_session(
    this: &Embedded,
    session_hash: &str,
    session: Session,
) -> Result<()> {
    let session_hash = session_hash.to_string();
    this.write(move |txn| {
        {
            // Purge what expired, a bounded number per call.
            let now = format!("{:020}0", Utc::now().timestamp_micros().max(0));
            let mut gone = Vec::new();
            {
                let expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
                for entry in expiry
                    .range::<&str>(..now.as_str())
                    .map_err(Error::storage)?
                    .take(100)
                {
                    let (k, _) = entry.map_err(Error::storage)?;
                    gone.push(k.value().to_string());
                }
            }
            for k in gone {
                if let Some((_, hash)) = k.split_once('/') {
                    remove_session(txn, hash)?;
                }
            }
            let mut sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
            let mut expiry = txn.open_table(SESSION_EXPIRY).map_err(Error::storage)?;
            sessions
                .insert(session_hash.as_str(), encode(&session)?.as_slice())
                .map_err(Error::storage)?;
            expiry
                .insert(session_expiry_key(&session, &session_hash).as_str(), ())
                .map_err(Error::storage)?;
            if let Some(user_id) = &session.user_id {
                let mut index = txn.open_table(USER_SESSIONS).map_err(Error::storage)?;
                index
                    .insert(format!("{user_id}/{session_hash}").as_str(), ())
                    .map_err(Error::storage)?;
            }
        }
        Ok(())
    })
    .await
}

pub(super) async fn session(
    this: &Embedded,
    session_hash: &str,
    at: DateTime<Utc>,
) -> Result<Option<Session>> {
    let session_hash = session_hash.to_string();
    this.read(move |txn| {
        let t = txn.open_table(SESSIONS).map_err(Error::storage)?;
        let session: Option<Session> = get(&t, &session_hash)?;
        Ok(session.filter(|s| s.expires_at > at))
    })
    .await
}

pub(super) async fn touch_session(
    this: &Embedded,
    session_hash: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    let session_hash = session_hash.to_string();
    this.write(move |txn| {
        {
            let mut t = txn.open_table(SESSIONS).map_err(Error::storage)?;
            let session: Option<Session> = get(&t, &session_hash)?;
            if let Some(mut session) = session {
                session.last_seen_at = at;
                t.insert(session_hash.as_str(), encode(&session)?.as_slice())
                    .map_err(Error::storage)?;
            }
        }
        Ok(())
    })
    .await
}

pub(super) async fn delete_session(this: &Embedded, session_hash: &str) -> Result<()> {
    let session_hash = session_hash.to_string();
    this.write(move |txn| {
        remove_session(txn, &session_hash)?;
        Ok(())
    })
    .await
}

pub(super) async fn put_flash(
    this: &Embedded,
    session_hash: &str,
    name: &str,
    value: &str,
    at: DateTime<Utc>,
) -> Result<bool> {
    let key = format!("{session_hash}/{name}");
    let (session_hash, value) = (session_hash.to_string(), value.to_string());
    this.write(move |txn| {
        let live = {
            let sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
            let session: Option<Session> = get(&sessions, &session_hash)?;
            session.is_some_and(|s| s.expires_at > at)
        };
        if live {
            let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
            flashes
                .insert(key.as_str(), value.as_str())
                .map_err(Error::storage)?;
        }
        Ok(live)
    })
    .await
}

pub(super) async fn take_flash(
    this: &Embedded,
    session_hash: &str,
    name: &str,
    at: DateTime<Utc>,
) -> Result<Option<String>> {
    let key = format!("{session_hash}/{name}");
    let session_hash = session_hash.to_string();
    // One write transaction at a time: the read-and-remove is atomic.
    this.write(move |txn| {
        let taken = {
            let mut flashes = txn.open_table(SESSION_FLASHES).map_err(Error::storage)?;
            let value = flashes
                .remove(key.as_str())
                .map_err(Error::storage)?
                .map(|v| v.value().to_string());
            value
        };
        let live = {
            let sessions = txn.open_table(SESSIONS).map_err(Error::storage)?;
            let session: Option<Session> = get(&sessions, &session_hash)?;
            session.is_some_and(|s| s.expires_at > at)
        };
        Ok(taken.filter(|_| live))
    })
    .await
}
