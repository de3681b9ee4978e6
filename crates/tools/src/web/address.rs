//! Which addresses the web tools may connect to, decided on the address itself.
//!
//! A host name is resolved here, every address is checked, and the caller connects to the
//! checked addresses only (pinned in the HTTP client), so a DNS answer that changes between
//! the check and the connection (rebinding) cannot slip a private address through. IPv4 ranges
//! that are not public are listed; for IPv6 only global unicast (`2000::/3`) passes, minus its
//! special ranges, and addresses that carry an IPv4 address inside (mapped, NAT64, 6to4) are
//! judged by it or refused.

use super::WebError;
use agentctl_core::{HostPattern, WebSettings};
use reqwest::Url;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// What may be reached: public addresses, plus what the settings allow.
#[derive(Debug, Clone, Default)]
pub(crate) struct AddressPolicy {
    allow_private: bool,
    allowed_hosts: Vec<HostPattern>,
}

/// Where a URL's connection goes: the addresses that passed the check.
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// The URL's host as written (`example.com`, `127.0.0.1`, `[::1]`).
    pub(crate) host: String,
    /// The addresses to connect to, all checked.
    pub(crate) addrs: Vec<SocketAddr>,
    /// True when the host is a name (the addresses must be pinned in the client); false for
    /// an address written in the URL, which no resolver is asked about.
    pub(crate) by_name: bool,
}

impl AddressPolicy {
    /// The policy of `web.allowPrivateAddresses` and `web.allowedHosts`.
    pub(crate) fn from_settings(web: &WebSettings) -> Self {
        Self {
            allow_private: web.allow_private_addresses,
            allowed_hosts: web.allowed_hosts.clone(),
        }
    }

    /// A policy that allows every address: for a URL the user wrote in the settings.
    pub(crate) fn trusting() -> Self {
        Self {
            allow_private: true,
            allowed_hosts: Vec::new(),
        }
    }

    /// Resolves `url`'s host and checks its addresses.
    pub(crate) async fn resolve(&self, url: &Url) -> Result<Destination, WebError> {
        let host = url.host_str().ok_or_else(|| WebError::BadUrl {
            url: url.to_string(),
            reason: "it has no host".into(),
        })?;
        let port = url
            .port_or_known_default()
            .ok_or_else(|| WebError::BadUrl {
                url: url.to_string(),
                reason: "it has no port".into(),
            })?;
        let (addrs, by_name) = match literal_address(host) {
            Some(ip) => (vec![SocketAddr::new(ip, port)], false),
            None => (lookup(host, port).await?, true),
        };
        let destination = Destination {
            host: host.to_owned(),
            addrs,
            by_name,
        };
        if self.allow_private || self.allowed_hosts.iter().any(|p| p.matches(host, port)) {
            return Ok(destination);
        }
        let (public, refused): (Vec<_>, Vec<_>) = destination
            .addrs
            .iter()
            .partition(|addr| non_public(addr.ip()).is_none());
        match refused.first() {
            // Connect only to the public ones: a name that also resolves to a private address
            // must not get a second chance at it.
            _ if !public.is_empty() => Ok(Destination {
                addrs: public,
                ..destination
            }),
            Some(addr) => Err(WebError::Blocked {
                url: url.to_string(),
                subject: if by_name {
                    format!("{host} resolves to {},", addr.ip())
                } else {
                    format!("{host} is")
                },
                kind: non_public(addr.ip()).unwrap_or("not public"),
                pattern: format!("{host}:{port}"),
            }),
            None => Err(WebError::Resolve {
                host: host.to_owned(),
                reason: "no addresses".into(),
            }),
        }
    }
}

/// The address written in a URL's host (`url` prints IPv4 hosts in dotted form whatever the
/// URL said, e.g. `http://2130706433/` is `127.0.0.1`, and IPv6 in brackets).
fn literal_address(host: &str) -> Option<IpAddr> {
    match host
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    {
        Some(v6) => v6.parse::<Ipv6Addr>().ok().map(IpAddr::V6),
        None => host.parse::<Ipv4Addr>().ok().map(IpAddr::V4),
    }
}

async fn lookup(host: &str, port: u16) -> Result<Vec<SocketAddr>, WebError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|error| WebError::Resolve {
            host: host.to_owned(),
            reason: error.to_string(),
        })?
        .collect();
    if addrs.is_empty() {
        return Err(WebError::Resolve {
            host: host.to_owned(),
            reason: "the name has no addresses".into(),
        });
    }
    Ok(addrs)
}

/// What kind of non-public address `ip` is (`"a loopback address"`); `None` when it is public.
pub(crate) fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => non_public_v4(ip),
        IpAddr::V6(ip) => non_public_v6(ip),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let kind = match (a, b, c) {
        (0, _, _) => "an unspecified address",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "a private address",
        (127, _, _) => "a loopback address",
        (169, 254, _) => "a link-local address",
        (100, 64..=127, _) => "a shared (CGNAT) address",
        (224..=239, _, _) => "a multicast address",
        (255, 255, 255) if ip == Ipv4Addr::BROADCAST => "the broadcast address",
        (240..=255, _, _) => "a reserved address",
        (192, 0, 0) => "a reserved (IETF protocol) address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        (192, 88, 99) => "a reserved (6to4 relay) address",
        _ => return None,
    };
    Some(kind)
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    if ip.to_ipv4_mapped().is_some() {
        return Some("an IPv4-mapped IPv6 address");
    }
    match segments[0] {
        0xfe80..=0xfebf => return Some("a link-local address"),
        0xfec0..=0xfeff => return Some("a site-local address"),
        0xfc00..=0xfdff => return Some("a unique-local address"),
        0xff00..=0xffff => return Some("a multicast address"),
        _ => {}
    }
    // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) reaches the IPv4 address in its last 32 bits.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || segments[..3] == [0x64, 0xff9b, 1] {
        return non_public_v4(embedded_v4(segments[6], segments[7]))
            .map(|_| "a NAT64 address of a non-public IPv4 address");
    }
    if segments[0] & 0xe000 != 0x2000 {
        return Some("a reserved address");
    }
    match (segments[0], segments[1]) {
        (0x2001, 0x0db8) => Some("a documentation address"),
        (0x2001, 0x0000) => Some("a Teredo tunnel address"),
        (0x2001, 0x0002) if segments[2] == 0 => Some("a benchmarking address"),
        (0x2001, 0x0010..=0x001f) => Some("a reserved (ORCHID) address"),
        // 6to4 reaches the IPv4 address in bits 16 to 48.
        (0x2002, _) => non_public_v4(embedded_v4(segments[1], segments[2]))
            .map(|_| "a 6to4 address of a non-public IPv4 address"),
        _ => None,
    }
}

fn embedded_v4(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        non_public(text.parse().unwrap())
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001:82a::200e",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }

    #[test]
    fn every_non_public_range_is_refused() {
        let cases = [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "CGNAT"),
            ("100.127.255.255", "CGNAT"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
            ("192.0.2.10", "documentation"),
            ("198.18.0.1", "benchmarking"),
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:8.8.8.8", "IPv4-mapped"),
            ("::127.0.0.1", "reserved"),
            ("fe80::1", "link-local"),
            ("fec0::1", "site-local"),
            ("fc00::1", "unique-local"),
            ("fd12:3456::1", "unique-local"),
            ("ff02::1", "multicast"),
            ("64:ff9b::7f00:1", "NAT64"),
            ("64:ff9b::a9fe:a9fe", "NAT64"),
            ("2002:7f00:1::", "6to4"),
            ("2002:a00:1::", "6to4"),
            ("2001:db8::1", "documentation"),
            ("2001:0:4136:e378::1", "Teredo"),
            ("100::1", "reserved"),
        ];
        for (ip, expected) in cases {
            let found = kind(ip).unwrap_or_else(|| panic!("{ip} passed"));
            assert!(found.contains(expected), "{ip}: {found}");
        }
    }

    #[test]
    fn url_hosts_are_read_as_addresses() {
        for (url, ip) in [
            ("http://127.0.0.1:8080/", "127.0.0.1"),
            ("http://2130706433/", "127.0.0.1"),
            ("http://0x7f.1/", "127.0.0.1"),
            ("http://[::ffff:7f00:1]/", "::ffff:127.0.0.1"),
            ("http://[::1]:3000/", "::1"),
        ] {
            let url = Url::parse(url).unwrap();
            assert_eq!(
                literal_address(url.host_str().unwrap()),
                Some(ip.parse().unwrap()),
                "{url}"
            );
        }
        assert_eq!(literal_address("example.com"), None);
    }

    #[tokio::test]
    async fn names_are_checked_by_what_they_resolve_to() {
        let policy = AddressPolicy::default();
        let url = Url::parse("http://localhost:9/").unwrap();
        let error = policy.resolve(&url).await.unwrap_err().to_string();
        assert!(error.contains("localhost resolves to "), "{error}");
        assert!(error.contains("a loopback address"), "{error}");
        assert!(
            error.contains("web.allowedHosts: [\"localhost:9\"]"),
            "{error}"
        );

        let allowed = AddressPolicy {
            allow_private: false,
            allowed_hosts: vec!["LOCALHOST".parse().unwrap()],
        };
        let destination = allowed.resolve(&url).await.unwrap();
        assert!(destination.by_name);
        assert!(destination.addrs.iter().all(|addr| addr.port() == 9));
        let other_port = AddressPolicy {
            allow_private: false,
            allowed_hosts: vec!["localhost:10".parse().unwrap()],
        };
        assert!(other_port.resolve(&url).await.is_err());
        assert!(AddressPolicy::trusting().resolve(&url).await.is_ok());
    }
}
