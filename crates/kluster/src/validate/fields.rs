//! Rules for single fields: kluster and pool names, pool sizes, CIDR ranges, labels and taints.

use crate::net::Cidr;

/// Maximum length of kluster and pool names.
pub const MAX_NAME_LEN: usize = 20;
/// Maximum length of `sshPublicKey`.
pub const MAX_SSH_KEY_LEN: usize = 10_000;

/// Checks a kluster name: `^[a-z]([-a-z0-9]*[a-z0-9])?$`, at most 20 characters.
pub fn kluster_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Enter a name.".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "Use at most {MAX_NAME_LEN} characters (this has {}).",
            name.len()
        ));
    }
    let b = name.as_bytes();
    let ok_inner = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
    if !ok_inner || !b[0].is_ascii_lowercase() || b[b.len() - 1] == b'-' {
        return Err("Use lower-case letters, digits and dashes; start with a letter and end with a letter or digit.".into());
    }
    Ok(())
}

/// Checks a pool name: `^[a-z0-9]([-\.a-z0-9]*)?$`, at most 20 characters.
pub fn pool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Enter a pool name.".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "Use at most {MAX_NAME_LEN} characters (this has {}).",
            name.len()
        ));
    }
    let b = name.as_bytes();
    let ok = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'.');
    if !ok || !(b[0].is_ascii_lowercase() || b[0].is_ascii_digit()) {
        return Err(
            "Use lower-case letters, digits, dashes and dots; start with a letter or digit.".into(),
        );
    }
    Ok(())
}

/// Checks a pool size: 0–127.
pub fn pool_size(size: i64) -> Result<(), String> {
    if (0..=127).contains(&size) {
        Ok(())
    } else {
        Err("A pool has between 0 and 127 nodes.".into())
    }
}

/// Checks a CIDR range `a.b.c.d/n`.
pub fn cidr(value: &str) -> Result<Cidr, String> {
    Cidr::parse(value).ok_or_else(|| format!("{value:?} is not an IPv4 range like 10.180.0.0/16."))
}

/// `[prefix/]name` of a label or taint key, Kubernetes style.
fn label_key(key: &str) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        // DNS subdomain: dot-separated labels of [a-z0-9]([-a-z0-9]*[a-z0-9]).
        // The swagger's pattern requires at least two characters per label.
        let ok = p.split('.').all(|l| {
            let b = l.as_bytes();
            b.len() >= 2
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        });
        if !ok {
            return false;
        }
    }
    label_value(name)
}

/// `[A-Za-z0-9][-A-Za-z0-9_.]{0,62}`.
fn label_value(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Checks a label `key=value`.
pub fn label(l: &str) -> Result<(), String> {
    match l.split_once('=') {
        Some((k, v)) if label_key(k) && label_value(v) => Ok(()),
        _ => Err(format!("{l:?} is not a label like team=payments.")),
    }
}

/// The items of a text box that takes one a line (labels, taints): each line trimmed,
/// blank lines dropped. Forms and the API's callers read such boxes with this one function.
pub fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Items as a text box shows them, one a line: the inverse of [`lines`].
pub fn unlines(items: &[String]) -> String {
    items.join("\n")
}

/// The key of a label (`key=value`) or taint (`key=value:Effect`); the whole text when it
/// has no `=`.
pub fn key_of(item: &str) -> &str {
    item.split_once('=').map_or(item, |(k, _)| k)
}

/// The effect of a taint `key=value:Effect` (empty without one).
pub fn effect_of(taint: &str) -> &str {
    taint.rsplit_once(':').map_or("", |(_, e)| e)
}

/// Checks a taint `key=value:NoSchedule|NoExecute|PreferNoSchedule`.
pub fn taint(t: &str) -> Result<(), String> {
    let ok = t.rsplit_once(':').is_some_and(|(kv, effect)| {
        matches!(effect, "NoSchedule" | "NoExecute" | "PreferNoSchedule")
            && kv
                .split_once('=')
                .is_some_and(|(k, v)| label_key(k) && label_value(v))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{t:?} is not a taint like dedicated=gpu:NoSchedule."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kluster_names_follow_the_pattern_and_length() {
        for ok in ["a", "demo", "my-cluster-1", "abcdefghijklmnopqrst"] {
            assert_eq!(kluster_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "1abc",
            "Demo",
            "demo-",
            "de_mo",
            "abcdefghijklmnopqrstu",
            "dé",
        ] {
            assert!(kluster_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn labels_and_taints() {
        assert!(label("team=payments").is_ok());
        assert!(label("example.com/team=a_b.c").is_ok());
        assert!(label("team").is_err());
        assert!(
            label("a.b/x=y").is_err(),
            "prefix labels need two characters"
        );
        assert!(label("-x=y").is_err());
        assert!(taint("dedicated=gpu:NoSchedule").is_ok());
        assert!(taint("dedicated=gpu:Sometimes").is_err());
        assert!(taint("dedicated:NoSchedule").is_err());
    }

    #[test]
    fn one_item_a_line_trimmed_without_blank_lines() {
        assert_eq!(
            lines(" team=a \r\n\n  \nzone=b\n"),
            ["team=a".to_string(), "zone=b".to_string()]
        );
        assert!(lines("").is_empty() && lines("\n \n").is_empty());
        assert_eq!(lines(&unlines(&lines("a=b\nc=d"))), lines("a=b\nc=d"));
        assert_eq!(key_of("example.com/team=a"), "example.com/team");
        assert_eq!(key_of("team"), "team");
        assert_eq!(effect_of("k=v:NoExecute"), "NoExecute");
        assert_eq!(effect_of("k=v"), "");
    }
}
