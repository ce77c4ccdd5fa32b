//! Scans behind a login (`SiteAuth`): a site behind basic authentication, one
//! behind a session cookie, one behind a sign-in form with a CSRF token, and a
//! JavaScript sign-in page in render mode (real Chromium).
//!
//! Each site is a loopback server whose request log is the proof: the private
//! pages two and three links deep are reached with the credentials and refused
//! without them; a second server on another origin, linked from the pages and
//! redirected to, never sees an `Authorization` or `Cookie` header; the
//! sign-out link is never requested; and the secrets are in neither the JSON
//! report, the HTML report nor the logs (which run at `trace`).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use base64::Engine as _;

const USER: &str = "ann";
const BASIC_PASSWORD: &str = "pw-basic-s3cret";
const COOKIE_VALUE: &str = "cookie-s3cret-7f3a";
const FORM_PASSWORD: &str = "form-s3cret-pw";
/// The session id the form site hands out after a good sign-in.
const SESSION: &str = "sess-s3cret-4242";
const HEADER_VALUE: &str = "hdr-s3cret-9b1";

/// What the site asks of a request to a private page.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Gate {
    /// Nothing (the second origin).
    Open,
    /// `Authorization: Basic ann:BASIC_PASSWORD`, else 401.
    Basic,
    /// `Cookie: sid=COOKIE_VALUE`, else 401.
    Cookie,
    /// `Cookie: sid=SESSION` from the sign-in form, else a redirect to it.
    Form,
    /// As `Form`, with a JavaScript sign-in page (render mode).
    Script,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
struct Logged {
    method: String,
    path: String,
    authorization: Option<String>,
    cookie: Option<String>,
    /// Every header value, for "no secret anywhere".
    all_headers: String,
}

struct Site {
    gate: Gate,
    /// Base URL of the other origin (linked from the pages).
    other: Mutex<String>,
    log: Mutex<Vec<Logged>>,
    csrf: Mutex<Vec<String>>,
    sessions: Mutex<HashSet<String>>,
}

struct Server {
    base: String,
    site: Arc<Site>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Server {
    async fn start(gate: Gate) -> Server {
        let site = Arc::new(Site {
            gate,
            other: Mutex::new(String::new()),
            log: Mutex::new(Vec::new()),
            csrf: Mutex::new(Vec::new()),
            sessions: Mutex::new(HashSet::new()),
        });
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&site));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
        });
        Server {
            base: format!("http://127.0.0.1:{port}"),
            site,
            _stop: tx,
        }
    }

    fn link_to(&self, other: &Server) {
        *self.site.other.lock().unwrap() = other.base.clone();
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn log(&self) -> Vec<Logged> {
        self.site.log.lock().unwrap().clone()
    }

    fn requested(&self, path: &str) -> bool {
        self.log().iter().any(|l| l.path == path)
    }
}

fn page(status: u16, body: String) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "text/html; charset=utf-8")
        .body(Body::from(body))
        .unwrap()
}

fn html(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <meta name=\"viewport\" content=\"width=device-width\"></head><body><main><h1>{title}</h1>{body}</main></body></html>"
    )
}

fn redirect(status: u16, to: &str) -> Response {
    Response::builder()
        .status(status)
        .header("location", to)
        .body(Body::empty())
        .unwrap()
}

fn expected_basic() -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{BASIC_PASSWORD}"))
    )
}

fn cookie_of<'a>(header: Option<&'a str>, name: &str) -> Option<&'a str> {
    header?.split(';').find_map(|p| {
        let (n, v) = p.trim().split_once('=')?;
        (n == name).then_some(v)
    })
}

const LOGIN_FORM: &str = "<form method=\"post\" action=\"/session\">\
    <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
    <label>User <input name=\"user\"></label><label>Password <input type=\"password\" name=\"pass\"></label>\
    <button>Sign in</button></form>";

const SCRIPT_LOGIN: &str = "<label>User <input id=\"user\"></label><label>Password <input id=\"pass\" type=\"password\"></label>\
    <button id=\"go\" type=\"button\">Sign in</button><p id=\"msg\"></p>\
    <script>document.getElementById('go').addEventListener('click', async () => {\
      const body = new URLSearchParams({user: document.getElementById('user').value, pass: document.getElementById('pass').value});\
      const r = await fetch('/api/login', {method: 'POST', body});\
      if (r.ok) { const p = document.createElement('p'); p.id = 'welcome'; p.textContent = 'Welcome'; document.body.append(p); }\
      else { document.getElementById('msg').textContent = 'Wrong'; }\
    });</script>";

async fn answer(State(site): State<Arc<Site>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let header = |n: &str| {
        parts
            .headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let all_headers = parts
        .headers
        .iter()
        .map(|(n, v)| format!("{n}: {}", String::from_utf8_lossy(v.as_bytes())))
        .collect::<Vec<_>>()
        .join("\n");
    site.log.lock().unwrap().push(Logged {
        method: parts.method.to_string(),
        path: path.clone(),
        authorization: header("authorization"),
        cookie: header("cookie"),
        all_headers,
    });
    let body = axum::body::to_bytes(body, 1 << 16)
        .await
        .unwrap_or_default();
    let other = site.other.lock().unwrap().clone();
    let cookie = header("cookie");
    let form_session = || {
        cookie_of(cookie.as_deref(), "sid")
            .is_some_and(|s| site.sessions.lock().unwrap().contains(s))
    };
    let fields = || -> std::collections::HashMap<String, String> {
        url::form_urlencoded::parse(&body).into_owned().collect()
    };
    // The sign-in pages and the sign-out link, open to all.
    match (site.gate, parts.method.as_str(), parts.uri.path()) {
        (Gate::Open, _, "/") => return page(200, html("Elsewhere", "<p>Another origin.</p>")),
        (Gate::Open, _, _) => return page(200, html("Other", "<p>A page of another origin.</p>")),
        (Gate::Form, "GET", "/login") => {
            let token = format!("csrf-{}", site.csrf.lock().unwrap().len() + 1);
            site.csrf.lock().unwrap().push(token.clone());
            let mut resp = page(200, html("Sign in", &LOGIN_FORM.replace("{csrf}", &token)));
            resp.headers_mut()
                .insert("set-cookie", "pre=visited; Path=/".parse().unwrap());
            return resp;
        }
        (Gate::Form, "POST", "/session") => {
            let f = fields();
            let csrf_ok = f
                .get("csrf")
                .is_some_and(|t| site.csrf.lock().unwrap().contains(t));
            let pre_ok = cookie_of(cookie.as_deref(), "pre") == Some("visited");
            if csrf_ok
                && pre_ok
                && f.get("user").map(String::as_str) == Some(USER)
                && f.get("pass").map(String::as_str) == Some(FORM_PASSWORD)
            {
                site.sessions.lock().unwrap().insert(SESSION.into());
                let mut resp = redirect(303, "/account");
                resp.headers_mut().insert(
                    "set-cookie",
                    format!("sid={SESSION}; Path=/; HttpOnly").parse().unwrap(),
                );
                return resp;
            }
            return page(200, html("Sign in", "<p>Wrong user or password.</p>"));
        }
        (Gate::Script, "GET", "/login") => return page(200, html("Sign in", SCRIPT_LOGIN)),
        (Gate::Script, "POST", "/api/login") => {
            let f = fields();
            if f.get("user").map(String::as_str) == Some(USER)
                && f.get("pass").map(String::as_str) == Some(FORM_PASSWORD)
            {
                site.sessions.lock().unwrap().insert(SESSION.into());
                return Response::builder()
                    .status(200)
                    .header("set-cookie", format!("sid={SESSION}; Path=/"))
                    .header("content-type", "application/json")
                    .body(Body::from("{\"ok\":true}"))
                    .unwrap();
            }
            return Response::builder().status(403).body(Body::empty()).unwrap();
        }
        (_, _, "/logout") => {
            site.sessions.lock().unwrap().clear();
            return page(200, html("Signed out", "<p>Bye.</p>"));
        }
        (_, _, "/robots.txt" | "/sitemap.xml") => {
            return Response::builder().status(404).body(Body::empty()).unwrap()
        }
        _ => {}
    }
    let allowed = match site.gate {
        Gate::Open => true,
        Gate::Basic => header("authorization").as_deref() == Some(expected_basic().as_str()),
        Gate::Cookie => cookie_of(cookie.as_deref(), "sid") == Some(COOKIE_VALUE),
        Gate::Form | Gate::Script => form_session(),
    };
    if !allowed {
        return match site.gate {
            Gate::Form | Gate::Script => redirect(302, "/login"),
            _ => Response::builder()
                .status(401)
                .header("www-authenticate", "Basic realm=\"staging\"")
                .header("content-type", "text/html")
                .body(Body::from(html("Unauthorized", "<p>Sign in first.</p>")))
                .unwrap(),
        };
    }
    // What the request carried, echoed into the page (an image without alt
    // text, so a finding's snippet quotes it): the report must not.
    let echo = format!(
        "{} {}",
        header("authorization").unwrap_or_default(),
        header("x-staging-key").unwrap_or_default()
    );
    let body = match parts.uri.path() {
        "/" | "/account" => format!(
            "<p>Private home.</p><img src=\"/pic.png\" title=\"{}\">\
             <a href=\"/a\">Section A</a> <a href=\"/logout\">Sign out</a> \
             <a href=\"{other}/x\">Elsewhere</a> <a href=\"/moved\">Moved</a>",
            echo.trim()
        ),
        "/a" => "<p>Level one.</p><a href=\"/a/b\">Deeper</a>".into(),
        "/a/b" => "<p>Level two.</p><a href=\"/a/b/c\">Deepest</a>".into(),
        "/a/b/c" => "<p>The private page three links deep.</p>".into(),
        "/moved" => return redirect(302, &format!("{other}/landing")),
        "/pic.png" => {
            return Response::builder()
                .status(200)
                .header("content-type", "image/png")
                .body(Body::from(vec![0u8; 64]))
                .unwrap()
        }
        _ => return page(404, html("Not found", "<p>Nothing here.</p>")),
    };
    page(200, html("Private", &body))
}

/// Every log line of sitescan and of its HTTP stack (reqwest, hyper, h2),
/// down to `trace`. The HTML and CSS parsers are kept at `info`: at `debug`
/// they print the page's text, which here echoes the credentials by design
/// (what a site sends is the site's; what we send must not show).
const LOG_FILTER: &str =
    "trace,html5ever=info,markup5ever=info,selectors=info,scraper=info,cssparser=info";

/// Runs `sitescan` off the runtime with [`LOG_FILTER`], optionally feeding
/// `stdin`.
async fn sitescan(args: Vec<String>, stdin: Option<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
        cmd.args(&args)
            .env("RUST_LOG", LOG_FILTER)
            .env("SITESCAN_CHROMIUM_NO_SANDBOX", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

fn scan_args(url: &str, rest: &[&str]) -> Vec<String> {
    let mut all = vec!["scan", url, "--rate", "100", "--format", "json"];
    all.extend_from_slice(rest);
    all.iter().map(|s| s.to_string()).collect()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn last_line(out: &std::process::Output) -> String {
    stderr(out)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

/// Every secret a test site uses, in the forms a page could echo.
fn secrets() -> Vec<String> {
    vec![
        BASIC_PASSWORD.into(),
        base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{BASIC_PASSWORD}")),
        COOKIE_VALUE.into(),
        FORM_PASSWORD.into(),
        SESSION.into(),
        HEADER_VALUE.into(),
    ]
}

fn assert_no_secret(what: &str, text: &str) {
    for s in secrets() {
        assert!(
            !text.contains(&s),
            "{what} contains the secret {s}:\n{text}"
        );
    }
}

/// The report's pages: (path, status).
fn pages(report: &serde_json::Value, base: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["url"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(base)
                    .to_string(),
                p["status"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// What the second origin saw: requests, and none with credentials.
fn assert_other_origin_got_no_credentials(other: &Server) {
    let log = other.log();
    assert!(
        !log.is_empty(),
        "the other origin was never requested, so the test proves nothing"
    );
    for l in &log {
        assert_eq!(
            (&l.authorization, &l.cookie),
            (&None, &None),
            "credentials sent to the other origin: {l:?}"
        );
        assert_no_secret("a request to the other origin", &l.all_headers);
        assert!(
            !l.all_headers.to_ascii_lowercase().contains("x-staging-key"),
            "{l:?}"
        );
    }
}

fn private_pages() -> Vec<(String, u64)> {
    ["/", "/a", "/a/b", "/a/b/c"]
        .iter()
        .map(|p| (p.to_string(), 200))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_auth_reaches_the_private_pages_and_nothing_leaks() {
    let site = Server::start(Gate::Basic).await;
    let other = Server::start(Gate::Open).await;
    site.link_to(&other);

    // Without credentials the start page is a 401: the scan cannot run.
    let out = sitescan(scan_args(&site.url("/"), &[]), None).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        last_line(&out).contains("answered HTTP 401 Unauthorized"),
        "{}",
        last_line(&out)
    );
    assert!(!site.requested("/a"));

    // With them (a file on stdin, a header on the command line): every
    // private page, the headers echoed back scrubbed from the report.
    let auth = serde_json::json!({"basic": {"username": USER, "password": BASIC_PASSWORD}});
    let header = format!("X-Staging-Key: {HEADER_VALUE}");
    let out = sitescan(
        scan_args(&site.url("/"), &["--auth", "-", "--header", &header]),
        Some(auth.to_string()),
    )
    .await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let json = String::from_utf8(out.stdout.clone()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let got = pages(&report, &site.base);
    for p in private_pages() {
        assert!(got.contains(&p), "{p:?} not in {got:?}");
    }
    // The page echoed `Authorization` and the header into an image's title;
    // the image-alt finding quotes it, scrubbed.
    assert!(json.contains("[redacted]"), "nothing was echoed: {json}");
    assert_no_secret("the JSON report", &json);
    assert_no_secret("the log", &stderr(&out));
    assert!(
        stderr(&out).contains("TRACE") || stderr(&out).contains("DEBUG"),
        "logs were not captured"
    );
    // Every request to the site carried the credentials (the log is the
    // proof they were sent), and the sign-out link was never requested.
    let log = site.log();
    assert!(log.iter().any(|l| l.path == "/a/b/c"
        && l.authorization.as_deref() == Some(expected_basic().as_str())
        && l.all_headers.contains(HEADER_VALUE)));
    assert!(!site.requested("/logout"), "{log:?}");
    // The link to the other origin was checked, and `/moved` (a link check
    // redirected off the origin) was not followed there with credentials.
    assert_other_origin_got_no_credentials(&other);
    assert!(other.requested("/x"), "{:?}", other.log());

    // The HTML report: no secret either.
    let dir = tempfile::tempdir().unwrap();
    let html_path = dir.path().join("report.html");
    let out = sitescan(
        vec![
            "scan".into(),
            site.url("/"),
            "--rate".into(),
            "100".into(),
            "--basic".into(),
            format!("{USER}:{BASIC_PASSWORD}"),
            "--header".into(),
            header.clone(),
            "--output".into(),
            html_path.display().to_string(),
        ],
        None,
    )
    .await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(html.contains("/a/b/c") && html.contains("[redacted]"));
    assert_no_secret("the HTML report", &html);
    assert_no_secret("the log", &stderr(&out));
    assert!(!site.requested("/logout"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_page_redirected_to_another_origin_gets_no_credentials() {
    let site = Server::start(Gate::Basic).await;
    let other = Server::start(Gate::Open).await;
    site.link_to(&other);
    let auth = sitescan::auth::SiteAuth {
        basic: Some(sitescan::auth::BasicAuth {
            username: USER.into(),
            password: BASIC_PASSWORD.into(),
        }),
        headers: vec![sitescan::auth::NameValue {
            name: "X-Staging-Key".into(),
            value: HEADER_VALUE.into(),
        }],
        ..Default::default()
    };
    let report = sitescan::Scanner::builder()
        .allow_private(true)
        .rate_per_host(100.0)
        .rules(&["wcag-a"])
        .auth(auth)
        .build()
        .unwrap()
        .scan(&site.url("/moved"))
        .await
        .unwrap();
    // The crawler followed the redirect hop by hop: the site's hop with
    // credentials, the other origin's without.
    let log = site.log();
    assert!(log.iter().any(
        |l| l.path == "/moved" && l.authorization.as_deref() == Some(expected_basic().as_str())
    ));
    assert!(other.requested("/landing"));
    assert_other_origin_got_no_credentials(&other);
    assert_eq!(report.pages[0].final_url, other.url("/landing"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_cookie_reaches_the_private_pages_and_stays_on_its_origin() {
    let site = Server::start(Gate::Cookie).await;
    let other = Server::start(Gate::Open).await;
    site.link_to(&other);
    let out = sitescan(scan_args(&site.url("/"), &[]), None).await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(last_line(&out).contains("HTTP 401"), "{}", last_line(&out));

    let dir = tempfile::tempdir().unwrap();
    let auth_file = dir.path().join("auth.json");
    std::fs::write(
        &auth_file,
        serde_json::json!({"cookies": [{"name": "sid", "value": COOKIE_VALUE}]}).to_string(),
    )
    .unwrap();
    let out = sitescan(
        scan_args(
            &site.url("/"),
            &["--auth", &auth_file.display().to_string()],
        ),
        None,
    )
    .await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let json = String::from_utf8(out.stdout.clone()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let got = pages(&report, &site.base);
    for p in private_pages() {
        assert!(got.contains(&p), "{p:?} not in {got:?}");
    }
    assert!(
        site.log()
            .iter()
            .any(|l| l.path == "/a/b/c"
                && cookie_of(l.cookie.as_deref(), "sid") == Some(COOKIE_VALUE))
    );
    assert!(!site.requested("/logout"));
    assert_other_origin_got_no_credentials(&other);
    assert_no_secret("the JSON report", &json);
    assert_no_secret("the log", &stderr(&out));

    // The same cookie from the command line.
    let cookie = format!("sid={COOKIE_VALUE}");
    let out = sitescan(scan_args(&site.url("/a/b"), &["--cookie", &cookie]), None).await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(pages(&report, &site.base).contains(&("/a/b/c".to_string(), 200)));
}

fn form_auth(password: &str, success: serde_json::Value) -> String {
    serde_json::json!({
        "login_form": {
            "page": "/login",
            "action": "/session",
            "fields": {"user": USER, "pass": password},
            "success": success
        }
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_form_with_a_csrf_token_signs_in_before_the_crawl() {
    let site = Server::start(Gate::Form).await;
    let other = Server::start(Gate::Open).await;
    site.link_to(&other);

    // Without credentials: redirected to the sign-in page, which is all the
    // scan sees.
    let out = sitescan(scan_args(&site.url("/"), &[]), None).await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = pages(&report, &site.base);
    assert!(!got.iter().any(|(p, _)| p.starts_with("/a")), "{got:?}");
    assert_eq!(report["pages"][0]["final_url"], site.url("/login"));

    let auth = form_auth(
        FORM_PASSWORD,
        serde_json::json!({"cookie": "sid", "url": "/a", "contains": "Level one"}),
    );
    let out = sitescan(scan_args(&site.url("/"), &["--auth", "-"]), Some(auth)).await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let json = String::from_utf8(out.stdout.clone()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let got = pages(&report, &site.base);
    for p in private_pages() {
        assert!(got.contains(&p), "{p:?} not in {got:?}");
    }
    // The sign-in: the form page, then the POST with its CSRF token and
    // the cookie the form page set.
    let log = site.log();
    let post = log
        .iter()
        .find(|l| l.method == "POST" && l.path == "/session")
        .expect("the form was posted");
    assert_eq!(cookie_of(post.cookie.as_deref(), "pre"), Some("visited"));
    let first_get_login = log.iter().position(|l| l.path == "/login").unwrap();
    let post_at = log.iter().position(|l| l.path == "/session").unwrap();
    assert!(first_get_login < post_at);
    // Every later page carried the session.
    assert!(log
        .iter()
        .any(|l| l.path == "/a/b/c" && cookie_of(l.cookie.as_deref(), "sid") == Some(SESSION)));
    assert!(!site.requested("/logout"), "{log:?}");
    assert_other_origin_got_no_credentials(&other);
    assert_no_secret("the JSON report", &json);
    assert_no_secret("the log", &stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_sign_in_check_fails_the_scan_saying_which() {
    let site = Server::start(Gate::Form).await;
    let wrong = "wrong-s3cret-pw";
    let out = sitescan(
        scan_args(&site.url("/"), &["--auth", "-"]),
        Some(form_auth(wrong, serde_json::json!({"cookie": "sid"}))),
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let line = last_line(&out);
    assert!(
        line.contains(&format!(
            "sign-in failed: the cookie `sid` was not set after posting the form to {}",
            site.url("/session")
        )),
        "{line}"
    );
    assert!(out.stdout.is_empty(), "a report was written");
    assert!(!stderr(&out).contains(wrong));
    // The scan stopped before the crawl.
    assert!(!site.requested("/a"));

    // A text the page must show after signing in, which it does not.
    let out = sitescan(
        scan_args(&site.url("/"), &["--auth", "-"]),
        Some(form_auth(
            wrong,
            serde_json::json!({"url": "/a", "contains": "Level one"}),
        )),
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        last_line(&out).contains(&format!(
            "sign-in failed: the success page {} answered HTTP 302 (redirected to {})",
            site.url("/a"),
            site.url("/login")
        )),
        "{}",
        last_line(&out)
    );
    assert!(!stderr(&out).contains(wrong));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_credentials_are_usage_errors_that_name_the_field() {
    let site = Server::start(Gate::Open).await;
    let cases: [(&[&str], Option<String>, &str); 5] = [
        (
            &["--auth", "-"],
            Some(r#"{"login_form": {"action": "http://example.invalid/login", "fields": {"u": "x"}}}"#.into()),
            "invalid credentials: login_form.action: `http://example.invalid/login` is not on the scan's origin",
        ),
        (
            &["--auth", "-"],
            Some(r#"{"sign_out_exclude": ["(oops"]}"#.into()),
            "invalid credentials: sign_out_exclude[0]: `(oops` is not a valid regular expression",
        ),
        (
            &["--auth", "-"],
            Some(r#"{"basic": "ann:hush-s3cret"}"#.into()),
            "the credentials in stdin are not valid: invalid type: string \"…\", expected struct BasicAuth",
        ),
        (&["--auth", "/nonexistent/auth.json"], None, "cannot read the credentials file /nonexistent/auth.json"),
        (&["--header", "no colon here"], None, "expected `Name: value`"),
    ];
    for (extra, stdin, want) in cases {
        let out = sitescan(scan_args(&site.url("/"), extra), stdin).await;
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{extra:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("hush-s3cret"));
    }
    assert!(
        site.log().is_empty(),
        "a bad credential still requested the site"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_mode_signs_in_with_browser_steps_on_a_javascript_page() {
    let site = Server::start(Gate::Script).await;
    let other = Server::start(Gate::Open).await;
    site.link_to(&other);
    let auth = serde_json::json!({
        "login_steps": [
            {"step": "goto", "url": "/login"},
            {"step": "fill", "selector": "#user", "value": USER},
            {"step": "fill", "selector": "#pass", "value": FORM_PASSWORD},
            {"step": "click", "selector": "#go"},
            {"step": "wait_for", "selector": "#welcome"}
        ]
    })
    .to_string();
    let out = sitescan(
        scan_args(&site.url("/"), &["--render", "--auth", "-"]),
        Some(auth),
    )
    .await;
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        stderr(&out)
    );
    let json = String::from_utf8(out.stdout.clone()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let got = pages(&report, &site.base);
    for p in private_pages() {
        assert!(got.contains(&p), "{p:?} not in {got:?}");
    }
    let log = site.log();
    // The browser posted the sign-in (through our interceptor)...
    assert!(
        log.iter()
            .any(|l| l.method == "POST" && l.path == "/api/login"),
        "{log:?}"
    );
    // ...and the crawler's own fetches carried the session it got.
    assert!(log
        .iter()
        .any(|l| l.path == "/a/b/c" && cookie_of(l.cookie.as_deref(), "sid") == Some(SESSION)));
    assert!(!site.requested("/logout"), "{log:?}");
    assert_other_origin_got_no_credentials(&other);
    assert_no_secret("the JSON report", &json);
    assert_no_secret("the log", &stderr(&out));

    // A step whose element never appears fails the scan, naming the step.
    let bad = serde_json::json!({
        "login_steps": [
            {"step": "goto", "url": "/login"},
            {"step": "fill", "selector": "#user", "value": USER},
            {"step": "fill", "selector": "#pass", "value": "wrong-s3cret-pw"},
            {"step": "click", "selector": "#go"},
            {"step": "wait_for", "selector": "#welcome"}
        ]
    })
    .to_string();
    let out = sitescan(
        scan_args(&site.url("/"), &["--render", "--auth", "-"]),
        Some(bad),
    )
    .await;
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        last_line(&out).contains(
            "sign-in failed: login step 5 (wait_for `#welcome`): no element matched within 15 s"
        ),
        "{}",
        last_line(&out)
    );
    assert!(!stderr(&out).contains("wrong-s3cret-pw"));
}
