//! Certificates: a CA per kluster (made at creation), client certificates minted per
//! `/credentials` call, the kubeconfig around them, and sealing of CA keys at rest
//! (ChaCha20-Poly1305 with a key from configuration).

use std::str::FromStr;
use std::time::Duration;

use base64::Engine;
use p256::ecdsa::{DerSignature, SigningKey};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rand_core::{OsRng, RngCore};
use x509_cert::builder::{Builder, CertificateBuilder, Profile};
use x509_cert::der::{DecodePem, EncodePem};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{EncodePublicKey, SubjectPublicKeyInfoOwned};
use x509_cert::time::Validity;
use x509_cert::Certificate;

/// A PKI failure (never carries key material).
#[derive(Debug, thiserror::Error)]
pub enum PkiError {
    /// Building, encoding or decoding a certificate or key failed.
    #[error("certificate error: {0}")]
    Cert(String),
    /// A sealed key does not open with the configured key (wrong key or tampering).
    #[error("the CA key cannot be unsealed: wrong encryption key or corrupt data")]
    Unseal,
}

impl From<SealError> for PkiError {
    fn from(e: SealError) -> Self {
        match e {
            SealError::Open => PkiError::Unseal,
            SealError::Seal => PkiError::Cert(e.to_string()),
        }
    }
}

fn cert_err(e: impl std::fmt::Display) -> PkiError {
    PkiError::Cert(e.to_string())
}

/// Validity of a kluster CA.
pub const CA_VALIDITY: Duration = Duration::from_secs(10 * 365 * 24 * 3600);
/// Validity of a client certificate.
pub const CLIENT_VALIDITY: Duration = Duration::from_secs(24 * 3600);

/// Escapes an RFC 4514 attribute value.
fn rdn_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for (i, c) in v.chars().enumerate() {
        if matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';' | '=')
            || (i == 0 && matches!(c, '#' | ' '))
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn serial() -> Result<SerialNumber, PkiError> {
    let mut b = [0u8; 16];
    OsRng.fill_bytes(&mut b);
    b[0] &= 0x7f; // positive
    b[0] |= 0x01; // no leading zero byte
    SerialNumber::new(&b).map_err(cert_err)
}

/// A kluster's client CA: certificate and signing key.
pub struct KlusterCa {
    /// The CA certificate (PEM).
    pub cert_pem: String,
    key: SigningKey,
}

impl KlusterCa {
    /// The CA subject for a kluster (`CN=<name>-<account>.clients`, `O=Mission Control`).
    fn subject(name: &str, account: &str) -> Result<Name, PkiError> {
        Name::from_str(&format!(
            "CN={},O=Mission Control",
            rdn_value(&format!("{name}-{account} clients CA"))
        ))
        .map_err(cert_err)
    }

    /// Makes a new self-signed CA for kluster `name` of project `account`.
    pub fn generate(name: &str, account: &str) -> Result<KlusterCa, PkiError> {
        let key = SigningKey::random(&mut OsRng);
        let subject = Self::subject(name, account)?;
        let spki = SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).map_err(cert_err)?;
        let validity = Validity::from_now(CA_VALIDITY).map_err(cert_err)?;
        let builder =
            CertificateBuilder::new(Profile::Root, serial()?, validity, subject, spki, &key)
                .map_err(cert_err)?;
        let cert = builder.build::<DerSignature>().map_err(cert_err)?;
        let cert_pem = cert.to_pem(LineEnding::LF).map_err(cert_err)?;
        Ok(KlusterCa { cert_pem, key })
    }

    /// Rebuilds a CA from its certificate and its sealed key.
    pub fn open(cert_pem: &str, sealed_key: &[u8], seal: &Sealer) -> Result<KlusterCa, PkiError> {
        let der = seal.open(sealed_key)?;
        let key = SigningKey::from_pkcs8_der(&der).map_err(|_| PkiError::Unseal)?;
        Ok(KlusterCa {
            cert_pem: cert_pem.to_string(),
            key,
        })
    }

    /// The signing key, sealed for storage.
    pub fn sealed_key(&self, seal: &Sealer) -> Result<Vec<u8>, PkiError> {
        let der = self.key.to_pkcs8_der().map_err(cert_err)?;
        Ok(seal.seal(der.as_bytes())?)
    }

    /// Mints a client certificate (`CN=<common_name>`, one `O` per organization) valid for
    /// `validity`; returns (certificate PEM, private key PEM).
    pub fn client_cert(
        &self,
        common_name: &str,
        organizations: &[String],
        validity: Duration,
    ) -> Result<(String, String), PkiError> {
        let ca = Certificate::from_pem(self.cert_pem.as_bytes()).map_err(cert_err)?;
        let issuer = ca.tbs_certificate.subject.clone();
        let mut dn = format!("CN={}", rdn_value(common_name));
        for o in organizations {
            dn.push_str(&format!(",O={}", rdn_value(o)));
        }
        let subject = Name::from_str(&dn).map_err(cert_err)?;
        let key = SigningKey::random(&mut OsRng);
        let spki = SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).map_err(cert_err)?;
        let profile = Profile::Leaf {
            issuer,
            enable_key_agreement: false,
            enable_key_encipherment: false,
        };
        let validity = Validity::from_now(validity).map_err(cert_err)?;
        let builder =
            CertificateBuilder::new(profile, serial()?, validity, subject, spki, &self.key)
                .map_err(cert_err)?;
        let cert = builder.build::<DerSignature>().map_err(cert_err)?;
        let cert_pem = cert.to_pem(LineEnding::LF).map_err(cert_err)?;
        let key_pem = key
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(cert_err)?
            .to_string();
        Ok((cert_pem, key_pem))
    }

    /// The CA's private key as PKCS#8 PEM (only for klusters whose control plane the user
    /// runs with kubeadm).
    pub fn key_pem(&self) -> Result<String, PkiError> {
        Ok(self
            .key
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(cert_err)?
            .to_string())
    }

    /// The CA's public key in SPKI DER (for verifying what it signed).
    pub fn public_key_der(&self) -> Result<Vec<u8>, PkiError> {
        Ok(self
            .key
            .verifying_key()
            .to_public_key_der()
            .map_err(cert_err)?
            .into_vec())
    }
}

pub use serving::seal::{SealError, SealKey, Sealer};

/// What goes into a kubeconfig.
pub struct KubeconfigParts<'a> {
    /// Kluster name: names the cluster and the context.
    pub kluster: &'a str,
    /// Apiserver URL.
    pub server: &'a str,
    /// User entry name (`user@domain`).
    pub user: &'a str,
    /// CA certificate PEM.
    pub ca_pem: &'a str,
    /// Client certificate PEM.
    pub cert_pem: &'a str,
    /// Client key PEM.
    pub key_pem: &'a str,
}

/// Renders a kubeconfig (YAML) with embedded, base64-encoded certificate data.
pub fn kubeconfig(p: &KubeconfigParts<'_>) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s.as_bytes());
    // Names are quoted; kluster names and user@domain contain no quotes or newlines, and
    // the server URL is built by the controller.
    let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: {k}\n  cluster:\n    server: {server}\n    certificate-authority-data: {ca}\n\
         contexts:\n- name: {k}\n  context:\n    cluster: {k}\n    user: {u}\ncurrent-context: {k}\n\
         users:\n- name: {u}\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {key}\npreferences: {{}}\n",
        k = q(p.kluster),
        server = q(p.server),
        u = q(p.user),
        ca = b64(p.ca_pem),
        cert = b64(p.cert_pem),
        key = b64(p.key_pem),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::VerifyingKey;
    use p256::pkcs8::DecodePublicKey;
    use x509_cert::der::Encode;

    /// Verifies `cert` was signed by the key in `ca_spki_der`.
    pub(crate) fn signed_by(cert: &Certificate, ca_spki_der: &[u8]) -> bool {
        let vk = VerifyingKey::from_public_key_der(ca_spki_der).unwrap();
        let tbs = cert.tbs_certificate.to_der().unwrap();
        let sig = DerSignature::from_bytes(cert.signature.raw_bytes()).unwrap();
        vk.verify(&tbs, &sig).is_ok()
    }

    #[test]
    fn client_certs_chain_to_the_kluster_ca_with_cn_and_every_organization() {
        let ca = KlusterCa::generate("prod", "p1").unwrap();
        let orgs = vec![
            "os:kubernetes_admin".to_string(),
            "os:reader".to_string(),
            "team, a+b".to_string(),
        ];
        let (cert_pem, key_pem) = ca
            .client_cert("alice@demo", &orgs, CLIENT_VALIDITY)
            .unwrap();
        assert!(key_pem.starts_with("-----BEGIN PRIVATE KEY-----"));
        let cert = Certificate::from_pem(cert_pem.as_bytes()).unwrap();
        let ca_cert = Certificate::from_pem(ca.cert_pem.as_bytes()).unwrap();
        assert_eq!(cert.tbs_certificate.issuer, ca_cert.tbs_certificate.subject);
        assert!(signed_by(&cert, &ca.public_key_der().unwrap()));
        let other = KlusterCa::generate("prod", "p2").unwrap();
        assert!(
            !signed_by(&cert, &other.public_key_der().unwrap()),
            "not signed by another kluster's CA"
        );
        let subject = cert.tbs_certificate.subject.to_string();
        assert!(subject.contains("CN=alice@demo"), "{subject}");
        for o in ["O=os:kubernetes_admin", "O=os:reader", "O=team\\, a\\+b"] {
            assert!(subject.contains(o), "{o} missing in {subject}");
        }
        let v = &cert.tbs_certificate.validity;
        let secs =
            v.not_after.to_unix_duration().as_secs() - v.not_before.to_unix_duration().as_secs();
        assert_eq!(secs, 24 * 3600);
    }

    #[test]
    fn sealed_ca_keys_reopen_only_with_the_right_key() {
        let ca = KlusterCa::generate("k", "p").unwrap();
        let seal = Sealer::new(&[7u8; 32]);
        let sealed = ca.sealed_key(&seal).unwrap();
        assert!(!sealed.windows(8).any(|w| ca
            .key
            .to_pkcs8_der()
            .unwrap()
            .as_bytes()
            .windows(8)
            .any(|x| x == w)));
        let again = KlusterCa::open(&ca.cert_pem, &sealed, &seal).unwrap();
        assert_eq!(
            again.public_key_der().unwrap(),
            ca.public_key_der().unwrap()
        );
        assert!(matches!(
            KlusterCa::open(&ca.cert_pem, &sealed, &Sealer::new(&[8u8; 32])),
            Err(PkiError::Unseal)
        ));
        let mut tampered = sealed.clone();
        tampered[20] ^= 1;
        assert!(matches!(
            KlusterCa::open(&ca.cert_pem, &tampered, &seal),
            Err(PkiError::Unseal)
        ));
    }
}
