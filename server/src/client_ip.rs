//! The client's address behind proxies: `X-Forwarded-For` is believed only when the peer is
//! one of the configured proxies (`trusted_proxies`), and then only up to the first hop that
//! is not a trusted proxy. The result goes into the request as [`ClientAddr`] for the sign-in
//! limits and the logs.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use app::ssr::ClientAddr;
use axum::{
    extract::{ConnectInfo, Request, State},
    http::HeaderMap,
    middleware::Next,
    response::Response,
};

/// An address range, e.g. `10.0.0.0/8`, `::1/128` or a bare address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpNet {
    addr: IpAddr,
    prefix: u8,
}

impl IpNet {
    /// Parses `a.b.c.d/n`, `x::y/n` or a bare address; `Err` says what is wrong.
    pub fn parse(s: &str) -> Result<IpNet, String> {
        let (addr, prefix) = match s.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s.trim(), None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("{s:?} is not an IP address or range"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{s:?}: the prefix length must be 0 to {max}"))?,
        };
        Ok(IpNet { addr, prefix })
    }

    /// Whether `ip` lies in this range (IPv4-mapped IPv6 addresses count as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// The proxies whose `X-Forwarded-For` is believed.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(pub Arc<[IpNet]>);

impl TrustedProxies {
    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }

    /// The client behind `peer`: the peer itself unless it is a trusted proxy; then the
    /// right-most `X-Forwarded-For` entry that is not a trusted proxy (entries further left
    /// were written by the client and prove nothing).
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let mut client = peer;
        let hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect::<Vec<_>>();
        for hop in hops.iter().rev() {
            match hop.trim().parse::<IpAddr>() {
                Ok(ip) => {
                    client = canonical(ip);
                    if !self.trusts(client) {
                        break;
                    }
                }
                Err(_) => break, // garbage: stop at the last address we could believe
            }
        }
        client
    }
}

/// Middleware: resolves the client address and inserts it as [`ClientAddr`].
pub async fn resolve(
    State(proxies): State<TrustedProxies>,
    mut req: Request,
    next: Next,
) -> Response {
    if let Some(peer) = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
    {
        let client = proxies.client(peer, req.headers());
        req.extensions_mut().insert(ClientAddr(client));
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies(list.iter().map(|s| IpNet::parse(s).unwrap()).collect())
    }

    fn xff(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", v.parse().unwrap());
        h
    }

    #[test]
    fn ranges_parse_and_match() {
        let n = IpNet::parse("10.1.0.0/16").unwrap();
        assert!(n.contains("10.1.200.3".parse().unwrap()));
        assert!(!n.contains("10.2.0.1".parse().unwrap()));
        assert!(n.contains("::ffff:10.1.0.9".parse().unwrap()));
        let v6 = IpNet::parse("2001:db8::/32").unwrap();
        assert!(v6.contains("2001:db8:5::1".parse().unwrap()));
        assert!(IpNet::parse("0.0.0.0/0")
            .unwrap()
            .contains("1.2.3.4".parse().unwrap()));
        assert!(IpNet::parse("10.0.0.0/33").unwrap_err().contains("prefix"));
        assert!(IpNet::parse("proxy").unwrap_err().contains("not an IP"));
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let p = proxies(&["127.0.0.1", "10.0.0.0/8"]);
        let stranger: IpAddr = "203.0.113.5".parse().unwrap();
        // A stranger cannot claim another address.
        assert_eq!(p.client(stranger, &xff("198.51.100.1")), stranger);
        // Through the proxy: the right-most untrusted hop; a forged left part is ignored.
        assert_eq!(
            p.client(
                "127.0.0.1".parse().unwrap(),
                &xff("1.1.1.1, 198.51.100.7, 10.0.0.4")
            ),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        // No header: the proxy itself.
        assert_eq!(
            p.client("127.0.0.1".parse().unwrap(), &HeaderMap::new()),
            "127.0.0.1".parse::<IpAddr>().unwrap()
        );
        // Garbage stops the walk at the last believable address.
        assert_eq!(
            p.client("127.0.0.1".parse().unwrap(), &xff("198.51.100.7, junk")),
            "127.0.0.1".parse::<IpAddr>().unwrap()
        );
        // Nothing configured: nobody is trusted.
        assert_eq!(
            TrustedProxies::default().client("127.0.0.1".parse().unwrap(), &xff("9.9.9.9")),
            "127.0.0.1".parse::<IpAddr>().unwrap()
        );
    }
}
