//! Which certificate authorities a client toward Keystone or the cloud trusts: the roots
//! built into rustls (webpki), the system's bundle (`SSL_CERT_FILE`, else
//! `/etc/ssl/certs/ca-certificates.crt` when present), and a configured CA file (a private
//! cloud's own CA). [`client_builder`] applies them with the timeouts.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The system's CA bundle when `SSL_CERT_FILE` does not name one.
pub const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// How a client reaches its service: timeouts and extra trust.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest wait for a connection.
    pub connect_timeout: Duration,
    /// Longest wait for a whole answer.
    pub timeout: Duration,
    /// A PEM file of CA certificates to trust beside the built-in and system ones.
    pub ca_file: Option<PathBuf>,
}

impl Default for ClientOptions {
    /// 3 s to connect, 15 s in all, no CA file.
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(3),
            timeout: Duration::from_secs(15),
            ca_file: None,
        }
    }
}

/// The certificates in PEM file `path`; why not, in a sentence naming it.
pub fn read_pem(path: &Path) -> Result<Vec<reqwest::Certificate>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("the CA file {} cannot be read: {e}", path.display()))?;
    let certs = reqwest::Certificate::from_pem_bundle(&bytes).map_err(|e| {
        format!(
            "the CA file {} holds no readable PEM certificates: {e}",
            path.display()
        )
    })?;
    if certs.is_empty() {
        return Err(format!(
            "the CA file {} holds no certificates",
            path.display()
        ));
    }
    Ok(certs)
}

/// The system's bundle (`SSL_CERT_FILE`, else [`SYSTEM_BUNDLE`]); none when absent or
/// unreadable (the built-in roots remain).
fn system_roots() -> Vec<reqwest::Certificate> {
    let path = std::env::var_os("SSL_CERT_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(SYSTEM_BUNDLE));
    if !path.exists() {
        return Vec::new();
    }
    read_pem(&path).unwrap_or_default()
}

/// A reqwest client builder with `options`' timeouts and trust; an unreadable CA file is
/// an error naming it.
pub fn client_builder(options: &ClientOptions) -> Result<reqwest::ClientBuilder, String> {
    let mut b = reqwest::Client::builder()
        .connect_timeout(options.connect_timeout)
        .timeout(options.timeout);
    let mut roots = system_roots();
    if let Some(path) = &options.ca_file {
        roots.extend(read_pem(path)?);
    }
    for cert in roots {
        b = b.add_root_certificate(cert);
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_empty_ca_file_is_named() {
        let missing = read_pem(Path::new("/nonexistent/ca.pem")).unwrap_err();
        assert!(
            missing.contains("/nonexistent/ca.pem cannot be read"),
            "{missing}"
        );
        let dir = std::env::temp_dir().join(format!("ks-trust-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let said = read_pem(&empty).unwrap_err();
        assert!(said.contains("empty.pem"), "{said}");
        let opts = ClientOptions {
            ca_file: Some(empty),
            ..ClientOptions::default()
        };
        assert!(client_builder(&opts).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
