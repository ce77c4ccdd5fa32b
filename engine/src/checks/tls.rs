//! The TLS check of the site's https origin: one handshake of our own (tokio-rustls)
//! with a verifier that records the certificates instead of judging them, then our
//! own validation of the chain against webpki's roots (plus the scan's
//! `ca_certs`), the certificates read with x509-parser, and one bare ClientHello
//! offering at most TLS 1.1 to learn whether the server still accepts it.
//!
//! Connections go to the addresses the SSRF guard allows (the same rules as the
//! crawl's resolver) and each takes a permit of the crawl's per-host pool, so the
//! check is as polite as a page fetch. The result is a plain
//! [`TlsFacts`](sitescan_rules::site::TlsFacts) for the `tls-certificate` and
//! `tls-version` rules.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, TrustAnchor, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sitescan_rules::site::{CertInfo, ChainTrust, TlsFacts};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use url::{Host, Url};

use crate::crawl::host_limits::HostPool;
use crate::crawl::ssrf::is_forbidden;
use crate::error::{Error, Result};

/// Certificates kept from one handshake at most (a longer chain is cut).
const MAX_CHAIN: usize = 10;

/// What the TLS check needs from the scan's configuration.
#[derive(Clone)]
pub struct TlsCheck {
    provider: Arc<CryptoProvider>,
    anchors: Arc<Vec<TrustAnchor<'static>>>,
    allow_private: bool,
    connect_timeout: Duration,
    timeout: Duration,
}

impl std::fmt::Debug for TlsCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsCheck")
            .field("anchors", &self.anchors.len())
            .field("allow_private", &self.allow_private)
            .finish()
    }
}

/// Parses PEM text into certificates; text without any certificate is an error
/// (a wrong file given as a CA is better refused than silently ignored).
pub fn parse_pem_certs(pem: &str) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::Config(format!("ca_certs: not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Config(
            "ca_certs: no `-----BEGIN CERTIFICATE-----` block found".into(),
        ));
    }
    Ok(certs)
}

impl TlsCheck {
    /// Builds the check: webpki's roots plus the PEM certificates of `ca_certs`.
    pub fn new(
        ca_certs: &[String],
        allow_private: bool,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> Result<TlsCheck> {
        let mut anchors: Vec<TrustAnchor<'static>> = webpki_roots::TLS_SERVER_ROOTS.to_vec();
        for pem in ca_certs {
            for der in parse_pem_certs(pem)? {
                let anchor = webpki::anchor_from_trusted_cert(&der)
                    .map_err(|e| Error::Config(format!("ca_certs: unusable certificate: {e}")))?
                    .to_owned();
                anchors.push(anchor);
            }
        }
        Ok(TlsCheck {
            provider: Arc::new(rustls::crypto::ring::default_provider()),
            anchors: Arc::new(anchors),
            allow_private,
            connect_timeout,
            timeout,
        })
    }

    /// Checks the https origin of `url` (`None` for an http URL or one without a
    /// host). Never fails: what went wrong is in the facts.
    pub async fn check(&self, url: &Url, hosts: &HostPool) -> Option<TlsFacts> {
        if url.scheme() != "https" {
            return None;
        }
        let host = match url.host()? {
            Host::Domain(d) => d.to_string(),
            Host::Ipv4(ip) => ip.to_string(),
            Host::Ipv6(ip) => ip.to_string(),
        };
        let port = url.port_or_known_default()?;
        let mut facts = TlsFacts {
            host: host.clone(),
            port,
            checked_at: Utc::now(),
            protocol: None,
            cipher_suite: None,
            handshake_error: None,
            modern_unsupported: false,
            legacy_accepted: None,
            chain: Vec::new(),
            trust: ChainTrust::Trusted,
        };
        let addrs = match self.addresses(&host, port).await {
            Ok(a) => a,
            Err(e) => {
                facts.handshake_error = Some(e);
                return Some(facts);
            }
        };

        let (ders, outcome) = {
            let _permit = hosts.acquire(url).await;
            self.handshake(&host, &addrs).await
        };
        match outcome {
            Ok((protocol, suite)) => {
                facts.protocol = Some(protocol);
                facts.cipher_suite = Some(suite);
            }
            Err((message, modern_unsupported)) => {
                facts.handshake_error = Some(message);
                facts.modern_unsupported = modern_unsupported;
            }
        }
        facts.checked_at = Utc::now();
        facts.chain = ders.iter().filter_map(|d| cert_info(d)).collect();
        if !ders.is_empty() {
            facts.trust = self.trust(&ders, &facts);
        }

        let _permit = hosts.acquire(url).await;
        facts.legacy_accepted = self.legacy_probe(&host, &addrs).await;
        tracing::debug!(host = %facts.host, protocol = ?facts.protocol, legacy = ?facts.legacy_accepted, trust = ?facts.trust, "TLS checked");
        Some(facts)
    }

    /// The addresses of `host` the SSRF guard lets us connect to.
    async fn addresses(
        &self,
        host: &str,
        port: u16,
    ) -> std::result::Result<Vec<SocketAddr>, String> {
        let all: Vec<SocketAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::net::lookup_host((host, port))
                .await
                .map_err(|e| format!("{host} does not resolve: {e}"))?
                .collect(),
        };
        let allowed: Vec<SocketAddr> = all
            .iter()
            .copied()
            .filter(|a| self.allow_private || !is_forbidden(a.ip()))
            .collect();
        match (allowed.is_empty(), all.first()) {
            (false, _) => Ok(allowed),
            (true, Some(a)) => Err(format!(
                "{host} resolves to the private or local address {}; refused by the private-address guard",
                a.ip()
            )),
            (true, None) => Err(format!("{host} has no address")),
        }
    }

    async fn connect(&self, addrs: &[SocketAddr]) -> std::result::Result<TcpStream, String> {
        let mut last = String::from("no address");
        for addr in addrs {
            match tokio::time::timeout(self.connect_timeout, TcpStream::connect(addr)).await {
                Ok(Ok(s)) => return Ok(s),
                Ok(Err(e)) => last = format!("connection to {addr} failed: {e}"),
                Err(_) => last = format!("connection to {addr} timed out"),
            }
        }
        Err(last)
    }

    /// One TLS 1.2/1.3 handshake; returns the certificates seen and either the
    /// negotiated protocol and suite, or the error and whether it was the server
    /// refusing both versions.
    #[allow(clippy::type_complexity)]
    async fn handshake(
        &self,
        host: &str,
        addrs: &[SocketAddr],
    ) -> (
        Vec<CertificateDer<'static>>,
        std::result::Result<(String, String), (String, bool)>,
    ) {
        let recorder = Arc::new(Recorder {
            seen: Mutex::new(Vec::new()),
            provider: Arc::clone(&self.provider),
        });
        let config = match rustls::ClientConfig::builder_with_provider(Arc::clone(&self.provider))
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        {
            Ok(b) => b
                .dangerous()
                .with_custom_certificate_verifier(recorder.clone())
                .with_no_client_auth(),
            Err(e) => return (Vec::new(), Err((format!("TLS setup failed: {e}"), false))),
        };
        let name = match ServerName::try_from(host.to_string()) {
            Ok(n) => n,
            Err(e) => {
                return (
                    Vec::new(),
                    Err((format!("bad server name {host}: {e}"), false)),
                )
            }
        };
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let result = match self.connect(addrs).await {
            Err(e) => Err((e, false)),
            Ok(tcp) => match tokio::time::timeout(self.timeout, connector.connect(name, tcp)).await
            {
                Err(_) => Err(("the TLS handshake timed out".to_string(), false)),
                Ok(Err(e)) => {
                    let modern_unsupported = e
                        .get_ref()
                        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
                        .is_some_and(|r| {
                            matches!(
                                r,
                                rustls::Error::AlertReceived(
                                    rustls::AlertDescription::ProtocolVersion
                                ) | rustls::Error::PeerIncompatible(
                                    rustls::PeerIncompatible::ServerDoesNotSupportTls12Or13
                                )
                            )
                        });
                    Err((e.to_string(), modern_unsupported))
                }
                Ok(Ok(mut stream)) => {
                    let (_, conn) = stream.get_ref();
                    let protocol = match conn.protocol_version() {
                        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
                        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
                        Some(other) => format!("{other:?}"),
                        None => "unknown".to_string(),
                    };
                    let suite = conn
                        .negotiated_cipher_suite()
                        .map(|s| format!("{:?}", s.suite()))
                        .unwrap_or_default();
                    let _ = stream.shutdown().await;
                    Ok((protocol, suite))
                }
            },
        };
        let seen = recorder
            .seen
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        (seen, result)
    }

    /// Validates the chain: at the time of the check, or — when only dates fail —
    /// at a moment inside the leaf's validity, so trust is judged apart from expiry
    /// (which the rule reports from the dates).
    fn trust(&self, ders: &[CertificateDer<'static>], facts: &TlsFacts) -> ChainTrust {
        let verify = |at: DateTime<Utc>| -> std::result::Result<(), webpki::Error> {
            let ee = webpki::EndEntityCert::try_from(&ders[0])?;
            let secs = u64::try_from(at.timestamp()).unwrap_or(0);
            ee.verify_for_usage(
                webpki::ALL_VERIFICATION_ALGS,
                &self.anchors,
                &ders[1..],
                UnixTime::since_unix_epoch(Duration::from_secs(secs)),
                webpki::KeyUsage::server_auth(),
                None,
                None,
            )
            .map(|_| ())
        };
        let leaf = facts.chain.first();
        let leaf_in_date = leaf
            .is_some_and(|l| l.not_before <= facts.checked_at && facts.checked_at <= l.not_after);
        let outcome = match verify(facts.checked_at) {
            Err(webpki::Error::CertExpired { .. } | webpki::Error::CertNotValidYet { .. })
                if !leaf_in_date =>
            {
                // The leaf's own dates are the rule's finding; judge the rest at
                // the middle of the leaf's validity.
                match leaf {
                    Some(l) => verify(l.not_before + (l.not_after - l.not_before) / 2),
                    None => Ok(()),
                }
            }
            other => other,
        };
        match outcome {
            Ok(()) => ChainTrust::Trusted,
            Err(webpki::Error::UnknownIssuer) => {
                if leaf.is_some_and(|l| l.subject == l.issuer) {
                    ChainTrust::SelfSigned
                } else {
                    ChainTrust::UnknownIssuer
                }
            }
            Err(webpki::Error::CertExpired { .. }) => ChainTrust::Invalid {
                reason: "a certificate of the chain other than the leaf has expired".into(),
            },
            Err(webpki::Error::CertNotValidYet { .. }) => ChainTrust::Invalid {
                reason: "a certificate of the chain other than the leaf is not valid yet".into(),
            },
            Err(e) => ChainTrust::Invalid {
                reason: format!("{e:?}"),
            },
        }
    }

    /// Sends one ClientHello offering at most TLS 1.1 and returns the version of
    /// the server's ServerHello when it accepts one (`TLSv1.1`, `TLSv1.0`, `SSLv3`).
    async fn legacy_probe(&self, host: &str, addrs: &[SocketAddr]) -> Option<String> {
        let mut tcp = self.connect(addrs).await.ok()?;
        let sni = host.parse::<IpAddr>().is_err().then_some(host);
        let hello = legacy_client_hello(sni, random_bytes(host));
        let answer = tokio::time::timeout(self.timeout, async {
            tcp.write_all(&hello).await.ok()?;
            let mut header = [0u8; 5];
            tcp.read_exact(&mut header).await.ok()?;
            let len = usize::from(u16::from_be_bytes([header[3], header[4]])).min(1 << 14);
            let mut body = vec![0u8; len];
            tcp.read_exact(&mut body).await.ok()?;
            Some((header, body))
        })
        .await
        .ok()
        .flatten();
        let _ = tcp.shutdown().await;
        let (header, body) = answer?;
        server_hello_version(&header, &body)
    }
}

/// Bytes for the ClientHello random, from the OS RNG. Should the OS refuse
/// (no entropy source at all), a hash of the clock and the host still differs
/// per probe: the random must look fresh to the server, not stay secret (the
/// handshake is never finished).
fn random_bytes(seed: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    if getrandom::getrandom(&mut out).is_ok() {
        return out;
    }
    use sha2::{Digest, Sha256};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut h = Sha256::new();
    h.update(now.as_nanos().to_be_bytes());
    h.update(seed.as_bytes());
    h.finalize().into()
}

/// A TLS record holding one ClientHello whose highest version is TLS 1.1, with
/// the CBC suites old servers speak, SNI and the elliptic-curve extensions.
///
/// Hand-written because no maintained Rust TLS client can offer TLS 1.0/1.1
/// (rustls refuses by design) and only this first message is needed.
pub fn legacy_client_hello(sni: Option<&str>, random: [u8; 32]) -> Vec<u8> {
    let mut body = vec![0x03, 0x02];
    body.extend_from_slice(&random);
    body.push(0); // no session id
    let suites: [u16; 8] = [
        0xc014, // ECDHE_RSA_WITH_AES_256_CBC_SHA
        0xc013, // ECDHE_RSA_WITH_AES_128_CBC_SHA
        0xc00a, // ECDHE_ECDSA_WITH_AES_256_CBC_SHA
        0xc009, // ECDHE_ECDSA_WITH_AES_128_CBC_SHA
        0x0035, // RSA_WITH_AES_256_CBC_SHA
        0x002f, // RSA_WITH_AES_128_CBC_SHA
        0x000a, // RSA_WITH_3DES_EDE_CBC_SHA
        0x00ff, // EMPTY_RENEGOTIATION_INFO_SCSV
    ];
    body.extend_from_slice(&((suites.len() * 2) as u16).to_be_bytes());
    for s in suites {
        body.extend_from_slice(&s.to_be_bytes());
    }
    body.extend_from_slice(&[1, 0]); // compression: null only
    let mut ext = Vec::new();
    if let Some(name) = sni.map(str::as_bytes).filter(|n| n.len() < 256) {
        ext.extend_from_slice(&[0x00, 0x00]);
        ext.extend_from_slice(&((name.len() + 5) as u16).to_be_bytes());
        ext.extend_from_slice(&((name.len() + 3) as u16).to_be_bytes());
        ext.push(0); // host_name
        ext.extend_from_slice(&(name.len() as u16).to_be_bytes());
        ext.extend_from_slice(name);
    }
    // supported_groups: x25519, secp256r1, secp384r1.
    ext.extend_from_slice(&[
        0x00, 0x0a, 0x00, 0x08, 0x00, 0x06, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18,
    ]);
    // ec_point_formats: uncompressed.
    ext.extend_from_slice(&[0x00, 0x0b, 0x00, 0x02, 0x01, 0x00]);
    body.extend_from_slice(&(ext.len() as u16).to_be_bytes());
    body.extend_from_slice(&ext);
    let mut handshake = vec![0x01];
    handshake.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    handshake.extend_from_slice(&body);
    let mut record = vec![0x16, 0x03, 0x01];
    record.extend_from_slice(&(handshake.len() as u16).to_be_bytes());
    record.extend_from_slice(&handshake);
    record
}

/// The version a ServerHello record chose, when the record is one (an alert or
/// anything else is `None`), and only when it is older than TLS 1.2.
pub fn server_hello_version(header: &[u8; 5], body: &[u8]) -> Option<String> {
    if header[0] != 0x16 || body.len() < 6 || body[0] != 0x02 {
        return None;
    }
    match (body[4], body[5]) {
        (3, 0) => Some("SSLv3".into()),
        (3, 1) => Some("TLSv1.0".into()),
        (3, 2) => Some("TLSv1.1".into()),
        _ => None,
    }
}

/// What the scan reads from one DER certificate (`None` when it does not parse).
pub fn cert_info(der: &[u8]) -> Option<CertInfo> {
    use x509_parser::prelude::*;
    use x509_parser::public_key::PublicKey;
    let (_, cert) = X509Certificate::from_der(der).ok()?;
    let time = |t: ASN1Time| -> DateTime<Utc> {
        Utc.timestamp_opt(t.timestamp(), 0)
            .single()
            .unwrap_or_default()
    };
    let (mut dns_names, mut ip_addresses) = (Vec::new(), Vec::new());
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for name in &san.value.general_names {
            match name {
                GeneralName::DNSName(d) => dns_names.push(d.to_string()),
                GeneralName::IPAddress(bytes) => {
                    let ip = match bytes.len() {
                        4 => <[u8; 4]>::try_from(*bytes).ok().map(IpAddr::from),
                        16 => <[u8; 16]>::try_from(*bytes).ok().map(IpAddr::from),
                        _ => None,
                    };
                    if let Some(ip) = ip {
                        ip_addresses.push(ip.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    let (key_algorithm, key_bits) = match cert.public_key().parsed() {
        Ok(PublicKey::RSA(rsa)) => ("RSA".to_string(), rsa.key_size() as u32),
        Ok(PublicKey::EC(ec)) => ("EC".to_string(), ec.key_size() as u32),
        Ok(PublicKey::DSA(_)) => ("DSA".to_string(), 0),
        _ => {
            let oid = &cert.public_key().algorithm.algorithm;
            let name = oid_name(oid);
            (name, 0)
        }
    };
    Some(CertInfo {
        subject: cert.subject().to_string(),
        issuer: cert.issuer().to_string(),
        not_before: time(cert.validity().not_before),
        not_after: time(cert.validity().not_after),
        dns_names,
        ip_addresses,
        key_algorithm,
        key_bits,
        signature_algorithm: oid_name(&cert.signature_algorithm.algorithm),
    })
}

fn oid_name(oid: &x509_parser::der_parser::oid::Oid<'_>) -> String {
    match x509_parser::objects::oid2sn(oid, x509_parser::objects::oid_registry()) {
        Ok("id-Ed25519") | Ok("ED25519") => "Ed25519".to_string(),
        Ok(name) => name.to_string(),
        Err(_) => oid.to_id_string(),
    }
}

/// A verifier that accepts any certificate and keeps it: the handshake completes
/// (its signatures are still checked) so that the chain can be judged afterwards,
/// with reasons, rather than refused with one error.
#[derive(Debug)]
struct Recorder {
    seen: Mutex<Vec<CertificateDer<'static>>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Recorder {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> std::result::Result<ServerCertVerified, rustls::Error> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.clear();
        seen.push(end_entity.clone().into_owned());
        seen.extend(
            intermediates
                .iter()
                .take(MAX_CHAIN - 1)
                .map(|c| c.clone().into_owned()),
        );
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> std::result::Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_hello_is_well_formed() {
        let hello = legacy_client_hello(Some("example.com"), [7; 32]);
        assert_eq!(&hello[..3], &[0x16, 0x03, 0x01]);
        let record_len = usize::from(u16::from_be_bytes([hello[3], hello[4]]));
        assert_eq!(record_len, hello.len() - 5);
        assert_eq!(hello[5], 0x01, "ClientHello");
        let hs_len = usize::from(hello[7]) << 8 | usize::from(hello[8]);
        assert_eq!(hs_len, record_len - 4);
        assert_eq!(&hello[9..11], &[0x03, 0x02], "at most TLS 1.1");
        assert!(hello
            .windows(b"example.com".len())
            .any(|w| w == b"example.com"));
        let without_sni = legacy_client_hello(None, [7; 32]);
        assert_eq!(hello.len() - without_sni.len(), 4 + 5 + "example.com".len());
    }

    #[test]
    fn server_hello_versions() {
        let hello = |major, minor| {
            let body = vec![0x02, 0, 0, 70, major, minor];
            ([0x16, 3, 1, 0, 6], body)
        };
        let (h, b) = hello(3, 1);
        assert_eq!(server_hello_version(&h, &b).as_deref(), Some("TLSv1.0"));
        let (h, b) = hello(3, 2);
        assert_eq!(server_hello_version(&h, &b).as_deref(), Some("TLSv1.1"));
        let (h, b) = hello(3, 3);
        assert_eq!(server_hello_version(&h, &b), None);
        // A protocol_version alert.
        assert_eq!(server_hello_version(&[0x15, 3, 1, 0, 2], &[2, 70]), None);
    }

    #[test]
    fn ca_certs_must_be_pem_certificates() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["ca.test".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        assert_eq!(parse_pem_certs(&cert.pem()).unwrap().len(), 1);
        assert!(parse_pem_certs("hello").is_err());
        let two = format!("{}\n{}", cert.pem(), cert.pem());
        assert!(TlsCheck::new(
            &[two],
            false,
            Duration::from_secs(1),
            Duration::from_secs(1)
        )
        .is_ok());
    }

    #[test]
    fn certificates_are_read() {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params =
            rcgen::CertificateParams::new(vec!["shop.test".to_string(), "127.0.0.1".to_string()])
                .unwrap();
        params.not_before = rcgen::date_time_ymd(2025, 1, 2);
        params.not_after = rcgen::date_time_ymd(2027, 3, 4);
        let cert = params.self_signed(&key).unwrap();
        let info = cert_info(cert.der()).unwrap();
        assert_eq!(info.dns_names, vec!["shop.test"]);
        assert_eq!(info.ip_addresses, vec!["127.0.0.1"]);
        assert_eq!(info.not_before.format("%Y-%m-%d").to_string(), "2025-01-02");
        assert_eq!(info.not_after.format("%Y-%m-%d").to_string(), "2027-03-04");
        assert_eq!((info.key_algorithm.as_str(), info.key_bits), ("EC", 256));
        assert_eq!(info.signature_algorithm, "ecdsa-with-SHA256");
        assert_eq!(info.subject, info.issuer);
        assert!(cert_info(b"junk").is_none());
    }
}
