//! Dashboard users, password-setting tokens, sessions and their flashes.

use super::*;

pub(super) static PUT_FLASH: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/put_flash.lua")));

pub(super) static TAKE_FLASH: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/take_flash.lua")));

pub(super) static CREATE_USER: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/create_user.lua")));

pub(super) static CREATE_TOKEN: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/create_token.lua")));

pub(super) static SET_PASSWORD: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/set_password.lua")));

impl RedisBackend {
    pub(super) async fn load_user(&self, id: &str) -> Result<Option<User>> {
        let mut conn = self.c();
        let fields: Vec<String> = conn
            .hgetall(self.key_name(&["user", id]))
            .await
            .map_err(redis_err)?;
        user_from_fields(&fields)
    }

    /// The users `ids` (gone ones skipped), read in one pipeline.
    async fn load_users(&self, ids: &[String]) -> Result<Vec<User>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.hgetall(self.key_name(&["user", id]));
        }
        let all: Vec<Vec<String>> = pipe.query_async(&mut self.c()).await.map_err(redis_err)?;
        let mut out = Vec::new();
        for fields in all {
            out.extend(user_from_fields(&fields)?);
        }
        Ok(out)
    }
}

/// A user from its hash fields (`None`: no such hash).
fn user_from_fields(fields: &[String]) -> Result<Option<User>> {
    if fields.is_empty() {
        return Ok(None);
    }
    let get = |name: &str| {
        fields
            .chunks(2)
            .find(|kv| kv.first().map(String::as_str) == Some(name))
            .and_then(|kv| kv.get(1))
            .filter(|v| !v.is_empty())
    };
    let base = get("json").ok_or_else(|| Error::Corrupt("user without its record".into()))?;
    let mut user: User = parse(base)?;
    if let Some(h) = get("password_hash") {
        user.password_hash = Some(h.clone());
    }
    if let Some(at) = get("password_set_at") {
        user.password_set_at = Some(parse(at)?);
    }
    Ok(Some(user))
}

pub(super) async fn create_user(this: &RedisBackend, user: User) -> Result<User> {
    let mut conn = this.c();
    let email = user.email.to_lowercase();
    let created: i64 = CREATE_USER
        .key(this.key_name(&["account", &user.account_id]))
        .key(this.key_name(&["user", &user.id]))
        .key(this.key_name(&["useremail", &email]))
        .key(this.key_name(&["users"]))
        .key(this.key_name(&["account", &user.account_id, "users"]))
        .arg(&user.id)
        .arg(&user.account_id)
        .arg(json(&user)?)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    match created {
        0 => Err(not_found("account", &user.account_id)),
        -1 => Err(Error::Conflict(format!(
            "a user with the e-mail `{email}` already exists"
        ))),
        _ => Ok(user),
    }
}

pub(super) async fn user(this: &RedisBackend, id: &str) -> Result<Option<User>> {
    this.load_user(id).await
}

pub(super) async fn user_by_email(this: &RedisBackend, email: &str) -> Result<Option<User>> {
    let mut conn = this.c();
    let email = email.trim().to_lowercase();
    let id: Option<String> = conn
        .get(this.key_name(&["useremail", &email]))
        .await
        .map_err(redis_err)?;
    match id {
        Some(id) => this.load_user(&id).await,
        None => Ok(None),
    }
}

pub(super) async fn list_users(this: &RedisBackend, account_id: Option<&str>) -> Result<Vec<User>> {
    let ids = match account_id {
        Some(acc) => this.ids_of(&["account", acc, "users"]).await?,
        None => this.ids_of(&["users"]).await?,
    };
    let out = this.load_users(&ids).await?;
    Ok(out)
}

pub(super) async fn create_password_token(
    this: &RedisBackend,
    token_hash: &str,
    token: PasswordToken,
) -> Result<()> {
    let mut conn = this.c();
    let created: i64 = CREATE_TOKEN
        .key(this.key_name(&["user", &token.user_id]))
        .key(this.key_name(&["pwtoken", token_hash]))
        .arg(json(&token)?)
        .arg(token.expires_at.timestamp_millis().max(1))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if created == 0 {
        return Err(not_found("user", &token.user_id));
    }
    Ok(())
}

pub(super) async fn set_password_with_token(
    this: &RedisBackend,
    token_hash: &str,
    password_hash: &str,
    at: DateTime<Utc>,
) -> Result<Option<User>> {
    let mut conn = this.c();
    let token_key = this.key_name(&["pwtoken", token_hash]);
    let raw: Option<String> = conn.get(&token_key).await.map_err(redis_err)?;
    let Some(raw) = raw else {
        return Ok(None);
    };
    let token: PasswordToken = parse(&raw)?;
    // The script deletes the token only if it is still the one read here,
    // so two uses racing each other set the password once.
    let set: i64 = SET_PASSWORD
        .key(&token_key)
        .key(this.key_name(&["user", &token.user_id]))
        .key(this.key_name(&["user", &token.user_id, "sessions"]))
        .arg(&raw)
        .arg(i64::from(token.expires_at > at))
        .arg(password_hash)
        .arg(json(&at)?)
        .arg(this.key_name(&["session", ""]))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    if set != 1 {
        return Ok(None);
    }
    this.load_user(&token.user_id).await
}

pub(super) async fn create_session(
    this: &RedisBackend,
    session_hash: &str,
    session: Session,
) -> Result<()> {
    let mut conn = this.c();
    let expires = session.expires_at.timestamp_millis().max(1);
    let mut pipe = redis::pipe();
    pipe.atomic()
        .cmd("SET")
        .arg(this.key_name(&["session", session_hash]))
        .arg(json(&session)?)
        .arg("PXAT")
        .arg(expires)
        .ignore();
    if let Some(user_id) = &session.user_id {
        // The index lives as long as the user's newest session.
        let index = this.key_name(&["user", user_id, "sessions"]);
        pipe.sadd(&index, session_hash)
            .ignore()
            .cmd("PEXPIREAT")
            .arg(&index)
            .arg(expires)
            .arg("GT")
            .ignore()
            .cmd("PEXPIREAT")
            .arg(&index)
            .arg(expires)
            .arg("NX")
            .ignore();
    }
    let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
    Ok(())
}

pub(super) async fn session(
    this: &RedisBackend,
    session_hash: &str,
    at: DateTime<Utc>,
) -> Result<Option<Session>> {
    let mut conn = this.c();
    let raw: Option<String> = conn
        .get(this.key_name(&["session", session_hash]))
        .await
        .map_err(redis_err)?;
    let session: Option<Session> = raw.as_deref().map(parse).transpose()?;
    Ok(session.filter(|s| s.expires_at > at))
}

pub(super) async fn touch_session(
    this: &RedisBackend,
    session_hash: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    let key = this.key_name(&["session", session_hash]);
    let Some(mut session) = this.session(session_hash, at).await? else {
        return Ok(());
    };
    session.last_seen_at = at;
    let mut conn = this.c();
    // XX: a session deleted meanwhile (sign-out) stays deleted.
    let _: Option<String> = redis::cmd("SET")
        .arg(key)
        .arg(json(&session)?)
        .arg("XX")
        .arg("PXAT")
        .arg(session.expires_at.timestamp_millis().max(1))
        .query_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(())
}

pub(super) async fn delete_session(this: &RedisBackend, session_hash: &str) -> Result<()> {
    let mut conn = this.c();
    let key = this.key_name(&["session", session_hash]);
    let raw: Option<String> = conn.get(&key).await.map_err(redis_err)?;
    let mut pipe = redis::pipe();
    pipe.atomic()
        .del(&key)
        .ignore()
        .del(format!("{key}:flash"))
        .ignore();
    if let Some(user_id) = raw
        .as_deref()
        .and_then(|r| parse::<Session>(r).ok())
        .and_then(|s| s.user_id)
    {
        pipe.srem(this.key_name(&["user", &user_id, "sessions"]), session_hash)
            .ignore();
    }
    let _: () = pipe.query_async(&mut conn).await.map_err(redis_err)?;
    Ok(())
}

pub(super) async fn put_flash(
    this: &RedisBackend,
    session_hash: &str,
    name: &str,
    value: &str,
    at: DateTime<Utc>,
) -> Result<bool> {
    let Some(session) = this.session(session_hash, at).await? else {
        return Ok(false);
    };
    let key = this.key_name(&["session", session_hash]);
    let mut conn = this.c();
    let kept: i64 = PUT_FLASH
        .key(&key)
        .key(format!("{key}:flash"))
        .arg(name)
        .arg(value)
        .arg(session.expires_at.timestamp_millis().max(1))
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    Ok(kept == 1)
}

pub(super) async fn take_flash(
    this: &RedisBackend,
    session_hash: &str,
    name: &str,
    at: DateTime<Utc>,
) -> Result<Option<String>> {
    let key = this.key_name(&["session", session_hash]);
    let mut conn = this.c();
    let (session, value): (Option<String>, Option<String>) = TAKE_FLASH
        .key(&key)
        .key(format!("{key}:flash"))
        .arg(name)
        .invoke_async(&mut conn)
        .await
        .map_err(redis_err)?;
    let Some(session) = session else {
        return Ok(None);
    };
    let session: Session = parse(&session)?;
    Ok(value.filter(|_| session.expires_at > at))
}
