//! The client's address behind proxies: `X-Forwarded-For` is believed only when the peer is
//! one of the configured proxies (`trusted_proxies`), and then only up to the first hop that
//! is not a trusted proxy. The result goes into the request as [`ClientAddr`] for the sign-in
//! limits and the logs.

use std::net::SocketAddr;

use app::ssr::ClientAddr;
use axum::{
    extract::{ConnectInfo, Request, State},
    middleware::Next,
    response::Response,
};
pub use serving::net::{IpNet, TrustedProxies};

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
    use axum::http::HeaderMap;
    use std::net::IpAddr;

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
