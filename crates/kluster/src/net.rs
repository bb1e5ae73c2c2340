//! IPv4 addresses and CIDR ranges, parsed strictly as the swagger's patterns demand
//! (no leading zeros, prefix 0–32).

/// An IPv4 CIDR range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    /// The network address as written (host bits may be set).
    pub addr: u32,
    /// Prefix length, 0–32.
    pub prefix: u8,
}

/// Parses a dotted-quad IPv4 address; each octet 0–255 without leading zeros.
pub fn parse_ipv4(s: &str) -> Option<u32> {
    let mut out = 0u32;
    let mut n = 0;
    for part in s.split('.') {
        n += 1;
        if n > 4 || part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if part.len() > 1 && part.starts_with('0') {
            return None;
        }
        let v: u32 = part.parse().ok()?;
        if v > 255 {
            return None;
        }
        out = (out << 8) | v;
    }
    (n == 4).then_some(out)
}

/// Formats an IPv4 address.
pub fn format_ipv4(a: u32) -> String {
    format!(
        "{}.{}.{}.{}",
        a >> 24,
        (a >> 16) & 255,
        (a >> 8) & 255,
        a & 255
    )
}

impl Cidr {
    /// Parses `a.b.c.d/n`.
    pub fn parse(s: &str) -> Option<Cidr> {
        let (ip, prefix) = s.split_once('/')?;
        if prefix.is_empty() || prefix.len() > 2 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if prefix.len() > 1 && prefix.starts_with('0') {
            return None;
        }
        let prefix: u8 = prefix.parse().ok()?;
        if prefix > 32 {
            return None;
        }
        Some(Cidr {
            addr: parse_ipv4(ip)?,
            prefix,
        })
    }

    fn mask(self) -> u32 {
        if self.prefix == 0 {
            0
        } else {
            u32::MAX << (32 - u32::from(self.prefix))
        }
    }

    /// First address of the range.
    pub fn network(self) -> u32 {
        self.addr & self.mask()
    }

    /// Last address of the range.
    pub fn last(self) -> u32 {
        self.network() | !self.mask()
    }

    /// Whether two ranges share any address.
    pub fn overlaps(self, other: Cidr) -> bool {
        self.network() <= other.last() && other.network() <= self.last()
    }

    /// Whether `ip` lies in the range.
    pub fn contains(self, ip: u32) -> bool {
        self.network() <= ip && ip <= self.last()
    }

    /// The address at `index` from the start of the range, if inside it.
    pub fn nth(self, index: u32) -> Option<u32> {
        let ip = self.network().checked_add(index)?;
        self.contains(ip).then_some(ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_the_swagger_pattern() {
        assert_eq!(
            Cidr::parse("198.18.128.0/17"),
            Some(Cidr {
                addr: 0xC612_8000,
                prefix: 17
            })
        );
        for bad in [
            "10.0.0.0",
            "10.0.0/8",
            "10.0.0.0/33",
            "010.0.0.0/8",
            "10.0.0.256/8",
            "10.0.0.0/08",
            "a.b.c.d/8",
            " 10.0.0.0/8",
        ] {
            assert_eq!(Cidr::parse(bad), None, "{bad}");
        }
        assert_eq!(parse_ipv4("0.0.0.0"), Some(0));
    }

    #[test]
    fn overlap_and_nth() {
        let a = Cidr::parse("100.100.0.0/16").unwrap();
        assert!(a.overlaps(Cidr::parse("100.100.128.0/17").unwrap()));
        assert!(!a.overlaps(Cidr::parse("100.101.0.0/16").unwrap()));
        let s = Cidr::parse("198.18.128.0/17").unwrap();
        assert_eq!(format_ipv4(s.nth(2).unwrap()), "198.18.128.2");
        assert_eq!(s.nth(1 << 15), None);
    }
}
