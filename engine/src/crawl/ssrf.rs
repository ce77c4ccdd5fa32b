//! The SSRF guard: which addresses a scan may connect to.
//!
//! Refused unless private addresses are allowed: loopback, private (RFC 1918,
//! ULA `fc00::/7`), link-local (`169.254/16` including the cloud metadata address
//! `169.254.169.254`, `fe80::/10`), CGNAT `100.64/10`, multicast, unspecified,
//! broadcast and documentation ranges, and the IPv6 forms that embed an IPv4
//! address of those (mapped, translated, compatible, NAT64, 6to4, Teredo).
//!
//! Host names are checked in [`GuardedResolver`], installed as reqwest's DNS
//! resolver: it drops refused addresses from the answer, so the connection goes
//! to an address that was checked (no DNS-rebinding window between check and
//! connect). reqwest does not call the resolver for IP-literal hosts, so the
//! fetcher checks literals itself with [`check_literal`] before every request and
//! redirect hop.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::{Ipv4Net, Ipv6Net};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Whether connecting to `ip` is refused when private addresses are not allowed.
///
/// The one predicate of the service: site registration, the crawler, link
/// checks, probes and webhook delivery all ask it. IPv6 forms that carry an
/// IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo) are
/// judged by the IPv4 address they reach, so `64:ff9b::a00:1` is refused like
/// `10.0.0.1` and `2002:808:808::` is allowed like `8.8.8.8`.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4_forbidden(v4),
        IpAddr::V6(v6) => v6_forbidden(v6),
    }
}

/// The IPv4 address an IPv6 transition form leads to, if `ip` is one:
/// `Some(Ok(v4s))` with every embedded address to judge, `Some(Err(()))` for a
/// prefix whose embedding cannot be decoded unambiguously (refused whole),
/// `None` for an ordinary IPv6 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Result<Vec<Ipv4Addr>, ()>> {
    let seg = ip.segments();
    let o = ip.octets();
    let last32 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
    // IPv4-mapped `::ffff:0:0/96` (RFC 4291).
    if seg[..6] == [0, 0, 0, 0, 0, 0xffff] {
        return Some(Ok(vec![last32]));
    }
    // IPv4-translated (SIIT) `::ffff:0:0:0/96` (RFC 2765).
    if seg[..6] == [0, 0, 0, 0, 0xffff, 0] {
        return Some(Ok(vec![last32]));
    }
    // IPv4-compatible `::a.b.c.d` (RFC 4291, deprecated); `::` and `::1` are
    // judged as IPv6 below (their "embedded" 0.0.0.0/0.0.0.1 are refused too).
    if seg[..6] == [0, 0, 0, 0, 0, 0] {
        return Some(Ok(vec![last32]));
    }
    // NAT64 well-known prefix `64:ff9b::/96` (RFC 6052): IPv4 in the last 32 bits.
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(Ok(vec![last32]));
    }
    // Local-use NAT64 `64:ff9b:1::/48` (RFC 8215): the operator picks the prefix
    // length (/48 to /96), and with it where the IPv4 address sits (RFC 6052
    // §2.2 has six layouts). From the address alone the embedding is
    // ambiguous, and a translator of this range is by definition inside some
    // operator's network: refused whole.
    if seg[0] == 0x64 && seg[1] == 0xff9b && seg[2] == 1 {
        return Some(Err(()));
    }
    // 6to4 `2002::/16` (RFC 3056): the relay's IPv4 address in bits 16-47.
    if seg[0] == 0x2002 {
        let v4 = (u32::from(seg[1]) << 16) | u32::from(seg[2]);
        return Some(Ok(vec![Ipv4Addr::from(v4)]));
    }
    // Teredo `2001::/32` (RFC 4380): the server's IPv4 address in bits 32-63,
    // the client's in the last 32 bits, inverted. Either one private is refused:
    // packets go through the server to the client.
    if seg[0] == 0x2001 && seg[1] == 0 {
        let server = (u32::from(seg[2]) << 16) | u32::from(seg[3]);
        let client = u32::from(last32) ^ 0xffff_ffff;
        return Some(Ok(vec![Ipv4Addr::from(server), Ipv4Addr::from(client)]));
    }
    None
}

fn v6_forbidden(v6: Ipv6Addr) -> bool {
    if v6.is_loopback() || v6.is_unspecified() {
        return true;
    }
    match embedded_v4(v6) {
        Some(Ok(v4s)) => return v4s.into_iter().any(v4_forbidden),
        Some(Err(())) => return true,
        None => {}
    }
    v6.is_multicast()
        || in6(v6, "fc00::/7")
        || in6(v6, "fe80::/10")
        || in6(v6, "fec0::/10")
        || in6(v6, "2001:db8::/32")
        // Discard-only (RFC 6666): never a web server.
        || in6(v6, "100::/64")
}

fn v4_forbidden(ip: Ipv4Addr) -> bool {
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || in4(ip, "0.0.0.0/8")
        || in4(ip, "100.64.0.0/10")
        || in4(ip, "192.0.0.0/24")
        || in4(ip, "198.18.0.0/15")
        || in4(ip, "240.0.0.0/4")
}

fn in4(ip: Ipv4Addr, net: &str) -> bool {
    net.parse::<Ipv4Net>().is_ok_and(|n| n.contains(&ip))
}

fn in6(ip: Ipv6Addr, net: &str) -> bool {
    net.parse::<Ipv6Net>().is_ok_and(|n| n.contains(&ip))
}

/// The error the guard raises; the fetcher finds it in reqwest's error chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateAddressRefused {
    /// The host name or literal.
    pub host: String,
    /// The first refused address.
    pub addr: IpAddr,
}

impl std::fmt::Display for PrivateAddressRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} resolves to the private or local address {}",
            self.host, self.addr
        )
    }
}

impl std::error::Error for PrivateAddressRefused {}

/// Whether `host` is a name that means this machine whatever DNS says
/// (`localhost` and names under `.localhost`, RFC 6761): refused up front,
/// where a URL is registered, before any resolver is asked.
pub fn is_local_name(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost" || h.ends_with(".localhost")
}

/// Whether a URL's host is refused before any resolver is asked: a name that
/// means this machine ([`is_local_name`]) or an IP literal [`is_forbidden`]
/// refuses. The one predicate of the service for what users register (sites,
/// webhook targets); host names are checked again after DNS, at fetch time.
pub fn is_private_host(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(d) => is_local_name(d),
        Host::Ipv4(ip) => is_forbidden(IpAddr::V4(*ip)),
        Host::Ipv6(ip) => is_forbidden(IpAddr::V6(*ip)),
    }
}

/// Checks an IP-literal host (which reqwest connects to without resolving).
pub fn check_literal(url: &Url) -> Result<(), PrivateAddressRefused> {
    let ip = match url.host() {
        Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    if is_forbidden(ip) {
        return Err(PrivateAddressRefused {
            host: ip.to_string(),
            addr: ip,
        });
    }
    Ok(())
}

/// reqwest DNS resolver that resolves with the system resolver and keeps only
/// allowed addresses; an answer with none left is an error.
#[derive(Debug, Default, Clone, Copy)]
pub struct GuardedResolver;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Resolves `host` with the system resolver; with `guard`, keeps only allowed
/// addresses (an answer with none left is [`PrivateAddressRefused`]).
async fn lookup(host: String, guard: bool) -> Result<Vec<SocketAddr>, BoxError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
    if !guard {
        return Ok(addrs);
    }
    let first_refused = addrs.iter().find(|a| is_forbidden(a.ip())).map(|a| a.ip());
    let allowed: Vec<SocketAddr> = addrs
        .into_iter()
        .filter(|a| !is_forbidden(a.ip()))
        .collect();
    match (allowed.is_empty(), first_refused) {
        (true, Some(addr)) => Err(Box::new(PrivateAddressRefused { host, addr })),
        _ => Ok(allowed),
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move { Ok(Box::new(lookup(host, true).await?.into_iter()) as Addrs) })
    }
}

/// Host names resolved at once by [`CachingResolver::prefetch`].
const PREFETCH_CONCURRENCY: usize = 64;

/// An answer of the system resolver, kept for the other URLs of the same host.
type Answer = Result<Vec<SocketAddr>, Arc<BoxError>>;

/// A resolver that asks the system resolver once per host name and answers every
/// later request for that name from memory (guarded like [`GuardedResolver`] when
/// private addresses are refused).
///
/// Link checks request many URLs of few hosts (2,000 URLs of a documentation site
/// point to a few dozen), each with `HEAD` then `GET`: without it every request
/// resolved its host again, and on a network whose DNS is slow or failing each
/// lookup cost up to the connect timeout, so link checking took minutes after a
/// crawl of seconds. The lookup runs in its own task, so a request that gives up
/// (timeout) does not cancel the answer the next request waits for. An error is
/// replayed with the same message and source chain.
#[derive(Debug, Default)]
pub struct CachingResolver {
    guard: bool,
    answers: std::sync::Mutex<HashMap<String, Arc<tokio::sync::OnceCell<Answer>>>>,
    /// System resolver calls made (each host once), for tests.
    lookups: Arc<std::sync::atomic::AtomicUsize>,
    /// Answers given instead of the system resolver's, for tests that must
    /// never ask a real resolver (a failing name, a name for loopback).
    #[cfg(test)]
    fixed: std::sync::Mutex<HashMap<String, Result<Vec<SocketAddr>, String>>>,
}

impl CachingResolver {
    /// A resolver for one scan; `guard` refuses private addresses.
    pub fn new(guard: bool) -> CachingResolver {
        CachingResolver {
            guard,
            answers: std::sync::Mutex::new(HashMap::new()),
            lookups: Arc::default(),
            #[cfg(test)]
            fixed: std::sync::Mutex::default(),
        }
    }

    /// Answers `host` with `answer` from now on, without the system resolver
    /// (an `Err` fails the lookup with that message).
    #[cfg(test)]
    pub(crate) fn fix(&self, host: &str, answer: Result<Vec<SocketAddr>, String>) {
        self.fixed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(host.to_string(), answer);
    }

    /// Resolves `hosts` ahead of the requests that need them, many at a time: a
    /// lookup the resolver answers only after its timeout (5 s here for a few
    /// names) then overlaps the others instead of holding up a queue of requests
    /// waiting for that one host.
    pub async fn prefetch(&self, hosts: impl IntoIterator<Item = String>) {
        use futures::stream::{self, StreamExt};
        let names: Vec<Name> = hosts.into_iter().filter_map(|h| h.parse().ok()).collect();
        stream::iter(names)
            .map(|name| self.resolve(name))
            .buffer_unordered(PREFETCH_CONCURRENCY)
            .for_each(|_| async {})
            .await;
    }

    /// How many times the system resolver was asked.
    pub fn lookups(&self) -> usize {
        self.lookups.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A cached resolver error: displays and chains exactly as the original did.
#[derive(Debug)]
struct Replayed(Arc<BoxError>);

impl std::fmt::Display for Replayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Replayed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl Resolve for CachingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let cell = {
            let mut answers = self.answers.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(answers.entry(host.clone()).or_default())
        };
        let guard = self.guard;
        let lookups = Arc::clone(&self.lookups);
        #[cfg(test)]
        let fixed = self
            .fixed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&host)
            .cloned();
        Box::pin(async move {
            #[cfg(test)]
            if let Some(answer) = fixed {
                lookups.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return match answer {
                    Ok(addrs) => Ok(Box::new(addrs.into_iter()) as Addrs),
                    Err(e) => Err(Box::new(std::io::Error::other(e)) as BoxError),
                };
            }
            let answer = cell
                .get_or_init(|| async move {
                    lookups.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    match tokio::spawn(lookup(host, guard)).await {
                        Ok(answer) => answer.map_err(Arc::new),
                        Err(e) => Err(Arc::new(Box::new(e) as BoxError)),
                    }
                })
                .await;
            match answer {
                Ok(addrs) => Ok(Box::new(addrs.clone().into_iter()) as Addrs),
                Err(e) => Err(Box::new(Replayed(Arc::clone(e))) as BoxError),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn resolve_text(r: &CachingResolver, host: &str) -> Result<Vec<SocketAddr>, String> {
        let name: Name = host.parse().map_err(|_| "bad name".to_string())?;
        match r.resolve(name).await {
            Ok(addrs) => Ok(addrs.collect()),
            Err(e) => {
                let mut text = e.to_string();
                let mut src = e.source();
                while let Some(inner) = src {
                    text.push_str(&format!(": {inner}"));
                    src = inner.source();
                }
                Err(text)
            }
        }
    }

    #[tokio::test]
    async fn caching_resolver_asks_once_per_host_and_replays_errors() {
        let r = CachingResolver::new(false);
        let a = resolve_text(&r, "localhost").await;
        let b = resolve_text(&r, "localhost").await;
        assert!(a.as_ref().is_ok_and(|v| !v.is_empty()), "{a:?}");
        assert_eq!(a, b);
        assert_eq!(r.lookups(), 1);
        let direct = tokio::net::lookup_host(("nonexistent.invalid", 0))
            .await
            .map(|_| ())
            .map_err(|e| e.to_string());
        let e1 = resolve_text(&r, "nonexistent.invalid").await;
        let e2 = resolve_text(&r, "nonexistent.invalid").await;
        assert_eq!(e1.clone().map(|_| ()), direct);
        assert_eq!(e1, e2);
        assert_eq!(r.lookups(), 2);

        // Guarded: a private answer is refused, with the guard's own error.
        let g = CachingResolver::new(true);
        let refused = resolve_text(&g, "localhost").await;
        assert!(
            refused.as_ref().is_err_and(|e| e.contains("private")),
            "{refused:?}"
        );
        assert_eq!(resolve_text(&g, "localhost").await, refused);
        assert_eq!(g.lookups(), 1);
    }

    #[test]
    fn refuses_private_and_local_ranges() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
        ] {
            assert!(is_forbidden(ip.parse().unwrap()), "{ip} should be refused");
        }
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "100.128.0.1",
        ] {
            assert!(!is_forbidden(ip.parse().unwrap()), "{ip} should be allowed");
        }
    }

    /// Each IPv6 transition form, once around a private IPv4 address (refused)
    /// and once around a public one (allowed), except where the embedding is
    /// ambiguous and the prefix is refused whole.
    #[test]
    fn transition_forms_are_judged_by_their_ipv4_address() {
        let refused = [
            // IPv4-mapped, SIIT translated, compatible.
            "::ffff:10.0.0.1",
            "::ffff:0:10.0.0.1",
            "::ffff:0:127.0.0.1",
            "::10.0.0.1",
            "::169.254.169.254",
            // NAT64 well-known prefix.
            "64:ff9b::10.0.0.1",
            "64:ff9b::127.0.0.1",
            // Local-use NAT64: refused whole, public IPv4 or not.
            "64:ff9b:1::8.8.8.8",
            "64:ff9b:1:808:808::",
            "64:ff9b:1::a00:1",
            // 6to4 of 10.0.0.1, 127.0.0.1, 169.254.169.254, 192.168.1.1.
            "2002:a00:1::1",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
            "2002:c0a8:101:1::1",
            // Teredo: server 10.0.0.1, client public (8.8.8.8 inverted).
            "2001:0:a00:1::f7f7:f7f7",
            // Teredo: server public (8.8.8.8), client 10.0.0.1 (inverted: f5ff:fffe).
            "2001:0:808:808::f5ff:fffe",
            // Teredo: client 127.0.0.1 (inverted 80ff:fffe).
            "2001:0:808:808:0:0:80ff:fffe",
        ];
        for ip in refused {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(is_forbidden(parsed), "{ip} should be refused");
        }
        let allowed = [
            "::ffff:8.8.8.8",
            "::ffff:0:8.8.8.8",
            "::8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
            // Teredo: server 8.8.8.8, client 1.1.1.1 (inverted fefe:fefe).
            "2001:0:808:808::fefe:fefe",
            // Ordinary global addresses next to the transition prefixes.
            "2001:4860:4860::8888",
            "64:ff9b:2::1",
        ];
        for ip in allowed {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(!is_forbidden(parsed), "{ip} should be allowed");
        }
    }

    #[test]
    fn local_names_are_recognised() {
        for h in ["localhost", "LOCALHOST.", "a.b.localhost", "x.localhost."] {
            assert!(is_local_name(h), "{h}");
        }
        for h in ["localhost.example", "example.com", "notlocalhost"] {
            assert!(!is_local_name(h), "{h}");
        }
    }

    #[test]
    fn literals_are_checked() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(check_literal(&u("http://127.0.0.1:8080/")).is_err());
        assert!(check_literal(&u("http://[::ffff:10.0.0.1]/")).is_err());
        assert!(check_literal(&u("http://169.254.169.254/latest/meta-data/")).is_err());
        // Other spellings of 127.0.0.1 parse to the same address (WHATWG URL).
        assert!(check_literal(&u("http://2130706433/")).is_err());
        assert!(check_literal(&u("http://0x7f.1/")).is_err());
        assert!(check_literal(&u("http://[0:0:0:0:0:ffff:7f00:1]/")).is_err());
        assert!(check_literal(&u("http://8.8.8.8/")).is_ok());
        assert!(
            check_literal(&u("http://localhost/")).is_ok(),
            "names go to the resolver"
        );
    }

    #[tokio::test]
    async fn resolver_drops_refused_addresses() {
        let name: Name = "localhost".parse().unwrap();
        let err = match GuardedResolver.resolve(name).await {
            Ok(_) => panic!("localhost must be refused"),
            Err(e) => e,
        };
        assert!(err.downcast_ref::<PrivateAddressRefused>().is_some());
    }
}
