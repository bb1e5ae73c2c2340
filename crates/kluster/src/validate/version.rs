//! Kubernetes versions: [`Semver`] and the swagger's semver pattern.

/// A parsed semantic version (major, minor, patch; pre-release and build ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Semver {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch version.
    pub patch: u64,
}

fn numeric(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

fn ident_ok(s: &str, numeric_no_leading_zero: bool) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && (!numeric_no_leading_zero
            || !s.bytes().all(|b| b.is_ascii_digit())
            || numeric(s).is_some())
}

/// Parses a version as the swagger's semver pattern does.
pub fn semver(v: &str) -> Result<Semver, String> {
    let bad = || format!("{v:?} is not a version like 1.32.4.");
    let (rest, build) = match v.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (v, None),
    };
    if let Some(b) = build {
        if !b.split('.').all(|i| ident_ok(i, false)) {
            return Err(bad());
        }
    }
    let (core, pre) = match rest.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (rest, None),
    };
    if let Some(p) = pre {
        if !p.split('.').all(|i| ident_ok(i, true)) {
            return Err(bad());
        }
    }
    let mut it = core.split('.');
    let (Some(a), Some(b), Some(c), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    match (numeric(a), numeric(b), numeric(c)) {
        (Some(major), Some(minor), Some(patch)) => Ok(Semver {
            major,
            minor,
            patch,
        }),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_follow_semver() {
        assert_eq!(
            semver("1.32.4"),
            Ok(Semver {
                major: 1,
                minor: 32,
                patch: 4
            })
        );
        assert!(semver("1.32.4-rc.1+build.5").is_ok());
        for bad in ["1.32", "v1.32.4", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3.4"] {
            assert!(semver(bad).is_err(), "{bad}");
        }
    }
}
