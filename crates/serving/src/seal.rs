//! Secrets sealed at rest: a 32-byte key (read from a file, made when missing) and
//! ChaCha20-Poly1305 with a random nonce per secret. The controller seals klusters' CA keys
//! and users' passwords with it, the dashboard its sessions.

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce};
use rand_core::{OsRng, RngCore};

/// Why a secret could not be sealed or opened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SealError {
    /// Encryption failed.
    #[error("sealing failed")]
    Seal,
    /// The sealed bytes are not this key's (or were changed).
    #[error("the sealed secret cannot be opened with this key")]
    Open,
}

/// A key file that cannot be used, in words (the caller names the file).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(pub String);

/// A 32-byte sealing key; `Debug` never shows it.
#[derive(Clone)]
pub struct SealKey(pub [u8; 32]);

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealKey(<redacted>)")
    }
}

/// Seals and opens secrets with ChaCha20-Poly1305 (random 96-bit nonce stored in front).
pub struct Sealer {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(<redacted>)")
    }
}

impl Sealer {
    /// A sealer with a 32-byte key.
    pub fn new(key: &[u8; 32]) -> Sealer {
        Sealer {
            cipher: ChaCha20Poly1305::new(key.into()),
        }
    }

    /// Encrypts `plain`; output is nonce ‖ ciphertext ‖ tag.
    pub fn seal(&self, plain: &[u8]) -> Result<Vec<u8>, SealError> {
        let mut nonce = [0u8; 12];
        OsRng.fill_bytes(&mut nonce);
        let ct = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plain)
            .map_err(|_| SealError::Seal)?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&ct);
        Ok(out)
    }

    /// Decrypts what [`Sealer::seal`] produced.
    pub fn open(&self, sealed: &[u8]) -> Result<Vec<u8>, SealError> {
        if sealed.len() < 12 {
            return Err(SealError::Open);
        }
        let (nonce, ct) = sealed.split_at(12);
        self.cipher
            .decrypt(Nonce::from_slice(nonce), ct)
            .map_err(|_| SealError::Open)
    }
}

/// Reads a sealing key (64 hex digits) from `path`, creating the file with a random key
/// (mode 0600) when it does not exist.
pub fn load_or_create_key(path: &std::path::Path) -> Result<SealKey, KeyError> {
    let bad = |message: String| KeyError(message);
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let hex = text.trim();
            if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad("expected 64 hexadecimal digits (32 bytes)".into()));
            }
            let mut key = [0u8; 32];
            for (i, byte) in key.iter_mut().enumerate() {
                *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
                    .map_err(|e| bad(e.to_string()))?;
            }
            Ok(SealKey(key))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            use rand_core::RngCore;
            let mut key = [0u8; 32];
            rand_core::OsRng.fill_bytes(&mut key);
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| bad(e.to_string()))?;
            }
            let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
            match write_private(path, &hex) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), "created a new sealing key");
                    Ok(SealKey(key))
                }
                // Another replica starting at the same moment created it first: use theirs.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => load_or_create_key(path),
                Err(e) => Err(bad(e.to_string())),
            }
        }
        Err(e) => Err(bad(e.to_string())),
    }
}

/// Publishes `text` at `path` (mode 0600) whole or not at all: written to a temporary file
/// beside it, then hard-linked into place, which fails with `AlreadyExists` when another
/// process published first (so nobody ever reads a half-written key).
#[cfg(unix)]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension(format!("tmp-{}-{:x}", std::process::id(), {
        use rand_core::RngCore;
        rand_core::OsRng.next_u64()
    }));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    written
}

#[cfg(not(unix))]
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}
