//! The SSRF guard: which addresses a scan may connect to.
//!
//! Refused unless private addresses are allowed: loopback, private (RFC 1918,
//! ULA `fc00::/7`), link-local (`169.254/16` including the cloud metadata address
//! `169.254.169.254`, `fe80::/10`), CGNAT `100.64/10`, multicast, unspecified,
//! broadcast and documentation ranges, and IPv4-mapped / NAT64 IPv6 forms of those.
//!
//! Host names are checked in [`GuardedResolver`], installed as reqwest's DNS
//! resolver: it drops refused addresses from the answer, so the connection goes
//! to an address that was checked (no DNS-rebinding window between check and
//! connect). reqwest does not call the resolver for IP-literal hosts, so the
//! fetcher checks literals itself with [`check_literal`] before every request and
//! redirect hop.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ipnet::{Ipv4Net, Ipv6Net};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// Whether connecting to `ip` is refused when private addresses are not allowed.
pub fn is_forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4_forbidden(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return v4_forbidden(v4);
            }
            // NAT64 well-known prefix 64:ff9b::/96 embeds an IPv4 address.
            let seg = v6.segments();
            if seg[0] == 0x64 && seg[1] == 0xff9b && seg[2..6] == [0, 0, 0, 0] {
                let o = v6.octets();
                return v4_forbidden(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || in6(v6, "fc00::/7")
                || in6(v6, "fe80::/10")
                || in6(v6, "fec0::/10")
                || in6(v6, "2001:db8::/32")
                || in6(v6, "::/96")
        }
    }
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

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let first_refused = addrs.iter().find(|a| is_forbidden(a.ip())).map(|a| a.ip());
            let allowed: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|a| !is_forbidden(a.ip()))
                .collect();
            match (allowed.is_empty(), first_refused) {
                (true, Some(addr)) => Err(Box::new(PrivateAddressRefused { host, addr })
                    as Box<dyn std::error::Error + Send + Sync>),
                _ => Ok(Box::new(allowed.into_iter()) as Addrs),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
