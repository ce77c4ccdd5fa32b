//! Render mode with a real Chromium (Debian's `chromium`; a missing browser
//! fails these tests, it never skips them).
//!
//! The tests run as root in a container, where Chromium's sandbox cannot
//! start: they turn it off (`LaunchOptions::sandbox = false`, and
//! `SITESCAN_CHROMIUM_NO_SANDBOX=1` for the CLI). The service keeps it on and
//! runs its workers unprivileged (docs/src/render.md).
//!
//! Sites are served by a small in-memory server on 127.0.0.1 whose request
//! log is the proof: what the static scan and the browser fetched, and that a
//! second server standing for a refused address was never reached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use sitescan::browser::{configure, LaunchOptions};
use sitescan::{Report, Scanner, ScannerBuilder};

/// One canned answer: status, content type, body, extra headers.
#[derive(Clone)]
struct Canned {
    status: u16,
    content_type: &'static str,
    body: String,
    headers: Vec<(&'static str, String)>,
}

fn html(body: &str) -> Canned {
    canned(200, "text/html; charset=utf-8", body)
}

fn canned(status: u16, content_type: &'static str, body: &str) -> Canned {
    Canned {
        status,
        content_type,
        body: body.to_string(),
        headers: Vec::new(),
    }
}

fn redirect(to: &str) -> Canned {
    Canned {
        status: 302,
        content_type: "text/plain",
        body: String::new(),
        headers: vec![("location", to.to_string())],
    }
}

#[derive(Default)]
struct Site {
    pages: Mutex<HashMap<String, Canned>>,
    log: Mutex<Vec<String>>,
    /// When each logged request arrived, and its `Cookie` header.
    arrivals: Mutex<Vec<(String, std::time::Instant, Option<String>)>>,
}

/// A server on 127.0.0.1 answering from a table (404 otherwise) and logging
/// every request's path and query.
struct Server {
    port: u16,
    site: Arc<Site>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Server {
    async fn start() -> Server {
        let site = Arc::new(Site::default());
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
                .unwrap();
        });
        Server {
            port,
            site,
            _stop: tx,
        }
    }

    fn set(&self, path: &str, answer: Canned) {
        self.site
            .pages
            .lock()
            .unwrap()
            .insert(path.to_string(), answer);
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn log(&self) -> Vec<String> {
        self.site.log.lock().unwrap().clone()
    }

    fn count(&self, path: &str) -> usize {
        self.log().iter().filter(|p| *p == path).count()
    }

    /// `(path, arrival, Cookie header)` of every request, in order.
    fn arrivals(&self) -> Vec<(String, std::time::Instant, Option<String>)> {
        self.site.arrivals.lock().unwrap().clone()
    }
}

async fn answer(State(site): State<Arc<Site>>, req: Request) -> Response {
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    site.log.lock().unwrap().push(path.clone());
    let cookie = req
        .headers()
        .get("cookie")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    site.arrivals
        .lock()
        .unwrap()
        .push((path.clone(), std::time::Instant::now(), cookie));
    let found = site.pages.lock().unwrap().get(&path).cloned();
    let Some(c) = found else {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header("content-type", "text/plain")
            .body(Body::from("not found"))
            .unwrap();
    };
    let mut resp = Response::builder()
        .status(c.status)
        .header("content-type", c.content_type)
        .body(Body::from(c.body))
        .unwrap();
    for (name, value) in c.headers {
        resp.headers_mut()
            .insert(name, HeaderValue::from_str(&value).unwrap());
    }
    resp
}

/// The launch options of every test here: the sandbox off (root in a
/// container), short protocol timeouts so a hung tab is given up quickly.
fn browser_for_tests() {
    configure(LaunchOptions {
        sandbox: false,
        call_timeout: Duration::from_secs(5),
        ..LaunchOptions::from_env()
    });
}

fn scanner(rules: &[&str]) -> ScannerBuilder {
    browser_for_tests();
    Scanner::builder()
        .rules(rules)
        .allow_private(true)
        .rate_per_host(200.0)
        .max_pages(10)
}

/// `site` scanned from `/` in render mode, with [`scanner`]'s limits.
async fn render_scan(rules: &[&str], site: &Server) -> Report {
    scanner(rules)
        .render(true)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap()
}

/// Asserts that every page of `report` was fetched and rendered (no page
/// error), showing the pages when one was not.
fn assert_pages_loaded(report: &Report) {
    assert!(
        report.pages.iter().all(|p| p.error.is_none()),
        "{:?}",
        report.pages
    );
}

/// `(rule, page path, selector)` of every failed finding, sorted.
fn failures(report: &Report, port: u16) -> Vec<(String, String, String)> {
    let origin = format!("http://127.0.0.1:{port}");
    let mut out: Vec<(String, String, String)> = report
        .findings
        .iter()
        .filter(|f| f.outcome == sitescan::rules::Outcome::Failed)
        .map(|f| {
            (
                f.rule_id.clone(),
                f.page_url.trim_start_matches(&origin).to_string(),
                f.selector.clone(),
            )
        })
        .collect();
    out.sort();
    out
}

const APP_SHELL: &str = r#"<!doctype html>
<html lang="en"><head><title>Shop</title></head>
<body><main id="root"></main><script src="/app.js"></script></body></html>"#;

/// Builds the page from data it fetches: a heading, a link to a client-side
/// route, and an image without a text alternative; a menu button whose focus
/// outline its style sheet removes, and a date picker whose keydown handler
/// keeps focus in it (a keyboard trap).
const APP_JS: &str = r#"
const root = document.getElementById('root');
const h = document.createElement('h1');
h.textContent = 'Welcome';
root.appendChild(h);
const style = document.createElement('style');
style.textContent = '#menu:focus { outline: none }';
document.head.appendChild(style);
const menu = document.createElement('button');
menu.id = 'menu';
menu.textContent = 'Menu';
root.appendChild(menu);
const picker = document.createElement('div');
picker.id = 'picker';
picker.tabIndex = 0;
picker.textContent = 'Pick a date';
picker.addEventListener('keydown', (e) => {
  if (e.key === 'Tab') { e.preventDefault(); picker.focus(); }
});
root.appendChild(picker);
fetch('/api/hero.json').then(r => r.json()).then(d => {
  const a = document.createElement('a');
  a.href = d.link;
  a.textContent = 'About us';
  root.appendChild(a);
  const img = document.createElement('img');
  img.id = 'hero';
  img.src = d.src;
  root.appendChild(img);
});
"#;

async fn app_site() -> Server {
    let s = Server::start().await;
    s.set("/", html(APP_SHELL));
    s.set("/app.js", canned(200, "text/javascript", APP_JS));
    s.set(
        "/api/hero.json",
        canned(
            200,
            "application/json",
            r#"{"src": "/hero.png", "link": "/about"}"#,
        ),
    );
    s.set("/hero.png", canned(200, "image/png", "png"));
    s.set(
        "/about",
        html("<!doctype html><html lang=\"en\"><head><title>About</title></head><body><h1>About</h1></body></html>"),
    );
    s.set(
        "/robots.txt",
        canned(200, "text/plain", "User-agent: *\nAllow: /\n"),
    );
    s
}

#[tokio::test]
async fn static_scan_sees_the_shell_render_scan_sees_the_app() {
    let site = app_site().await;
    let rules = [
        "image-alt",
        "page-has-heading-one",
        "keyboard-trap",
        "focus-visible-rendered",
    ];

    let static_report = scanner(&rules)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_eq!(
        failures(&static_report, site.port),
        vec![(
            "page-has-heading-one".to_string(),
            "/".to_string(),
            String::new()
        )]
    );
    assert_eq!(static_report.pages.len(), 1, "the shell links nowhere");
    // The keyboard rules need a browser: a static scan neither fails nor
    // passes anything for them.
    for id in ["keyboard-trap", "focus-visible-rendered"] {
        let r = static_report.rules.iter().find(|r| r.rule_id == id);
        assert!(
            r.is_none_or(|r| r.pages_applicable == 0
                && r.passed == 0
                && r.failed == 0
                && r.cant_tell == 0),
            "{r:?}"
        );
    }
    assert_eq!(site.count("/app.js"), 0, "the static scan runs no script");

    let rendered = render_scan(&rules, &site).await;
    let row = |rule: &str, sel: &str| (rule.to_string(), "/".to_string(), sel.to_string());
    assert_eq!(
        failures(&rendered, site.port),
        vec![
            row("focus-visible-rendered", "#menu"),
            row("image-alt", "#hero"),
            row("keyboard-trap", "#picker"),
        ]
    );
    // The other elements were judged, and passed: focus leaves the page
    // from the menu button (Shift+Tab) and from the link the script
    // inserted after the trap (Tab, from the link focused directly); the
    // picker, which Tab reached, shows the browser's focus ring. The link
    // is not judged for its focus ring: Tab from the top never reaches it.
    let rule = |id: &str| rendered.rules.iter().find(|r| r.rule_id == id).unwrap();
    assert_eq!(
        (rule("keyboard-trap").passed, rule("keyboard-trap").failed),
        (2, 1)
    );
    assert_eq!(
        (
            rule("focus-visible-rendered").passed,
            rule("focus-visible-rendered").failed
        ),
        (1, 1)
    );
    let trap = rendered
        .findings
        .iter()
        .find(|f| f.rule_id == "keyboard-trap")
        .unwrap();
    assert_eq!(
        trap.message,
        "Focus cannot leave div#picker with Tab or Shift+Tab: it cycles among div#picker, and the page names no other key that lets it out."
    );
    // The link the script inserted fed the crawl.
    let pages: Vec<&str> = rendered.pages.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(pages, [site.url("/"), site.url("/about")]);
    assert_pages_loaded(&rendered);
    // One fetch per URL for the documents (the browser is served the static
    // fetch's answer), the page's own requests once each through the
    // interceptor.
    assert_eq!(site.count("/"), 2, "one static fetch per scan");
    assert_eq!(site.count("/about"), 1, "only the render scan finds it");
    assert_eq!(site.count("/app.js"), 1);
    assert_eq!(site.count("/api/hero.json"), 1);
    assert_eq!(site.count("/hero.png"), 1);
}

/// A page of a link, a keyboard trap and 16 links: `trap` is the element
/// and `script` what makes it one. (Early in the tab order, so that a walk
/// that waits after each press, once a script moved focus, ends in budget.)
fn long_page(trap: &str, script: &str) -> String {
    let links: String = (0..16)
        .map(|i| format!("<p><a href=\"#l{i}\">Link {i}</a></p>"))
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Long</title></head><body><h1>Long</h1><p><a href=\"#top\">Top</a></p>{trap}{links}<script>{script}</script></body></html>"
    )
}

/// Keyboard traps made on key-down and on key-up, on pages long enough
/// (18 elements in the tab order) that a walk cheaper per press, sending
/// key-downs alone where no script listens to key-ups, would be used: a trap
/// made by a key-up handler, registered from the start or only once its
/// element is focused, must be found as well as one made on key-down.
#[tokio::test]
async fn the_walk_finds_traps_made_on_key_down_and_on_key_up() {
    let site = Server::start().await;
    s_set_pages(&site);
    let report = render_scan(&["keyboard-trap"], &site).await;
    let row = |path: &str, sel: &str| {
        (
            "keyboard-trap".to_string(),
            path.to_string(),
            sel.to_string(),
        )
    };
    assert_eq!(
        failures(&report, site.port),
        vec![
            row("/down", "#picker"),
            row("/late", "#t"),
            row("/up", "#t")
        ]
    );
    let rule = report
        .rules
        .iter()
        .find(|r| r.rule_id == "keyboard-trap")
        .unwrap();
    // Every link leaves the page: 3 on the index, 17 on each page.
    assert_eq!((rule.passed, rule.failed), (54, 3));
    assert_pages_loaded(&report);
}

/// A page with a trap of two buttons (each one's blur sends focus to the
/// other) that `key` (pressed with Ctrl) lets out, and `said` as its text.
fn exit_key_page(said: &str, key: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Editor</title></head><body><h1>Editor</h1><p>{said}</p>\
         <a href=\"#top\">Top</a> <button id=\"x\">Bold</button> <button id=\"y\">Italic</button> <a id=\"end\" href=\"#end\">End</a>\
         <script>let held = false; const x = document.getElementById('x'); const y = document.getElementById('y');\
         x.addEventListener('focus', () => {{ held = true; }}); y.addEventListener('focus', () => {{ held = true; }});\
         x.addEventListener('blur', () => {{ if (held) y.focus(); }}); y.addEventListener('blur', () => {{ if (held) x.focus(); }});\
         document.addEventListener('keydown', (e) => {{ if (e.ctrlKey && e.key.toLowerCase() === '{key}') {{ held = false; document.getElementById('end').focus(); }} }});</script>\
         </body></html>"
    )
}

/// A modal dialog keeping focus inside; Escape closes it when `closes`.
fn modal_page(closes: bool) -> String {
    let escape = if closes {
        "d.addEventListener('keydown', (e) => { if (e.key === 'Escape') { d.style.display = 'none'; document.getElementById('after').focus(); } });"
    } else {
        ""
    };
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Dialog</title></head><body><h1>Dialog</h1><a href=\"#top\">Top</a>\
         <div id=\"d\" role=\"dialog\" aria-modal=\"true\" aria-label=\"Sign up\"><input id=\"name\" aria-label=\"Name\"> <button id=\"ok\">OK</button></div>\
         <a id=\"after\" href=\"#after\">After</a>\
         <script>const d = document.getElementById('d'); const name = document.getElementById('name'); const ok = document.getElementById('ok');\
         name.addEventListener('keydown', (e) => {{ if (e.key === 'Tab' && e.shiftKey) {{ e.preventDefault(); ok.focus(); }} }});\
         ok.addEventListener('keydown', (e) => {{ if (e.key === 'Tab' && !e.shiftKey) {{ e.preventDefault(); name.focus(); }} }});\
         {escape} window.addEventListener('load', () => name.focus());</script></body></html>"
    )
}

/// WCAG 2.1.2 allows a trap that a key the page names lets out: the walk
/// presses the keys a page names in a sentence about leaving, and Escape in
/// a modal dialog, from inside the trap. A key that frees focus passes; a
/// trap whose page names no key, or whose named key does not free it, or a
/// modal dialog Escape does not close, fails with the reason in its data.
#[tokio::test]
async fn the_walk_presses_the_keys_a_page_names_to_leave_a_trap() {
    let site = Server::start().await;
    site.set(
        "/",
        html("<!doctype html><html lang=\"en\"><head><title>Index</title></head><body><h1>Index</h1><a href=\"/named\">named</a> <a href=\"/unnamed\">unnamed</a> <a href=\"/wrong\">wrong</a> <a href=\"/modal\">modal</a> <a href=\"/stuck\">stuck</a></body></html>"),
    );
    site.set(
        "/named",
        html(&exit_key_page(
            "In the editor, press Ctrl+M to leave it.",
            "m",
        )),
    );
    site.set("/unnamed", html(&exit_key_page("Write your text.", "m")));
    site.set(
        "/wrong",
        html(&exit_key_page(
            "In the editor, press Ctrl+M to leave it.",
            "k",
        )),
    );
    site.set("/modal", html(&modal_page(true)));
    site.set("/stuck", html(&modal_page(false)));
    let report = render_scan(&["keyboard-trap"], &site).await;
    let origin = format!("http://127.0.0.1:{}", site.port);
    let mut got: Vec<(String, String, String)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "keyboard-trap")
        .map(|f| {
            let reason = f
                .data
                .as_ref()
                .and_then(|d| d.get("reason"))
                .and_then(|r| r.as_str())
                .unwrap_or("")
                .to_string();
            (
                f.page_url.trim_start_matches(&origin).to_string(),
                format!("{:?}", f.outcome),
                reason,
            )
        })
        .collect();
    got.sort();
    got.dedup();
    let row = |p: &str, o: &str, r: &str| (p.to_string(), o.to_string(), r.to_string());
    // On the two pages whose trap no key frees, the link after the trap
    // cannot keep focus (the trap's blur handler takes it back), so the
    // walk cannot judge it: a review item there, not a pass. On `/named`
    // the documented key frees the trap and that link is walked again.
    assert_eq!(
        got,
        vec![
            row("/stuck", "Failed", "modal-dialog"),
            row("/unnamed", "CantTell", "walk-incomplete"),
            row("/unnamed", "Failed", "no-instructions"),
            row("/wrong", "CantTell", "walk-incomplete"),
            row("/wrong", "Failed", "exit-fails"),
        ],
        "{:#?}",
        report.findings
    );
    assert_pages_loaded(&report);
}

/// A page whose body listens for `+` (adding an item to a list, the key
/// cancelled) when `condition` holds, with `extra` before the list and
/// `script` after the listener.
fn shortcut_page(title: &str, extra: &str, condition: &str, script: &str) -> Canned {
    html(&format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body><h1>{title}</h1>{extra}<ul id=\"list\"></ul>\
         <script>document.body.addEventListener('keydown', (e) => {{ if (e.key === '+' && ({condition})) {{ document.getElementById('list').insertAdjacentHTML('beforeend', '<li>item</li>'); e.preventDefault(); }} }}); {script}</script>\
         </body></html>"
    ))
}

/// WCAG 2.1.4 in the browser: a `+` shortcut with nothing to turn it off
/// fails, naming the key; one a checkbox remaps to Ctrl+`+` passes on that
/// checkbox; one whose "off" checkbox a "Keyboard shortcuts" button shows
/// passes, while the same checkbox behind a button named "More" is not
/// looked for; one that needs Ctrl already is no shortcut of one
/// character; a page whose listener marks every key press alike (as
/// input-tracking libraries do) has none either. A page whose only other
/// way is a link to the site's settings page (an image link, "change
/// settings", as rustdoc's) is for review, naming the link; a link named
/// "Options" alone leaves the shortcut failed.
#[tokio::test]
async fn render_mode_finds_single_key_shortcuts_and_the_controls_that_remap_them() {
    let site = Server::start().await;
    site.set(
        "/",
        html("<!doctype html><html lang=\"en\"><head><title>Index</title></head><body><h1>Index</h1><a href=\"/single\">single</a> <a href=\"/remap\">remap</a> <a href=\"/modifier\">modifier</a> <a href=\"/any-key\">any key</a> <a href=\"/opener\">opener</a> <a href=\"/unnamed\">unnamed</a> <a href=\"/settings-link\">settings link</a> <a href=\"/options-link\">options link</a></body></html>"),
    );
    let wheel = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='22' height='22'%3E%3Ccircle cx='11' cy='11' r='9'/%3E%3C/svg%3E";
    site.set(
        "/settings-link",
        shortcut_page(
            "Settings link",
            &format!("<a id=\"gear\" href=\"/settings\"><img width=\"22\" height=\"22\" alt=\"change settings\" src=\"{wheel}\"></a>"),
            "true",
            "",
        ),
    );
    site.set(
        "/options-link",
        shortcut_page(
            "Options link",
            "<a href=\"/options\">Options</a>",
            "true",
            "",
        ),
    );
    for path in ["/settings", "/options"] {
        site.set(
            path,
            html("<!doctype html><html lang=\"en\"><head><title>Settings</title></head><body><h1>Settings</h1></body></html>"),
        );
    }
    let behind = |opener: &str| {
        format!(
            "<button id=\"open\" onclick=\"document.getElementById('settings').hidden = false\">{opener}</button>\
             <div id=\"settings\" hidden><label><input type=\"checkbox\" id=\"off\"> Turn off the \"+\" key</label></div>"
        )
    };
    site.set(
        "/opener",
        shortcut_page(
            "Opener",
            &behind("Keyboard shortcuts"),
            "!document.getElementById('off').checked",
            "",
        ),
    );
    site.set(
        "/unnamed",
        shortcut_page(
            "Unnamed",
            &behind("More"),
            "!document.getElementById('off').checked",
            "",
        ),
    );
    site.set("/single", shortcut_page("Single", "", "true", ""));
    site.set(
        "/remap",
        shortcut_page(
            "Remap",
            "<p>Shortcut settings</p><label><input type=\"checkbox\" id=\"ctrl\"> Use Ctrl with the \"+\" key</label>",
            "!document.getElementById('ctrl').checked || e.ctrlKey",
            "",
        ),
    );
    site.set("/modifier", shortcut_page("Modifier", "", "e.ctrlKey", ""));
    site.set(
        "/any-key",
        shortcut_page(
            "Any key",
            "",
            "false",
            "document.addEventListener('keydown', () => document.documentElement.setAttribute('data-input', 'keyboard'));",
        ),
    );
    site.set(
        "/robots.txt",
        canned(200, "text/plain", "User-agent: *\nAllow: /\n"),
    );
    let report = scanner(&["character-key-shortcuts"])
        .max_pages(12)
        .render(true)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_pages_loaded(&report);
    assert_eq!(report.pages.len(), 11);
    let origin = format!("http://127.0.0.1:{}", site.port);
    let mut got: Vec<(String, String, String, String)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "character-key-shortcuts")
        .map(|f| {
            let data = f.data.clone().unwrap_or_default();
            (
                f.page_url.trim_start_matches(&origin).to_string(),
                format!("{:?}", f.outcome),
                f.message.clone(),
                format!("{} {} {}", data["reason"], data["key"], data["effects"]),
            )
        })
        .collect();
    let failed = |path: &str| {
        (
            path.to_string(),
            "Failed".to_string(),
            "Pressing the \"+\" key alone (without Ctrl, Alt or Meta) acts on this page (it changed the page's content, a script handled it), and no control on this page turns that shortcut off or remaps it to a combination with Ctrl, Alt or Meta.".to_string(),
            r#""no-mechanism" "+" ["dom","prevented"]"#.to_string(),
        )
    };
    got.sort();
    assert_eq!(
        got,
        vec![
            failed("/options-link"),
            (
                "/settings-link".to_string(),
                "CantTell".to_string(),
                "Pressing the \"+\" key alone (without Ctrl, Alt or Meta) acts on this page (it changed the page's content, a script handled it). No control tried on this page turns that shortcut off or remaps it, but a#gear (change settings) may lead to a setting that does: check it.".to_string(),
                r#""settings-elsewhere" "+" ["dom","prevented"]"#.to_string(),
            ),
            failed("/single"),
            failed("/unnamed")
        ],
        "{:#?}",
        report.findings
    );
    let rule = report
        .rules
        .iter()
        .find(|r| r.rule_id == "character-key-shortcuts")
        .unwrap();
    // The remap checkbox and the one the opener shows pass; the other
    // pages have no shortcut.
    assert_eq!((rule.passed, rule.failed, rule.cant_tell), (2, 3, 1));
    // Nothing was fetched for the keys or the clicks: each document once
    // (the static fetch).
    for path in [
        "/",
        "/single",
        "/remap",
        "/modifier",
        "/any-key",
        "/opener",
        "/unnamed",
        "/settings-link",
        "/settings",
        "/options-link",
        "/options",
    ] {
        assert_eq!(site.count(path), 1, "{path}: {:?}", site.log());
    }
}

fn s_set_pages(site: &Server) {
    site.set(
        "/",
        html("<!doctype html><html lang=\"en\"><head><title>Index</title></head><body><h1>Index</h1><a href=\"/down\">down</a> <a href=\"/up\">up</a> <a href=\"/late\">late</a></body></html>"),
    );
    site.set(
        "/down",
        html(&long_page(
            "<div id=\"picker\" tabindex=\"0\">Pick a date</div>",
            "const p = document.getElementById('picker'); p.addEventListener('keydown', (e) => { if (e.key === 'Tab') { e.preventDefault(); p.focus(); } });",
        )),
    );
    // Tab and Shift+Tab move focus off `t` on key-down; the key-up puts it
    // back.
    let up = "const t = document.getElementById('t'); let leaving = false; t.addEventListener('keydown', (e) => { if (e.key === 'Tab') leaving = true; }); const back = () => { if (leaving) { leaving = false; t.focus(); } };";
    site.set(
        "/up",
        html(&long_page(
            "<div id=\"t\" tabindex=\"0\">Menu</div>",
            &format!("{up} document.addEventListener('keyup', back);"),
        )),
    );
    site.set(
        "/late",
        html(&long_page(
            "<div id=\"t\" tabindex=\"0\">Menu</div>",
            &format!("{up} t.addEventListener('focus', () => document.addEventListener('keyup', back), {{ once: true }});"),
        )),
    );
    site.set(
        "/robots.txt",
        canned(200, "text/plain", "User-agent: *\nAllow: /\n"),
    );
}

/// Every route a page's script has to another server, each next to the same
/// route to the site itself (which must arrive: the script did run).
fn attack_page(victim: u16) -> String {
    let v = format!("127.0.0.1:{victim}");
    let by_name = format!("localhost:{victim}");
    format!(
        r#"<!doctype html><html lang="en"><head><title>Attack</title>
<link rel="stylesheet" href="http://{v}/css">
<link rel="stylesheet" href="/ok-css">
</head><body>
<img src="http://{v}/img" alt="x"><img src="/ok-img" alt="x">
<img src="/redirect-out" alt="x"><img src="/redirect-in" alt="x">
<iframe src="http://{v}/iframe" title="a"></iframe>
<iframe src="http://{by_name}/iframe-by-name" title="b"></iframe>
<iframe src="/redirect-doc" title="c"></iframe>
<iframe src="/ok-iframe" title="d"></iframe>
<script>
fetch('http://{v}/fetch').catch(() => {{}});
fetch('http://{by_name}/fetch-by-name').catch(() => {{}});
fetch('/ok-fetch');
const x = new XMLHttpRequest(); x.open('GET', 'http://{v}/xhr'); x.send();
const y = new XMLHttpRequest(); y.open('GET', '/ok-xhr'); y.send();
try {{ navigator.sendBeacon('http://{v}/beacon', 'b'); }} catch (e) {{}}
try {{ new EventSource('http://{v}/sse'); }} catch (e) {{}}
try {{ new WebSocket('ws://{v}/ws'); }} catch (e) {{}}
try {{ new WebSocket('ws://{by_name}/ws-by-name'); }} catch (e) {{}}
try {{ new Worker('/ok-worker.js'); }} catch (e) {{}}
try {{ window.open('http://{v}/popup'); }} catch (e) {{}}
if (navigator.serviceWorker) {{ navigator.serviceWorker.register('/sw.js').catch(() => {{}}); }}
setTimeout(() => {{ location.href = 'http://{v}/navigate'; }}, 50);
</script></body></html>"#
    )
}

#[tokio::test]
async fn a_rendered_page_reaches_no_refused_address_by_any_route() {
    let victim = Server::start().await;
    victim.set("/fetch", canned(200, "text/plain", "secret"));
    let site = Server::start().await;
    site.set("/", html(&attack_page(victim.port)));
    site.set("/redirect-out", redirect(&victim.url("/redirected")));
    site.set("/redirect-doc", redirect(&victim.url("/redirected-doc")));
    site.set("/redirect-in", redirect("/ok-target.png"));
    site.set("/ok-target.png", canned(200, "image/png", "png"));
    site.set("/ok-img", canned(200, "image/png", "png"));
    site.set("/ok-css", canned(200, "text/css", "body { color: black }"));
    site.set("/ok-fetch", canned(200, "text/plain", "ok"));
    site.set("/ok-xhr", canned(200, "text/plain", "ok"));
    site.set("/ok-iframe", html("<!doctype html><title>f</title>"));
    site.set(
        "/ok-worker.js",
        canned(
            200,
            "text/javascript",
            &format!(
                "fetch('http://127.0.0.1:{}/from-worker').catch(() => {{}});",
                victim.port
            ),
        ),
    );

    let report = scanner(&["image-alt"])
        .render(true)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_eq!(report.pages[0].error, None);
    assert_eq!(victim.log(), Vec::<String>::new(), "the victim was reached");
    // The same routes to the site itself went through: the script ran and
    // the guard refused only what it should.
    for path in [
        "/ok-css",
        "/ok-img",
        "/redirect-in",
        "/ok-target.png",
        "/ok-iframe",
        "/ok-fetch",
        "/ok-xhr",
        "/redirect-out",
        "/redirect-doc",
    ] {
        assert_eq!(site.count(path), 1, "{path}: {:?}", site.log());
    }
    assert_eq!(site.count("/sw.js"), 0, "service workers are disabled");
}

#[tokio::test]
async fn a_hung_tab_is_given_up_and_the_scan_goes_on() {
    let site = app_site().await;
    site.set(
        "/",
        html(r#"<!doctype html><html lang="en"><head><title>Home</title></head><body><h1>Home</h1><a href="/hang">x</a> <a href="/app">y</a></body></html>"#),
    );
    site.set(
        "/hang",
        html("<!doctype html><html lang=\"en\"><head><title>Hang</title></head><body><h1>Hang</h1><script>while (true) {}</script></body></html>"),
    );
    site.set("/app", html(APP_SHELL));
    let report = scanner(&["image-alt"])
        .render(true)
        .render_options(sitescan::RenderOptions {
            max_wait_ms: 1500,
            ..sitescan::RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    let page = |path: &str| {
        report
            .pages
            .iter()
            .find(|p| p.url == site.url(path))
            .unwrap_or_else(|| panic!("{path} not scanned"))
    };
    let hung = page("/hang").error.clone().unwrap_or_default();
    assert!(
        hung.starts_with("render failed: the browser did not answer"),
        "{hung}"
    );
    assert_eq!(page("/app").error, None);
    assert_eq!(
        failures(&report, site.port),
        vec![(
            "image-alt".to_string(),
            "/app".to_string(),
            "#hero".to_string()
        )]
    );
}

#[test]
fn cli_render_flag_and_a_missing_browser() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(app_site());
    let run = |envs: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sitescan"));
        cmd.args([
            "scan",
            "--render",
            "--rules",
            "image-alt",
            "--max-pages",
            "1",
            "--format",
            "json",
            &site.url("/"),
        ]);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let out = run(&[("SITESCAN_CHROMIUM", "/nonexistent/chromium")]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("install Debian's `chromium` package"),
        "{stderr}"
    );
    assert_eq!(site.count("/app.js"), 0);

    // Root in a container: the sandbox is off for this run only.
    let out = run(&[("SITESCAN_CHROMIUM_NO_SANDBOX", "1")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    let selectors: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule_id"] == "image-alt" && f["outcome"] == "failed")
        .filter_map(|f| f["selector"].as_str())
        .collect();
    assert_eq!(selectors, ["#hero"]);
    assert_eq!(report["config"]["render"], true);
    assert_eq!(site.count("/app.js"), 1);
}

/// A page's WebSocket is not something the interceptor can pause: the
/// browser sends it to its proxy, the sink, which refuses it. The sink's own
/// record names the connection, and the WebSocket server never sees one.
#[tokio::test]
async fn the_proxy_sink_is_what_refuses_a_pages_websocket() {
    let ws = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ws_port = ws.local_addr().unwrap().port();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    let server = tokio::spawn(async move {
        while let Ok((_sock, _)) = ws.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let site = Server::start().await;
    site.set(
        "/",
        html(&format!(
            r#"<!doctype html><html lang="en"><head><title>Live</title></head><body><h1>Live</h1>
<script>
const s = new WebSocket('ws://127.0.0.1:{ws_port}/feed');
s.onerror = () => {{ fetch('/ws-failed'); }};
</script></body></html>"#
        )),
    );
    site.set("/ws-failed", canned(200, "text/plain", "ok"));
    let report = scanner(&["image-alt"])
        .render(true)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_eq!(report.pages[0].error, None);
    // The script ran and saw its socket fail.
    assert_eq!(site.count("/ws-failed"), 1, "{:?}", site.log());
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 0);
    let target = format!("CONNECT 127.0.0.1:{ws_port} ");
    assert!(
        sitescan::browser::sink_requests()
            .iter()
            .any(|l| l.starts_with(&target)),
        "the sink did not see {target}: {:?}",
        sitescan::browser::sink_requests()
    );
    server.abort();
}

/// The requests a page's script makes to the scanned site wait for the
/// scan's per-host rate, as the crawl's own do: the server's clock shows it.
#[tokio::test]
async fn a_pages_fetches_keep_the_scans_rate_per_host() {
    let site = Server::start().await;
    site.set(
        "/",
        html(
            r#"<!doctype html><html lang="en"><head><title>Burst</title></head><body><h1>Burst</h1>
<script>for (let i = 0; i < 12; i++) fetch('/api/item?i=' + i);</script></body></html>"#,
        ),
    );
    for i in 0..12 {
        site.set(
            &format!("/api/item?i={i}"),
            canned(200, "application/json", "{}"),
        );
    }
    let rate = 8.0;
    let report = scanner(&["image-alt"])
        .render(true)
        .rate_per_host(rate)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_eq!(report.pages[0].error, None);
    let times: Vec<std::time::Instant> = site
        .arrivals()
        .into_iter()
        .filter(|(p, _, _)| p.starts_with("/api/item"))
        .map(|(_, t, _)| t)
        .collect();
    assert_eq!(times.len(), 12, "{:?}", site.log());
    let interval = Duration::from_secs_f64(1.0 / rate);
    // Each request waits its turn: the twelve span eleven intervals, and no
    // two arrive closer than half of one (the server's clock is not the
    // limiter's).
    let span = times[11] - times[0];
    assert!(span >= interval * 11 * 9 / 10, "{span:?}");
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] >= interval / 2, "{:?}", pair[1] - pair[0]);
    }
}

/// A DOM a script builds is held to the scan's body cap as a fetched body
/// is: the page says so, and what was taken is analyzed up to the cap.
#[tokio::test]
async fn a_rendered_dom_is_capped_at_the_body_cap() {
    let site = Server::start().await;
    site.set(
        "/",
        html(r#"<!doctype html><html lang="en"><head><title>Huge</title></head><body><h1>Huge</h1><img id="first" src="/a.png">
<script>
const p = document.createElement('div');
p.innerHTML = '<p>' + 'x'.repeat(1000) + '</p>';
for (let i = 0; i < 400; i++) document.body.appendChild(p.cloneNode(true));
const img = document.createElement('img');
img.id = 'last';
document.body.appendChild(img);
</script></body></html>"#),
    );
    site.set("/a.png", canned(200, "image/png", "png"));
    let cap = 50_000;
    let report = scanner(&["image-alt"])
        .render(true)
        .max_body_bytes(cap)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&site.url("/"))
        .await
        .unwrap();
    assert_eq!(
        report.pages[0].error.as_deref(),
        Some("rendered DOM larger than 50000 bytes; analyzed up to the cap")
    );
    // The image before the cap is judged, the one past it is not.
    assert_eq!(
        failures(&report, site.port),
        vec![(
            "image-alt".to_string(),
            "/".to_string(),
            "#first".to_string()
        )]
    );
}

/// A cookie the site sets on its first answer is sent back on the page's
/// later requests to the site within the scan; a second scan starts
/// without it.
#[tokio::test]
async fn cookies_the_site_sets_come_back_within_a_scan_never_across_scans() {
    let site = Server::start().await;
    let mut home = html(
        r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1><a href="/cart">Cart</a>
<script>fetch('/api/me');</script></body></html>"#,
    );
    home.headers
        .push(("set-cookie", "session=abc123; Path=/; HttpOnly".to_string()));
    site.set("/", home);
    site.set("/api/me", canned(200, "application/json", "{}"));
    site.set(
        "/cart",
        html(
            r#"<!doctype html><html lang="en"><head><title>Cart</title></head><body><h1>Cart</h1>
<script>fetch('/api/cart');</script></body></html>"#,
        ),
    );
    site.set("/api/cart", canned(200, "application/json", "{}"));
    let scan = || async {
        scanner(&["image-alt"])
            .render(true)
            .max_pages(2)
            .build()
            .unwrap()
            .scan(&site.url("/"))
            .await
            .unwrap()
    };
    let cookie_of = |path: &str, nth: usize| {
        site.arrivals()
            .into_iter()
            .filter(|(p, _, _)| p == path)
            .nth(nth)
            .map(|(_, _, c)| c)
    };
    let first = scan().await;
    assert_pages_loaded(&first);
    assert_eq!(
        cookie_of("/api/me", 0),
        Some(Some("session=abc123".to_string()))
    );
    assert_eq!(
        cookie_of("/api/cart", 0),
        Some(Some("session=abc123".to_string()))
    );
    // A second scan: the server no longer sets the cookie, and the browser
    // context of the first scan is gone with it.
    site.set(
        "/",
        html(
            r#"<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1>
<script>fetch('/api/me');</script></body></html>"#,
        ),
    );
    let second = scan().await;
    assert!(second.pages.iter().all(|p| p.error.is_none()));
    assert_eq!(cookie_of("/api/me", 1), Some(None));
}

/// A page of the collapsible-navigation site: a control (`control`, placed
/// first) that runs `toggle()` (`script`), the navigation `#menu` linking
/// every page, `extra` after it, then the page's own content (no landmark,
/// no heading: only a control can bypass the navigation).
fn collapse_page(control: &str, script: &str, extra: &str) -> Canned {
    html(&format!(
        r#"<!doctype html><html lang="en"><head><title>Shop</title><script>{script}</script></head>
<body>{control}
<nav id="menu"><a href="/">Home</a> <a href="/aria">Aria</a> <a href="/offscreen">Offscreen</a> <a href="/half">Half</a> <a href="/plain">Plain</a></nav>
{extra}<div><p>Welcome to the shop.</p></div></body></html>"#
    ))
}

#[tokio::test]
async fn render_mode_sees_which_toggles_collapse_the_navigation() {
    const BUTTON: &str = r#"<button id="toggle" onclick="toggle()">Menu</button>"#;
    let s = Server::start().await;
    // `hidden` takes the navigation off the screen and out of the
    // accessibility tree: collapsible.
    s.set(
        "/",
        collapse_page(
            BUTTON,
            "function toggle() { const n = document.getElementById('menu'); n.hidden = !n.hidden; }",
            "",
        ),
    );
    // Only aria-hidden: still on the screen.
    s.set(
        "/aria",
        collapse_page(
            BUTTON,
            "function toggle() { document.getElementById('menu').setAttribute('aria-hidden', 'true'); }",
            "",
        ),
    );
    // Moved off the screen: still read by screen readers and focusable.
    s.set(
        "/offscreen",
        collapse_page(
            r##"<a href="#" id="toggle" onclick="toggle()">Toggle menu</a>"##,
            "function toggle() { const n = document.getElementById('menu'); n.style.position = 'absolute'; n.style.left = '-9999px'; }",
            "",
        ),
    );
    // The navigation collapses, the sidebar after it does not.
    s.set(
        "/half",
        collapse_page(
            BUTTON,
            "function toggle() { document.getElementById('menu').style.display = 'none'; }",
            r#"<aside id="about"><p>About the shop</p></aside>"#,
        ),
    );
    // No control at all.
    s.set("/plain", collapse_page("", "", ""));
    let rules = ["repeated-block-collapsible", "bypass"];
    let row =
        |rule: &str, page: &str, sel: &str| (rule.to_string(), page.to_string(), sel.to_string());

    // Statically the scripts cannot be run: the pages with a control are
    // cannot tell, the one without fails.
    let static_report = scanner(&rules)
        .build()
        .unwrap()
        .scan(&s.url("/"))
        .await
        .unwrap();
    assert_eq!(static_report.pages.len(), 5);
    assert_eq!(
        failures(&static_report, s.port),
        vec![
            row("bypass", "/plain", ""),
            row("repeated-block-collapsible", "/plain", "#menu"),
        ]
    );
    let cant_tell = |report: &Report, id: &str| {
        report
            .rules
            .iter()
            .find(|r| r.rule_id == id)
            .map_or(0, |r| r.cant_tell)
    };
    assert_eq!(cant_tell(&static_report, "repeated-block-collapsible"), 4);
    assert_eq!(cant_tell(&static_report, "bypass"), 4);

    // Rendered, every control is activated: only `hidden` and
    // `display: none` collapse, and only the blocks they reach. (Without
    // pictures; a scan with them activates as well, see
    // `a_screenshot_scan_activates_controls_and_pictures_the_page_as_judged`.)
    let rendered = scanner(&rules)
        .render(true)
        .render_options(sitescan::RenderOptions {
            screenshots: sitescan::ScreenshotOptions {
                enabled: false,
                ..sitescan::ScreenshotOptions::default()
            },
            ..sitescan::RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(&s.url("/"))
        .await
        .unwrap();
    assert_pages_loaded(&rendered);
    assert_eq!(
        failures(&rendered, s.port),
        vec![
            row("bypass", "/aria", ""),
            row("bypass", "/half", ""),
            row("bypass", "/offscreen", ""),
            row("bypass", "/plain", ""),
            row("repeated-block-collapsible", "/aria", "#menu"),
            row("repeated-block-collapsible", "/half", "#about"),
            row("repeated-block-collapsible", "/offscreen", "#menu"),
            row("repeated-block-collapsible", "/plain", "#menu"),
        ]
    );
    assert_eq!(cant_tell(&rendered, "repeated-block-collapsible"), 0);
    let rule = rendered
        .rules
        .iter()
        .find(|r| r.rule_id == "repeated-block-collapsible")
        .unwrap();
    assert_eq!((rule.passed, rule.failed), (1, 4));
}

/// A page of the activation site: a style sheet of its own
/// (`/style.css?p={name}`, so the log tells which page loaded it), `control`
/// first, the navigation `#menu` holding `logo` and a link to every page,
/// then the page's own content (`<div id="main">`, no landmark, no heading:
/// only a control or a link can bypass the navigation).
fn activation_page(name: &str, control: &str, logo: &str) -> Canned {
    html(&format!(
        r#"<!doctype html><html lang="en"><head><title>Shop</title><link rel="stylesheet" href="/style.css?p={name}"></head>
<body>{control}
<nav id="menu">{logo}<a href="/">Home</a> <a href="/toggle">Toggle</a> <a href="/plain">Plain</a></nav>
<div id="main"><p>Welcome to the shop.</p></div></body></html>"#
    ))
}

/// `(rule, page path, outcome, selector)` of every finding, sorted.
fn finding_rows(report: &Report, port: u16) -> Vec<(String, String, String, String)> {
    let origin = format!("http://127.0.0.1:{port}");
    let mut out: Vec<_> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.rule_id.clone(),
                f.page_url.trim_start_matches(&origin).to_string(),
                format!("{:?}", f.outcome),
                f.selector.clone(),
            )
        })
        .collect();
    out.sort();
    out
}

/// `(rule, passed, failed, cant tell)` of each rule, sorted.
fn rule_counts(report: &Report) -> Vec<(String, u64, u64, u64)> {
    let mut out: Vec<_> = report
        .rules
        .iter()
        .map(|r| (r.rule_id.clone(), r.passed, r.failed, r.cant_tell))
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_screenshot_scan_activates_controls_and_pictures_the_page_as_judged() {
    let s = Server::start().await;
    // A scripted skip button moving to the content.
    s.set(
        "/",
        activation_page(
            "skip",
            r#"<button id="skip" onclick="location.assign('#main')">Skip to content</button>"#,
            "",
        ),
    );
    // A toggle hiding the navigation, whose logo has no text alternative:
    // pictured as judged (the navigation shown), never as the toggle left
    // it (no box, no picture).
    s.set(
        "/toggle",
        activation_page(
            "toggle",
            r#"<button id="toggle" onclick="document.getElementById('menu').hidden = true">Hide the menu</button>"#,
            r#"<img id="logo" src="/logo.svg" width="40" height="40"> "#,
        ),
    );
    // No candidate control: nothing runs after it is judged.
    s.set("/plain", activation_page("plain", "", ""));
    for name in ["skip", "toggle", "plain"] {
        s.set(
            &format!("/style.css?p={name}"),
            canned(
                200,
                "text/css",
                "html, body { margin: 0; background: #fff } #menu { padding: 24px }",
            ),
        );
    }
    s.set(
        "/logo.svg",
        canned(
            200,
            "image/svg+xml",
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00aa00"/></svg>"##,
        ),
    );
    let rules = [
        "bypass",
        "skip-link",
        "repeated-block-collapsible",
        "image-alt",
    ];
    let url = s.url("/");
    let url = url.as_str();
    let scan = |screenshots: bool| async move {
        scanner(&rules)
            .render(true)
            .render_options(sitescan::RenderOptions {
                screenshots: sitescan::ScreenshotOptions {
                    enabled: screenshots,
                    ..sitescan::ScreenshotOptions::default()
                },
                ..sitescan::RenderOptions::default()
            })
            .build()
            .unwrap()
            .scan(url)
            .await
            .unwrap()
    };

    let without = scan(false).await;
    let log_without = s.log();
    let with = scan(true).await;
    let log_with = s.log().split_off(log_without.len());
    for report in [&without, &with] {
        assert!(
            report.pages.iter().all(|p| p.error.is_none()),
            "{:?}",
            report.pages
        );
    }

    // Activated in both scans: the skip button passes `skip-link` and
    // `bypass`, the toggle collapses the navigation; no rule is left
    // cannot tell. (Without activations, both pages' controls are cannot
    // tell for all three rules.)
    let row = |rule: &str, page: &str, outcome: &str, sel: &str| {
        (
            rule.to_string(),
            page.to_string(),
            outcome.to_string(),
            sel.to_string(),
        )
    };
    let expected = vec![
        row("bypass", "/plain", "Failed", ""),
        row("image-alt", "/toggle", "Failed", "#logo"),
        row("repeated-block-collapsible", "/", "Failed", "#menu"),
        row("repeated-block-collapsible", "/plain", "Failed", "#menu"),
        row("skip-link", "/plain", "Failed", ""),
    ];
    assert_eq!(finding_rows(&without, s.port), expected);
    assert_eq!(finding_rows(&with, s.port), expected);
    let counts = |rule: &str, passed: u64, failed: u64, cant_tell: u64| {
        (rule.to_string(), passed, failed, cant_tell)
    };
    let expected = vec![
        counts("bypass", 2, 1, 0),
        counts("image-alt", 0, 1, 0),
        counts("repeated-block-collapsible", 1, 2, 0),
        counts("skip-link", 1, 1, 0),
    ];
    assert_eq!(rule_counts(&without), expected);
    assert_eq!(rule_counts(&with), expected);

    // The pictures: a thumbnail of every page, and the logo the toggle hid
    // pictured as judged (a 40 pixel green square with the margin around).
    assert!(without.screenshots.shots.is_empty());
    for page in &with.pages {
        let id = page.thumbnail.as_deref().unwrap_or_else(|| {
            panic!("{} has no thumbnail", page.url);
        });
        assert_eq!(with.screenshots.get(id).unwrap().content_type, "image/jpeg");
    }
    let logo = with
        .findings
        .iter()
        .find(|f| f.selector == "#logo")
        .unwrap();
    let id = logo.screenshot.as_deref().expect("the logo has no picture");
    let shot = with.screenshots.get(id).unwrap();
    let mut decoder = png::Decoder::new(std::io::Cursor::new(&shot.bytes[..]));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let margin = sitescan_engine::browser::screenshot::MARGIN as u32;
    assert_eq!(
        (info.width, info.height),
        (40 + 2 * margin, 40 + 2 * margin)
    );
    let channels = info.buffer_size() / (info.width * info.height) as usize;
    let at = ((margin + 20) * info.width + margin + 20) as usize * channels;
    assert_eq!(pixels[at..at + 3], [0, 170, 0], "the logo itself");

    // The main documents come from the static fetch alone, in both scans.
    // The pages whose controls ran are loaded once more for their pictures
    // (their own subresources fetched again); the page without a candidate
    // control is not: its requests are those of the scan without pictures.
    let count = |log: &[String], path: &str| log.iter().filter(|p| *p == path).count();
    for path in ["/", "/toggle", "/plain"] {
        assert_eq!(count(&log_without, path), 1, "{path}: {log_without:?}");
        assert_eq!(count(&log_with, path), 1, "{path}: {log_with:?}");
    }
    // Each style sheet: once statically, once per load in the browser.
    for (path, without_n, with_n) in [
        ("/style.css?p=skip", 2, 3),
        ("/style.css?p=toggle", 2, 3),
        ("/logo.svg", 1, 2),
        ("/style.css?p=plain", 2, 2),
    ] {
        assert_eq!(
            count(&log_without, path),
            without_n,
            "{path}: {log_without:?}"
        );
        assert_eq!(count(&log_with, path), with_n, "{path}: {log_with:?}");
    }
}

/// A shortcut that only moves focus (as the "/" of Sphinx's search box) is
/// taken back before the pictures, and a switch the mechanism search
/// clicked is set back: the page is pictured as it was judged without
/// loading it again. A shortcut that changed the page's DOM, or a click
/// that left a mark, has the page loaded again first, as the activations'
/// pages are. (The controls' listeners are added by script, so the
/// activations, which look for inline handlers, leave them alone.)
#[tokio::test]
async fn a_focus_shortcut_costs_no_second_load_for_pictures_and_a_dom_shortcut_does() {
    let s = Server::start().await;
    let page = |name: &str, script: &str, control: &str| {
        html(&format!(
            r#"<!doctype html><html lang="en"><head><title>{name}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css?p={name}"></head>
<body data-theme="light"><main><h1>{name}</h1><input id="q" type="search" aria-label="Search"> <ul id="list"></ul>{control}
<img id="logo" src="/logo.svg" width="40" height="40"> <a href="/">Focus</a> <a href="/counter">Counter</a> <a href="/adds">Adds</a></main>
<script>document.addEventListener('keydown', (e) => {{ if (document.activeElement !== document.body) return; {script} }});</script></body></html>"#
        ))
    };
    s.set(
        "/",
        page(
            "focus",
            "if (e.key === '/') { e.preventDefault(); document.getElementById('q').focus(); }",
            r#"<label><input type="checkbox" id="dark"> Dark</label><script>document.getElementById('dark').addEventListener('click', (e) => { document.body.dataset.theme = e.target.checked ? 'dark' : 'light' })</script>"#,
        ),
    );
    s.set(
        "/counter",
        page(
            "counter",
            "if (e.key === '/') { e.preventDefault(); document.getElementById('q').focus(); }",
            r#"<button id="count">Count</button><script>document.getElementById('count').addEventListener('click', (e) => { e.target.textContent = 'Counted ' + (window.n = (window.n || 0) + 1) })</script>"#,
        ),
    );
    s.set(
        "/adds",
        page(
            "adds",
            "if (e.key === '+') { e.preventDefault(); document.getElementById('list').append(document.createElement('li')); }",
            "",
        ),
    );
    for name in ["focus", "counter", "adds"] {
        s.set(
            &format!("/style.css?p={name}"),
            canned(
                200,
                "text/css",
                "html, body { margin: 0; background: #fff }",
            ),
        );
    }
    s.set(
        "/logo.svg",
        canned(
            200,
            "image/svg+xml",
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00aa00"/></svg>"##,
        ),
    );
    let report = scanner(&["character-key-shortcuts", "image-alt"])
        .render(true)
        .render_options(sitescan::RenderOptions {
            screenshots: sitescan::ScreenshotOptions {
                enabled: true,
                ..sitescan::ScreenshotOptions::default()
            },
            ..sitescan::RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(&s.url("/"))
        .await
        .unwrap();
    assert_pages_loaded(&report);
    let mut keys: Vec<(String, String, serde_json::Value)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "character-key-shortcuts")
        .map(|f| {
            let page = f
                .page_url
                .trim_start_matches(&format!("http://127.0.0.1:{}", s.port));
            (
                page.to_string(),
                format!("{:?}", f.outcome),
                f.data
                    .as_ref()
                    .map(|d| d["effects"].clone())
                    .unwrap_or_default(),
            )
        })
        .collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        keys,
        vec![
            (
                "/".to_string(),
                "Failed".to_string(),
                serde_json::json!(["focus", "prevented"])
            ),
            (
                "/adds".to_string(),
                "Failed".to_string(),
                serde_json::json!(["dom", "prevented"])
            ),
            (
                "/counter".to_string(),
                "Failed".to_string(),
                serde_json::json!(["focus", "prevented"])
            ),
        ]
    );
    // Both logos pictured (each page's image-alt failure).
    let logos: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.selector == "#logo")
        .map(|f| f.screenshot.is_some())
        .collect();
    assert_eq!(logos, [true, true, true]);

    // Each style sheet: once statically and once in the browser. The page
    // whose shortcut changed its DOM is loaded once more for its pictures,
    // and so is the page where the search's click on "Count" left its mark;
    // the theme switch, clicked and set back, left the page as judged.
    let log = s.log();
    let count = |path: &str| log.iter().filter(|p| *p == path).count();
    assert_eq!(count("/style.css?p=focus"), 2, "{log:?}");
    assert_eq!(count("/style.css?p=counter"), 3, "{log:?}");
    assert_eq!(count("/style.css?p=adds"), 3, "{log:?}");
    assert_eq!(count("/logo.svg"), 5, "{log:?}");
}

/// The keyboard walk focuses every link of a sidebar that scrolls on its
/// own, which scrolls it to its last link; the page is pictured after the
/// walk, as it was judged: with the sidebar back at its top, each of its
/// first links (an image without alt text in each) has its picture.
#[tokio::test]
async fn the_keyboard_walk_leaves_a_scrolled_sidebar_as_it_found_it_for_the_pictures() {
    let s = Server::start().await;
    let links: String = (0..12)
        .map(|i| format!("<a href=\"/p{i}\" id=\"l{i}\"><img src=\"/dot.svg\">Part {i}</a>"))
        .collect();
    s.set(
        "/",
        html(&format!(
            "<!doctype html><html lang=\"en\"><head><title>Sidebar</title>\
             <style>body {{ margin: 0 }} #side {{ height: 100px; overflow-y: auto; width: 200px }} #side a {{ display: block; height: 40px }}</style></head>\
             <body><nav id=\"side\" aria-label=\"Parts\">{links}</nav><main><h1>Sidebar</h1><p>Text.</p></main></body></html>"
        )),
    );
    s.set(
        "/dot.svg",
        canned(
            200,
            "image/svg+xml",
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#0000aa"/></svg>"##,
        ),
    );
    let report = scanner(&["image-alt", "keyboard-trap"])
        .render(true)
        .render_options(sitescan::RenderOptions {
            screenshots: sitescan::ScreenshotOptions {
                enabled: true,
                ..sitescan::ScreenshotOptions::default()
            },
            ..sitescan::RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(&s.url("/"))
        .await
        .unwrap();
    assert_pages_loaded(&report);
    // Every link left the page with Tab: the walk went through all twelve.
    assert!(
        report.findings.iter().all(|f| f.rule_id != "keyboard-trap"),
        "{:#?}",
        report.findings
    );
    let pictured: Vec<(String, bool)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "image-alt")
        .map(|f| (f.selector.clone(), f.screenshot.is_some()))
        .collect();
    // The sidebar shows its first two and a half links; the ones below its
    // fold are inside the document as well.
    let want: Vec<(String, bool)> = (0..12).map(|i| (format!("#l{i} > img"), true)).collect();
    assert_eq!(pictured, want, "{:#?}", report.findings);
}

/// A menu checkbox the shortcut search clicks and sets back
/// leaves `style="overflow: visible"` on a `<body>` that had no style, and
/// ARIA states on its menu and label that they did not have, as Python's
/// documentation does. No computed style differs and no style rule names
/// them: the old attributes are put back and the page costs no second load
/// for its pictures, as a page without interactions. A control that leaves a
/// style with an effect (the body painted red) still does.
#[tokio::test]
async fn a_style_left_without_effect_by_the_shortcut_search_costs_no_second_load() {
    let s = Server::start().await;
    let page = |name: &str, control: &str| {
        html(&format!(
            r#"<!doctype html><html lang="en"><head><title>{name}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css?p={name}"></head>
<body><main><h1>{name}</h1><input id="q" type="search" aria-label="Search">{control}
<img id="logo" src="/logo.svg" width="40" height="40"> <a href="/">Menu</a> <a href="/paint">Paint</a> <a href="/still">Still</a></main>
<script>document.addEventListener('keydown', (e) => {{ if (e.key === '/' && document.activeElement === document.body) {{ e.preventDefault(); document.getElementById('q').focus(); }} }});</script></body></html>"#
        ))
    };
    s.set(
        "/",
        page(
            "menu",
            r#"<input type="checkbox" id="menu" aria-label="Menu"><label for="menu" class="toggler">Menu</label><nav class="menu-wrapper"><a href="/still">Still</a></nav>
<script>const m = document.getElementById('menu'), w = document.querySelector('.menu-wrapper'), l = document.querySelector('.toggler');
m.addEventListener('change', () => { w.setAttribute('aria-expanded', String(m.checked)); w.setAttribute('aria-hidden', String(!m.checked)); l.setAttribute('aria-pressed', String(m.checked)); document.body.style.overflow = m.checked ? 'hidden' : 'visible' })</script>"#,
        ),
    );
    s.set(
        "/paint",
        page(
            "paint",
            r#"<input type="checkbox" id="paint" aria-label="Paint"><script>const m = document.getElementById('paint'); m.addEventListener('change', () => { document.body.style.background = m.checked ? 'yellow' : 'red' })</script>"#,
        ),
    );
    // No shortcut, no control: nothing runs after the page is judged.
    s.set(
        "/still",
        html(
            r#"<!doctype html><html lang="en"><head><title>still</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/style.css?p=still"></head>
<body><main><h1>still</h1><img id="logo" src="/logo.svg" width="40" height="40"> <a href="/">Menu</a></main></body></html>"#,
        ),
    );
    for name in ["menu", "paint", "still"] {
        s.set(
            &format!("/style.css?p={name}"),
            canned(
                200,
                "text/css",
                "html, body { margin: 0; background: #fff }",
            ),
        );
    }
    s.set(
        "/logo.svg",
        canned(
            200,
            "image/svg+xml",
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00aa00"/></svg>"##,
        ),
    );
    let report = scanner(&["character-key-shortcuts", "image-alt"])
        .render(true)
        .render_options(sitescan::RenderOptions {
            screenshots: sitescan::ScreenshotOptions {
                enabled: true,
                ..sitescan::ScreenshotOptions::default()
            },
            ..sitescan::RenderOptions::default()
        })
        .build()
        .unwrap()
        .scan(&s.url("/"))
        .await
        .unwrap();
    assert_pages_loaded(&report);
    // The "/" shortcut found on both pages with a control (so the search
    // clicked it), on neither without.
    let mut keys: Vec<(String, String)> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "character-key-shortcuts")
        .map(|f| {
            let page = f
                .page_url
                .trim_start_matches(&format!("http://127.0.0.1:{}", s.port));
            (page.to_string(), format!("{:?}", f.outcome))
        })
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            ("/".to_string(), "Failed".to_string()),
            ("/paint".to_string(), "Failed".to_string()),
        ]
    );
    let logos: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.selector == "#logo")
        .map(|f| f.screenshot.is_some())
        .collect();
    assert_eq!(logos, [true, true, true]);

    // Each style sheet once statically and once in the browser; the painted
    // page once more for its pictures. The menu's page costs what the page
    // without interactions costs.
    let log = s.log();
    let count = |path: &str| log.iter().filter(|p| *p == path).count();
    assert_eq!(count("/style.css?p=still"), 2, "{log:?}");
    assert_eq!(count("/style.css?p=menu"), 2, "{log:?}");
    assert_eq!(count("/style.css?p=paint"), 3, "{log:?}");
    assert_eq!(count("/logo.svg"), 4, "{log:?}");
}
