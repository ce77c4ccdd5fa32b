//! Site facts gathered once per scan, end to end: robots.txt and sitemap validity,
//! the reflected-Origin CORS probe, and the TLS certificate and protocol versions
//! of loopback HTTPS servers whose certificates the tests make with rcgen.

use std::sync::Arc;

use chrono::{Datelike, Duration, Utc};
use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DistinguishedName, DnType, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use sitescan::rules::{Impact, Outcome};
use sitescan::{Report, Scanner, ScannerBuilder};
use sitescan_fixtures::{site_dir, FixtureServer};

fn scanner(rules: &[&str]) -> ScannerBuilder {
    Scanner::builder()
        .allow_private(true)
        .rate_per_host(200.0)
        .rules(rules)
}

/// `(rule, page, message)` of every finding, in report order.
fn findings(report: &Report) -> Vec<(String, String, String)> {
    report
        .findings
        .iter()
        .map(|f| (f.rule_id.clone(), f.page_url.clone(), f.message.clone()))
        .collect()
}

fn passed(report: &Report, rule: &str) -> u64 {
    report
        .rules
        .iter()
        .find(|r| r.rule_id == rule)
        .map(|r| r.passed)
        .unwrap_or(0)
}

#[tokio::test]
async fn robots_sitemaps_and_a_reflected_origin_are_reported_exactly() {
    let server = FixtureServer::start(site_dir("siteinfo")).await.unwrap();
    let report = scanner(&[
        "robots-txt",
        "sitemap-valid",
        "sitemap-non-indexable",
        "cors-reflected-origin",
    ])
    .build()
    .unwrap()
    .scan(&server.url())
    .await
    .unwrap();
    let o = server.origin();
    let f = |rule: &str, page: String, message: String| (rule.to_string(), page, message);
    let mut got = findings(&report);
    got.sort();
    let mut expected = vec![
        f(
            "cors-reflected-origin",
            server.url(),
            "The page grants credentialed CORS access to any origin: a request from https://sitescan-origin-probe.invalid was answered with that origin and Access-Control-Allow-Credentials: true.".into(),
        ),
        f(
            "robots-txt",
            format!("{o}/robots.txt"),
            "robots.txt line 4: unknown directive `dissallow`: `Dissallow: /admin`.".into(),
        ),
        f(
            "robots-txt",
            format!("{o}/robots.txt"),
            format!("robots.txt lists the sitemap {o}/missing-sitemap.xml, which answers 404."),
        ),
        f(
            "sitemap-non-indexable",
            format!("{o}/private/page.html"),
            "The sitemap lists this URL, but robots.txt disallows it for googlebot.".into(),
        ),
        f(
            "sitemap-valid",
            format!("{o}/sitemap-broken.xml"),
            format!("The sitemap {o}/sitemap-broken.xml is not a valid sitemap: the XML ends before its elements are closed."),
        ),
        f(
            "sitemap-valid",
            format!("{o}/sitemap-gone.xml"),
            format!("The sitemap index {o}/sitemap_index.xml lists {o}/sitemap-gone.xml, which answers 404."),
        ),
        f(
            "sitemap-valid",
            format!("{o}/sitemap-pages.xml"),
            format!("The sitemap {o}/sitemap-pages.xml lists 1 URL(s) it may not list (another scheme, host or port, or outside its folder), such as http://localhost:{}/b.html.", server.port()),
        ),
    ];
    expected.sort();
    assert_eq!(got, expected);
    let cors = report
        .findings
        .iter()
        .find(|f| f.rule_id == "cors-reflected-origin")
        .unwrap();
    assert_eq!(cors.impact, Impact::Critical);

    // One probe with the foreign Origin; the crawl's own fetch of / has none.
    let start: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/")
        .collect();
    assert_eq!(start.len(), 2, "one crawl fetch and one probe");
    assert_eq!(
        start
            .iter()
            .filter_map(|r| r.header("origin"))
            .collect::<Vec<_>>(),
        vec!["https://sitescan-origin-probe.invalid"]
    );
    // Every sitemap file is fetched once; the disallowed page never.
    for path in [
        "/sitemap_index.xml",
        "/sitemap-pages.xml",
        "/sitemap-broken.xml",
        "/sitemap-gone.xml",
        "/missing-sitemap.xml",
        "/sitemap.xml",
        "/robots.txt",
    ] {
        assert_eq!(server.count(path), 1, "{path}");
    }
    assert_eq!(server.count("/private/page.html"), 0);
    // Plain HTTP without security headers scores 10 (see site_checks); the
    // echoed Origin with credentials costs the start page the Observatory's -50
    // (universal access) on top.
    let security = &report.summary[&sitescan::rules::Category::Security];
    assert_eq!(security.grade.as_deref(), Some("F"));
    assert_eq!(security.grade_score, Some(0));
}

#[tokio::test]
async fn a_robots_txt_blocking_the_start_page_is_reported_when_it_is_ignored() {
    // `User-agent: *` / `Disallow: /` keeps sitescan out too, so the scan needs
    // robots.txt ignored; it is then read, not obeyed.
    let server = FixtureServer::start(site_dir("robots-forbid"))
        .await
        .unwrap();
    let refused = scanner(&["robots-txt"])
        .build()
        .unwrap()
        .scan(&server.url())
        .await;
    assert!(matches!(
        refused,
        Err(sitescan::Error::RobotsDisallowed { .. })
    ));
    let report = scanner(&["robots-txt"])
        .respect_robots(false)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        findings(&report),
        vec![(
            "robots-txt".to_string(),
            server.url_for("/robots.txt"),
            format!(
                "robots.txt disallows the start page {} for googlebot: search engines cannot crawl the site from it.",
                server.url()
            )
        )]
    );
    assert_eq!(report.findings[0].impact, Impact::Critical);
    assert_eq!(report.pages.len(), 1);
}

/// A CA and certificates signed by it, as a staging site would have.
struct TestPki {
    ca: Certificate,
    ca_key: KeyPair,
}

fn dn(cn: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    dn
}

impl TestPki {
    fn new() -> TestPki {
        let ca_key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name = dn("sitescan test CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = params.self_signed(&ca_key).unwrap();
        TestPki { ca, ca_key }
    }

    /// A leaf for `names`, valid from `days_from` to `days_to` days from today.
    fn leaf(&self, names: &[&str], days_from: i64, days_to: i64) -> (Certificate, KeyPair) {
        let key = KeyPair::generate().unwrap();
        let params = leaf_params(names, days_from, days_to);
        let cert = params.signed_by(&key, &self.ca, &self.ca_key).unwrap();
        (cert, key)
    }
}

fn day(offset: i64) -> chrono::NaiveDate {
    (Utc::now() + Duration::days(offset)).date_naive()
}

fn leaf_params(names: &[&str], days_from: i64, days_to: i64) -> CertificateParams {
    let mut params =
        CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    params.distinguished_name = dn("sitescan test site");
    let (from, to) = (day(days_from), day(days_to));
    params.not_before = rcgen::date_time_ymd(from.year(), from.month() as u8, from.day() as u8);
    params.not_after = rcgen::date_time_ymd(to.year(), to.month() as u8, to.day() as u8);
    params
}

fn server_config(
    chain: Vec<CertificateDer<'static>>,
    key: &KeyPair,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Arc<rustls::ServerConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            chain,
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
    Arc::new(config)
}

const TLS_RULES: &[&str] = &["tls-certificate", "tls-version"];

async fn tls_site(config: Arc<rustls::ServerConfig>) -> FixtureServer {
    FixtureServer::start_tls(site_dir("siteinfo-clean"), config)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_valid_certificate_from_a_trusted_ca_passes_and_the_clean_site_stays_clean() {
    let pki = TestPki::new();
    let (leaf, key) = pki.leaf(&["127.0.0.1"], -1, 90);
    let server = tls_site(server_config(
        vec![leaf.der().clone()],
        &key,
        rustls::ALL_VERSIONS,
    ))
    .await;
    let report = scanner(&[
        "tls-certificate",
        "tls-version",
        "robots-txt",
        "sitemap-valid",
        "sitemap-non-indexable",
        "cors-reflected-origin",
    ])
    .ca_cert(pki.ca.pem())
    .build()
    .unwrap()
    .scan(&server.url())
    .await
    .unwrap();
    assert_eq!(findings(&report), vec![]);
    assert_eq!(report.pages.len(), 2, "the crawl trusts the CA too");
    for rule in [
        "tls-certificate",
        "tls-version",
        "robots-txt",
        "sitemap-valid",
        "sitemap-non-indexable",
        "cors-reflected-origin",
    ] {
        assert!(passed(&report, rule) > 0, "{rule} did not apply");
    }
}

#[tokio::test]
async fn an_expired_certificate_fails_the_crawl_unless_insecure_and_is_reported() {
    let pki = TestPki::new();
    let (leaf, key) = pki.leaf(&["127.0.0.1"], -100, -10);
    let server = tls_site(server_config(
        vec![leaf.der().clone()],
        &key,
        rustls::ALL_VERSIONS,
    ))
    .await;
    // The crawl refuses it by default: the scan cannot start.
    let refused = scanner(TLS_RULES)
        .ca_cert(pki.ca.pem())
        .build()
        .unwrap()
        .scan(&server.url())
        .await;
    assert!(
        matches!(refused, Err(sitescan::Error::Unreachable { .. })),
        "{refused:?}"
    );
    let report = scanner(TLS_RULES)
        .ca_cert(pki.ca.pem())
        .tls_insecure(true)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        findings(&report),
        vec![(
            "tls-certificate".to_string(),
            server.url(),
            format!(
                "The certificate of 127.0.0.1 expired on {} (10 days ago).",
                day(-10).format("%Y-%m-%d")
            )
        )]
    );
    assert_eq!(report.findings[0].impact, Impact::Critical);
    assert_eq!(passed(&report, "tls-version"), 1);
}

#[tokio::test]
async fn wrong_host_and_self_signed_certificates_are_reported() {
    let pki = TestPki::new();
    let (leaf, key) = pki.leaf(&["wrong.example"], -1, 90);
    let server = tls_site(server_config(
        vec![leaf.der().clone()],
        &key,
        rustls::ALL_VERSIONS,
    ))
    .await;
    let report = scanner(TLS_RULES)
        .ca_cert(pki.ca.pem())
        .tls_insecure(true)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    assert_eq!(
        findings(&report),
        vec![(
            "tls-certificate".to_string(),
            server.url(),
            "The certificate is not valid for 127.0.0.1: it names wrong.example.".to_string()
        )]
    );

    let key = KeyPair::generate().unwrap();
    let own = leaf_params(&["127.0.0.1"], -1, 20)
        .self_signed(&key)
        .unwrap();
    let server = tls_site(server_config(
        vec![own.der().clone()],
        &key,
        &[&rustls::version::TLS12],
    ))
    .await;
    let report = scanner(TLS_RULES)
        .tls_insecure(true)
        .build()
        .unwrap()
        .scan(&server.url())
        .await
        .unwrap();
    let expiry = format!(
        "The certificate of 127.0.0.1 expires on {}, in 19 days: renew it.",
        day(20).format("%Y-%m-%d")
    );
    let got: Vec<(String, Outcome, Impact)> = report
        .findings
        .iter()
        .map(|f| (f.message.clone(), f.outcome, f.impact))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "The certificate of 127.0.0.1 is self-signed (CN=sitescan test site): browsers do not trust it.".to_string(),
                Outcome::Failed,
                Impact::Critical
            ),
            (expiry, Outcome::Failed, Impact::Moderate),
        ]
    );
    // TLS 1.2 only is fine.
    assert_eq!(passed(&report, "tls-version"), 1);
}

/// A server that accepts TLS 1.1 besides 1.3: OpenSSL's `s_server`, which
/// Debian ships (rustls cannot serve TLS 1.1). Without the `openssl` binary
/// this fails (`scripts/test` installs it) unless missing tools are allowed.
#[tokio::test]
async fn a_server_still_accepting_tls_1_1_fails_tls_version() {
    let Ok(version) = std::process::Command::new("openssl")
        .arg("version")
        .output()
    else {
        sitescan_fixtures::missing(
            "a_server_still_accepting_tls_1_1_fails_tls_version",
            "the openssl binary",
            "apt-get install openssl",
        );
        return;
    };
    assert!(version.status.success());
    let dir = std::env::temp_dir().join(format!("sitescan-tls11-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = leaf_params(&["127.0.0.1"], -1, 90)
        .self_signed(&key)
        .unwrap();
    std::fs::write(dir.join("cert.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("key.pem"), key.serialize_pem()).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut child = tokio::process::Command::new("openssl")
        .args(["s_server", "-accept"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("-cert")
        .arg(dir.join("cert.pem"))
        .arg("-key")
        .arg(dir.join("key.pem"))
        .args([
            "-www",
            "-min_protocol",
            "TLSv1",
            "-cipher",
            "DEFAULT:@SECLEVEL=0",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut up = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(up, "openssl s_server did not start");
    let url = format!("https://127.0.0.1:{port}/");
    let report = scanner(&["tls-version"])
        .tls_insecure(true)
        .max_pages(1)
        .build()
        .unwrap()
        .scan(&url)
        .await
        .unwrap();
    let _ = child.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        findings(&report),
        vec![(
            "tls-version".to_string(),
            url,
            "127.0.0.1 still accepts TLS 1.1, deprecated since 2021 (RFC 8996).".to_string()
        )]
    );
}
