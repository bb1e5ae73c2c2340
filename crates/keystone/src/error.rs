//! Errors of the Keystone client, typed by what the caller should do about them.

/// What can go wrong when talking to Keystone. Messages never contain token secrets.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Keystone refused the credentials or the token (HTTP 401).
    #[error("Keystone rejected the credentials")]
    Unauthorized,
    /// The caller may not do this (HTTP 403), with Keystone's explanation.
    #[error("Keystone denied the request: {0}")]
    Forbidden(String),
    /// The token or object does not exist (HTTP 404): for tokens, expired or revoked.
    #[error("Keystone does not know this token or object")]
    NotFound,
    /// Keystone could not be reached (connection refused, DNS, timeout).
    #[error("Keystone is unreachable: {0}")]
    Unreachable(String),
    /// Keystone answered with a status this client does not expect.
    #[error("Keystone answered {status}: {message}")]
    Unexpected {
        /// The HTTP status code.
        status: u16,
        /// Keystone's error message, or a short excerpt of the body.
        message: String,
    },
    /// Keystone answered successfully but the body could not be understood.
    #[error("Keystone sent a response this client cannot read: {0}")]
    Decode(String),
    /// The configured base URL cannot be joined with an API path.
    #[error("invalid Keystone URL: {0}")]
    BadUrl(String),
}

impl Error {
    /// True when the error means Keystone itself is down or unreachable (503 material).
    pub fn is_unavailable(&self) -> bool {
        match self {
            Error::Unreachable(_) => true,
            Error::Unexpected { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// Maps a transport error to [`Error::Unreachable`] or [`Error::Decode`], dropping URLs
    /// (which never carry secrets here, but keep messages short).
    pub(crate) fn from_transport(err: reqwest::Error) -> Self {
        let decode = err.is_decode();
        // The causes say what went wrong (e.g. "invalid peer certificate: UnknownIssuer").
        let err = err.without_url();
        let mut words = err.to_string();
        let mut source = std::error::Error::source(&err);
        while let Some(s) = source {
            words = format!("{words}: {s}");
            source = s.source();
        }
        if decode {
            Error::Decode(words)
        } else {
            Error::Unreachable(words)
        }
    }
}
