//! How calls to OpenStack fail, in words: a token as a sensitive header, a transport error
//! or timeout without the URL, and an error answer as a [`CloudError`] with the cloud's own
//! message (a "Quota exceeded" 403 kept as such). Shared by the sign-in and the service
//! calls.

use std::time::Duration;

use reqwest::header::HeaderValue;
use reqwest::StatusCode;
use serde_json::Value;

use crate::cloud::CloudError;

/// A call that took longer than `timeout`.
pub fn timed_out(who: &str, timeout: Duration) -> CloudError {
    CloudError::new(format!(
        "{who} did not answer within {} ms",
        timeout.as_millis()
    ))
}

/// A token as a header value marked sensitive (kept out of debug output).
pub fn secret_header(token: &keystone::TokenSecret) -> Result<HeaderValue, CloudError> {
    let mut value = HeaderValue::from_str(token.expose())
        .map_err(|_| CloudError::new("Keystone issued a token that is not a header value"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// A failed connection or a timeout, without the URL.
pub fn transport(who: &str, e: &reqwest::Error, timeout: Duration) -> CloudError {
    if e.is_timeout() {
        return timed_out(who, timeout);
    }
    let mut words = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        words = format!("{words}: {s}");
        source = s.source();
    }
    // reqwest puts the URL in its own text only; drop it all the same.
    let words = match e.url() {
        Some(u) => words
            .replace(&format!(" for url ({u})"), "")
            .replace(&format!(" ({u})"), "")
            .replace(u.as_str(), "<url>"),
        None => words,
    };
    CloudError::new(format!("{who} could not be reached: {words}"))
}

/// An OpenStack error answer as a [`CloudError`]: the cloud's words and `(HTTP status)`;
/// a 403 (or an old Nova's 413) saying "Quota exceeded" is [`CloudError::quota_exceeded`].
pub fn answer_error(status: u16, body: &[u8]) -> CloudError {
    let words = words_of(body);
    let words = if words.is_empty() {
        StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no explanation")
            .to_string()
    } else {
        words
    };
    let message = format!("{words} (HTTP {status})");
    if matches!(status, 403 | 413) && words.to_ascii_lowercase().contains("quota exceeded") {
        CloudError::quota_exceeded(message)
    } else {
        CloudError::new(message)
    }
}

/// The message of an OpenStack error body: Nova's and Cinder's `{"kind": {"message"}}`,
/// Neutron's `{"NeutronError": {"message"}}`, Keystone's `{"error": {"message"}}`,
/// Octavia's `{"faultstring"}`, an HTML page's title (a proxy's or load balancer's error
/// page), or the first 300 characters of a plain text body.
fn words_of(body: &[u8]) -> String {
    if let Some(title) = html_title(body) {
        return title;
    }
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        let direct = ["faultstring", "message", "description", "title"]
            .iter()
            .find_map(|k| v.get(k).and_then(Value::as_str));
        let nested = || {
            v.as_object()?
                .values()
                .find_map(|inner| inner.get("message").and_then(Value::as_str))
        };
        if let Some(words) = direct.or_else(nested) {
            return words.trim().to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let plain: Vec<&str> = text.split_whitespace().collect();
    plain.join(" ").chars().take(300).collect()
}

/// The title of an HTML page (`None`: `body` is no HTML page, or has no title), at most
/// 120 characters, whitespace folded.
pub fn html_title(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body.get(..body.len().min(64 * 1024))?);
    let head = text.trim_start().get(..15)?.to_ascii_lowercase();
    if !(head.starts_with("<!doctype html")
        || head.starts_with("<html")
        || head.starts_with("<head"))
    {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower.get(start..)?.find('>')? + 1;
    let close = open_end + lower.get(open_end..)?.find("</title")?;
    let title: Vec<&str> = text.get(open_end..close)?.split_whitespace().collect();
    let title: String = title.join(" ").chars().take(120).collect();
    (!title.is_empty()).then_some(title)
}

/// `e`'s message with `prefix` in front, same kind.
pub fn prefixed(e: CloudError, prefix: &str) -> CloudError {
    CloudError {
        message: format!("{prefix}{}", e.message),
        kind: e.kind,
    }
}
