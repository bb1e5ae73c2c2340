//! What a call can fail with; every error answer is mapped once, here, into the typed
//! [`kluster::ErrorBody`].

/// Most bytes of an error answer that are read.
const MAX_ERROR_BODY: usize = 64 << 10;

/// A failed call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The API could not be reached (connection refused, timeout, broken stream).
    #[error("the Kubernikus API cannot be reached: {0}")]
    Unreachable(String),
    /// The API answered with an error: its body, `code` set to the HTTP status. A body that
    /// is not the API's error body keeps the status and has an empty message; `reason` is
    /// only what the answer said (a real Kubernikus says none).
    #[error("the Kubernikus API answered {}: {}", .0.code, .0.message)]
    Api(kluster::ErrorBody),
    /// The API answered 412 Precondition Failed: the resource changed since the version an
    /// `If-Match` named (its body, `code` 412). Nothing was changed.
    #[error("the resource changed since it was read: {}", .0.message)]
    Stale(kluster::ErrorBody),
    /// The API does not offer this extension (a Kubernikus without it).
    #[error("this Kubernikus does not offer {0}")]
    NotOffered(&'static str),
    /// The answer was not what the API documents.
    #[error("the Kubernikus API's answer is not understood: {0}")]
    Decode(String),
}

impl Error {
    /// The HTTP status of an error answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api(e) | Error::Stale(e) => u16::try_from(e.code).ok(),
            _ => None,
        }
    }

    /// The typed error body of an error answer.
    pub fn api(&self) -> Option<&kluster::ErrorBody> {
        match self {
            Error::Api(e) | Error::Stale(e) => Some(e),
            _ => None,
        }
    }
}

/// The error of a non-success answer.
pub(crate) async fn of_answer(resp: reqwest::Response) -> Error {
    let status = resp.status().as_u16();
    let bytes = match read_bounded(resp, MAX_ERROR_BODY).await {
        Ok(b) => b,
        Err(e) => return e,
    };
    let body = of_body(status, &bytes);
    if status == 412 {
        Error::Stale(body)
    } else {
        Error::Api(body)
    }
}

/// The typed error of an answer with `status` and `body`.
pub fn of_body(status: u16, body: &[u8]) -> kluster::ErrorBody {
    let mut e: kluster::ErrorBody = serde_json::from_slice(body).unwrap_or_default();
    e.code = i64::from(status);
    e
}

/// The answer's body, at most `max` bytes (the rest is not read).
pub(crate) async fn read_bounded(
    mut resp: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(unreachable)? {
        out.extend_from_slice(&chunk);
        if out.len() > max {
            out.truncate(max);
            break;
        }
    }
    Ok(out)
}

/// A transport failure, without the URL (it may carry a query).
pub(crate) fn unreachable(e: reqwest::Error) -> Error {
    Error::Unreachable(e.without_url().to_string())
}
